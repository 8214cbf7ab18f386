package physics

import (
	"math/rand/v2"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
)

// The test city: a grid of blocks BlockPitch apart, a road centred on every
// multiple of the pitch (two lanes each way), pavements along the roads,
// and four buildings on each block (one an octagon). Cars cruise in their
// lanes, keeping to them with a simple steering law, and people walk the
// pavements; both wrap round at the city's edge, and at the crossings they
// meet the cross traffic, as in a city.
const (
	blockPitch   = 80
	roadHalf     = 12
	bodiesPerBlk = 20
	cruiseSpeed  = 12
)

type route struct {
	axis  uint8   // 0: along X, 1: along Y
	line  float32 // the lane's or pavement's coordinate across the axis
	dir   float32 // +1 or -1 along the axis
	car   bool
	model uint8
}

type city struct {
	st     *Static
	b      Bodies
	drive  []components.Drive
	routes []route
	span   float32 // road length between wraps
	lo     float32 // where a wrapped body comes back in
}

// newCity builds a city for about n bodies, half cars, half people.
func newCity(n int, seed uint64) *city {
	nb := 1
	for nb*nb*bodiesPerBlk < n {
		nb++
	}
	size := float32(nb * blockPitch)
	c := &city{span: size + 2*roadHalf - 4, lo: -roadHalf + 2}
	var polys []Polygon
	for by := 0; by < nb; by++ {
		for bx := 0; bx < nb; bx++ {
			x0 := float32(bx*blockPitch + roadHalf)
			y0 := float32(by*blockPitch + roadHalf)
			inner := float32(blockPitch - 2*roadHalf) // 56 m of block
			h := (inner - 4) / 4                      // four buildings, 4 m alleys
			for q := 0; q < 4; q++ {
				cx := x0 + h + float32(q%2)*(2*h+4)
				cy := y0 + h + float32(q/2)*(2*h+4)
				if q == 3 {
					polys = append(polys, octagon(Vec{cx, cy}, h, 20))
					continue
				}
				polys = append(polys, BoxPolygon(Vec{cx, cy}, h, h, 0, 20))
			}
		}
	}
	bounds := Rect{Min: Vec{-roadHalf - 2, -roadHalf - 2}, Max: Vec{size + roadHalf + 2, size + roadHalf + 2}}
	st, err := NewStatic(polys, bounds, 0)
	if err != nil {
		panic(err)
	}
	c.st = st

	// Slots: lanes at ±2 and ±6 m of each road's centre, pavements at
	// ±10.5 m, 12 m apart along them.
	type slot struct {
		r   route
		pos float32
	}
	var cars, people []slot
	for k := 0; k <= nb; k++ {
		centre := float32(k * blockPitch)
		for axis := uint8(0); axis < 2; axis++ {
			for _, off := range []float32{-6, -2, 2, 6} {
				dir := float32(1)
				if off > 0 {
					dir = -1
				}
				if axis == 1 {
					dir = -dir
				}
				for p := c.lo; p < c.lo+c.span-6; p += 12 {
					cars = append(cars, slot{route{axis: axis, line: centre + off, dir: dir, car: true}, p})
				}
			}
			for _, off := range []float32{-10.5, 10.5} {
				for p := c.lo; p < c.lo+c.span-3; p += 6 {
					people = append(people, slot{route{axis: axis, line: centre + off}, p})
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	rng.Shuffle(len(cars), func(i, j int) { cars[i], cars[j] = cars[j], cars[i] })
	rng.Shuffle(len(people), func(i, j int) { people[i], people[j] = people[j], people[i] })
	for i := 0; i < n; i++ {
		var sl slot
		var body components.Body
		yaw := float32(0)
		speed := float32(0)
		if i%2 == 0 && len(cars) > 0 {
			sl, cars = cars[0], cars[1:]
			sl.r.model = uint8(rng.IntN(int(ModelPolice) + 1))
			body = CarModel(sl.r.model).Body()
			speed = cruiseSpeed
		} else {
			sl, people = people[0], people[1:]
			if rng.IntN(2) == 0 {
				sl.r.dir = 1
			} else {
				sl.r.dir = -1
			}
			body = DefaultWalker.Body()
			speed = DefaultWalker.WalkSpeed
		}
		yaw = routeYaw(sl.r)
		pos := components.Vec3{X: sl.pos, Y: sl.r.line}
		if sl.r.axis == 1 {
			pos = components.Vec3{X: sl.r.line, Y: sl.pos}
		}
		s, co := math32.Sincos(yaw)
		vel := components.Velocity{Lin: components.Vec3{X: co * speed, Y: s * speed}}
		c.b.Add(components.Pose{Pos: pos, Rot: components.YawQuat(yaw)}, vel, &body)
		c.routes = append(c.routes, sl.r)
		c.drive = append(c.drive, components.Drive{})
	}
	return c
}

func octagon(c Vec, r, h float32) Polygon {
	pts := make([]Vec, 8)
	for i := range pts {
		s, co := math32.Sincos(float32(i)*math32.Pi/4 + math32.Pi/8)
		pts[i] = Vec{c.X + co*r, c.Y + s*r}
	}
	return Polygon{Points: pts, Height: h}
}

func routeYaw(r route) float32 {
	switch {
	case r.axis == 0 && r.dir > 0:
		return 0
	case r.axis == 0:
		return math32.Pi
	case r.dir > 0:
		return math32.Pi / 2
	}
	return -math32.Pi / 2
}

// steer writes every body's Drive: cars hold their lane and cruise speed,
// people walk along their pavement.
func (c *city) steer() {
	for i := range c.b.List {
		bd := &c.b.List[i]
		r := &c.routes[i]
		d := &c.drive[i]
		across := bd.Pose.Pos.Y
		if r.axis == 1 {
			across = bd.Pose.Pos.X
		}
		// left of the direction of travel is +across for +X and -Y travel.
		left := r.dir
		if r.axis == 1 {
			left = -r.dir
		}
		errLeft := (r.line - across) * left
		yaw := routeYaw(*r)
		if !r.car {
			d.MoveY = 1
			d.LookYaw = yaw + clamp(errLeft*0.3, -0.5, 0.5)
			continue
		}
		co, si := bd.Pose.Rot.Heading()
		wy, wx := math32.Sincos(yaw)
		headErr := co*wx + si*wy // cos of the heading error
		sinErr := co*wy - si*wx  // sin of the error: >0 when the lane heads left of us
		fwd := bd.Vel.Lin.X*co + bd.Vel.Lin.Y*si
		d.Steer = clamp(1.5*sinErr+0.08*errLeft, -1, 1)
		d.Throttle, d.Brake = 0, 0
		switch {
		case headErr < 0: // facing the wrong way after a crash: back round
			d.Steer = 1
			d.Throttle = 0.5
		case fwd < cruiseSpeed:
			d.Throttle = 1
		case fwd > cruiseSpeed+2:
			d.Brake = 0.3
		}
	}
}

// drive runs the models for every body.
func (c *city) driveAll(dt float32) {
	for i := range c.b.List {
		bd := &c.b.List[i]
		if c.routes[i].car {
			DriveCar(&bd.Pose, &bd.Vel, &c.drive[i], CarModel(c.routes[i].model), dt)
		} else {
			DriveWalker(&bd.Pose, &bd.Vel, &c.drive[i], &DefaultWalker, dt)
		}
	}
}

// wrap brings a body that ran off the end of its road back in at the
// other end.
func (c *city) wrap() {
	hi := c.lo + c.span
	for i := range c.b.List {
		p := &c.b.List[i].Pose.Pos
		v := &p.X
		if c.routes[i].axis == 1 {
			v = &p.Y
		}
		if *v > hi {
			*v -= c.span
		} else if *v < c.lo {
			*v += c.span
		}
	}
}

// tick is one whole physics tick of the city: inputs, models, step.
func (c *city) tick(s *Scratch) {
	c.steer()
	c.driveAll(Dt)
	Step(c.st, &c.b, s, Dt)
	c.wrap()
}

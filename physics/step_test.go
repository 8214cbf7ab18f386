package physics

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
)

// Tolerances of the step tests. Slop is left on purpose; a little more is
// the solver's convergence in a few iterations.
const (
	maxOverlap   = 0.05 // m a body may sink into a wall or another body
	momentumTol  = 1e-3 // relative
	openBounds   = 1000
	simTwoSecond = 120
)

func openStatic(t testing.TB, polys ...Polygon) *Static {
	t.Helper()
	st, err := NewStatic(polys, Rect{Min: Vec{-openBounds, -openBounds}, Max: Vec{openBounds, openBounds}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func addCar(b *Bodies, model uint8, pos Vec, yaw, speed float32) int32 {
	body := CarModel(model).Body()
	s, c := math32.Sincos(yaw)
	return b.Add(components.Pose{Pos: components.Vec3{X: pos.X, Y: pos.Y}, Rot: components.YawQuat(yaw)},
		components.Velocity{Lin: components.Vec3{X: c * speed, Y: s * speed}}, &body)
}

func addPerson(b *Bodies, pos Vec) int32 {
	body := DefaultWalker.Body()
	return b.Add(components.Pose{Pos: components.Vec3{X: pos.X, Y: pos.Y}, Rot: components.NoRotation},
		components.Velocity{}, &body)
}

// hullOf returns a box body's corners and normals.
func hullOf(b *Body) (v, n [4]Vec) {
	c, s := b.Pose.Rot.Heading()
	boxHull(Flat(b.Pose.Pos), c, s, b.HalfX, b.HalfY, &v, &n)
	return
}

// depth returns how deep two bodies overlap (0 when apart).
func depth(a, b *Body) float32 {
	var m manifold
	var ok bool
	switch {
	case a.Shape == components.ShapeCircle && b.Shape == components.ShapeCircle:
		m, ok = collideCircles(Flat(a.Pose.Pos), a.Radius, Flat(b.Pose.Pos), b.Radius, 0)
	case a.Shape == components.ShapeCircle:
		return depth(b, a)
	case b.Shape == components.ShapeCircle:
		v, n := hullOf(a)
		m, ok = collidePolygonCircle(v[:], n[:], Flat(b.Pose.Pos), b.Radius, 0)
	default:
		va, na := hullOf(a)
		vb, nb := hullOf(b)
		m, ok = collidePolygons(va[:], na[:], vb[:], nb[:], 0)
	}
	if !ok {
		return 0
	}
	d := float32(0)
	for k := int32(0); k < m.count; k++ {
		d = max32(d, -m.sep[k])
	}
	return d
}

// staticDepth returns how deep a body sinks into any of st's polygons.
func staticDepth(st *Static, a *Body) float32 {
	d := float32(0)
	for pi := range st.polys {
		v, n := st.polyVerts(int32(pi))
		var m manifold
		var ok bool
		if a.Shape == components.ShapeCircle {
			m, ok = collidePolygonCircle(v, n, Flat(a.Pose.Pos), a.Radius, 0)
		} else {
			hv, hn := hullOf(a)
			m, ok = collidePolygons(hv[:], hn[:], v, n, 0)
		}
		for k := int32(0); ok && k < m.count; k++ {
			d = max32(d, -m.sep[k])
		}
	}
	return d
}

func momentum(b *Bodies) (p Vec) {
	for i := range b.List {
		if bd := &b.List[i]; bd.InvMass > 0 {
			p = p.Add(Flat(bd.Vel.Lin).Scale(1 / bd.InvMass))
		}
	}
	return p
}

func kinetic(b *Bodies) float64 {
	var e float64
	for i := range b.List {
		bd := &b.List[i]
		if bd.InvMass > 0 {
			v := Flat(bd.Vel.Lin)
			e += 0.5 * float64(v.Dot(v)/bd.InvMass)
		}
		if bd.InvInertia > 0 {
			e += 0.5 * float64(bd.Vel.Ang.Z*bd.Vel.Ang.Z/bd.InvInertia)
		}
	}
	return e
}

func TestCarIntoBuildingStopsAtWall(t *testing.T) {
	// A building whose west wall is x = 30.
	st := openStatic(t, BoxPolygon(Vec{60, 0}, 30, 30, 0, 10))
	for _, tc := range []struct {
		name  string
		model uint8
		speed float32
		yaw   float32
	}{
		{"slow head-on", ModelSedan, 5, 0},
		{"city speed head-on", ModelSedan, 20, 0},
		{"flat out head-on", ModelSports, 60, 0},
		{"truck head-on", ModelTruck, 28, 0},
		{"oblique", ModelSedan, 25, 0.5},
		{"glancing", ModelPolice, 40, 1.2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b Bodies
			var s Scratch
			spec := CarModel(tc.model)
			s0, c0 := math32.Sincos(tc.yaw)
			start := Vec{30 - 3 - 20*c0, -20 * s0} // 20 m out along its heading
			car := addCar(&b, tc.model, start, tc.yaw, tc.speed)
			in := components.Drive{Throttle: 1}
			var hit *Hit
			var hitImpulse float32
			for k := 0; k < 3*60; k++ {
				bd := &b.List[car]
				DriveCar(&bd.Pose, &bd.Vel, &in, spec, Dt)
				Step(st, &b, &s, Dt)
				if d := staticDepth(st, &b.List[car]); d > maxOverlap {
					t.Fatalf("tick %d: %v m inside the building", k, d)
				}
				for h := range s.Hits {
					if hit == nil && s.Hits[h].B == StaticBody {
						hc := s.Hits[h]
						hit = &hc
					}
					hitImpulse += s.Hits[h].Impulse
				}
			}
			bd := &b.List[car]
			if hit == nil {
				t.Fatal("no hit reported")
			}
			if hit.A != car || hit.Normal.X < 0.99 {
				t.Errorf("hit %+v, want the car against a wall facing +x", hit)
			}
			if math32.Abs(tc.yaw) < 0.1 {
				// Head-on: at rest against the wall, the impact's impulse
				// is at least the car's momentum.
				v, _ := hullOf(bd)
				front := max32(max32(v[0].X, v[1].X), max32(v[2].X, v[3].X))
				if front < 30-0.1 || front > 30+Slop {
					t.Errorf("front at x %v, want at the wall (30)", front)
				}
				// The throttle adds Accel*dt per tick, which may close what
				// is left of a gap under a millimetre, and no more.
				if bd.Vel.Lin.X > spec.Accel*Dt {
					t.Errorf("still moving into the wall at %v", bd.Vel.Lin.X)
				}
				if p := tc.speed * spec.Mass; hit.Impulse < 0.9*p {
					t.Errorf("impact impulse %v, want about the momentum %v", hit.Impulse, p)
				}
				if hit.Speed < tc.speed*0.95 {
					t.Errorf("impact speed %v, want about %v", hit.Speed, tc.speed)
				}
			}
		})
	}
}

func TestCarsHeadOn(t *testing.T) {
	for _, tc := range []struct {
		name     string
		ma, mb   uint8
		va, vb   float32
		offset   float32 // sideways, m: off-centre impacts spin them
		theoryOK bool    // straight impact: check the velocities against theory
	}{
		{"equal", ModelSedan, ModelSedan, 15, -15, 0, true},
		{"heavy and light", ModelTruck, ModelCompact, 10, -20, 0, true},
		{"into a parked car", ModelVan, ModelSedan, 20, 0, 0, true},
		{"off-centre", ModelSedan, ModelPolice, 18, -12, 1.2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b Bodies
			var s Scratch
			a := addCar(&b, tc.ma, Vec{-8, 0}, 0, tc.va)
			c := addCar(&b, tc.mb, Vec{8, tc.offset}, math32.Pi, -tc.vb)
			p0 := momentum(&b)
			e0 := kinetic(&b)
			for k := 0; k < 2*simTwoSecond; k++ {
				Step(nil, &b, &s, Dt)
				p := momentum(&b)
				if d := p.Sub(p0).Len(); d > momentumTol*Flat(components.Vec3{X: p0.Len() + 1e3}).Len() {
					t.Fatalf("tick %d: momentum %v, was %v", k, p, p0)
				}
				if e := kinetic(&b); e > e0*1.0001 {
					t.Fatalf("tick %d: energy rose from %v to %v", k, e0, e)
				}
			}
			A, C := &b.List[a], &b.List[c]
			if d := depth(A, C); d > Slop+0.005 {
				t.Errorf("still %v m inside each other", d)
			}
			if rel := C.Vel.Lin.X - A.Vel.Lin.X; rel < 0 {
				t.Errorf("still closing at %v", rel)
			}
			if tc.theoryOK {
				ma, mb := CarModel(tc.ma).Mass, CarModel(tc.mb).Mass
				e := max32(CarModel(tc.ma).Restitution, CarModel(tc.mb).Restitution)
				wantA := (ma*tc.va + mb*tc.vb + mb*e*(tc.vb-tc.va)) / (ma + mb)
				wantC := (ma*tc.va + mb*tc.vb + ma*e*(tc.va-tc.vb)) / (ma + mb)
				if abs32(A.Vel.Lin.X-wantA) > 0.03*abs32(tc.va-tc.vb) || abs32(C.Vel.Lin.X-wantC) > 0.03*abs32(tc.va-tc.vb) {
					t.Errorf("after: %v and %v, theory %v and %v", A.Vel.Lin.X, C.Vel.Lin.X, wantA, wantC)
				}
				if abs32(A.Vel.Lin.Y)+abs32(C.Vel.Lin.Y)+abs32(A.Vel.Ang.Z)+abs32(C.Vel.Ang.Z) > 1e-3 {
					t.Errorf("a straight impact turned them: %+v %+v", A.Vel, C.Vel)
				}
			} else if A.Vel.Ang.Z == 0 || C.Vel.Ang.Z == 0 {
				t.Error("an off-centre impact did not spin them")
			}
		})
	}
}

func TestCarPushesPerson(t *testing.T) {
	var b Bodies
	var s Scratch
	spec := CarModel(ModelSedan)
	car := addCar(&b, ModelSedan, Vec{-5, 0}, 0, 6)
	who := addPerson(&b, Vec{0, 0.3})
	drive := components.Drive{Throttle: 0.4}
	stand := components.Drive{}
	var maxDepth float32
	for k := 0; k < simTwoSecond; k++ {
		c, p := &b.List[car], &b.List[who]
		DriveCar(&c.Pose, &c.Vel, &drive, spec, Dt)
		DriveWalker(&p.Pose, &p.Vel, &stand, &DefaultWalker, Dt)
		Step(nil, &b, &s, Dt)
		maxDepth = max32(maxDepth, depth(&b.List[car], &b.List[who]))
	}
	if moved := b.List[who].Pose.Pos.X; moved < 5 {
		t.Errorf("the person moved %v m, want pushed along ahead of the car", moved)
	}
	if maxDepth > maxOverlap {
		t.Errorf("the car went %v m into the person", maxDepth)
	}
}

func TestCarPinsPersonAgainstBuildingNotThrough(t *testing.T) {
	// The wall is x = 10; the person stands a metre before it, the car
	// comes at them at full throttle.
	st := openStatic(t, BoxPolygon(Vec{20, 0}, 10, 10, 0, 10))
	for _, tc := range []struct {
		name  string
		model uint8
		y     float32
	}{
		{"sedan, square on", ModelSedan, 0},
		{"truck, square on", ModelTruck, 0},
		{"sedan, at the corner of its bumper", ModelSedan, 0.8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b Bodies
			var s Scratch
			spec := CarModel(tc.model)
			car := addCar(&b, tc.model, Vec{0, tc.y}, 0, 8)
			who := addPerson(&b, Vec{9, 0})
			drive := components.Drive{Throttle: 1}
			walk := components.Drive{MoveY: -1} // trying to get away, backwards into the wall
			for k := 0; k < 3*60; k++ {
				c, p := &b.List[car], &b.List[who]
				DriveCar(&c.Pose, &c.Vel, &drive, spec, Dt)
				DriveWalker(&p.Pose, &p.Vel, &walk, &DefaultWalker, Dt)
				Step(st, &b, &s, Dt)
				if d := staticDepth(st, &b.List[who]); d > maxOverlap {
					t.Fatalf("tick %d: the person is %v m inside the building", k, d)
				}
				if d := staticDepth(st, &b.List[car]); d > maxOverlap {
					t.Fatalf("tick %d: the car is %v m inside the building", k, d)
				}
			}
			if x := b.List[who].Pose.Pos.X; x > 10-DefaultWalker.Radius+maxOverlap {
				t.Errorf("the person's centre is at x %v, past the wall", x)
			}
		})
	}
}

// newPile is a 40 m yard walled in by the level's edge with 150 bodies
// dropped on top of each other in its middle 16 m square: every third one
// a car of a random model, the rest people, all moving.
func newPile() (*Static, Bodies, error) {
	var b Bodies
	st, err := NewStatic(nil, Rect{Max: Vec{40, 40}}, 0)
	if err != nil {
		return nil, b, err
	}
	rng := rand.New(rand.NewPCG(5, 5))
	for i := 0; i < 150; i++ {
		p := Vec{12 + rng.Float32()*16, 12 + rng.Float32()*16}
		if i%3 == 0 {
			id := addCar(&b, uint8(rng.IntN(int(ModelPolice)+1)), p, rng.Float32()*6, 0)
			b.List[id].Vel.Lin = components.Vec3{X: rng.Float32()*4 - 2, Y: rng.Float32()*4 - 2}
		} else {
			id := addPerson(&b, p)
			b.List[id].Vel.Lin = components.Vec3{X: rng.Float32()*2 - 1, Y: rng.Float32()*2 - 1}
		}
	}
	return st, b, nil
}

func TestPileDoesNotExplode(t *testing.T) {
	// 150 cars and people dropped on top of each other in a 16 m square,
	// walled in a 40 m yard: they must part without gaining energy.
	st, b, err := newPile()
	if err != nil {
		t.Fatal(err)
	}
	var s Scratch
	e0 := kinetic(&b)
	var eMax float64
	for k := 0; k < 10*60; k++ {
		Step(st, &b, &s, Dt)
		e := kinetic(&b)
		eMax = math.Max(eMax, e)
		if e > e0*1.05 {
			t.Fatalf("tick %d: kinetic energy %v, started at %v", k, e, e0)
		}
	}
	var worst float32
	for i := range b.List {
		bd := &b.List[i]
		if !finite(bd.Pose.Pos.X+bd.Pose.Pos.Y) || !st.Bounds.contains(Flat(bd.Pose.Pos)) {
			t.Fatalf("body %d at %v: thrown out", i, bd.Pose.Pos)
		}
		for j := i + 1; j < len(b.List); j++ {
			worst = max32(worst, depth(bd, &b.List[j]))
		}
	}
	// The yard holds them all: 50 cars (about 8 m² each) and 100 people
	// need about 450 m² of its 1600; they spread out and settle.
	if worst > 0.1 {
		t.Errorf("after 10 s the deepest overlap is %v m", worst)
	}
	t.Logf("kinetic energy: start %.0f J, peak %.0f J, end %.0f J; deepest overlap %.3f m", e0, eMax, kinetic(&b), worst)
}

func (r Rect) contains(p Vec) bool {
	return p.X >= r.Min.X && p.X <= r.Max.X && p.Y >= r.Min.Y && p.Y <= r.Max.Y
}

func TestStepDeterministic(t *testing.T) {
	steps := 3600
	if testing.Short() {
		steps = 600
	}
	run := func(s *Scratch) *city {
		c := newCity(400, 9)
		for k := 0; k < steps; k++ {
			c.tick(s)
		}
		return c
	}
	var fresh Scratch
	a := run(&fresh)
	// The second run reuses a scratch dirtied by another world first: no
	// state may carry over from one step to the next.
	var dirty Scratch
	other := newCity(900, 4)
	for k := 0; k < 50; k++ {
		other.tick(&dirty)
	}
	b := run(&dirty)
	for i := range a.b.List {
		if !sameBits(&a.b.List[i], &b.b.List[i]) {
			t.Fatalf("after %d steps body %d differs: %+v vs %+v", steps, i, a.b.List[i], b.b.List[i])
		}
	}
	if len(fresh.Hits) != len(dirty.Hits) {
		t.Fatalf("hits differ: %d vs %d", len(fresh.Hits), len(dirty.Hits))
	}
	for k := range fresh.Hits {
		if fresh.Hits[k] != dirty.Hits[k] {
			t.Fatalf("hit %d differs: %+v vs %+v", k, fresh.Hits[k], dirty.Hits[k])
		}
	}
	if len(fresh.Hits) == 0 {
		t.Error("no hits in the last step: the test city collides nothing")
	}
}

func sameBits(a, b *Body) bool {
	fa := []float32{a.Pose.Pos.X, a.Pose.Pos.Y, a.Pose.Pos.Z, a.Pose.Rot.X, a.Pose.Rot.Y, a.Pose.Rot.Z, a.Pose.Rot.W,
		a.Vel.Lin.X, a.Vel.Lin.Y, a.Vel.Lin.Z, a.Vel.Ang.X, a.Vel.Ang.Y, a.Vel.Ang.Z}
	fb := []float32{b.Pose.Pos.X, b.Pose.Pos.Y, b.Pose.Pos.Z, b.Pose.Rot.X, b.Pose.Rot.Y, b.Pose.Rot.Z, b.Pose.Rot.W,
		b.Vel.Lin.X, b.Vel.Lin.Y, b.Vel.Lin.Z, b.Vel.Ang.X, b.Vel.Ang.Y, b.Vel.Ang.Z}
	for k := range fa {
		if math.Float32bits(fa[k]) != math.Float32bits(fb[k]) {
			return false
		}
	}
	return true
}

func TestStepAllocatesNothing(t *testing.T) {
	c := newCity(1000, 2)
	var s Scratch
	for k := 0; k < 120; k++ {
		c.tick(&s)
	}
	moving := 0
	for i := range c.b.List {
		if Flat(c.b.List[i].Vel.Lin).Len() > 1 {
			moving++
		}
	}
	if moving < 900 {
		t.Fatalf("only %d of 1000 bodies moving", moving)
	}
	if allocs := testing.AllocsPerRun(300, func() { c.tick(&s) }); allocs != 0 {
		t.Errorf("%v allocations per step", allocs)
	}
	if s.Stats.Contacts == 0 {
		t.Error("no contacts: the allocation test exercised no solver")
	}
}

func TestLayersFilterPairs(t *testing.T) {
	for _, tc := range []struct {
		name       string
		carLayer   uint16
		carMask    uint16
		personMask uint16
		collide    bool
	}{
		{"car and person", components.LayerVehicle, 0xFFFF, 0xFFFF, true},
		{"ghost car passes people", components.LayerGhost, ^components.LayerPerson, 0xFFFF, false},
		{"person ignoring vehicles", components.LayerVehicle, 0xFFFF, ^components.LayerVehicle, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b Bodies
			var s Scratch
			car := addCar(&b, ModelSedan, Vec{-4, 0}, 0, 10)
			b.List[car].Layer, b.List[car].Mask = tc.carLayer, tc.carMask
			who := addPerson(&b, Vec{0, 0})
			b.List[who].Mask = tc.personMask
			hits := 0
			for k := 0; k < 60; k++ {
				Step(nil, &b, &s, Dt)
				hits += len(s.Hits)
			}
			pushed := b.List[who].Pose.Pos.X > 0.5
			if pushed != tc.collide || (hits > 0) != tc.collide {
				t.Errorf("pushed %v after %d hits, want collision %v", pushed, hits, tc.collide)
			}
		})
	}
}

func TestImmovableGate(t *testing.T) {
	var b Bodies
	var s Scratch
	gate := b.Add(components.Pose{Pos: components.Vec3{X: 10}, Rot: components.YawQuat(math32.Pi / 2)}, components.Velocity{},
		&components.Body{Shape: components.ShapeBox, HalfX: 4, HalfY: 0.2, Layer: components.LayerProp, Mask: 0xFFFF, Friction: 0.5})
	car := addCar(&b, ModelSedan, Vec{0, 0}, 0, 20)
	start := b.List[gate].Pose
	var hit bool
	for k := 0; k < 120; k++ {
		Step(nil, &b, &s, Dt)
		for _, h := range s.Hits {
			if h.A == gate && h.B == car {
				hit = true
			}
		}
		if d := depth(&b.List[gate], &b.List[car]); d > maxOverlap {
			t.Fatalf("tick %d: the car is %v m into the gate", k, d)
		}
	}
	if b.List[gate].Pose != start {
		t.Errorf("the gate moved: %+v", b.List[gate].Pose)
	}
	if !hit {
		t.Error("no hit of the car on the gate")
	}
	if b.List[car].Vel.Lin.X > 0.01 {
		t.Errorf("the car goes on at %v", b.List[car].Vel.Lin.X)
	}
}

func TestHitchTowsTrailer(t *testing.T) {
	var b Bodies
	var s Scratch
	spec, tspec := CarModel(ModelTruck), CarModel(ModelTrailer)
	length := spec.HalfX + tspec.HalfX + 1
	car := addCar(&b, ModelTruck, Vec{0, 0}, 0, 0)
	tr := addCar(&b, ModelTrailer, Vec{-length, 0}, 0, 0)
	b.AddHitch(car, tr, length)
	in := components.Drive{Throttle: 0.6}
	var maxGap float32
	for k := 0; k < 20*60; k++ {
		if k == 4*60 {
			in.Steer = 0.7 // round in a circle
		}
		c, r := &b.List[car], &b.List[tr]
		DriveCar(&c.Pose, &c.Vel, &in, spec, Dt)
		DriveTrailer(&r.Pose, &r.Vel, tspec, Dt)
		Step(nil, &b, &s, Dt)
		for _, h := range s.Hits {
			if h.A == car && h.B == tr {
				t.Fatalf("tick %d: the tractor hit its own trailer", k)
			}
		}
		c, r = &b.List[car], &b.List[tr]
		h := b.Hitches[0]
		cc, cs := c.Pose.Rot.Heading()
		rc, rs := r.Pose.Rot.Heading()
		pa := Flat(c.Pose.Pos).Add(Vec{cc*h.AnchorA.X - cs*h.AnchorA.Y, cs*h.AnchorA.X + cc*h.AnchorA.Y})
		pb := Flat(r.Pose.Pos).Add(Vec{rc*h.AnchorB.X - rs*h.AnchorB.Y, rs*h.AnchorB.X + rc*h.AnchorB.Y})
		maxGap = max32(maxGap, pa.Sub(pb).Len())
	}
	if maxGap > 0.05 {
		t.Errorf("the hitch came %v m apart", maxGap)
	}
	c, r := &b.List[car], &b.List[tr]
	if sp := Flat(r.Vel.Lin).Len(); sp < 3 {
		t.Errorf("the trailer moves at %v, not towed", sp)
	}
	// Going round, the trailer turns with the truck, trailing inside it.
	if d := angleDiff(c.Pose.Rot.Yaw(), r.Pose.Rot.Yaw()); d > 1 {
		t.Errorf("the trailer is %v rad off the truck's heading", d)
	}
	if abs32(r.Vel.Ang.Z-c.Vel.Ang.Z) > 0.1 {
		t.Errorf("yaw rates %v and %v: the pair is not turning together", c.Vel.Ang.Z, r.Vel.Ang.Z)
	}
}

func TestNonFiniteBodyIsIsolated(t *testing.T) {
	st := openStatic(t, BoxPolygon(Vec{5, 0}, 1, 1, 0, 3))
	var b Bodies
	var s Scratch
	bad := addCar(&b, ModelSedan, Vec{0, 0}, 0, 5)
	b.List[bad].Pose.Pos.X = nan32()
	good := addCar(&b, ModelSedan, Vec{0, 0}, 0, 5)
	huge := addCar(&b, ModelSedan, Vec{1e30, -1e30}, 0, 0)
	b.List[huge].Vel.Lin = components.Vec3{X: 3e38, Y: -3e38}
	for k := 0; k < 60; k++ {
		Step(st, &b, &s, Dt)
	}
	g := &b.List[good]
	if !finite(g.Pose.Pos.X + g.Pose.Pos.Y + g.Vel.Lin.X + g.Vel.Lin.Y + g.Vel.Ang.Z) {
		t.Errorf("the good body caught the NaN: %+v", g)
	}
	if v := b.List[bad].Vel; v != (components.Velocity{}) {
		t.Errorf("the bad body was not stopped: %+v", v)
	}
}

func TestLevelEdgeWallsBodiesIn(t *testing.T) {
	st, err := NewStatic(nil, Rect{Max: Vec{50, 50}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	var b Bodies
	var s Scratch
	for k, yaw := range []float32{0, 1.6, 3.1, -1.5, 0.8} {
		addCar(&b, ModelSports, Vec{25 + float32(k), 25 + float32(k)*3}, yaw, 50)
		addPerson(&b, Vec{10 + float32(k)*6, 40})
		b.List[len(b.List)-1].Vel.Lin = components.Vec3{X: -30 + float32(k)*15, Y: 20}
	}
	for k := 0; k < 4*60; k++ {
		Step(st, &b, &s, Dt)
		for i := range b.List {
			bd := &b.List[i]
			if bd.Pose.Pos.Z != 2 {
				t.Fatalf("z %v not pinned to the ground", bd.Pose.Pos.Z)
			}
			v := [4]Vec{Flat(bd.Pose.Pos), Flat(bd.Pose.Pos), Flat(bd.Pose.Pos), Flat(bd.Pose.Pos)}
			r := bd.Radius
			if bd.Shape == components.ShapeBox {
				v, _ = hullOf(bd)
				r = 0
			}
			for _, p := range v {
				if p.X-r < -maxOverlap || p.Y-r < -maxOverlap || p.X+r > 50+maxOverlap || p.Y+r > 50+maxOverlap {
					t.Fatalf("tick %d: body %d reaches %v, out of the level", k, i, p)
				}
			}
		}
	}
}

func TestHitsInPairOrder(t *testing.T) {
	c := newCity(1000, 6)
	var s Scratch
	for k := 0; k < 600; k++ {
		c.tick(&s)
		static := false
		for h := range s.Hits {
			cur := s.Hits[h]
			if cur.B == StaticBody {
				if h > 0 && static && s.Hits[h-1].A > cur.A {
					t.Fatalf("static hits out of order: %+v then %+v", s.Hits[h-1], cur)
				}
				static = true
				continue
			}
			if static {
				t.Fatalf("a dynamic hit %+v after the static ones", cur)
			}
			if cur.A >= cur.B {
				t.Fatalf("hit %+v: want A < B", cur)
			}
			if h > 0 {
				prev := s.Hits[h-1]
				if prev.A > cur.A || (prev.A == cur.A && prev.B >= cur.B) {
					t.Fatalf("hits out of order: %+v then %+v", prev, cur)
				}
			}
			if !(cur.Impulse > 0) {
				t.Fatalf("hit %+v with no impulse", cur)
			}
		}
	}
}

// mayhem is a yard of five buildings in an 80 m square with 120 bodies,
// every other one a car of a random model, the rest people, each on a new
// whim (throttle, steering, a heading, the handbrake now and then) twice a
// second.
type mayhem struct {
	st     *Static
	b      Bodies
	s      Scratch
	rng    *rand.Rand
	drives []components.Drive
	cars   []bool
	models []uint8
}

func newMayhem(seed uint64) (*mayhem, error) {
	m := &mayhem{rng: rand.New(rand.NewPCG(seed, 11))}
	st, err := NewStatic([]Polygon{
		BoxPolygon(Vec{20, 20}, 8, 6, 0, 10),
		BoxPolygon(Vec{60, 20}, 5, 10, 0.4, 10),
		BoxPolygon(Vec{20, 60}, 10, 3, -0.3, 10),
		octagon(Vec{60, 60}, 7, 10),
		{Points: []Vec{{38, 38}, {44, 40}, {40, 44}}, Height: 3},
	}, Rect{Max: Vec{80, 80}}, 0)
	if err != nil {
		return nil, err
	}
	m.st = st
	rng := m.rng
	for len(m.b.List) < 120 {
		p := Vec{rng.Float32() * 80, rng.Float32() * 80}
		if st.Overlaps(p, 4.1) { // a truck's bounding circle
			continue
		}
		car := len(m.b.List)%2 == 0
		model := uint8(rng.IntN(int(ModelPolice) + 1))
		m.models = append(m.models, model)
		if car {
			addCar(&m.b, model, p, rng.Float32()*6.3, rng.Float32()*30)
		} else {
			addPerson(&m.b, p)
		}
		m.cars = append(m.cars, car)
		m.drives = append(m.drives, components.Drive{})
	}
	return m, nil
}

// drive runs the driving models of tick k (new whims every 30th tick), not
// the step.
func (m *mayhem) drive(k int) {
	if k%30 == 0 {
		for i := range m.drives {
			m.drives[i] = components.Drive{
				Throttle: m.rng.Float32(), Steer: m.rng.Float32()*2 - 1, MoveY: 1,
				LookYaw: m.rng.Float32() * 6.3, Held: components.BtnSprint,
			}
			if m.rng.IntN(4) == 0 {
				m.drives[i].Held |= components.BtnHandbrake
			}
		}
	}
	for i := range m.b.List {
		bd := &m.b.List[i]
		if m.cars[i] {
			DriveCar(&bd.Pose, &bd.Vel, &m.drives[i], CarModel(m.models[i]), Dt)
		} else {
			DriveWalker(&bd.Pose, &bd.Vel, &m.drives[i], &DefaultWalker, Dt)
		}
	}
}

func TestMayhemNeverInsideBuildings(t *testing.T) {
	seeds := []uint64{1, 2, 3, 4}
	if testing.Short() {
		seeds = seeds[:1]
	}
	for _, seed := range seeds {
		m, err := newMayhem(seed)
		if err != nil {
			t.Fatal(err)
		}
		st, b := m.st, &m.b
		var worst float32
		for k := 0; k < 10*60; k++ {
			m.drive(k)
			Step(st, b, &m.s, Dt)
			for i := range b.List {
				d := staticDepth(st, &b.List[i])
				if d > maxOverlap {
					t.Fatalf("seed %d tick %d: body %d is %v m inside a building", seed, k, i, d)
				}
				worst = max32(worst, d)
				if p := Flat(b.List[i].Pose.Pos); !(p.X > -0.5 && p.X < 80.5 && p.Y > -0.5 && p.Y < 80.5) {
					t.Fatalf("seed %d tick %d: body %d at %v, out of the level", seed, k, i, p)
				}
			}
		}
		t.Logf("seed %d: deepest into a building %.3f m", seed, worst)
	}
}

func TestBodyLiteralCollidesWithBodyZero(t *testing.T) {
	// An adapter may build a Body by hand; its zero NoCollide is "none",
	// not "body 0".
	var b Bodies
	var s Scratch
	who := addPerson(&b, Vec{0, 0})
	b.List = append(b.List, Body{
		Pose:  components.Pose{Pos: components.Vec3{X: -3}, Rot: components.NoRotation},
		Vel:   components.Velocity{Lin: components.Vec3{X: 8}},
		HalfX: 2, HalfY: 1, InvMass: 1.0 / 1200, InvInertia: 3 / (1200 * 5.0),
		Layer: components.LayerVehicle, Mask: 0xFFFF, Friction: 0.5,
	})
	for k := 0; k < 60; k++ {
		Step(nil, &b, &s, Dt)
	}
	if x := b.List[who].Pose.Pos.X; x < 1 {
		t.Errorf("the person at body 0 was not pushed: x %v", x)
	}
}

// Package motion is the physics step as an ECS system: every tick it builds
// the step's world from the components (Unity Physics style: a body is its
// Pose, Velocity and Body, not an object kept inside an engine), runs the
// vehicle and walking models on each body's Drive, steps the collision
// solver of package physics and writes Pose and Velocity back. It then
// carries every seated person along with their vehicle, and publishes the
// step's collisions as the world's Contacts.
//
// A thrown object (a components.Projectile: a grenade) is a body of the
// step too, driven by nothing: it flies on, bounces off the static world
// and passes through the other bodies (its mask is empty). The flat step
// keeps it on the ground; its height is its own (Projectile.Height and
// Climb), fallen by Gravity and bounced off the ground here, and while it
// rolls on the ground it slows by RollDecel.
package motion

import (
	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	phys "github.com/fiveonit/engine/physics"
	"github.com/mlange-42/arche/generic"
)

// Name is the system's name in the schedule.
const Name = "physics"

// System is the physics step. Make it with New; it keeps its buffers
// between ticks and allocates nothing once they have grown.
type System struct {
	static  *phys.Static
	bodies  phys.Bodies
	scratch phys.Scratch
	ents    []ecs.Entity // body index -> entity
	wids    []uint16     // body index -> wire id
	byWire  []int32      // wire id -> body index this tick, -1 when none

	thrown   *generic.Filter5[components.Identity, components.Pose, components.Velocity, components.Body, components.Projectile]
	vehicles *generic.Filter7[components.Kind, components.Identity, components.Pose, components.Velocity, components.Drive, components.Body, components.Seats]
	people   *generic.Filter7[components.Kind, components.Identity, components.Pose, components.Velocity, components.Drive, components.Body, components.SeatedIn]
	links    generic.Map1[components.TrailerLink]
	ids      generic.Map1[components.Identity]
	poses    generic.Map2[components.Pose, components.Velocity]
	actions  generic.Map1[components.PersonAction]
	walker   phys.WalkSpec
}

// roomBodies is the bodies the step's scratch is made for at once (about
// 0.4 MB): more than a city room holds.
const roomBodies = 1024

// New returns the physics system of w over static (the level's baked
// geometry, shared by every room on the level; nil for none).
func New(w *ecs.World, static *phys.Static) *System {
	s := &System{
		static:   static,
		byWire:   make([]int32, ecs.MaxWireIDs+1),
		vehicles: generic.NewFilter7[components.Kind, components.Identity, components.Pose, components.Velocity, components.Drive, components.Body, components.Seats](),
		people:   generic.NewFilter7[components.Kind, components.Identity, components.Pose, components.Velocity, components.Drive, components.Body, components.SeatedIn](),
		thrown:   generic.NewFilter5[components.Identity, components.Pose, components.Velocity, components.Body, components.Projectile](),
		links:    generic.NewMap1[components.TrailerLink](w.Arche),
		ids:      generic.NewMap1[components.Identity](w.Arche),
		poses:    generic.NewMap2[components.Pose, components.Velocity](w.Arche),
		actions:  generic.NewMap1[components.PersonAction](w.Arche),
		walker:   phys.DefaultWalker,
	}
	// The step's scratch made once for more bodies than a city room holds
	// (about 600), not grown as the count creeps up in play.
	s.scratch.Reserve(roomBodies)
	s.vehicles.Register(w.Arche)
	s.people.Register(w.Arche)
	s.thrown.Register(w.Arche)
	for i := range s.byWire {
		s.byWire[i] = -1
	}
	return s
}

// Static returns the static world the system collides with.
func (s *System) Static() *phys.Static { return s.static }

// Stats returns the last step's counts.
func (s *System) Stats() phys.StepStats { return s.scratch.Stats }

// BakeLevel bakes a level's buildings and ground into the physics' static
// world, cutting a concave footprint into convex pieces. It is immutable: bake once per level and share it between rooms.
func BakeLevel(l *levels.Level) (*phys.Static, error) {
	polys := make([]phys.Polygon, 0, len(l.Buildings))
	for _, b := range l.Buildings {
		pts := make([]phys.Vec, len(b.Footprint))
		for i, p := range b.Footprint {
			pts[i] = phys.Vec{X: p.X, Y: p.Y}
		}
		for _, part := range convexParts(pts) {
			polys = append(polys, phys.Polygon{Points: part, Height: b.Height})
		}
	}
	bounds := phys.Rect{Min: phys.Vec{X: l.Ground.Min.X, Y: l.Ground.Min.Y}, Max: phys.Vec{X: l.Ground.Max.X, Y: l.Ground.Max.Y}}
	return phys.NewStatic(polys, bounds, l.Ground.Height)
}

// Update runs one step.
func (s *System) Update(w *ecs.World) {
	s.gather(w)
	phys.Step(s.static, &s.bodies, &s.scratch, ecs.Dt)
	s.scatter()
	s.fly(w)
	s.carrySeated(w)
	s.publishHits(w)
	for _, wid := range s.wids {
		s.byWire[wid] = -1
	}
}

// gather runs the driving models and builds the step's bodies: every
// vehicle, and every person on foot (a seated person rides their vehicle and
// is no body of their own).
func (s *System) gather(w *ecs.World) {
	s.bodies.Reset()
	s.ents = s.ents[:0]
	s.wids = s.wids[:0]
	vq := s.vehicles.Query(w.Arche)
	for vq.Next() {
		kind, id, pose, vel, drive, body, _ := vq.Get()
		spec := phys.CarModel(id.Model)
		if *kind == components.KindTrailer {
			phys.DriveTrailer(pose, vel, spec, ecs.Dt)
		} else {
			phys.DriveCar(pose, vel, drive, spec, ecs.Dt)
		}
		s.add(vq.Entity(), id, pose, vel, body)
	}
	pq := s.people.Query(w.Arche)
	for pq.Next() {
		_, id, pose, vel, drive, body, seated := pq.Get()
		if !seated.Vehicle.IsZero() {
			continue
		}
		e := pq.Entity()
		if a := s.actions.Get(e); a != nil && a.Act == components.ActDead {
			*vel = components.Velocity{}
		} else {
			phys.DriveWalker(pose, vel, drive, &s.walker, ecs.Dt)
		}
		s.add(e, id, pose, vel, body)
	}
	tq := s.thrown.Query(w.Arche)
	for tq.Next() {
		id, pose, vel, body, _ := tq.Get()
		s.add(tq.Entity(), id, pose, vel, body)
	}
	s.hitch()
}

// The thrown objects' own vertical motion: Gravity (m/s²) pulls them
// down; on the ground one falling faster than BounceSpeed (m/s) bounces
// back up at Bounce of its speed, keeping Skid of its speed along the
// ground, and one rolling slows by RollDecel (m/s²) until it lies still.
const (
	Gravity     = 9.81
	BounceSpeed = 1.5
	Bounce      = 0.35
	Skid        = 0.6
	RollDecel   = 8
)

// fly moves the thrown objects up and down after the flat step, and slows
// those rolling on the ground.
func (s *System) fly(w *ecs.World) {
	ground := float32(0)
	if s.static != nil {
		ground = s.static.GroundZ
	}
	q := s.thrown.Query(w.Arche)
	for q.Next() {
		_, pose, vel, _, p := q.Get()
		p.Climb -= Gravity * ecs.Dt
		p.Height += p.Climb * ecs.Dt
		if p.Height <= 0 {
			p.Height = 0
			if p.Climb < -BounceSpeed {
				p.Climb = -p.Climb * Bounce
				vel.Lin.X *= Skid
				vel.Lin.Y *= Skid
			} else {
				p.Climb = 0
				v := math32.Sqrt(vel.Lin.X*vel.Lin.X + vel.Lin.Y*vel.Lin.Y)
				if v > 0 {
					k := max(v-RollDecel*ecs.Dt, 0) / v
					vel.Lin.X *= k
					vel.Lin.Y *= k
				}
			}
		}
		pose.Pos.Z = ground + p.Height
	}
}

func (s *System) add(e ecs.Entity, id *components.Identity, pose *components.Pose, vel *components.Velocity, body *components.Body) {
	i := s.bodies.Add(*pose, *vel, body)
	s.ents = append(s.ents, e)
	s.wids = append(s.wids, id.WireID)
	s.byWire[id.WireID] = i
}

// hitch joins every trailer to its tractor when both are bodies this step.
func (s *System) hitch() {
	for i, e := range s.ents {
		l := s.links.Get(e)
		if l == nil || l.Tractor.IsZero() {
			continue
		}
		tid := s.ids.Get(l.Tractor)
		if tid == nil {
			continue
		}
		if t := s.byWire[tid.WireID]; t >= 0 {
			s.bodies.AddHitch(t, int32(i), l.Length)
		}
	}
}

// scatter writes the step's poses and velocities back.
func (s *System) scatter() {
	for i, e := range s.ents {
		pose, vel := s.poses.Get(e)
		b := &s.bodies.List[i]
		*pose, *vel = b.Pose, b.Vel
	}
}

// carrySeated puts every seated person where their vehicle is.
func (s *System) carrySeated(w *ecs.World) {
	pq := s.people.Query(w.Arche)
	for pq.Next() {
		_, _, pose, vel, _, _, seated := pq.Get()
		if seated.Vehicle.IsZero() || !w.Arche.Alive(seated.Vehicle) {
			continue
		}
		vp, vv := s.poses.Get(seated.Vehicle)
		*pose, *vel = *vp, *vv
	}
}

// publishHits turns the step's hits into the world's Contacts.
func (s *System) publishHits(w *ecs.World) {
	w.Contacts = w.Contacts[:0]
	if n := len(s.scratch.Hits); cap(w.Contacts) < n {
		// A contact a hit: room for as many as the scratch has for
		// hits (made with room to spare), or twice n, so that a
		// busier tick than any before seldom allocates.
		w.Contacts = make([]components.Contact, 0, max(2*n, cap(s.scratch.Hits)))
	}
	for _, h := range s.scratch.Hits {
		c := components.Contact{
			A: s.ents[h.A], Impulse: h.Impulse, Speed: h.Speed,
			Point:  components.Vec3{X: h.Point.X, Y: h.Point.Y},
			Normal: components.Vec3{X: h.Normal.X, Y: h.Normal.Y},
		}
		if h.B != phys.StaticBody {
			c.B = s.ents[h.B]
		}
		w.Contacts = append(w.Contacts, c)
	}
}

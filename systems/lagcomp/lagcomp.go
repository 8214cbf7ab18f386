// Package lagcomp is the system that keeps the recent past of what a round
// can hit, so that a player's shot hits what the player saw (lag
// compensation).
//
// A client draws other players, cars and NPCs behind the server's present:
// interpolated about 100 ms behind its newest snapshot, which left the
// server half a round trip before. Its input reaches the server half a
// round trip later still. A round aimed true at a car crossing at 15 m/s
// would miss by metres on the server. So each input says which server tick
// the client drew (components.Drive.View, checked by the server against
// the client's round trip), the weapons system puts it on the shot
// (components.Event.View), and the damage system tests the shot against
// the bodies as they were at that tick (Past). The walls stay where they
// are, and the harm is done now, to the target as it is now. Blasts and
// grenades are not rewound: they happen in the server's present.
//
// The History records, every tick, the pose and shape of every body a
// round can hit (a Hitbox): people on foot, cars, NPCs, cameras. A person
// seated in a vehicle is not recorded, since the vehicle takes the round.
// It runs in the sync phase, after everything else has moved, so that it
// records what the tick's snapshot shows. It keeps MaxRewind ticks in a
// ring whose slots keep their room: the slots grow only when the world
// holds more bodies than they have room for, and then to twice as many.
//
// The bound is fair to the target. No shot is rewound more than MaxRewind
// ticks, 500 ms. So a target that ran behind a wall can still be hit, but
// only by a shot whose shooter saw it in the open within the last 500 ms,
// as Source (sv_maxunlag, 1 s) and Overwatch (250 ms) bound theirs. A
// shooter whose round trip is longer than the bound allows (about 370 ms)
// must lead the target by the rest.
package lagcomp

import (
	"github.com/chewxy/math32"
	"github.com/mlange-42/arche/generic"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	phys "github.com/fiveonit/engine/physics"
)

// Name is the system's name in the schedule.
const Name = "lagcomp"

// MaxRewind is the most ticks a shot is rewound: 30, 500 ms at 60 Hz, and
// the ring's length. A client draws the world its round trip, its
// interpolation (100 ms) and its input's wait in the server's queue (about
// 33 ms) behind the present: 500 ms covers round trips up to about 370 ms,
// 185 ms each way. Overwatch's 250 ms would leave a player with a round
// trip over about 120 ms, common over the web, aiming ahead of what they
// see. Source's 1 s would let a target be hit a whole second after it
// reached cover.
const MaxRewind = 30

// room is the hitboxes each slot of the ring has room for from the start.
const room = 64

// Hitbox is a body a round can hit, as it stood at one tick: its centre,
// its heading and its shape.
type Hitbox struct {
	E        ecs.Entity
	X, Y     float32 // the centre, m
	Cos, Sin float32 // the heading
	Shape    uint8   // components.ShapeCircle or ShapeBox
	Radius   float32 // ShapeCircle
	HalfX    float32 // ShapeBox, along the heading
	HalfY    float32 // ShapeBox, across it
}

// Box returns the hitbox of e, standing at pose with body b.
func Box(e ecs.Entity, pose *components.Pose, b *components.Body) Hitbox {
	h := Hitbox{E: e, X: pose.Pos.X, Y: pose.Pos.Y, Shape: b.Shape, Radius: b.Radius, HalfX: b.HalfX, HalfY: b.HalfY}
	if b.Shape != components.ShapeCircle {
		h.Cos, h.Sin = pose.Rot.Heading()
	}
	return h
}

// Ray returns where along the ray o + t*d (d a unit vector, t >= 0) it
// first meets the hitbox, and false when it misses it, or starts inside a
// circle.
func (h *Hitbox) Ray(o, d phys.Vec) (float32, bool) {
	rel := o.Sub(phys.Vec{X: h.X, Y: h.Y})
	if h.Shape == components.ShapeCircle {
		// |rel + t d|² = r²: t² + 2 (rel·d) t + |rel|² - r² = 0.
		bb := rel.Dot(d)
		cc := rel.Dot(rel) - h.Radius*h.Radius
		disc := bb*bb - cc
		if disc < 0 {
			return 0, false
		}
		t := -bb - math32.Sqrt(disc)
		if t < 0 {
			return 0, false // behind, or starting inside
		}
		return t, true
	}
	co, si := h.Cos, h.Sin
	lo := phys.Vec{X: rel.X*co + rel.Y*si, Y: -rel.X*si + rel.Y*co}
	ld := phys.Vec{X: d.X*co + d.Y*si, Y: -d.X*si + d.Y*co}
	t0, t1 := float32(0), float32(math32.MaxFloat32)
	if !slab(lo.X, ld.X, h.HalfX, &t0, &t1) || !slab(lo.Y, ld.Y, h.HalfY, &t0, &t1) {
		return 0, false
	}
	return t0, true
}

// slab narrows [t0, t1] to where o + t*d lies within [-h, h].
func slab(o, d, h float32, t0, t1 *float32) bool {
	if d == 0 {
		return o >= -h && o <= h
	}
	a, b := (-h-o)/d, (h-o)/d
	if a > b {
		a, b = b, a
	}
	*t0 = max(*t0, a)
	*t1 = min(*t1, b)
	return *t0 <= *t1
}

// History is the lag compensation's system: the ring of the last
// MaxRewind ticks' hitboxes. Make it with New.
type History struct {
	// people are the bodies that may sit in a vehicle, things the rest
	// (vehicles, cameras): two queries, so that no body is looked up.
	people *generic.Filter5[components.Kind, components.Pose, components.Health, components.Body, components.SeatedIn]
	things *generic.Filter4[components.Kind, components.Pose, components.Health, components.Body]
	ring   [MaxRewind]slot
	room   int // the room of the fullest slot
}

// slot is one tick's hitboxes.
type slot struct {
	tick  uint64
	held  bool
	boxes []Hitbox
}

// New returns the history of w, empty.
func New(w *ecs.World) *History {
	h := &History{
		people: generic.NewFilter5[components.Kind, components.Pose, components.Health, components.Body, components.SeatedIn](),
		things: generic.NewFilter4[components.Kind, components.Pose, components.Health, components.Body]().
			Without(generic.T[components.SeatedIn]()),
	}
	h.people.Register(w.Arche)
	h.things.Register(w.Arche)
	for i := range h.ring {
		h.ring[i].boxes = make([]Hitbox, 0, room)
	}
	h.room = room
	return h
}

// Update records the tick's hitboxes over the oldest tick held.
func (h *History) Update(w *ecs.World) {
	tick := w.Tick()
	s := &h.ring[tick%MaxRewind]
	s.tick, s.held, s.boxes = tick, true, s.boxes[:0]
	q := h.people.Query(w.Arche)
	t := h.things.Query(w.Arche)
	if n := q.Count() + t.Count(); cap(s.boxes) < max(n, h.room) {
		// The count creeps up as bodies come and go. Grown to fit, each
		// of the ring's slots would grow at each new high, and one a
		// while ago would be short of today's count. So every slot grows
		// to the room of the fullest, which is twice the most bodies,
		// seated or not, when it was set: 2.4 MB for 1,000 bodies.
		h.room = max(h.room, 2*n)
		s.boxes = make([]Hitbox, 0, h.room)
	}
	for q.Next() {
		_, pose, _, body, sd := q.Get()
		if !sd.Vehicle.IsZero() {
			continue // inside a vehicle: the vehicle takes the round
		}
		s.boxes = append(s.boxes, Box(q.Entity(), pose, body))
	}
	for t.Next() {
		_, pose, _, body := t.Get()
		s.boxes = append(s.boxes, Box(t.Entity(), pose, body))
	}
}

// Rewound returns the tick a shot fired at tick now, whose shooter saw
// tick view, is rewound to: view, but never more than MaxRewind ticks
// before now; now itself for view 0 (no claim) and for a view at or after
// now (the future is the present).
func Rewound(now, view uint64) uint64 {
	if view == 0 || view >= now {
		return now
	}
	return max(view, now-min(now, MaxRewind))
}

// Past returns the hitboxes a shot fired at tick now, whose shooter saw
// tick view, is tested against: those of Rewound(now, view). It reports
// false for a shot at the present, and for a tick the ring does not hold
// (the room has run fewer ticks): the shot is then tested against the
// bodies as they are. The slice is the history's: read it before the
// history's next Update.
func (h *History) Past(now, view uint64) ([]Hitbox, bool) {
	tick := Rewound(now, view)
	if tick == now {
		return nil, false
	}
	s := &h.ring[tick%MaxRewind]
	if !s.held || s.tick != tick {
		return nil, false
	}
	return s.boxes, true
}

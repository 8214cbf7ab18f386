package physics

import (
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/internal/headroom"
)

// Body is one body of a step: the physics world's copy of an entity's Pose,
// Velocity and components.Body, gathered by the adapter and written back
// after Step.
type Body struct {
	Pose components.Pose
	Vel  components.Velocity
	// Shape is components.ShapeBox (HalfX along the heading, HalfY across)
	// or components.ShapeCircle (Radius).
	Shape        uint8
	HalfX, HalfY float32
	Radius       float32
	// InvMass and InvInertia are 1/kg and 1/(kg m²); 0 is immovable.
	InvMass, InvInertia   float32
	Friction, Restitution float32
	// Layer is the body's layer bit, Mask the layers it collides with: a
	// pair collides when each one's mask has the other's layer.
	Layer, Mask uint16
	// NoCollide is one more than the index of a body this one never
	// collides with (its hitch partner), so that the zero value, 0, is none.
	NoCollide int32
}

// NewBody makes the Body of an entity from its components. A mass of 0 (or
// less, or not finite) is immovable. A box's inertia is its solid
// rectangle's; a circle is a person and takes no spin from contacts (its
// heading is DriveWalker's), so its inverse inertia is 0. Sizes are kept
// above a centimetre.
func NewBody(pose components.Pose, vel components.Velocity, cb *components.Body) Body {
	b := Body{
		Pose: pose, Vel: vel, Shape: cb.Shape,
		HalfX: max32(cb.HalfX, 0.01), HalfY: max32(cb.HalfY, 0.01), Radius: max32(cb.Radius, 0.01),
		Friction: clamp(cb.Friction, 0, 10), Restitution: clamp(cb.Restitution, 0, 1),
		Layer: cb.Layer, Mask: cb.Mask,
	}
	if b.Shape != components.ShapeCircle {
		b.Shape = components.ShapeBox
	}
	if m := cb.Mass; m > 0 && finite(m) {
		b.InvMass = 1 / m
		if b.Shape == components.ShapeBox {
			b.InvInertia = 3 / (m * (b.HalfX*b.HalfX + b.HalfY*b.HalfY))
		}
	}
	return b
}

// Hitch joins a trailer to its tractor at one point, a pivot: AnchorA in
// A's frame (X along its heading) is held on AnchorB in B's frame.
type Hitch struct {
	A, B             int32
	AnchorA, AnchorB Vec
}

// Bodies is the world of one step: the bodies, in the order the adapter
// gathered them (their index is the one Hits and Hitches use), and the
// hitches between them. Reset and refill it each tick; its slices are
// reused.
type Bodies struct {
	List    []Body
	Hitches []Hitch
}

// Reset empties b, keeping its buffers.
func (b *Bodies) Reset() {
	b.List = b.List[:0]
	b.Hitches = b.Hitches[:0]
}

// Add appends the body made by NewBody and returns its index.
func (b *Bodies) Add(pose components.Pose, vel components.Velocity, cb *components.Body) int32 {
	b.List = append(headroom.Ahead(b.List, 1), NewBody(pose, vel, cb)) // a room's bodies creep up
	return int32(len(b.List) - 1)
}

// AddHitch hitches trailer to tractor with length metres from the
// tractor's centre to the trailer's (components.TrailerLink.Length): the
// pivot sits at the tractor's rear bumper, and the pair no longer collides.
// Indices out of range, or a body hitched to itself, are ignored.
func (b *Bodies) AddHitch(tractor, trailer int32, length float32) {
	n := int32(len(b.List))
	if tractor < 0 || trailer < 0 || tractor >= n || trailer >= n || tractor == trailer {
		return
	}
	back := b.List[tractor].HalfX
	if b.List[tractor].Shape == components.ShapeCircle {
		back = b.List[tractor].Radius
	}
	b.Hitches = append(b.Hitches, Hitch{
		A: tractor, B: trailer,
		AnchorA: Vec{-back, 0}, AnchorB: Vec{max32(length-back, 0), 0},
	})
	b.List[trailer].NoCollide = tractor + 1
	if b.List[tractor].NoCollide == 0 {
		b.List[tractor].NoCollide = trailer + 1
	}
}

package physics

import (
	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
)

// WalkSpec is the tuning of a person on foot.
type WalkSpec struct {
	// WalkSpeed and RunSpeed (BtnSprint held) in m/s at full stick.
	WalkSpeed, RunSpeed float32
	// Accel (m/s²) is how fast the velocity follows the stick, and so how
	// fast a person recovers from a push.
	Accel float32
	// TurnRate (rad/s) is how fast the body turns toward LookYaw.
	TurnRate float32
	// Radius and Height of the body's circle (a vertical cylinder); Mass in kg.
	Radius, Height, Mass float32
	// Friction and Restitution are the body's, against other bodies.
	Friction, Restitution float32
}

// DefaultWalker is the tuning of every person on foot unless a game says
// otherwise: a brisk walk, a sprint, a shoulder-wide body.
var DefaultWalker = WalkSpec{
	WalkSpeed: 1.6, RunSpeed: 5.5, Accel: 25, TurnRate: 10,
	Radius: 0.35, Height: 1.8, Mass: 75, Friction: 0.3, Restitution: 0,
}

// Body returns the components.Body of a person of this spec: a circle on
// the person layer that collides with everything.
func (w *WalkSpec) Body() components.Body {
	return components.Body{
		Shape: components.ShapeCircle, Radius: w.Radius, Height: w.Height,
		Mass: w.Mass, Friction: w.Friction, Restitution: w.Restitution,
		Layer: components.LayerPerson, Mask: 0xFFFF,
	}
}

// DriveWalker is the walking model: it turns this tick's Drive into a
// person's velocity over dt (vel.Lin X, Y and vel.Ang.Z; Lin.Z is zeroed).
// MoveY walks forward and MoveX strafes right, both relative to LookYaw (the
// stick's length capped at 1), at WalkSpeed, or RunSpeed with BtnSprint
// held; the velocity follows at up to Accel. The body turns toward LookYaw
// at up to TurnRate, landing on it without overshoot.
func DriveWalker(pose *components.Pose, vel *components.Velocity, in *components.Drive, spec *WalkSpec, dt float32) {
	look := in.LookYaw
	if !finite(look) {
		look = 0
	}
	sinL, cosL := math32.Sincos(look)
	mx := clamp(in.MoveX, -1, 1)
	my := clamp(in.MoveY, -1, 1)
	// Forward is (cosL, sinL); right is (sinL, -cosL).
	dx := cosL*my + sinL*mx
	dy := sinL*my - cosL*mx
	if m2 := dx*dx + dy*dy; m2 > 1 {
		inv := 1 / sqrt32(m2)
		dx *= inv
		dy *= inv
	}
	speed := spec.WalkSpeed
	if in.Held&components.BtnSprint != 0 {
		speed = spec.RunSpeed
	}
	vx, vy := vel.Lin.X, vel.Lin.Y
	if !finite(vx) || !finite(vy) {
		vx, vy = 0, 0
	}
	ex, ey := dx*speed-vx, dy*speed-vy
	maxDv := spec.Accel * dt
	if e2 := ex*ex + ey*ey; e2 > maxDv*maxDv {
		k := maxDv / sqrt32(e2)
		ex *= k
		ey *= k
	}
	vel.Lin.X = vx + ex
	vel.Lin.Y = vy + ey
	vel.Lin.Z = 0

	// The angle from the heading to LookYaw, from their cosines and sines.
	c, s := pose.Rot.Heading()
	diff := math32.Atan2(c*sinL-s*cosL, c*cosL+s*sinL)
	maxW := spec.TurnRate
	vel.Ang.Z = clamp(diff/dt, -maxW, maxW)
}

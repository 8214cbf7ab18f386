package physics

import "github.com/fiveonit/engine/components"

// Integrate moves pose by vel over dt: the position by the linear velocity
// on the ground, the heading by vel.Ang.Z*dt about +Z, and Z pinned to the
// ground height groundZ. vel is only read. Step integrates its bodies itself.
func Integrate(pose *components.Pose, vel *components.Velocity, dt, groundZ float32) {
	pose.Pos.X += vel.Lin.X * dt
	pose.Pos.Y += vel.Lin.Y * dt
	pose.Pos.Z = groundZ
	pose.Rot = turn(pose.Rot, vel.Ang.Z*dt)
}

// turn returns q rotated by angle a about +Z: q times (0, 0, sin(a/2),
// cos(a/2)), renormalized. The half-angle sine and cosine come from their
// series to the fifth power, exact to float32 for any turn a body makes in
// one step (|a/2| < 0.1 is 6 rad/s; the error is (a/2)^5/120), so no
// trigonometry runs per body. A non-finite a leaves q unturned.
func turn(q components.Quat, a float32) components.Quat {
	if !finite(a) {
		return q
	}
	h := a * 0.5
	// Beyond a quarter turn a step the series is poor; such a spin is
	// nonsense anyway, so cap it (the result stays a unit rotation).
	h = clampFinite(h, -0.75, 0.75)
	h2 := h * h
	s := h * (1 - h2*(1.0/6)*(1-h2*(1.0/20)))
	c := 1 - h2*0.5*(1-h2*(1.0/12))
	r := components.Quat{
		X: q.X*c + q.Y*s,
		Y: q.Y*c - q.X*s,
		Z: q.Z*c + q.W*s,
		W: q.W*c - q.Z*s,
	}
	return normalize(r)
}

// normalize returns q scaled to unit length: near it (every step's case,
// the turn being unit to float32) by one Newton step for 1/sqrt(n), which
// needs neither a root nor a division; otherwise exactly.
func normalize(q components.Quat) components.Quat {
	n := q.X*q.X + q.Y*q.Y + q.Z*q.Z + q.W*q.W
	k := (3 - n) * 0.5
	if abs32(n-1) > 1e-3 {
		if !(n > 0) || !finite(n) {
			return components.NoRotation
		}
		k = 1 / sqrt32(n)
	}
	return components.Quat{X: q.X * k, Y: q.Y * k, Z: q.Z * k, W: q.W * k}
}

package components

import "github.com/chewxy/math32"

// Vec3 is a point or direction in metres (or metres per second).
type Vec3 struct{ X, Y, Z float32 }

// Quat is a unit quaternion. In this engine it is always a rotation about +Z
// (see the package comment), but the wire carries all four parts so that a
// later tilt needs no protocol change.
type Quat struct{ X, Y, Z, W float32 }

// NoRotation is the quaternion of no rotation.
var NoRotation = Quat{W: 1}

// YawQuat returns the rotation by yaw radians about +Z.
func YawQuat(yaw float32) Quat {
	s, c := math32.Sincos(yaw / 2)
	return Quat{Z: s, W: c}
}

// Heading returns cos(yaw) and sin(yaw) of a rotation about +Z without
// trigonometry: for q = (0, 0, s, c), cos(yaw) = c*c - s*s and
// sin(yaw) = 2*s*c. The physics uses it every step.
func (q Quat) Heading() (cos, sin float32) {
	return q.W*q.W - q.Z*q.Z, 2 * q.Z * q.W
}

// Yaw returns the heading angle of a rotation about +Z, in (-pi, pi].
func (q Quat) Yaw() float32 {
	return 2 * math32.Atan2(q.Z, q.W)
}

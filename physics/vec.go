package physics

import (
	"math"

	"github.com/fiveonit/engine/components"
)

// Vec is a point or a direction on the ground plane, in metres (or metres
// per second): X east, Y north.
type Vec struct{ X, Y float32 }

// Flat returns the ground-plane part of v.
func Flat(v components.Vec3) Vec { return Vec{v.X, v.Y} }

// Add returns a+b.
func (a Vec) Add(b Vec) Vec { return Vec{a.X + b.X, a.Y + b.Y} }

// Sub returns a-b.
func (a Vec) Sub(b Vec) Vec { return Vec{a.X - b.X, a.Y - b.Y} }

// Scale returns a*s.
func (a Vec) Scale(s float32) Vec { return Vec{a.X * s, a.Y * s} }

// Dot returns the dot product of a and b.
func (a Vec) Dot(b Vec) float32 { return a.X*b.X + a.Y*b.Y }

// Cross returns the z part of the cross product a × b.
func (a Vec) Cross(b Vec) float32 { return a.X*b.Y - a.Y*b.X }

// Len returns the length of a.
func (a Vec) Len() float32 { return sqrt32(a.X*a.X + a.Y*a.Y) }

// sqrt32 is the correctly rounded float32 square root. It goes through
// math.Sqrt, which the compiler turns into one inlined instruction, where
// math32.Sqrt is an assembly call that cannot be inlined; rounding the
// float64 root to float32 gives the same bits as a float32 root would.
func sqrt32(x float32) float32 { return float32(math.Sqrt(float64(x))) }

// abs32, min32 and max32 work on the bits, without a branch: the signs of
// velocities in a crowd are a coin toss, and a mispredicted branch costs
// more than the arithmetic around it.
func abs32(x float32) float32 {
	return math.Float32frombits(math.Float32bits(x) &^ (1 << 31))
}

// neg0 returns min(x, 0) and pos0 max(x, 0).
func neg0(x float32) float32 {
	b := math.Float32bits(x)
	return math.Float32frombits(b & uint32(int32(b)>>31))
}

func pos0(x float32) float32 {
	b := math.Float32bits(x)
	return math.Float32frombits(b &^ uint32(int32(b)>>31))
}

// min32 and max32 return one of a and b exactly, chosen by the sign of
// a-b (which is negative exactly when a < b, for finite a and b).
func min32(a, b float32) float32 {
	m := uint32(int32(math.Float32bits(a-b)) >> 31) // all ones when a < b
	return math.Float32frombits(math.Float32bits(a)&m | math.Float32bits(b)&^m)
}

func max32(a, b float32) float32 {
	m := uint32(int32(math.Float32bits(a-b)) >> 31)
	return math.Float32frombits(math.Float32bits(b)&m | math.Float32bits(a)&^m)
}

// clamp returns x limited to [lo, hi]; a NaN x gives 0 clamped, so hostile
// input cannot carry a NaN into the simulation.
func clamp(x, lo, hi float32) float32 {
	switch {
	case x > hi:
		return hi
	case x < lo:
		return lo
	case x != x:
		return max32(lo, min32(0, hi))
	}
	return x
}

// clampFinite returns x limited to [lo, hi] without a branch, for x known
// finite (the solver's own numbers; clamp is for input).
func clampFinite(x, lo, hi float32) float32 { return max32(lo, min32(x, hi)) }

// toward0 moves x toward zero by d (d >= 0) without crossing it.
func toward0(x, d float32) float32 {
	if x > d {
		return x - d
	}
	if x < -d {
		return x + d
	}
	return 0
}

// finite reports whether x is neither NaN nor infinite.
func finite(x float32) bool { return x-x == 0 }

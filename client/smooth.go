package client

import (
	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
)

// The own body is drawn where the eye expects it, not where the last
// correction put the simulation. At a correction the simulation snaps to
// the replayed prediction, and the drawn pose keeps where it was: the
// error it carries (drawn less simulated) then decays, by SmoothKeep a
// tick, so that most of it is gone in 100 ms, and by at most
// MaxDrawnStep (and MaxDrawnTurn) a tick, so that no frame jumps. An error
// over TeleportDist is no error but a teleport (a respawn, a seat taken):
// the drawn pose snaps with the simulation.
const (
	// SmoothKeep is the part of the drawn error kept from one tick to the
	// next: 0.6, so 5 % of it is left after 6 ticks (100 ms).
	SmoothKeep = 0.6
	// MaxDrawnStep (m) is the most the drawn error shrinks in a tick: a
	// 50 cm correction takes a fifth of a second, in steps the eye takes
	// for motion.
	MaxDrawnStep = 0.04
	// MaxDrawnTurn (rad) is the most the drawn heading's error shrinks in
	// a tick.
	MaxDrawnTurn = 0.03
	// TeleportDist (m) is the drawn error past which the drawn pose snaps.
	TeleportDist = 3
)

// smoother is the own body's drawn error, and what the client measures of
// the drawn motion.
type smoother struct {
	wid uint16
	off components.Vec3 // drawn less simulated position
	rot components.Quat // drawn rotation: rot times the simulated one
	// For the jump measurement: the drawn and the simulated position
	// after the last tick, and whether they are of the body drawn now.
	lastDrawn components.Vec3
	lastOK    bool
}

// reset forgets the error: the drawn pose is the simulation's.
func (s *smoother) reset(wid uint16) {
	*s = smoother{wid: wid, rot: components.NoRotation}
}

// corrected takes a correction of the simulation from before to after and
// keeps the drawn pose where it was: the error grows by the difference.
func (s *smoother) corrected(before, after *body, st *Stats) {
	if before.wid == 0 || before.wid != after.wid || s.wid != after.wid {
		s.reset(after.wid) // another body: nothing to ease from
		return
	}
	off := add3(s.off, sub3(before.pose.Pos, after.pose.Pos))
	if len3(off) > TeleportDist {
		st.Teleports++
		s.reset(after.wid)
		return
	}
	s.off = off
	s.rot = mulQ(s.rot, mulQ(before.pose.Rot, conjQ(after.pose.Rot)))
}

// decay shrinks the error by a tick's worth.
func (s *smoother) decay() {
	s.off = scale3(s.off, eased(len3(s.off), MaxDrawnStep))
	if a := 2 * math32.Acos(min(math32.Abs(s.rot.W), 1)); a > 0 {
		s.rot = nlerpQ(components.NoRotation, s.rot, eased(a, MaxDrawnTurn))
	}
}

// eased returns what a drawn error of size n is scaled by in a tick:
// SmoothKeep of it is kept, and it shrinks by most at the most; 0 once it
// is all but gone.
func eased(n, most float32) float32 {
	if !(n > 0) {
		return 0
	}
	step := min(n*(1-SmoothKeep), most)
	if n <= step+1e-6 {
		return 0
	}
	return (n - step) / n
}

// drawn returns the drawn pose of a body simulated at pose.
func (s *smoother) drawn(pose components.Pose) components.Pose {
	return components.Pose{Pos: add3(pose.Pos, s.off), Rot: mulQ(s.rot, pose.Rot)}
}

// tick is the own body's tick for the eye: the error decays, and the drawn
// motion is measured against the simulated one (simBefore, the simulation
// at the tick before, after any correction, to pred): what it moved beyond
// that is a jump, a correction shown at once (Stats.Jumps).
func (s *smoother) tick(simBefore components.Vec3, pred *body, st *Stats) {
	if pred.wid == 0 {
		s.reset(0)
		return
	}
	if s.wid != pred.wid {
		s.reset(pred.wid)
	}
	s.decay()
	d := s.drawn(pred.pose).Pos
	if s.lastOK {
		moved := sub3(d, s.lastDrawn)
		st.Jumps.Add(len3(sub3(moved, sub3(pred.pose.Pos, simBefore))))
	}
	s.lastDrawn, s.lastOK = d, true
}

func mulQ(a, b components.Quat) components.Quat {
	return components.Quat{
		X: a.W*b.X + a.X*b.W + a.Y*b.Z - a.Z*b.Y,
		Y: a.W*b.Y - a.X*b.Z + a.Y*b.W + a.Z*b.X,
		Z: a.W*b.Z + a.X*b.Y - a.Y*b.X + a.Z*b.W,
		W: a.W*b.W - a.X*b.X - a.Y*b.Y - a.Z*b.Z,
	}
}

func conjQ(q components.Quat) components.Quat {
	return components.Quat{X: -q.X, Y: -q.Y, Z: -q.Z, W: q.W}
}

// nlerpQ blends a toward b by f along the shorter way, renormalized.
func nlerpQ(a, b components.Quat, f float32) components.Quat {
	if a.X*b.X+a.Y*b.Y+a.Z*b.Z+a.W*b.W < 0 {
		b = components.Quat{X: -b.X, Y: -b.Y, Z: -b.Z, W: -b.W}
	}
	q := components.Quat{X: a.X + (b.X-a.X)*f, Y: a.Y + (b.Y-a.Y)*f, Z: a.Z + (b.Z-a.Z)*f, W: a.W + (b.W-a.W)*f}
	n := math32.Sqrt(q.X*q.X + q.Y*q.Y + q.Z*q.Z + q.W*q.W)
	if !(n > 0) {
		return a
	}
	return components.Quat{X: q.X / n, Y: q.Y / n, Z: q.Z / n, W: q.W / n}
}

func add3(a, b components.Vec3) components.Vec3 {
	return components.Vec3{X: a.X + b.X, Y: a.Y + b.Y, Z: a.Z + b.Z}
}

func sub3(a, b components.Vec3) components.Vec3 {
	return components.Vec3{X: a.X - b.X, Y: a.Y - b.Y, Z: a.Z - b.Z}
}

func scale3(a components.Vec3, f float32) components.Vec3 {
	return components.Vec3{X: a.X * f, Y: a.Y * f, Z: a.Z * f}
}

func len3(a components.Vec3) float32 { return math32.Sqrt(a.X*a.X + a.Y*a.Y + a.Z*a.Z) }

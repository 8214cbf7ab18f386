package client

import (
	"testing"

	"github.com/fiveonit/engine/components"
)

// TestSmoothEasesCorrection: a correction leaves the drawn pose where it
// was, then its error decays: no tick moves it more than MaxDrawnStep
// beyond the simulation's own motion, a 5 cm error is all but gone in
// 100 ms, and one over TeleportDist snaps at once.
func TestSmoothEasesCorrection(t *testing.T) {
	var st Stats
	var s smoother
	s.reset(7)
	sim := body{wid: 7, pose: components.Pose{Rot: components.YawQuat(0.3)}}
	s.tick(sim.pose.Pos, &sim, &st)
	// The simulation moves 0.2 m a tick along X; a correction pulls it
	// back 0.3 m and turns it 0.1 rad.
	prev := s.drawn(sim.pose)
	for tick := 0; tick < 30; tick++ {
		before := sim
		sim.pose.Pos.X += 0.2
		if tick == 5 {
			after := sim
			after.pose.Pos.X -= 0.3
			after.pose.Rot = components.YawQuat(0.4)
			s.corrected(&sim, &after, &st)
			if d := s.drawn(after.pose); len3(sub3(d.Pos, s.drawn(sim.pose).Pos)) > 0.31 || len3(sub3(d.Pos, sim.pose.Pos)) > 1e-5 {
				t.Fatalf("the drawn pose moved with the correction: %+v, was %+v", d.Pos, sim.pose.Pos)
			}
			before.pose.Pos.X -= 0.3 // the simulation's motion this tick is from where it was put
			sim = after
		}
		s.tick(before.pose.Pos, &sim, &st)
		d := s.drawn(sim.pose)
		if jump := len3(sub3(sub3(d.Pos, prev.Pos), sub3(sim.pose.Pos, before.pose.Pos))); jump > MaxDrawnStep+1e-5 {
			t.Fatalf("tick %d: the drawn pose jumped %.3f m", tick, jump)
		}
		prev = d
	}
	if n := len3(s.off); n > 1e-3 {
		t.Fatalf("after 25 ticks the drawn error is %.4f m", n)
	}
	if st.Jumps.MaxVal > MaxDrawnStep+1e-5 || st.Jumps.Count != 30 {
		t.Fatalf("jumps measured: %d, largest %.3f", st.Jumps.Count, st.Jumps.MaxVal)
	}

	// A 5 cm error: under 5 % of it left after 6 ticks.
	s.reset(7)
	a := body{wid: 7, pose: components.Pose{Pos: components.Vec3{X: 0.05}, Rot: components.NoRotation}}
	b := body{wid: 7, pose: components.Pose{Rot: components.NoRotation}}
	s.corrected(&a, &b, &st)
	for range 6 {
		s.tick(b.pose.Pos, &b, &st)
	}
	if n := len3(s.off); n > 0.0025 {
		t.Fatalf("a 5 cm error is %.4f m after 100 ms", n)
	}

	// A teleport snaps.
	far := b
	far.pose.Pos.X += TeleportDist + 1
	s.corrected(&b, &far, &st)
	if st.Teleports != 1 || len3(s.off) != 0 {
		t.Fatalf("a %v m correction: %d teleports, error %v", TeleportDist+1, st.Teleports, s.off)
	}
}

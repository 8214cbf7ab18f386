package main

import (
	"math"
	"testing"

	"github.com/fiveonit/engine/levels"
)

// TestSignalsWhereMajorRoadsCross: a signal at every crossing and T of a
// major road (not at the ring road's corners), none where minor streets
// cross or at a driveway; the first phase takes the lanes coming in
// east-west, the second those coming in north-south, the major road's way
// the longer green.
func TestSignalsWhereMajorRoadsCross(t *testing.T) {
	l := city()
	if err := l.Validate("main-city.json"); err != nil {
		t.Fatal(err)
	}
	signalled := map[int]bool{}
	for _, s := range l.Roads.Signals {
		signalled[s.Node] = true
		n, _ := l.NodeIndex(s.Node)
		at := l.Roads.Nodes[n].Pos
		for k, ph := range s.Phases {
			for _, id := range ph.Lanes {
				li, _ := l.LaneIndex(id)
				a, b := l.LaneLine(li)
				eastWest := math.Abs(float64(b.X-a.X)) > math.Abs(float64(b.Y-a.Y))
				if eastWest != (k == 0) {
					t.Errorf("%s: lane %d (%v to %v) in phase %d", s.ID, id, a, b, k)
				}
			}
		}
		if c := s.Cycle(); c != signalCycle {
			t.Errorf("%s: a cycle of %g s, want %d", s.ID, c, signalCycle)
		}
		i, j := int(at.X+half)/pitch, int(at.Y+half)/pitch
		ew, ns := s.Phases[0].Green, s.Phases[1].Green
		if major(j) && !major(i) && ew <= ns || major(i) && !major(j) && ns <= ew {
			t.Errorf("%s: greens %g east-west, %g north-south: the major road's is not the longer", s.ID, ew, ns)
		}
	}
	for i, n := range l.Roads.Nodes {
		if !n.Intersection {
			continue
		}
		gi, gj := -1, -1
		if n.ID < lines*lines {
			gi, gj = n.ID%lines, n.ID/lines
		}
		corner := (gi == 0 || gi == lines-1) && (gj == 0 || gj == lines-1)
		want := gi >= 0 && !corner && (major(gi) || major(gj))
		if signalled[n.ID] != want {
			t.Errorf("roads.nodes[%d] (node %d at %v): signalled %v, want %v", i, n.ID, n.Pos, signalled[n.ID], want)
		}
	}
	if len(l.Roads.Signals) != 41 {
		t.Errorf("%d signals, want 41", len(l.Roads.Signals))
	}
}

// TestRacesOnTheRoads: every race gate stands across a road in the middle
// of a block, facing along a lane open to the traffic, as wide as the road;
// the loop closes and each gate leads on to the next along the roads.
func TestRacesOnTheRoads(t *testing.T) {
	l := city()
	if err := l.Validate("main-city.json"); err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		gates int
		loop  bool
	}{"downtown-loop": {8, true}, "avenue-sprint": {5, false}}
	if len(l.Races) != len(want) {
		t.Fatalf("%d races, want %d", len(l.Races), len(want))
	}
	for _, r := range l.Races {
		w, ok := want[r.ID]
		if !ok || len(r.Gates) != w.gates || r.Loop != w.loop {
			t.Errorf("race %s: %d gates, loop %v", r.ID, len(r.Gates), r.Loop)
			continue
		}
		for k, g := range r.Gates {
			dir := levels.Vec2{X: float32(math.Cos(float64(g.Yaw))), Y: float32(math.Sin(float64(g.Yaw)))}
			// The lane under the gate's right half goes its way.
			p := g.Pos.Add(dir.Right().Scale(1.75))
			li, d := l.NearestLane(p)
			a, b := l.LaneLine(li)
			ld := b.Sub(a).Scale(1 / b.Sub(a).Len())
			if d > 0.01 || ld.Dot(dir) < 0.999 || l.Roads.Lanes[li].NoTraffic {
				t.Errorf("%s: %.2f m from lane %d heading %v, facing %v", g.ID, d, l.Roads.Lanes[li].ID, ld, dir)
			}
			// On a road line, in the middle of a block: half a pitch
			// from the crossings either side.
			mx, my := math.Mod(float64(g.Pos.X)+half, pitch), math.Mod(float64(g.Pos.Y)+half, pitch)
			if !(mx == 0 && my == pitch/2 || my == 0 && mx == pitch/2) {
				t.Errorf("%s at %v is not in the middle of a block", g.ID, g.Pos)
			}
			road := float32(2 * halfWidth(lines/2))
			if g.Width != road && g.Width != float32(2*halfWidth(1)) {
				t.Errorf("%s: %g m wide, not a road's width", g.ID, g.Width)
			}
			if k == 0 && !r.Loop {
				continue
			}
			// From the one before, a straight run or one turn left.
			prev := r.Gates[(k+len(r.Gates)-1)%len(r.Gates)]
			step := g.Pos.Sub(prev.Pos)
			straight := prev.Yaw == g.Yaw && math.Abs(float64(step.Cross(dir))) < 1e-3 && step.Dot(dir) > 0
			turn := math.Abs(float64(g.Yaw-prev.Yaw)-math.Pi/2) < 1e-6 || math.Abs(float64(g.Yaw-prev.Yaw)+3*math.Pi/2) < 1e-6
			if !straight && !turn {
				t.Errorf("%s does not lead on from %s", g.ID, prev.ID)
			}
		}
	}
}

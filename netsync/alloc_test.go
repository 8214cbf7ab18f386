package netsync

import (
	"testing"

	"github.com/fiveonit/engine/internal/race"
	"github.com/fiveonit/engine/netsync/wire"
)

// TestZeroAllocsSteadyState: once its buffers have grown, a tick of the
// arena (Begin, Put every entity, End) and a frame of every encoder allocate
// nothing, with entities moving, stopping, starting, jumping, entering and
// leaving the areas of interest, events, checks and keyframes, with and
// without a budget.
func TestZeroAllocsSteadyState(t *testing.T) {
	race.Solo(t)
	w := newSimWorld(11, 600, 1500)
	for range 500 {
		w.spawn()
	}
	w.fixed = true
	a := NewArena()
	encs := make([]*Encoder, 4)
	views := make([]View, len(encs))
	for i := range encs {
		encs[i] = NewEncoder(a)
		if i%2 == 1 {
			encs[i].SetBudget(300) // poses wait: the priority sort runs
		}
		views[i].Center = wire.Vec3{X: float32(300 * (i + 1)), Y: 700}
	}
	frame := func() {
		for range wire.SnapshotEvery {
			w.step()
			a.Begin(w.tick)
			for _, wid := range w.alive {
				a.Put(wid, &w.ents[wid].e, w.ents[wid].always)
			}
			a.AddEvent(wire.Event{Kind: wire.EventShot, Pos: wire.Vec3{X: 700, Y: 700}})
			a.End()
		}
		for i, e := range encs {
			views[i].Center.X += 25 // sweep across the world: entities enter and leave
			if views[i].Center.X > w.size {
				views[i].Center.X = 0
			}
			if w.tick%200 == 0 {
				e.RequestKeyframe()
			}
			e.Encode(&views[i])
		}
	}
	for range 400 { // grow every buffer: a full sweep of each view
		frame()
	}
	if n := testing.AllocsPerRun(200, frame); n != 0 {
		t.Fatalf("%v allocations per frame in steady state, want 0", n)
	}
}

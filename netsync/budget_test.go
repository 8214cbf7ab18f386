package netsync

import (
	"math"
	"testing"

	"github.com/fiveonit/engine/netsync/wire"
)

// waiting returns how many entities a client holds whose pose waits for
// the budget (entWalk.waited above 0).
func (s *clientState) waiting() int {
	n := 0
	for i := range s.walks {
		if s.walks[i].waited > 0 && s.store.Owner(i) != 0 {
			n++
		}
	}
	return n
}

// minPoseChange is the fewest bytes a change of the quantized pose takes:
// its id, its mask and its smallest group.
func minPoseChange() int {
	n := wire.SmallStepBytes
	for g := range wire.GroupCount {
		if wire.MaskQuantPose&(1<<g) != 0 {
			n = min(n, wire.GroupBytes(g))
		}
	}
	return 4 + n
}

// TestBudgetProperty runs a crowded random world with clients on a small
// budget beside clients with none, at the same views. After every frame
// each budgeted client's decoder holds what its encoder believes; the
// state (but the far entities' throttle and steering), the health, the
// rest and the client's own full pose are the arena's at once; the pose
// changes that may wait take no more than the budget and one change; a
// pose drawn 3 m off gets a newer one within a bounded time (but a seated rider's, drawn
// at its vehicle); and the budget binds: the
// clients without one send more poses than it holds.
func TestBudgetProperty(t *testing.T) {
	ticks := 1800
	if testing.Short() {
		ticks = 600
	}
	const budget = 250
	w := newSimWorld(23, 600, 500)
	for range 400 {
		w.spawn()
	}
	a := NewArena()
	type pair struct{ budgeted, free simClient }
	pairs := make([]*pair, 4)
	for i := range pairs {
		p := &pair{}
		for _, c := range []*simClient{&p.budgeted, &p.free} {
			c.enc, c.dec, c.full = NewEncoder(a), wire.NewDecoder(), map[uint16]bool{}
		}
		p.budgeted.enc.SetBudget(budget)
		p.budgeted.view.Center = wire.Vec3{X: w.f(0, w.size), Y: w.f(0, w.size)}
		pairs[i] = p
	}
	bound := (budget + maxPoseChange) / minPoseChange()
	since := map[uint32]uint32{} // by client and id: the tick its held pose was first found other than the arena's
	var maxStale, overBound, waited uint32
	for range ticks {
		w.step()
		w.fill(a)
		if w.tick%wire.SnapshotEvery != 0 {
			continue
		}
		for pi, p := range pairs {
			moveView(w, &p.budgeted)
			p.free.view = p.budgeted.view
			for _, c := range []*simClient{&p.budgeted, &p.free} {
				rest := map[uint16]bool{}
				st := c.dec.Store()
				for i := 0; i < st.Slots(); i++ {
					if eid := st.Owner(i); eid != 0 {
						rest[eid] = st.At(i).Rec.AtRest()
					}
				}
				fr, err := c.dec.Apply(c.enc.Encode(&c.view))
				if err != nil {
					t.Fatalf("tick %d client %d: %v", w.tick, pi, err)
				}
				// The changes of a pose alone, of an entity held before
				// that neither stopped nor started: those that may wait.
				poses := 0
				for _, ch := range fr.Changed {
					was, held := rest[ch.EID]
					g := ch.Mask & wire.MaskGroups
					if held && g != 0 && g&^wire.MaskQuantPose == 0 && ch.Mask&wire.PoseFull == 0 &&
						was == st.Get(ch.EID).Rec.AtRest() {
						poses++
					}
				}
				if c == &p.free {
					if poses > bound {
						overBound++
					}
					continue
				}
				if poses > bound {
					t.Fatalf("tick %d client %d: %d pose changes in a budget of %d bytes (at most %d)", w.tick, pi, poses, budget, bound)
				}
				waited += uint32(c.enc.state.waiting())
				assertBudgeted(t, w, c, a)
				for i := 0; i < st.Slots(); i++ {
					eid := st.Owner(i)
					if eid == 0 {
						continue
					}
					h, rec := st.At(i), &a.recs[eid]
					key := uint32(pi)<<16 | uint32(eid)
					if h.PoseFull || a.rides(eid) || offBy(&h.Rec, rec) <= 3 {
						delete(since, key) // drawn near enough where it is
						continue
					}
					if s, ok := since[key]; !ok || h.PoseTick > s {
						since[key] = w.tick // found off since this tick
						continue
					}
					maxStale = max(maxStale, w.tick-since[key])
				}
			}
		}
	}
	t.Logf("a pose waited at most %d ticks; %d waits; clients without a budget went over it %d times", maxStale, waited, overBound)
	if waited == 0 || overBound == 0 {
		t.Fatalf("the budget never bound: %d waits, %d frames over it without one", waited, overBound)
	}
	// The far tier's turn comes every 8th frame and its reckoning lets a
	// cruising entity go 60 ticks; on this budget a pose that waits goes
	// within 2.5 s (without the priority growing with the wait, 4.75 s).
	if maxStale > 150 {
		t.Fatalf("a pose went %d ticks without a newer one", maxStale)
	}
}

// offBy returns the distance in metres between the positions of two
// records.
func offBy(a, b *wire.Record) float64 {
	var d2 float64
	for k := 0; k < 3; k++ {
		at := wire.PositionAt + 4*k
		d := float64(int32(le.Uint32(a[at:]))-int32(le.Uint32(b[at:]))) / wire.PositionScale
		d2 += d * d
	}
	return math.Sqrt(d2)
}

// assertBudgeted checks a budgeted client's store against its encoder's
// and the arena's: what never waits is the arena's.
func assertBudgeted(t *testing.T, w *simWorld, c *simClient, a *Arena) {
	t.Helper()
	mirror, held := c.enc.State(), c.dec.Store()
	if ok, eid := held.EqualRecords(mirror); !ok {
		t.Fatalf("tick %d: entity %d: the decoder's record differs from the encoder's mirror", w.tick, eid)
	}
	for i := 0; i < mirror.Slots(); i++ {
		eid := mirror.Owner(i)
		if eid == 0 {
			continue
		}
		m, d, rec := mirror.At(i), held.Get(eid), &a.recs[eid]
		mask := wire.MaskState
		if m.PoseFull {
			mask |= wire.MaskFullPose
		}
		if !m.PoseFull && m.Tier > 0 {
			mask &^= 1 << wire.GroupDrive // a far entity's driving may wait, not its health
			if !sameHealth(&d.Rec, rec) {
				t.Fatalf("tick %d: entity %d (tier %d): health held %x, arena %x", w.tick, eid, m.Tier,
					d.Rec[wire.HPAt:wire.MaxHPAt+2], rec[wire.HPAt:wire.MaxHPAt+2])
			}
		}
		for g := range wire.GroupCount {
			if mask&(1<<g) != 0 && !sameGroup(&d.Rec, rec, g) {
				t.Fatalf("tick %d: entity %d (tier %d, full %v): group %d held %x, arena %x", w.tick, eid, m.Tier, m.PoseFull, g, d.Rec.Group(g), rec.Group(g))
			}
		}
		if !m.PoseFull && d.Rec.AtRest() != rec.AtRest() {
			t.Fatalf("tick %d: entity %d: client holds rest %v, arena %v", w.tick, eid, d.Rec.AtRest(), rec.AtRest())
		}
	}
}

// TestBudgetAckedMatchesOrdered: with the same budget, the acked encoder
// picks what the ordered one picks (its changes count as an ordered frame
// carries them), so over a lossy link every frame the acked client shows
// is the ordered client's at that tick.
func TestBudgetAckedMatchesOrdered(t *testing.T) {
	frames := 3000
	if testing.Short() {
		frames = 800
	}
	r := newAckedRun(t, 17, 0.2, 0.05, 3)
	r.ord.SetBudget(150)
	r.enc.SetBudget(150)
	waited := 0
	for range frames {
		r.frame()
		waited += r.ord.state.waiting()
	}
	t.Log(r.summary())
	if waited == 0 || r.applied < frames/3 {
		t.Fatalf("the run missed its cases: %d waits; %s", waited, r.summary())
	}
}

// TestBudgetNearFirst: a client amid a crowd, on a budget a fraction of
// what the crowd's poses take, holds the near entities' poses younger
// than the far ones'.
func TestBudgetNearFirst(t *testing.T) {
	w := newSimWorld(31, 800, 400)
	for range 700 {
		w.spawn()
	}
	w.fixed = true
	a := NewArena()
	enc, dec := NewEncoder(a), wire.NewDecoder()
	enc.SetBudget(200)
	view := View{Center: wire.Vec3{X: 200, Y: 200}}
	var age, n [wire.TierCount]uint64
	for range 1200 {
		w.step()
		w.fill(a)
		if w.tick%wire.SnapshotEvery != 0 {
			continue
		}
		if _, err := dec.Apply(enc.Encode(&view)); err != nil {
			t.Fatal(err)
		}
		if w.tick < 300 {
			continue // the keyframe's poses all share a tick
		}
		st := dec.Store()
		for i := 0; i < st.Slots(); i++ {
			if st.Owner(i) == 0 {
				continue
			}
			h := st.At(i)
			if !h.Rec.AtRest() {
				age[h.Tier] += uint64(w.tick - h.PoseTick)
				n[h.Tier]++
			}
		}
	}
	var mean [wire.TierCount]float64
	for k := range mean {
		if n[k] == 0 {
			t.Fatalf("no moving entity in tier %d", k)
		}
		mean[k] = float64(age[k]) / float64(n[k])
	}
	t.Logf("mean pose age by tier (ticks): %.1f", mean)
	for k := 1; k < wire.TierCount; k++ {
		if mean[k-1] >= mean[k] {
			t.Fatalf("tier %d's poses are %.1f ticks old, tier %d's %.1f", k-1, mean[k-1], k, mean[k])
		}
	}
}

// sameHealth reports whether the health the client holds in held is rec's.
func sameHealth(held, rec *wire.Record) bool {
	return string(held[wire.HPAt:wire.MaxHPAt+2]) == string(rec[wire.HPAt:wire.MaxHPAt+2])
}

// sameGroup reports whether group g of held is rec's.
func sameGroup(held, rec *wire.Record, g int) bool {
	return string(held.Group(g)) == string(rec.Group(g))
}

package netsync

import (
	"errors"
	"math"
	"testing"

	"github.com/fiveonit/engine/netsync/wire"
)

type simClient struct {
	full map[uint16]bool // entities held with their full pose after the last frame
	enc  *Encoder
	dec  *wire.Decoder
	view View
	keys int // keyframes requested
}

// TestPropertyDecoderHoldsMirror runs a random world for 2,000 ticks with 8
// clients: after every frame, each decoder holds byte for byte what its
// encoder believes it holds (records, tiers, pose modes, pose ticks), every
// check passes, and what the client holds is what the area of interest and
// the tiers say.
func TestPropertyDecoderHoldsMirror(t *testing.T) {
	ticks := 2000
	if testing.Short() {
		ticks = 600
	}
	w := newSimWorld(7, 400, 1200)
	for range 150 {
		w.spawn()
	}
	a := NewArena()
	a.grid.setCell(8) // small cells: a newcomer missed by the rings shows
	clients := make([]*simClient, 8)
	for i := range clients {
		clients[i] = &simClient{enc: NewEncoder(a), dec: wire.NewDecoder(), full: map[uint16]bool{}}
		clients[i].view.Center = wire.Vec3{X: w.f(0, w.size), Y: w.f(0, w.size)}
	}
	var frames, checks, smallSteps, removals, newLives, tierChanges, keyframes int
	for tick := 0; tick < ticks; tick++ {
		w.step()
		w.fill(a)
		if w.tick%wire.SnapshotEvery != 0 {
			continue
		}
		for ci, c := range clients {
			if ci == 7 && w.chance(0.4) {
				continue // a client sent no frame for a while: its next looks at everything again
			}
			if ci == 6 && w.chance(0.02) { // the interest changes under a client
				if c.enc.interest.Enter == wire.AOIRadius {
					c.enc.SetInterest(InterestFor(150))
				} else {
					c.enc.SetInterest(InterestFor(wire.AOIRadius))
				}
			}
			moveView(w, c)
			if w.chance(0.01) {
				c.enc.RequestKeyframe()
				c.keys++
			}
			frame := c.enc.Encode(&c.view)
			fr, err := c.dec.Apply(frame)
			if err != nil {
				t.Fatalf("tick %d client %d: %v", w.tick, ci, err)
			}
			frames++
			if fr.Checked {
				checks++
			}
			if fr.Kind == wire.FrameKeyframe {
				keyframes++
			}
			removals += len(fr.Removed)
			for _, r := range fr.Removed {
				if r.NewLife {
					newLives++
				}
			}
			for _, ch := range fr.Changed {
				if ch.Mask&wire.SmallSteps != 0 {
					smallSteps++
				}
				if ch.Mask&wire.MaskGroups == 0 {
					tierChanges++
				}
			}
			assertMirror(t, w, c, a)
		}
	}
	t.Logf("%d frames (%d keyframes), %d checks, %d small steps, %d removals (%d new lives), %d changes with no group",
		frames, keyframes, checks, smallSteps, removals, newLives, tierChanges)
	// The world must have exercised what the test claims to test.
	if checks < frames/wire.CheckEvery || smallSteps == 0 || removals == 0 || newLives == 0 || tierChanges == 0 || keyframes <= len(clients) {
		t.Fatalf("the random world missed a case: checks %d, small steps %d, removals %d, new lives %d, changes with no group %d, keyframes %d",
			checks, smallSteps, removals, newLives, tierChanges, keyframes)
	}
}

// moveView walks a client's centre, jumps it now and then, and gives it own
// entities (which it follows) now and then.
func moveView(w *simWorld, c *simClient) {
	v := &c.view
	switch {
	case w.chance(0.02):
		v.Center = wire.Vec3{X: w.f(0, w.size), Y: w.f(0, w.size)}
	case w.chance(0.03) && len(w.alive) > 0:
		v.Own[0] = w.alive[w.rng.IntN(len(w.alive))]
		v.Own[1] = w.alive[w.rng.IntN(len(w.alive))]
	case w.chance(0.02):
		v.Own = [3]uint16{}
	}
	if own := v.Own[0]; own != 0 && w.ents[own].alive {
		v.Center = w.ents[own].e.Pos
	} else {
		v.Center.X += w.f(-8, 8)
		v.Center.Y += w.f(-8, 8)
	}
	v.LastSeq += 3
	v.InputBuffer = int8(w.rng.IntN(8) - 4)
}

func assertMirror(t *testing.T, w *simWorld, c *simClient, a *Arena) {
	t.Helper()
	n := c.enc.Held() // before State, which brings the records up to date
	mirror, held := c.enc.State(), c.dec.Store()
	if n != mirror.Len() || n != held.Len() {
		t.Fatalf("tick %d: Held %d, the mirror holds %d, the decoder %d", w.tick, n, mirror.Len(), held.Len())
	}
	if ok, eid := held.EqualRecords(mirror); !ok {
		t.Fatalf("tick %d: entity %d: the decoder's record differs from the encoder's mirror", w.tick, eid)
	}
	for i := 0; i < mirror.Slots(); i++ {
		eid := mirror.Owner(i)
		if eid == 0 {
			continue
		}
		m, d := mirror.At(i), held.Get(eid)
		if m.Tier != d.Tier || m.PoseFull != d.PoseFull || m.PoseTick != d.PoseTick {
			t.Fatalf("tick %d: entity %d: decoder holds tier %d full %v pose tick %d, mirror %d %v %d",
				w.tick, eid, d.Tier, d.PoseFull, d.PoseTick, m.Tier, m.PoseFull, m.PoseTick)
		}
		if !a.present(eid) {
			t.Fatalf("tick %d: entity %d is gone but held", w.tick, eid)
		}
		// What the client holds is the arena's for every group that is
		// never held back: the state, and the pose of tier 0 and its own.
		// An entity that stopped being the client's own has its quantized
		// pose at once, whatever its tier.
		rec := &a.recs[eid]
		mask := wire.MaskState
		if m.PoseFull {
			mask |= wire.MaskFullPose
		} else if m.Tier == 0 || c.full[eid] || wire.Due(m.Tier, c.enc.frame-1, eid) {
			mask |= wire.MaskQuantPose // tier 0, no longer own, or its turn
		}
		for g := 0; g < wire.GroupCount; g++ {
			if mask&(1<<g) != 0 && string(rec.Group(g)) != string(d.Rec.Group(g)) {
				t.Fatalf("tick %d: entity %d (tier %d, full %v): group %d held %x, arena %x", w.tick, eid, m.Tier, m.PoseFull, g, d.Rec.Group(g), rec.Group(g))
			}
		}
		// A far entity's rest is never other than the arena's.
		if !m.PoseFull && d.Rec.AtRest() != rec.AtRest() {
			t.Fatalf("tick %d: entity %d: client holds rest %v, arena %v", w.tick, eid, d.Rec.AtRest(), rec.AtRest())
		}
		// The tier is the distance's, give or take the hysteresis.
		in := &c.enc.interest
		x, y := a.ground(eid)
		dx, dy := x-c.view.Center.X, y-c.view.Center.Y
		dist := float32(math.Sqrt(float64(dx*dx + dy*dy)))
		if !m.PoseFull && (m.Tier < 3 && dist > in.TierRadius[m.Tier]+in.TierHysteresis+0.001 ||
			m.Tier > 0 && dist < in.TierRadius[m.Tier-1]-in.TierHysteresis-0.001) {
			t.Fatalf("tick %d: entity %d at %.2f m is in tier %d", w.tick, eid, dist, m.Tier)
		}
		if m.PoseFull != c.view.owns(eid) {
			t.Fatalf("tick %d: entity %d: full pose %v, own %v", w.tick, eid, m.PoseFull, c.view.owns(eid))
		}
	}
	clear(c.full)
	for i := 0; i < mirror.Slots(); i++ {
		if eid := mirror.Owner(i); eid != 0 && mirror.At(i).PoseFull {
			c.full[eid] = true
		}
	}
	// Everything within the enter radius, every always and every own
	// entity is held.
	in := &c.enc.interest
	for _, eid := range a.live {
		x, y := a.ground(eid)
		dx, dy := x-c.view.Center.X, y-c.view.Center.Y
		want := dx*dx+dy*dy <= in.Enter*in.Enter || a.hot[eid].state&stAlways != 0 || c.view.owns(eid)
		if want && held.Get(eid) == nil {
			t.Fatalf("tick %d: entity %d of the area of interest is not held", w.tick, eid)
		}
		if !want && held.Get(eid) != nil && dx*dx+dy*dy > in.Leave*in.Leave {
			t.Fatalf("tick %d: entity %d beyond the leave radius is held", w.tick, eid)
		}
	}
}

// TestResyncAfterWrongCheck: a client whose records differ finds out at the
// next check, refuses deltas, and is whole again after a keyframe.
func TestResyncAfterWrongCheck(t *testing.T) {
	w := newSimWorld(3, 200, 400)
	for range 80 {
		w.spawn()
	}
	a := NewArena()
	enc, dec := NewEncoder(a), wire.NewDecoder()
	view := View{Center: wire.Vec3{X: 200, Y: 200}}
	frame := func() error {
		for range wire.SnapshotEvery {
			w.step()
			w.fill(a)
		}
		_, err := dec.Apply(enc.Encode(&view))
		return err
	}
	if err := frame(); err != nil {
		t.Fatal(err)
	}
	// Corrupt what the client holds (an entity the server never sent):
	// the next check must fail.
	st := dec.Store()
	st.At(st.Add(60000)).Rec[wire.KindAt] = wire.KindCar
	var err error
	for i := 0; i < wire.CheckEvery && err == nil; i++ {
		err = frame()
	}
	if !errors.Is(err, wire.ErrResync) {
		t.Fatalf("a corrupted client passed %d checks: %v", wire.CheckEvery, err)
	}
	if err = frame(); !errors.Is(err, wire.ErrResync) {
		t.Fatalf("a delta after a failed check: %v, want ErrResync", err)
	}
	enc.RequestKeyframe()
	if err = frame(); err != nil {
		t.Fatalf("keyframe after resync: %v", err)
	}
	if ok, eid := dec.Store().EqualRecords(enc.State()); !ok {
		t.Fatalf("after the keyframe entity %d differs", eid)
	}
}

// TestDeltaOntoWrongBase: a delta whose base is not the last frame applied
// (a frame skipped) asks for a resync.
func TestDeltaOntoWrongBase(t *testing.T) {
	w := newSimWorld(5, 100, 300)
	for range 30 {
		w.spawn()
	}
	a := NewArena()
	enc, dec := NewEncoder(a), wire.NewDecoder()
	view := View{Center: wire.Vec3{X: 150, Y: 150}}
	next := func() []byte {
		w.step()
		w.fill(a)
		return enc.Encode(&view)
	}
	if _, err := dec.Apply(next()); err != nil {
		t.Fatal(err)
	}
	next() // lost
	if _, err := dec.Apply(next()); !errors.Is(err, wire.ErrResync) {
		t.Fatalf("delta onto a frame never applied: %v, want ErrResync", err)
	}
	if dec.Synced() {
		t.Fatal("decoder still synced after a wrong base")
	}
}

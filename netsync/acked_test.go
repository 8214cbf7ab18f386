package netsync

import (
	"bytes"
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/fiveonit/engine/internal/race"
	"github.com/fiveonit/engine/netsync/wire"
)

// lossyLink is a seeded transport that loses, duplicates, delays and so
// reorders what it carries: each copy arrives after a delay drawn in
// [0, jitter) frames, in the order of its arrival.
type lossyLink struct {
	rng        *rand.Rand
	loss, dup  float64
	jitter     float64
	down       bool // everything sent is lost (a burst)
	queue      []inflight
	sent, lost int
}

type inflight struct {
	at float64
	b  []byte
	n  uint32 // a payload other than bytes (an ack's tick)
}

func newLossyLink(seed uint64, loss, dup, jitter float64) *lossyLink {
	return &lossyLink{rng: rand.New(rand.NewPCG(seed, 99)), loss: loss, dup: dup, jitter: jitter}
}

func (l *lossyLink) send(now float64, b []byte, n uint32) {
	l.sent++
	if l.down || l.rng.Float64() < l.loss {
		l.lost++
		return
	}
	copies := 1
	if l.rng.Float64() < l.dup {
		copies = 2
	}
	for range copies {
		l.queue = append(l.queue, inflight{at: now + l.rng.Float64()*l.jitter, b: slices.Clone(b), n: n})
	}
}

// arrive returns what arrived by now, in the order it arrived.
func (l *lossyLink) arrive(now float64) []inflight {
	slices.SortStableFunc(l.queue, func(a, b inflight) int { return cmp.Compare(a.at, b.at) })
	k := 0
	for k < len(l.queue) && l.queue[k].at <= now {
		k++
	}
	out := slices.Clone(l.queue[:k])
	l.queue = l.queue[k:]
	return out
}

// heldEnt is one entity of a stored state.
type heldEnt struct {
	eid uint16
	h   wire.Held
}

// cloneStore returns the entities of s by id.
func cloneStore(s *wire.Store) []heldEnt {
	out := make([]heldEnt, 0, s.Len())
	for i := 0; i < s.Slots(); i++ {
		if eid := s.Owner(i); eid != 0 {
			out = append(out, heldEnt{eid, *s.At(i)})
		}
	}
	slices.SortFunc(out, func(a, b heldEnt) int { return cmp.Compare(a.eid, b.eid) })
	return out
}

func findHeld(st []heldEnt, eid uint16) *wire.Held {
	i, ok := slices.BinarySearchFunc(st, eid, func(e heldEnt, id uint16) int { return cmp.Compare(e.eid, id) })
	if !ok {
		return nil
	}
	return &st[i].h
}

// ackedRun is an ordered client and an acked client of the same world and
// view. Every frame the acked client shows is compared with the ordered
// client's, the baseline.
type ackedRun struct {
	t    *testing.T
	w    *simWorld
	a    *Arena
	view View

	ord    *Encoder
	ordDec *wire.Decoder
	enc    *AckedEncoder
	dec    *wire.AckedDecoder
	down   *lossyLink // frames
	up     *lossyLink // acks

	frameNo   int                  // frames encoded
	ordAt     map[uint32][]heldEnt // the ordered client's state by tick
	ordBreaks map[uint32][]uint16  // by tick: the entities the ordered frame removed
	frameOf   map[uint32]int       // frame number by tick
	ordEvents []wire.Event         // every event the ordered client showed, in order
	evFirst   []int                // by serial-1: the frame the event first went in
	keyTicks  map[uint32]bool      // ticks of the acked keyframes applied

	// The last frame the acked client showed.
	shown     []heldEnt
	shownTick uint32

	applied, dropped, keyframes, expired, clamped, lifeGuesses int
}

func newAckedRun(t *testing.T, seed uint64, loss, dup, jitter float64) *ackedRun {
	t.Helper()
	w := newSimWorld(seed, 400, 1200)
	for range 150 {
		w.spawn()
	}
	a := NewArena()
	r := &ackedRun{
		t: t, w: w, a: a,
		ord: NewEncoder(a), ordDec: wire.NewDecoder(),
		enc: NewAckedEncoder(a), dec: wire.NewAckedDecoder(),
		down:  newLossyLink(seed*3+1, loss, dup, jitter),
		up:    newLossyLink(seed*3+2, loss, dup, jitter),
		ordAt: map[uint32][]heldEnt{}, ordBreaks: map[uint32][]uint16{}, frameOf: map[uint32]int{}, keyTicks: map[uint32]bool{},
	}
	r.view.Center = wire.Vec3{X: 600, Y: 600}
	return r
}

// frame runs SnapshotEvery ticks, both encoders, and whatever the links
// deliver.
func (r *ackedRun) frame() {
	t := r.t
	t.Helper()
	for tick := 0; tick < wire.SnapshotEvery; tick++ {
		r.w.step()
		r.w.fill(r.a)
		now := float64(r.frameNo) + float64(tick)/wire.SnapshotEvery
		// The client's input frame of each tick carries its ack.
		r.up.send(now, nil, r.dec.Tick())
		for _, in := range r.up.arrive(now) {
			r.enc.Ack(in.n)
		}
	}
	sim := &simClient{view: r.view}
	moveView(r.w, sim)
	r.view = sim.view
	now := float64(r.frameNo)

	// The ordered baseline.
	ofr, err := r.ordDec.Apply(r.ord.Encode(&r.view))
	if err != nil {
		t.Fatalf("frame %d: ordered: %v", r.frameNo, err)
	}
	tick := r.a.Tick()
	r.ordAt[tick] = cloneStore(r.ordDec.Store())
	delete(r.ordAt, tick-200*wire.SnapshotEvery)
	var breaks []uint16
	for _, rm := range ofr.Removed {
		breaks = append(breaks, rm.EID)
	}
	r.ordBreaks[tick] = breaks
	r.frameOf[tick] = r.frameNo
	for _, ev := range ofr.Events {
		r.ordEvents = append(r.ordEvents, ev)
		r.evFirst = append(r.evFirst, r.frameNo)
	}

	// The acked encoder computes the ordered one's S(N), whatever it sends.
	b := r.enc.Encode(&r.view)
	if r.enc.Held() != r.ord.Held() {
		t.Fatalf("frame %d: the acked encoder holds %d entities, the ordered one %d", r.frameNo, r.enc.Held(), r.ord.Held())
	}
	if ok, eid := r.enc.State().EqualRecords(r.ord.State()); !ok {
		t.Fatalf("frame %d: entity %d: the acked encoder's S(N) differs from the ordered one's", r.frameNo, eid)
	}
	r.down.send(now, b, 0)
	for _, in := range r.down.arrive(now) {
		r.deliver(in.b)
	}
	r.frameNo++
}

// deliver applies one frame to the acked client and checks everything it
// showed against the ordered client's state at that tick.
func (r *ackedRun) deliver(b []byte) {
	t := r.t
	t.Helper()
	prevSerial := r.dec.Serial()
	fr, err := r.dec.Apply(b)
	if err != nil {
		t.Fatalf("frame %d: acked: %v", r.frameNo, err)
	}
	if fr == nil {
		r.dropped++
		return
	}
	r.applied++
	if fr.BaseTick == 0 {
		r.keyframes++
		r.keyTicks[fr.Tick] = true
	}
	want, ok := r.ordAt[fr.Tick]
	if !ok {
		t.Fatalf("frame %d: the acked client shows tick %d, no ordered state of it", r.frameNo, fr.Tick)
	}
	got := cloneStore(r.dec.Store())
	if len(got) != len(want) {
		t.Fatalf("tick %d: the acked client holds %d entities, the ordered %d", fr.Tick, len(got), len(want))
	}
	for i := range want {
		g, w := &got[i], &want[i]
		if g.eid != w.eid || g.h.Rec != w.h.Rec || g.h.Tier != w.h.Tier || g.h.PoseFull != w.h.PoseFull {
			t.Fatalf("tick %d: entity %d (acked) / %d (ordered) differs: tier %d/%d full %v/%v", fr.Tick, g.eid, w.eid, g.h.Tier, w.h.Tier, g.h.PoseFull, w.h.PoseFull)
		}
		if g.h.PoseTick != w.h.PoseTick {
			// Only a keyframe's pose older than an age byte: it goes
			// MaxPoseAge ticks old.
			if !(g.h.PoseTick > w.h.PoseTick && r.keyTicks[g.h.PoseTick+wire.MaxPoseAge]) {
				t.Fatalf("tick %d: entity %d: pose tick %d, ordered %d", fr.Tick, g.eid, g.h.PoseTick, w.h.PoseTick)
			}
			r.clamped++
		}
	}
	r.checkReport(fr, want)
	r.checkEvents(fr, prevSerial)
	r.shown, r.shownTick = want, fr.Tick
}

// checkReport checks what the frame told against the last frame shown: the
// entities removed, new and changed, and the poses measured.
func (r *ackedRun) checkReport(fr *wire.DecodedFrame, now []heldEnt) {
	t := r.t
	t.Helper()
	// The ordered frames between the last shown and this one: the lives
	// that changed in them.
	broke := map[uint16]bool{}
	for tk := r.shownTick + 1; tk <= fr.Tick; tk++ {
		for _, eid := range r.ordBreaks[tk] {
			broke[eid] = true
		}
	}
	wantRm, wantCh, wantMeas := map[uint16]bool{}, map[uint16]bool{}, map[uint16]uint32{}
	for _, e := range r.shown {
		if findHeld(now, e.eid) == nil {
			wantRm[e.eid] = false
		}
	}
	for _, e := range now {
		old := findHeld(r.shown, e.eid)
		switch {
		case old == nil:
			wantCh[e.eid] = true
		case broke[e.eid]:
			wantRm[e.eid] = true
			wantCh[e.eid] = true
		case old.Rec != e.h.Rec || old.Tier != e.h.Tier || old.PoseFull != e.h.PoseFull || old.PoseTick != e.h.PoseTick:
			wantCh[e.eid] = false
		}
		if (old == nil || broke[e.eid]) && wire.NonZeroGroups(&e.h.Rec)&wire.MaskPose != 0 || old != nil && !broke[e.eid] && old.PoseTick != e.h.PoseTick {
			wantMeas[e.eid] = e.h.PoseTick
		}
	}
	guessed := map[uint16]bool{}
	for _, rm := range fr.Removed {
		nl, ok := wantRm[rm.EID]
		if !ok {
			t.Fatalf("tick %d: entity %d reported removed (new life %v), not expected", fr.Tick, rm.EID, rm.NewLife)
		}
		if nl != rm.NewLife {
			t.Fatalf("tick %d: entity %d: new life %v, want %v", fr.Tick, rm.EID, rm.NewLife, nl)
		}
		delete(wantRm, rm.EID)
	}
	for eid, nl := range wantRm {
		if nl && wantCh[eid] {
			// The ordered client saw a new life the acked one took for
			// the same (its life changed before and after the last frame
			// shown, with the same generation and kind): the documented
			// guess. It must then have reported it changed.
			guessed[eid] = true
			delete(wantMeas, eid)
			r.lifeGuesses++
			continue
		}
		t.Fatalf("tick %d: entity %d removed (new life %v) not reported", fr.Tick, eid, nl)
	}
	for _, ch := range fr.Changed {
		isNew, ok := wantCh[ch.EID]
		if !ok {
			t.Fatalf("tick %d: entity %d reported changed, nothing changed", fr.Tick, ch.EID)
		}
		if isNew != ch.New && !guessed[ch.EID] {
			t.Fatalf("tick %d: entity %d: new %v, want %v", fr.Tick, ch.EID, ch.New, isNew)
		}
		delete(wantCh, ch.EID)
	}
	if len(wantCh) > 0 {
		t.Fatalf("tick %d: %d changed entities not reported (%v)", fr.Tick, len(wantCh), wantCh)
	}
	for _, m := range fr.Measured {
		tk, ok := wantMeas[m.EID]
		if !ok && !guessed[m.EID] {
			t.Fatalf("tick %d: entity %d reported measured, its pose was shown already", fr.Tick, m.EID)
		}
		if ok && tk != m.Tick && !r.keyTicks[m.Tick+wire.MaxPoseAge] {
			t.Fatalf("tick %d: entity %d measured at %d, want %d", fr.Tick, m.EID, m.Tick, tk)
		}
		delete(wantMeas, m.EID)
	}
	if len(wantMeas) > 0 {
		t.Fatalf("tick %d: %d measurements not reported", fr.Tick, len(wantMeas))
	}
}

// checkEvents checks that the events shown are the ordered client's, each
// once, and that every one skipped had expired.
func (r *ackedRun) checkEvents(fr *wire.DecodedFrame, prevSerial uint32) {
	t := r.t
	t.Helper()
	newest := r.dec.Serial()
	first := newest - uint32(len(fr.Events)) + 1
	if len(fr.Events) == 0 {
		first = newest + 1
		if newest != prevSerial {
			t.Fatalf("tick %d: the newest serial moved from %d to %d with no event shown", fr.Tick, prevSerial, newest)
		}
	}
	for i, ev := range fr.Events {
		s := first + uint32(i)
		if s <= prevSerial || int(s) > len(r.ordEvents) {
			t.Fatalf("tick %d: event serial %d shown again or never sent (newest before %d)", fr.Tick, s, prevSerial)
		}
		if ev != r.ordEvents[s-1] {
			t.Fatalf("tick %d: event %d is %+v, the ordered client's %+v", fr.Tick, s, ev, r.ordEvents[s-1])
		}
	}
	for s := prevSerial + 1; s < first; s++ {
		if age := r.frameOf[fr.Tick] - r.evFirst[s-1]; age < wire.EventTTL {
			t.Fatalf("tick %d: event %d skipped, %d frames old (EventTTL %d)", fr.Tick, s, age, wire.EventTTL)
		}
		r.expired++
	}
}

func (r *ackedRun) summary() string {
	return fmt.Sprintf("%d frames: %d applied (%d keyframes), %d dropped, down link %d/%d lost, acks %d/%d lost; events: %d, shown %d, expired %d; keyframe poses over an age byte %d, lives guessed %d; encoder %+v",
		r.frameNo, r.applied, r.keyframes, r.dropped, r.down.lost, r.down.sent, r.up.lost, r.up.sent,
		len(r.ordEvents), r.dec.Serial()-uint32(r.expired), r.expired, r.clamped, r.lifeGuesses, r.enc.Stats())
}

// TestAckedLossyLink: over 10,000 frames through a link losing 20 % of the
// frames and of the acks, duplicating 5 % and reordering within 3 frames,
// every frame the acked client shows holds, byte for byte, what the ordered
// client held at that tick (records, tiers, pose modes, pose ticks); what it
// tells is against the last frame it showed; every event is shown exactly
// once unless it expired by EventTTL.
func TestAckedLossyLink(t *testing.T) {
	race.Solo(t)
	frames := 10000
	if testing.Short() {
		frames = 2000
	}
	for _, c := range []struct {
		name            string
		loss, dup, jitt float64
	}{
		{"loss20", 0.20, 0.05, 3},
		{"loss50", 0.50, 0.05, 3},
		{"clean", 0, 0, 0.5},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := frames
			if c.name != "loss20" {
				n = frames / 5
			}
			r := newAckedRun(t, 17, c.loss, c.dup, c.jitt)
			for range n {
				r.frame()
			}
			t.Log(r.summary())
			if r.applied < n/3 || r.keyframes == 0 || len(r.ordEvents) == 0 || r.dec.Serial() == 0 {
				t.Fatalf("the run missed its cases: %s", r.summary())
			}
			// On a clean link the first frame is the only keyframe but
			// those smaller than the chain they stand for: the frames
			// before its ack comes back apply onto it, and no event
			// expires.
			st := r.enc.Stats()
			if c.name == "clean" && (st.Keyframes-st.Smaller != 1 || st.Smaller > uint64(n/100) || r.expired != 0 || r.dropped != 0) {
				t.Fatalf("a clean link: %s", r.summary())
			}
		})
	}
}

// TestAckedLossySeeds: TestAckedLossyLink's loss20 run over 8 more seeds,
// each losing, duplicating and reordering differently, for 1,500 frames (in
// short mode 2 seeds, 500 frames). In each seed an entity leaves and comes
// back, of the same generation, while the frames go onto a base that did
// not hold it: the client takes its life for the same, a guess. A frame
// onto an older base then removes the entity, and the client must not tell
// a new life against the last frame shown. Each seed failed so while the
// decoder held its guesses for facts; 95 and 9 within 500 frames.
func TestAckedLossySeeds(t *testing.T) {
	seeds, frames := []uint64{95, 9, 46, 35, 41, 36, 19, 29}, 1500
	if testing.Short() {
		seeds, frames = seeds[:2], 500
	}
	guesses := 0
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := newAckedRun(t, seed, 0.20, 0.05, 3)
			for range frames {
				r.frame()
			}
			t.Log(r.summary())
			if r.applied < frames/3 || r.dropped == 0 || r.down.lost == 0 {
				t.Fatalf("the run missed its cases: %s", r.summary())
			}
			guesses += r.lifeGuesses
		})
	}
	if guesses == 0 {
		t.Fatal("no seed took a new life for the same: the case is not covered")
	}
}

// TestAckedBurstKeyframe: a loss burst (frames and acks) longer than
// SentRing leaves the server no acknowledged base: it sends a keyframe, the
// client recovers through it, and the events of the burst expired.
func TestAckedBurstKeyframe(t *testing.T) {
	r := newAckedRun(t, 5, 0.1, 0, 1)
	for range 100 {
		r.frame()
	}
	keys := r.enc.Stats().Keyframes
	r.down.down, r.up.down = true, true
	for range wire.SentRing + 8 {
		r.frame()
	}
	r.down.down, r.up.down = false, false
	lastShown := r.shownTick
	for range 40 {
		r.frame()
	}
	t.Log(r.summary())
	if r.enc.Stats().Keyframes == keys {
		t.Fatal("no keyframe after a burst longer than SentRing")
	}
	if r.shownTick <= lastShown {
		t.Fatal("the client did not recover after the burst")
	}
	if r.expired == 0 {
		t.Fatal("no event expired over a burst of 40 frames")
	}
}

// TestAckedDuplicatesAndStale: a frame delivered twice, or after a newer one,
// is dropped without a word; one onto a base the client never got too.
func TestAckedDuplicatesAndStale(t *testing.T) {
	w := newSimWorld(9, 200, 600)
	for range 60 {
		w.spawn()
	}
	a := NewArena()
	enc, dec := NewAckedEncoder(a), wire.NewAckedDecoder()
	view := View{Center: wire.Vec3{X: 300, Y: 300}}
	next := func() []byte {
		for range wire.SnapshotEvery {
			w.step()
			w.fill(a)
		}
		return slices.Clone(enc.Encode(&view))
	}
	k := next()
	if fr, err := dec.Apply(k); err != nil || fr == nil || fr.BaseTick != 0 {
		t.Fatalf("keyframe: %v %v", fr, err)
	}
	enc.Ack(dec.Tick())
	f1 := next()
	f2 := next()
	if fr, err := dec.Apply(f2); err != nil || fr == nil {
		t.Fatalf("f2 onto the keyframe: %v", err)
	}
	for _, b := range [][]byte{f2, f1, k} {
		if fr, err := dec.Apply(b); fr != nil || err != nil {
			t.Fatalf("a stale frame was not dropped: %v %v", fr, err)
		}
	}
	// A base never received: the client dropped f3's base (f3 acked onto
	// f1, which the client never applied) — forge the ack.
	enc.Ack(binaryTick(f1))
	f3 := next()
	if fr, err := dec.Apply(f3); fr != nil || err != nil {
		t.Fatalf("a frame onto a base not held was not dropped: %v %v", fr, err)
	}
	st := dec.Stats()
	if st.Stale != 3 || st.NoBase != 1 || st.Applied != 2 {
		t.Fatalf("stats %+v", st)
	}
	// The next frame onto what the client holds applies.
	enc.Ack(dec.Tick())
	if fr, err := dec.Apply(next()); err != nil || fr == nil {
		t.Fatalf("after the drops: %v %v", fr, err)
	}
	if ok, eid := dec.Store().EqualRecords(enc.State()); !ok {
		t.Fatalf("entity %d differs", eid)
	}
}

func binaryTick(b []byte) uint32 {
	return uint32(b[1]) | uint32(b[2])<<8 | uint32(b[3])<<16 | uint32(b[4])<<24
}

// TestAckedKeyframeOldPose: a keyframe carries a pose measured more than an
// age byte ago as MaxPoseAge ticks old; a client that held that very pose
// keeps its own (true) tick and reports no new measurement, one that did not
// records it MaxPoseAge ticks old.
func TestAckedKeyframeOldPose(t *testing.T) {
	a := NewArena()
	enc, dec := NewAckedEncoder(a), wire.NewAckedDecoder()
	parked := wire.Entity{Kind: wire.KindCar, Pos: wire.Vec3{X: 10, Y: 10}, Rot: yawQuat(0.5), HP: 10, MaxHP: 10}
	moving := wire.Entity{Kind: wire.KindCar, Pos: wire.Vec3{X: 20, Y: 10}, Rot: yawQuat(0), Lin: wire.Vec3{X: 1}, HP: 10, MaxHP: 10}
	view := View{Center: wire.Vec3{X: 10, Y: 10}}
	tick := uint32(0)
	step := func() *wire.DecodedFrame {
		tick += wire.SnapshotEvery
		moving.Pos.X += 0.05
		a.Begin(tick)
		a.Put(1, &parked, false)
		a.Put(2, &moving, false)
		a.End()
		fr, err := dec.Apply(enc.Encode(&view))
		if err != nil || fr == nil {
			t.Fatalf("tick %d: %v %v", tick, fr, err)
		}
		enc.Ack(dec.Tick())
		return fr
	}
	step()
	first := dec.Store().Get(1).PoseTick
	for range 120 { // 360 ticks: the parked car's pose is older than an age byte
		step()
	}
	enc.RequestKeyframe()
	fr := step()
	if fr.BaseTick != 0 {
		t.Fatal("no keyframe")
	}
	if got := dec.Store().Get(1).PoseTick; got != first || enc.State().Get(1).PoseTick != first {
		t.Fatalf("the parked car's pose tick is %d after the keyframe, want %d", got, first)
	}
	for _, m := range fr.Measured {
		if m.EID == 1 {
			t.Fatal("the parked car's pose, shown already, reported measured again")
		}
	}
	// A new client never held it: it records it MaxPoseAge ticks old.
	fresh := wire.NewAckedDecoder()
	if _, err := fresh.Apply(enc.Last()); err != nil {
		t.Fatal(err)
	}
	if got := fresh.Store().Get(1).PoseTick; got != tick-wire.MaxPoseAge {
		t.Fatalf("a new client's pose tick %d, want %d", got, tick-wire.MaxPoseAge)
	}
	if ok, eid := fresh.Store().EqualRecords(enc.State()); !ok {
		t.Fatalf("entity %d differs", eid)
	}
}

// TestAckedZeroAllocs: once its buffers have grown, a frame of acked encoders
// (acks lagging, events, checks, keyframes now and then) and of a decoder
// applying one of them allocates nothing.
func TestAckedZeroAllocs(t *testing.T) {
	race.Solo(t)
	w := newSimWorld(11, 600, 1500)
	for range 500 {
		w.spawn()
	}
	w.fixed = true
	a := NewArena()
	encs := make([]*AckedEncoder, 3)
	views := make([]View, len(encs))
	for i := range encs {
		encs[i] = NewAckedEncoder(a)
		if i == 1 {
			encs[i].SetBudget(300) // poses wait: the priority sort runs
		}
		views[i].Center = wire.Vec3{X: float32(400 * (i + 1)), Y: 700}
	}
	dec := wire.NewAckedDecoder()
	var acks [4]uint32 // the client's acks arrive 2 frames late
	n := 0
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
			views[i].Center.X += 25
			if views[i].Center.X > w.size {
				views[i].Center.X = 0
			}
			if w.tick%300 == 0 {
				e.RequestKeyframe()
			}
			b := e.Encode(&views[i])
			if i == 0 {
				if n%7 != 3 { // a frame lost now and then
					if _, err := dec.Apply(b); err != nil {
						panic(err)
					}
				}
				acks[n%len(acks)] = dec.Tick()
				e.Ack(acks[(n+len(acks)-2)%len(acks)])
			} else {
				e.Ack(a.Tick())
			}
		}
		n++
	}
	for range 400 {
		frame()
	}
	if got := testing.AllocsPerRun(200, frame); got != 0 {
		t.Fatalf("%v allocations per frame in steady state, want 0", got)
	}
	if encs[0].Stats().Keyframes < 2 || encs[0].Stats().BaseLag == 0 {
		t.Fatalf("the run missed its cases: %+v", encs[0].Stats())
	}
}

// TestAckedChainOrSmaller: while no ack comes back, each frame is the chain
// of every frame since the last one acknowledged, one link more each time,
// until the links take more than twice the bytes of a keyframe: then a
// keyframe goes, counted as Smaller, and the client applies every frame.
func TestAckedChainOrSmaller(t *testing.T) {
	r := newAckedRun(t, 11, 0, 0, 0)
	for range 20 {
		r.frame()
	}
	r.up.down = true // the acks stop
	st := r.enc.Stats()
	links := 0
	for i := range wire.SentRing - 2 {
		r.frame()
		b := r.enc.Last()
		h, _, err := wire.ParseAckedHeader(b)
		if err != nil {
			t.Fatal(err)
		}
		if h.BaseTick == 0 {
			if !r.enc.KeyframeForSize() {
				t.Fatalf("frame %d without acks: a keyframe not told as for its size", i)
			}
			if got := r.enc.Stats(); got.Smaller != st.Smaller+1 || got.Keyframes != st.Keyframes+1 {
				t.Fatalf("frame %d without acks: a keyframe, stats %+v then %+v: want one more, smaller", i, st, got)
			}
			if links < 2 {
				t.Fatalf("a keyframe after a chain of %d links", links)
			}
			t.Logf("a keyframe after a chain of %d links; %s", links, r.summary())
			return
		}
		if h.Flags&wire.HeaderChain == 0 || int(h.Changed) != links+1 && links > 0 || r.enc.KeyframeForSize() {
			t.Fatalf("frame %d without acks: flags %#x, %d links after %d", i, h.Flags, h.Changed, links)
		}
		links = int(h.Changed)
	}
	t.Fatalf("no keyframe for size in %d frames without acks: %s", wire.SentRing-2, r.summary())
}

// TestAckedBase: the base the next frame goes onto is the newest frame
// acknowledged, none before the first ack or once a keyframe is asked
// for, and it stays while the acks stop; the next frame's chain goes onto
// it.
func TestAckedBase(t *testing.T) {
	r := newAckedRun(t, 11, 0, 0, 0)
	if _, ok := r.enc.AckedBase(); ok {
		t.Fatal("a base before the first frame")
	}
	for range 20 {
		r.frame()
	}
	base, ok := r.enc.AckedBase()
	if !ok || base == 0 {
		t.Fatalf("after 20 acknowledged frames, base %d, %v", base, ok)
	}
	r.up.down = true // the acks stop
	for range 3 {
		r.frame()
		h, _, err := wire.ParseAckedHeader(r.enc.Last())
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := r.enc.AckedBase(); !ok || got != base || h.BaseTick != base {
			t.Fatalf("without acks: base %d, %v; the frame went onto %d; want %d", got, ok, h.BaseTick, base)
		}
	}
	r.enc.RequestKeyframe()
	if _, ok := r.enc.AckedBase(); ok {
		t.Fatal("a base while a keyframe is asked for")
	}
}

// TestAckedLogKeepsLinks: the log keeps the links of the last SentRing
// frames intact, whatever their sizes, small, large, and now and then a
// frame of a crowd, and grows only now and then: after a high, a log
// twice what the frames kept take holds the next ones.
func TestAckedLogKeepsLinks(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	link := func(n uint32, size int) []byte {
		b := make([]byte, size)
		for i := range b {
			b[i] = byte(n*7 + uint32(i))
		}
		return b
	}
	sizes := map[uint32]int{}
	e := &AckedEncoder{}
	grew := 0
	for n := range uint32(20000) {
		size := rng.IntN(1500)
		switch {
		case rng.IntN(500) == 0:
			size = 20000 + rng.IntN(20000) // a crowd come whole
		case n%3000 < 40:
			size = 4000 + rng.IntN(1000) // a busy street for a while
		}
		sizes[n] = size
		e.work = link(n, size)
		cap0 := len(e.log)
		e.keep(&e.sent[n%wire.SentRing], n)
		if len(e.log) != cap0 {
			grew++
		}
		for k := uint32(0); k < wire.SentRing && k <= n; k++ {
			s := &e.sent[(n-k)%wire.SentRing]
			if got := e.log[s.at : s.at+s.size]; !bytes.Equal(got, link(n-k, sizes[n-k])) {
				t.Fatalf("after frame %d, the link of frame %d (%d bytes at %d) differs", n, n-k, s.size, s.at)
			}
		}
	}
	t.Logf("the log grew %d times, to %d bytes", grew, len(e.log))
	if grew > 12 {
		t.Fatalf("the log grew %d times in 20,000 frames", grew)
	}
}

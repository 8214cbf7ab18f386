package wire

import (
	"cmp"
	"errors"
	"slices"
	"strings"
	"testing"
)

// chainLink is one link of a chained frame: the ordered delta of the frame
// of tick.
type chainLink struct {
	tick    uint32
	removed []uint16
	changes []testChange
}

// link returns the body of l onto the state of prev (its removed ids, then
// its changes) and keeps the state of l.tick.
func (f *ackedBuilder) link(prev uint32, l chainLink) []byte {
	st := &Store{}
	cloneInto(st, f.states[prev])
	changes := slices.Clone(l.changes)
	step(st, l.tick, l.removed, changes)
	f.states[l.tick] = st
	var b []byte
	for _, eid := range l.removed {
		b = le.AppendUint16(b, eid)
	}
	for _, c := range changes {
		b = AppendChange(b, c.eid, c.mask, c.age, &c.rec, &c.from)
	}
	return b
}

// chain writes the chained frame of the last link's tick onto base: each
// link onto the state of the one before it, the first onto base's.
func (f *ackedBuilder) chain(base uint32, links []chainLink, first uint32, events []Event, check bool) []byte {
	tick := links[len(links)-1].tick
	var body []byte
	prev := base
	for _, l := range links {
		body = le.AppendUint32(body, l.tick)
		body = le.AppendUint16(body, uint16(len(l.removed)))
		body = le.AppendUint16(body, uint16(len(l.changes)))
		body = append(body, f.link(prev, l)...)
		prev = l.tick
	}
	h := Header{Kind: FrameAcked, Tick: tick, BaseTick: base, LastSeq: 7, InputBuffer: 1, Flags: HeaderChain, Changed: uint16(len(links))}
	if check {
		h.Flags |= HeaderCheck
		h.Check = f.states[tick].Check()
	}
	return appendEvents(append(AppendHeader(nil, &h), body...), first, events)
}

// ordered writes the ordered delta (kind 5) of l onto prev, with a check.
func (f *ackedBuilder) ordered(prev uint32, l chainLink) []byte {
	body := f.link(prev, l)
	h := Header{Kind: FrameDelta, Tick: l.tick, BaseTick: prev, LastSeq: 7, InputBuffer: 1, Flags: HeaderCheck,
		Removed: uint16(len(l.removed)), Changed: uint16(len(l.changes)), Check: f.states[l.tick].Check()}
	return append(append(AppendHeader(nil, &h), body...), 0)
}

// appendEvents appends an acked frame's events: their count, the first
// serial when there are any, and the events.
func appendEvents(b []byte, first uint32, events []Event) []byte {
	b = append(b, byte(len(events)))
	if len(events) > 0 {
		b = le.AppendUint32(b, first)
	}
	for i := range events {
		b = AppendEvent(b, &events[i])
	}
	return b
}

// sameStore fails unless got holds what want holds: the same ids, each with
// the same record, tier, pose mode and pose tick, and the same check.
func sameStore(t *testing.T, what string, got, want *Store) {
	t.Helper()
	if got.Len() != want.Len() || got.Check() != want.Check() {
		t.Fatalf("%s: %d entities, check %#08x; want %d, %#08x", what, got.Len(), got.Check(), want.Len(), want.Check())
	}
	for i := 0; i < want.Slots(); i++ {
		eid := want.Owner(i)
		if eid == 0 {
			continue
		}
		if h := got.Get(eid); h == nil || *h != *want.At(i) {
			t.Fatalf("%s: entity %d is %+v, want %+v", what, eid, h, *want.At(i))
		}
	}
}

func cloneStore(s *Store) *Store {
	c := &Store{}
	cloneInto(c, s)
	return c
}

// The scenario of the chain tests: a keyframe at 10 holds a car (5), a
// character in the full pose (2) and another character (3). The links
// 13, 16 and 19 move the car by small steps. 13 hurts 2. 16 gives 2 a new
// life, removes 3 and brings a new car (7). 19 brings 3 back whole, of the
// same generation (it left the area and came back), measures the car 2
// ticks before, hurts the car 7, and gives 2 a new life again. 22 moves the
// car and removes 3.
var (
	manC  = Entity{Kind: KindCharacter, Player: 2, Gen: 1, Pos: Vec3{30, -5, 0}, Rot: Quat{W: 1}, HP: 80, MaxHP: 100}
	carD  = Entity{Kind: KindCar, Gen: 2, Pos: Vec3{-20, 40, 0}, Rot: Quat{Z: 0.6, W: 0.8}, Lin: Vec3{0, 3, 0}, HP: 90, MaxHP: 100}
	whole = MaskState | MaskFullPose | PoseFull
	steps = 1<<GroupPosition | SmallSteps | MaskTierOf(1)
)

func chainScenario() (key []testChange, links []chainLink, car []Entity, man2 []Entity, man3, car7 Entity) {
	car = make([]Entity, 5) // the car at 10, 13, 16, 19, 22
	for i := range car {
		car[i] = carA
		car[i].Pos.X += 0.25 * float32(i)
		car[i].Pos.Y -= 0.125 * float32(i)
	}
	man2 = make([]Entity, 4) // 2 at 10, hurt at 13, its life at 16, at 19
	for i := range man2 {
		man2[i] = manB
		man2[i].Gen += uint8(max(i-1, 0))
		man2[i].Pos.Y += float32(i)
	}
	man2[1].Pos, man2[1].HP = manB.Pos, 40
	man3 = manC
	man3.Pos.X += 3
	car7 = carD
	car7.HP = 60
	key = []testChange{
		{eid: 5, mask: allQuant | MaskTierOf(1), rec: recordOf(car[0])},
		{eid: 2, mask: whole, rec: recordOf(man2[0])},
		{eid: 3, mask: allQuant | MaskTierOf(2), rec: recordOf(manC)},
	}
	links = []chainLink{
		{tick: 13, changes: []testChange{
			{eid: 5, mask: steps, rec: recordOf(car[1])},
			{eid: 2, mask: 1<<GroupDrive | PoseFull, rec: recordOf(man2[1])},
		}},
		{tick: 16, removed: []uint16{2, 3}, changes: []testChange{
			{eid: 2, mask: whole, rec: recordOf(man2[2])},
			{eid: 5, mask: steps, rec: recordOf(car[2])},
			{eid: 7, mask: allQuant, rec: recordOf(carD)},
		}},
		{tick: 19, removed: []uint16{2}, changes: []testChange{
			{eid: 3, mask: allQuant | MaskTierOf(2), rec: recordOf(man3)},
			{eid: 5, mask: steps | PoseAge, age: 2, rec: recordOf(car[3])},
			{eid: 7, mask: 1 << GroupDrive, rec: recordOf(car7)},
			{eid: 2, mask: whole, rec: recordOf(man2[3])},
		}},
		{tick: 22, removed: []uint16{3}, changes: []testChange{
			{eid: 5, mask: steps, rec: recordOf(car[4])},
		}},
	}
	return key, links, car, man2, man3, car7
}

// shownBefore are the frames an acked decoder shows after the keyframe at 10
// and before the chain 19 onto 10, by name: the chain then reverts 0, 1, 2
// or 1 frames (one chained itself) to its base.
var shownBefore = []string{"none", "13", "13 and 16", "16 as a chain"}

func showBefore(t *testing.T, f *ackedBuilder, d *AckedDecoder, links []chainLink, name string) {
	t.Helper()
	switch name {
	case "13":
		mustApply(t, d, f.chain(10, links[:1], 0, nil, true))
	case "13 and 16":
		mustApply(t, d, f.chain(10, links[:1], 0, nil, false))
		mustApply(t, d, f.chain(13, links[1:2], 0, nil, true))
	case "16 as a chain":
		mustApply(t, d, f.chain(10, links[:2], 0, nil, true))
	}
}

// TestAckedDecoderChain: a chain of 3 links onto an acked base holds exactly
// what an ordered decoder holds after the same three deltas: the records,
// tiers, pose modes, pose ticks and the check. Among the links are a removal
// and a later return whole, new lives (removed and changed in one link),
// small steps and a pose age. Then a chain of 4 links onto the same base,
// and a chain of 1 onto the frame shown, hold what the ordered decoder holds
// after a fourth delta. Whatever the decoder showed after the base before.
func TestAckedDecoderChain(t *testing.T) {
	for _, shown := range shownBefore {
		t.Run(shown, func(t *testing.T) {
			var f ackedBuilder
			keyCh, links, _, _, _, _ := chainScenario()
			key := f.frame(10, 0, nil, keyCh, 0, nil, true)
			od := NewDecoder()
			okey := slices.Clone(key)
			okey[0] = FrameKeyframe // the same bytes with no event
			if _, err := od.Apply(okey); err != nil {
				t.Fatal(err)
			}
			for i, l := range links[:3] {
				prev := uint32(10)
				if i > 0 {
					prev = links[i-1].tick
				}
				if _, err := od.Apply(f.ordered(prev, l)); err != nil {
					t.Fatalf("ordered %d: %v", l.tick, err)
				}
			}
			ordered19 := cloneStore(od.Store())

			d := NewAckedDecoder()
			mustApply(t, d, key)
			showBefore(t, &f, d, links, shown)
			c19 := f.chain(10, links[:3], 1, []Event{boom}, true)
			fr := mustApply(t, d, c19)
			if fr.Kind != FrameAcked || fr.Tick != 19 || fr.BaseTick != 10 || !fr.Checked || len(fr.Events) != 1 || fr.Events[0] != boom {
				t.Fatalf("chain 19 told %+v", fr)
			}
			sameStore(t, "after 19", d.Store(), ordered19)
			if got := d.Store().Get(5).PoseTick; got != 17 {
				t.Fatalf("the car's pose tick %d, want 17 (link 19, age 2)", got)
			}
			if got := d.Store().Get(7).PoseTick; got != 16 {
				t.Fatalf("the new car's pose tick %d, want 16 (its link)", got)
			}

			// The ordered fourth delta, and two chains to it: onto the
			// base (reverting 19 and what was shown before it) and onto
			// 19.
			if _, err := od.Apply(f.ordered(19, links[3])); err != nil {
				t.Fatal(err)
			}
			mustApply(t, d, f.chain(10, links, 0, nil, true))
			sameStore(t, "22 onto 10", d.Store(), od.Store())
			d2 := NewAckedDecoder()
			mustApply(t, d2, key)
			mustApply(t, d2, c19)
			mustApply(t, d2, f.chain(19, links[3:], 0, nil, true))
			sameStore(t, "22 onto 19", d2.Store(), od.Store())
		})
	}
}

// TestAckedDecoderChainEvents: Events reads a chained frame's events, as
// for a frame not applied, and refuses a chain it cannot walk.
func TestAckedDecoderChainEvents(t *testing.T) {
	var f ackedBuilder
	keyCh, links, _, _, _, _ := chainScenario()
	f.frame(10, 0, nil, keyCh, 0, nil, true)
	c := f.chain(10, links[:3], 5, []Event{boom, hitB}, false)
	d := NewAckedDecoder()
	if evs, err := d.Events(c); err != nil || len(evs) != 2 || evs[1] != hitB || d.Serial() != 6 {
		t.Fatalf("events %+v %v, serial %d", evs, err, d.Serial())
	}
	bad := slices.Clone(c)
	le.PutUint32(bad[HeaderBytes:], 10) // the first link's tick: the base's
	if _, err := d.Events(bad); !errors.Is(err, ErrMalformed) {
		t.Fatalf("got %v, want ErrMalformed", err)
	}
}

// mergedScenario returns the merged delta that turns the keyframe's state
// at 10 into the state of the chain at 19: what the server wrote before the
// chains.
func mergedScenario() (removed []uint16, changes []testChange) {
	_, _, car, man2, man3, car7 := chainScenario()
	return []uint16{3, 2}, []testChange{
		{eid: 5, mask: 1<<GroupPosition | MaskTierOf(1) | PoseAge, age: 2, rec: recordOf(car[3])},
		{eid: 2, mask: whole, rec: recordOf(man2[3])},
		{eid: 3, mask: allQuant | MaskTierOf(2), rec: recordOf(man3)},
		{eid: 7, mask: allQuant | PoseAge, age: 3, rec: recordOf(car7)},
	}
}

type toldFrame struct {
	Changed  []Changed
	Measured []Measured
	Removed  []Removed
}

// told returns what fr told, each list by id.
func told(fr *DecodedFrame) toldFrame {
	c := toldFrame{slices.Clone(fr.Changed), slices.Clone(fr.Measured), slices.Clone(fr.Removed)}
	slices.SortFunc(c.Changed, func(a, b Changed) int { return cmp.Compare(a.EID, b.EID) })
	slices.SortFunc(c.Measured, func(a, b Measured) int { return cmp.Compare(a.EID, b.EID) })
	slices.SortFunc(c.Removed, func(a, b Removed) int { return cmp.Compare(a.EID, b.EID) })
	return c
}

func sameTold(t *testing.T, what string, got, want *DecodedFrame) {
	t.Helper()
	g, w := told(got), told(want)
	if !slices.Equal(g.Changed, w.Changed) || !slices.Equal(g.Measured, w.Measured) || !slices.Equal(g.Removed, w.Removed) {
		t.Fatalf("%s told\n%+v\nthe merged delta\n%+v", what, g, w)
	}
	if got.Kind != want.Kind || got.Tick != want.Tick || got.BaseTick != want.BaseTick || got.Checked != want.Checked {
		t.Fatalf("%s: kind %d tick %d base %d checked %v; the merged delta %d %d %d %v", what,
			got.Kind, got.Tick, got.BaseTick, got.Checked, want.Kind, want.Tick, want.BaseTick, want.Checked)
	}
}

// TestAckedDecoderChainTellsAsMerged: a chain tells the changes against the
// last frame shown (Changed, Measured, Removed) as the merged delta of the
// same base and tick does, whatever was shown after the base, and leaves
// the same undo behind: a later chain onto the base tells the same after
// either.
func TestAckedDecoderChainTellsAsMerged(t *testing.T) {
	for _, shown := range shownBefore {
		t.Run(shown, func(t *testing.T) {
			var f, g ackedBuilder
			keyCh, links, _, _, _, _ := chainScenario()
			key := f.frame(10, 0, nil, keyCh, 0, nil, true)
			g.frame(10, 0, nil, keyCh, 0, nil, true)
			removed, changes := mergedScenario()
			merged := g.frame(19, 10, removed, changes, 0, nil, true)
			chained := f.chain(10, links[:3], 0, nil, true)
			sameStore(t, "the merged delta's state", g.states[19], f.states[19])

			dc, dm := NewAckedDecoder(), NewAckedDecoder()
			for _, d := range []*AckedDecoder{dc, dm} {
				mustApply(t, d, key)
				showBefore(t, &f, d, links, shown)
			}
			frc := mustApply(t, dc, chained)
			frm := mustApply(t, dm, merged)
			sameTold(t, "the chain", frc, frm)
			if len(frc.Changed) == 0 || len(frc.Removed) == 0 || len(frc.Measured) == 0 {
				t.Fatalf("the chain told %+v: nothing to compare", told(frc))
			}
			sameStore(t, "the chain", dc.Store(), dm.Store())

			next := f.chain(10, links, 0, nil, true)
			frc = mustApply(t, dc, next)
			frm = mustApply(t, dm, next)
			sameTold(t, "22 onto 10", frc, frm)
			sameStore(t, "22 onto 10", dc.Store(), dm.Store())
		})
	}
}

// rawLink is a link written by hand: its head's counts as given.
type rawLink struct {
	tick             uint32
	removed, changed uint16
	body             []byte
}

// rawChain writes a chained frame by hand: the header of h (HeaderChain
// added, and the count of links when h.Changed is 0), the links, then tail.
func rawChain(h Header, links []rawLink, tail ...byte) []byte {
	h.Kind, h.Flags = FrameAcked, h.Flags|HeaderChain
	if h.Changed == 0 {
		h.Changed = uint16(len(links))
	}
	b := AppendHeader(nil, &h)
	for _, l := range links {
		b = le.AppendUint32(b, l.tick)
		b = le.AppendUint16(b, l.removed)
		b = le.AppendUint16(b, l.changed)
		b = append(b, l.body...)
	}
	return append(b, tail...)
}

func rmBytes(ids ...uint16) []byte {
	var b []byte
	for _, eid := range ids {
		b = le.AppendUint16(b, eid)
	}
	return b
}

func chBytes(eid, mask uint16, e Entity) []byte {
	rec := recordOf(e)
	return AppendChange(nil, eid, mask, 0, &rec, &[3]int32{})
}

// TestAckedDecoderChainMalformed: each rule of the chained frame, broken, is
// an error wrapping ErrMalformed that names the rule and changes nothing:
// the decoder still applies the good chain onto the same base after it.
func TestAckedDecoderChainMalformed(t *testing.T) {
	var f ackedBuilder
	key := f.frame(10, 0, nil, []testChange{{eid: 5, mask: allQuant, rec: recordOf(carA)}, {eid: 2, mask: whole, rec: recordOf(manB)}}, 0, nil, true)
	hurt := carA
	hurt.HP = 10
	shown := f.frame(12, 10, nil, []testChange{{eid: 5, mask: 1 << GroupDrive, rec: recordOf(hurt)}}, 0, nil, true)
	flagged := manB
	flagged.Flags = 3

	// The good chain onto 10: 13 removes the car and changes 2, 16 brings
	// the car back whole, 19 changes 2 again.
	want := cloneStore(f.states[10])
	step(want, 13, []uint16{5}, []testChange{{eid: 2, mask: 1 << GroupFlags, rec: recordOf(flagged)}})
	step(want, 16, nil, []testChange{{eid: 5, mask: allQuant, rec: recordOf(carA)}})
	step(want, 19, nil, []testChange{{eid: 2, mask: 1 << GroupFlags, rec: recordOf(manB)}})
	l13 := rawLink{13, 1, 1, append(rmBytes(5), chBytes(2, 1<<GroupFlags, flagged)...)}
	l16 := rawLink{16, 0, 1, chBytes(5, allQuant, carA)}
	l19 := rawLink{19, 0, 1, chBytes(2, 1<<GroupFlags, manB)}
	h := Header{Tick: 19, BaseTick: 10, Flags: HeaderCheck, Check: want.Check()}
	good := rawChain(h, []rawLink{l13, l16, l19}, 0)
	at := func(h Header, edit func(*Header)) Header { edit(&h); return h }

	long := make([]rawLink, SentRing+1)
	for i := range long {
		long[i] = rawLink{tick: 11 + uint32(i)}
	}
	cases := []struct {
		name, err string
		frame     []byte
	}{
		{"a reserved flag", "reserved header flags", rawChain(at(h, func(h *Header) { h.Flags |= 4 }), []rawLink{l13, l16, l19}, 0)},
		{"a keyframe", "onto tick 0", rawChain(at(h, func(h *Header) { h.BaseTick = 0 }), []rawLink{l13, l16, l19}, 0)},
		{"a base not older", "onto tick 19", rawChain(at(h, func(h *Header) { h.BaseTick = 19 }), []rawLink{l13, l16, l19}, 0)},
		{"a base newer", "onto tick 22", rawChain(at(h, func(h *Header) { h.BaseTick = 22 }), []rawLink{l13, l16, l19}, 0)},
		{"removals in the header", "removals of its own", rawChain(at(h, func(h *Header) { h.Removed = 1 }), []rawLink{l13, l16, l19}, 0)},
		{"no link", "chain of 0 links", rawChain(h, nil, 0)},
		{"more links than SentRing", "chain of 33 links", rawChain(Header{Tick: 11 + SentRing, BaseTick: 10}, long, 0)},
		{"links the bytes cannot hold", "3 links in 17 bytes", rawChain(at(h, func(h *Header) { h.Changed = 3 }), []rawLink{{tick: 13}, {tick: 19}}, 0)},
		{"a first link not after the base", "link of tick 10 after tick 10", rawChain(h, []rawLink{{10, 1, 1, l13.body}, l16, l19}, 0)},
		{"a link at the tick before it", "link of tick 13 after tick 13", rawChain(h, []rawLink{l13, {13, 0, 1, l16.body}, l19}, 0)},
		{"a link before the one before it", "link of tick 11 after tick 13", rawChain(h, []rawLink{l13, {11, 0, 1, l16.body}, l19}, 0)},
		{"a last link before the frame's tick", "link 2 of 2, of tick 16", rawChain(h, []rawLink{l13, l16}, 0)},
		{"a middle link at the frame's tick", "link 2 of 3, of tick 19", rawChain(h, []rawLink{l13, {19, 0, 1, l16.body}, l19}, 0)},
		{"a last link past the frame's tick", "link 3 of 3, of tick 22", rawChain(h, []rawLink{l13, l16, {22, 0, 1, l19.body}}, 0)},
		{"removals the bytes cannot hold", "65535 removals", rawChain(h, []rawLink{{13, 0xFFFF, 1, l13.body}, l16, l19}, 0)},
		{"changes the bytes cannot hold", "65535 changes", rawChain(h, []rawLink{l13, {16, 0, 0xFFFF, l16.body}, l19}, 0)},
		{"counts over the next links' heads", "link of tick 13: 8 removals and 0 changes in 0 bytes", rawChain(h, []rawLink{{13, 8, 0, nil}, {tick: 16}, {tick: 19}}, 0)},
		{"a removal of entity 0", "removal of entity 0", rawChain(h, []rawLink{l13, {16, 1, 1, append(rmBytes(0), l16.body...)}, l19}, 0)},
		{"a change of entity 0", "change of entity 0", rawChain(h, []rawLink{l13, {16, 0, 1, chBytes(0, allQuant, carA)}, l19}, 0)},
		{"an entity removed twice in a link", "entity 5 removed twice", rawChain(h, []rawLink{{13, 2, 1, append(rmBytes(5, 5), l13.body[2:]...)}, l16, l19}, 0)},
		{"an entity changed twice in a link", "entity 2 changed twice", rawChain(h, []rawLink{l13, l16, {19, 0, 2, append(slices.Clone(l19.body), l19.body...)}}, 0)},
		{"a change cut short", "entity 5: change of", rawChain(h, []rawLink{l13, l16, {19, 0, 1, l16.body[:10]}}, 0)},
		{"no event count", "no event count", rawChain(h, []rawLink{l13, l16, l19})},
		{"a byte after the events", "1 bytes after the events", rawChain(h, []rawLink{l13, l16, l19}, 0, 0)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := NewAckedDecoder()
			mustApply(t, d, key)
			mustApply(t, d, shown)
			before := cloneStore(d.Store())
			fr, err := d.Apply(c.frame)
			if !errors.Is(err, ErrMalformed) || fr != nil || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("got %v, want ErrMalformed: ...%s...", err, c.err)
			}
			sameStore(t, "after the malformed frame", d.Store(), before)
			if !d.Synced() || d.Tick() != 12 || !slices.Equal(d.Held(nil), []uint32{10, 12}) || d.Stats().Failed != 1 {
				t.Fatalf("the malformed frame changed the decoder: tick %d holds %v stats %+v", d.Tick(), d.Held(nil), d.Stats())
			}
			mustApply(t, d, good)
			sameStore(t, "the good chain", d.Store(), want)
		})
	}
}

// TestChainFlagOrdered: an ordered frame (kinds 4 and 5) with HeaderChain is
// malformed: the bit is reserved there.
func TestChainFlagOrdered(t *testing.T) {
	var f frameBuilder
	key := f.frame(FrameKeyframe, 10, 0, nil, []testChange{{eid: 5, mask: allQuant, rec: recordOf(carA)}}, nil, true)
	delta := f.frame(FrameDelta, 13, 10, nil, nil, nil, false)
	for _, b := range [][]byte{key, delta} {
		b = slices.Clone(b)
		b[14] |= HeaderChain
		if _, _, err := ParseHeader(b); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "reserved header flags") {
			t.Fatalf("kind %d: got %v, want reserved flags", b[0], err)
		}
		if _, err := NewDecoder().Apply(b); !errors.Is(err, ErrMalformed) {
			t.Fatalf("kind %d applied: %v", b[0], err)
		}
	}
}

// TestAckedDecoderChainResync: a link that removes an entity not held then
// (never held, or removed by an earlier link of the chain) fails the frame
// with ErrResync, after earlier links applied: nothing shown changes, and
// the decoder forgets every state until a keyframe.
func TestAckedDecoderChainResync(t *testing.T) {
	for _, c := range []struct {
		name         string
		first, again []uint16 // the removals of the links 13 and 16
		err          string
	}{
		{"never held", nil, []uint16{7, 9}, "removal of entity 9, not held at tick 13"},
		{"removed by an earlier link", []uint16{3}, []uint16{3}, "removal of entity 3, not held at tick 13"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var f ackedBuilder
			keyCh, links, _, _, _, _ := chainScenario()
			key := f.frame(10, 0, nil, keyCh, 0, nil, true)
			d := NewAckedDecoder()
			mustApply(t, d, key)
			mustApply(t, d, f.chain(10, links[:1], 1, []Event{shotA}, false))
			before := cloneStore(d.Store())
			bad := slices.Clone(links[:3])
			bad[0].removed, bad[1].removed = c.first, c.again
			bad[1].changes = []testChange{{eid: 7, mask: allQuant, rec: recordOf(carD)}}
			// The chain carries 7 whole in its first link, so that the
			// bad removal of 7 would be a good one.
			bad[0].changes = append(slices.Clone(bad[0].changes), testChange{eid: 7, mask: allQuant, rec: recordOf(carD)})
			fr, err := d.Apply(f.chain(10, bad, 1, []Event{shotA, boom}, false))
			if !errors.Is(err, ErrResync) || fr != nil || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("got %v, want ErrResync: %s", err, c.err)
			}
			sameStore(t, "after the resync", d.Store(), before)
			if d.Synced() || d.Tick() != 0 || d.Serial() != 1 || d.Stats().Failed != 1 {
				t.Fatalf("synced %v tick %d serial %d stats %+v", d.Synced(), d.Tick(), d.Serial(), d.Stats())
			}
			if fr, err := d.Apply(f.chain(13, links[1:3], 0, nil, false)); fr != nil || err != nil {
				t.Fatalf("a chain after the resync: %v %v", fr, err)
			}
			k := f.frame(25, 0, nil, keyCh, 0, nil, true)
			fr = mustApply(t, d, k)
			sameStore(t, "the keyframe after", d.Store(), f.states[25])
		})
	}
}

// TestAckedDecoderChainZeroAllocs: applying chains of 1 to 3 links onto
// older bases allocates nothing once grown.
func TestAckedDecoderChainZeroAllocs(t *testing.T) {
	var f ackedBuilder
	d := NewAckedDecoder()
	mustApply(t, d, f.frame(10, 0, nil, []testChange{{eid: 5, mask: allQuant, rec: recordOf(carA)}, {eid: 2, mask: allQuant, rec: recordOf(manB)}}, 0, nil, true))
	linkOf := func(tick uint32) chainLink {
		moved, man := carA, manB
		moved.Pos.X += 0.1 * float32(tick-10)
		man.Act = uint8(tick / 3 % 2)
		return chainLink{tick: tick, changes: []testChange{
			{eid: 5, mask: 1<<GroupPosition | SmallSteps, rec: recordOf(moved)},
			{eid: 2, mask: 1 << GroupAction, rec: recordOf(man)},
		}}
	}
	var frames [][]byte
	tick := uint32(10)
	for i := range 128 {
		tick += 3
		k := 1 + i%3
		var links []chainLink
		for j := k - 1; j >= 0; j-- {
			links = append(links, linkOf(tick-3*uint32(j)))
		}
		frames = append(frames, f.chain(tick-3*uint32(k), links, uint32(i+1), []Event{boom}, i%8 == 0))
	}
	i := 0
	apply := func() {
		if fr, err := d.Apply(frames[i]); err != nil || fr == nil {
			panic("not applied")
		}
		i++
	}
	for range HeldRing + 6 {
		apply()
	}
	if n := testing.AllocsPerRun(50, apply); n != 0 {
		t.Fatalf("%v allocations per frame", n)
	}
}

// TestChainSeeds: the fuzz targets' chained seeds apply onto the golden
// frames as meant, so that the fuzzers start from chains that decode.
func TestChainSeeds(t *testing.T) {
	_, frames := ackedGoldenFrames(t)
	seeds := chainSeeds(t, frames)
	for i, want := range []error{nil, nil, ErrResync, nil} {
		d := NewAckedDecoder()
		mustApply(t, d, frames[0])
		if fr, err := d.Apply(seeds[i]); !errors.Is(err, want) || (err == nil) != (fr != nil) {
			t.Fatalf("seed %d: %v, want %v", i, err, want)
		}
	}
	d := NewAckedDecoder()
	mustApply(t, d, frames[0])
	mustApply(t, d, frames[1])
	mustApply(t, d, seeds[4])
}

package wire

import (
	"errors"
	"slices"
	"testing"
)

// ackedBuilder writes acked frames with the low-level writer, keeping the
// state each frame leads to by tick (for the checks and the small steps).
type ackedBuilder struct {
	states map[uint32]*Store
}

func cloneInto(dst, src *Store) {
	dst.Reset()
	for i := 0; i < src.Slots(); i++ {
		if eid := src.Owner(i); eid != 0 {
			*dst.At(dst.Add(eid)) = *src.At(i)
		}
	}
}

// frame writes the frame of tick onto base (0: a keyframe). Each change
// takes its groups from rec; a change with SmallSteps steps from the
// base's position.
func (f *ackedBuilder) frame(tick, base uint32, removed []uint16, changes []testChange, first uint32, events []Event, check bool) []byte {
	if f.states == nil {
		f.states = map[uint32]*Store{}
	}
	st := &Store{}
	if src := f.states[base]; base != 0 && src != nil { // a base never written: onto nothing
		cloneInto(st, src)
	}
	step(st, tick, removed, changes)
	f.states[tick] = st
	h := Header{Kind: FrameAcked, Tick: tick, BaseTick: base, LastSeq: 7, InputBuffer: 1,
		Removed: uint16(len(removed)), Changed: uint16(len(changes))}
	if check {
		h.Flags, h.Check = HeaderCheck, st.Check()
	}
	b := AppendHeader(nil, &h)
	for _, eid := range removed {
		b = le.AppendUint16(b, eid)
	}
	for _, c := range changes {
		b = AppendChange(b, c.eid, c.mask, c.age, &c.rec, &c.from)
	}
	return appendEvents(b, first, events)
}

// step applies the removals, then the changes of the frame of tick onto st,
// as the decoders do, and sets each change's from to the position st held.
func step(st *Store, tick uint32, removed []uint16, changes []testChange) {
	for _, eid := range removed {
		st.Remove(eid)
	}
	for i := range changes {
		c := &changes[i]
		h := st.Get(c.eid)
		if h == nil {
			h = st.At(st.Add(c.eid))
		}
		c.from = h.Rec.Position()
		for g := 0; g < GroupCount; g++ {
			if c.mask&(1<<g) != 0 {
				copy(h.Rec.Group(g), c.rec.Group(g))
			}
		}
		h.Tier, h.PoseFull = TierOf(c.mask), c.mask&PoseFull != 0
		if c.mask&MaskPose != 0 {
			h.PoseTick = tick - uint32(c.age)
		}
	}
}

var (
	shotA = Event{Kind: EventShot, Source: 5, Pos: Vec3{1, 2, 3}, Dir: Vec3{X: 1}}
	hitB  = Event{Kind: EventHit, Source: 5, Target: 2, Pos: Vec3{4, 5, 6}, Amount: 7}
	boom  = Event{Kind: EventBlast, Pos: Vec3{7, 8, 9}, Amount: 4}
)

// TestAckedDecoderAgainstLastShown: frames onto an older base than the last
// shown carry again what the client showed; the decoder tells only what is
// new against the last frame shown, and shows each event once.
func TestAckedDecoderAgainstLastShown(t *testing.T) {
	var f ackedBuilder
	d := NewAckedDecoder()
	moved := carA
	moved.Pos.X += 2
	k := f.frame(10, 0, nil, []testChange{
		{eid: 5, mask: allQuant | MaskTierOf(1), rec: recordOf(carA)},
		{eid: 2, mask: MaskState | MaskFullPose | PoseFull, rec: recordOf(manB)},
	}, 1, []Event{shotA}, true)
	// Both onto the keyframe (the client's ack of 13 has not come back):
	// d1 moves the car; d2 carries the same move again, measured 3 ticks
	// before, and the character's health; the events again, and a new one.
	d1 := f.frame(13, 10, nil, []testChange{{eid: 5, mask: 1<<GroupPosition | SmallSteps | MaskTierOf(1), rec: recordOf(moved)}}, 1, []Event{shotA, hitB}, false)
	hurt := manB
	hurt.HP = 20
	d2 := f.frame(16, 10, nil, []testChange{
		{eid: 5, mask: 1<<GroupPosition | SmallSteps | PoseAge | MaskTierOf(1), age: 3, rec: recordOf(moved)},
		{eid: 2, mask: 1<<GroupDrive | PoseFull, rec: recordOf(hurt)},
	}, 2, []Event{hitB, boom}, true)

	fr, err := d.Apply(k)
	if err != nil || fr == nil || fr.BaseTick != 0 || fr.Kind != FrameAcked || !fr.Checked {
		t.Fatalf("keyframe: %+v %v", fr, err)
	}
	if len(fr.Changed) != 2 || !fr.Changed[0].New || len(fr.Measured) != 2 || len(fr.Events) != 1 || d.Tick() != 10 || d.Serial() != 1 {
		t.Fatalf("keyframe told %+v", fr)
	}
	if fr, err = d.Apply(d1); err != nil || fr == nil {
		t.Fatalf("d1: %v", err)
	}
	if len(fr.Changed) != 1 || fr.Changed[0].New || len(fr.Measured) != 1 || fr.Measured[0] != (Measured{5, 13}) {
		t.Fatalf("d1 told %+v", fr)
	}
	if len(fr.Events) != 1 || fr.Events[0] != hitB || d.Serial() != 2 {
		t.Fatalf("d1 events %+v (serial %d)", fr.Events, d.Serial())
	}
	if fr, err = d.Apply(d2); err != nil || fr == nil {
		t.Fatalf("d2: %v", err)
	}
	// The car's move came again: shown already, no measurement; only the
	// character's health changed.
	if len(fr.Changed) != 1 || fr.Changed[0].EID != 2 || fr.Changed[0].Mask&MaskGroups != 1<<GroupDrive || len(fr.Measured) != 0 {
		t.Fatalf("d2 told changed %+v measured %+v", fr.Changed, fr.Measured)
	}
	if len(fr.Events) != 1 || fr.Events[0] != boom || d.Serial() != 3 {
		t.Fatalf("d2 events %+v", fr.Events)
	}
	if got := d.Store().Get(5).PoseTick; got != 13 {
		t.Fatalf("the car's pose tick %d, want 13", got)
	}
	if ok, eid := d.Store().EqualRecords(f.states[16]); !ok {
		t.Fatalf("entity %d differs", eid)
	}
	if got := d.Held(nil); !slices.Equal(got, []uint32{10, 13, 16}) {
		t.Fatalf("holds %v", got)
	}

	// Onto 13 (held), the character goes and a new life of the car comes:
	// against the last shown (16), the character is removed and the car is
	// a new life, whole.
	reborn := carA
	reborn.Gen = 9
	d3 := f.frame(19, 13, []uint16{2, 5}, []testChange{{eid: 5, mask: allQuant, rec: recordOf(reborn)}}, 0, nil, true)
	if fr, err = d.Apply(d3); err != nil || fr == nil {
		t.Fatalf("d3: %v", err)
	}
	slices.SortFunc(fr.Removed, func(a, b Removed) int { return int(a.EID) - int(b.EID) })
	if len(fr.Removed) != 2 || fr.Removed[0] != (Removed{EID: 2, Gen: manB.Gen}) || fr.Removed[1] != (Removed{EID: 5, Gen: carA.Gen, NewLife: true}) {
		t.Fatalf("d3 removed %+v", fr.Removed)
	}
	if len(fr.Changed) != 1 || !fr.Changed[0].New || len(fr.Events) != 0 {
		t.Fatalf("d3 told %+v", fr)
	}
	if ok, eid := d.Store().EqualRecords(f.states[19]); !ok {
		t.Fatalf("entity %d differs", eid)
	}
	// A frame onto 16 (still held) undoes 19 for the car and the character.
	d4 := f.frame(22, 16, nil, []testChange{{eid: 2, mask: 1<<GroupFlags | PoseFull, rec: recordOf(hurt)}}, 0, nil, true)
	if fr, err = d.Apply(d4); err != nil || fr == nil {
		t.Fatalf("d4: %v", err)
	}
	if ok, eid := d.Store().EqualRecords(f.states[22]); !ok {
		t.Fatalf("entity %d differs", eid)
	}
	// Against 19: the character is back (new), the car's old life too.
	if len(fr.Changed) != 2 || !fr.Changed[0].New || !fr.Changed[1].New || len(fr.Removed) != 1 || !fr.Removed[0].NewLife {
		t.Fatalf("d4 told %+v", fr)
	}
}

// TestAckedDecoderGuessedLife: a life the client took for the same, not
// knowing, stays uncertain. The character comes at 13, goes at 16 (lost) and
// comes back at 19, of the same generation, onto a base (10) that never held
// it: against 13 the client cannot tell a new life, and shows the same. A
// frame onto 13 then removes it and makes it whole, for its life changed
// after 13. Against 19, the last shown, it is the same life and no new one is
// told. A life that changes after the last frame shown, with no frame held
// after the base, is still told.
func TestAckedDecoderGuessedLife(t *testing.T) {
	var f ackedBuilder
	d := NewAckedDecoder()
	const whole = MaskState | MaskFullPose | PoseFull
	back, hurt := manB, manB
	back.Pos.X += 4
	hurt.Pos, hurt.HP = back.Pos, 20
	car := testChange{eid: 5, mask: allQuant, rec: recordOf(carA)}
	mustApply(t, d, f.frame(10, 0, nil, []testChange{car}, 0, nil, true))
	fr := mustApply(t, d, f.frame(13, 10, nil, []testChange{{eid: 2, mask: whole, rec: recordOf(manB)}}, 0, nil, true))
	if len(fr.Changed) != 1 || !fr.Changed[0].New {
		t.Fatalf("13 told %+v", fr)
	}
	// 16 removed the character: lost. 19 onto 10: whole again.
	fr = mustApply(t, d, f.frame(19, 10, nil, []testChange{{eid: 2, mask: whole, rec: recordOf(back)}}, 0, nil, true))
	if len(fr.Removed) != 0 || len(fr.Changed) != 1 || fr.Changed[0].New {
		t.Fatalf("19 told removed %+v changed %+v, want the same life, moved", fr.Removed, fr.Changed)
	}
	// 22 onto 13: the life changed since 13, not since 19.
	fr = mustApply(t, d, f.frame(22, 13, []uint16{2}, []testChange{{eid: 2, mask: whole, rec: recordOf(hurt)}}, 0, nil, true))
	if len(fr.Removed) != 0 || len(fr.Changed) != 1 || fr.Changed[0].New || fr.Changed[0].Mask&MaskGroups != 1<<GroupDrive {
		t.Fatalf("22 told removed %+v changed %+v, want the same life, hurt", fr.Removed, fr.Changed)
	}
	if ok, eid := d.Store().EqualRecords(f.states[22]); !ok {
		t.Fatalf("entity %d differs", eid)
	}
	// 25 onto 22: a new life after the last shown, no frame held between.
	fr = mustApply(t, d, f.frame(25, 22, []uint16{2}, []testChange{{eid: 2, mask: whole, rec: recordOf(hurt)}}, 0, nil, true))
	if len(fr.Removed) != 1 || fr.Removed[0] != (Removed{EID: 2, Gen: manB.Gen, NewLife: true}) || len(fr.Changed) != 1 || !fr.Changed[0].New {
		t.Fatalf("25 told removed %+v changed %+v, want a new life", fr.Removed, fr.Changed)
	}
}

// TestAckedDecoderDrops: a frame not newer than the last shown and one onto a
// base not held are dropped without a word; HeldRing frames are held.
func TestAckedDecoderDrops(t *testing.T) {
	var f ackedBuilder
	d := NewAckedDecoder()
	k := f.frame(10, 0, nil, []testChange{{eid: 5, mask: allQuant, rec: recordOf(carA)}}, 0, nil, true)
	if fr, _ := d.Apply(f.frame(7, 3, nil, nil, 0, nil, false)); fr != nil {
		t.Fatal("a delta before any keyframe was applied")
	}
	mustApply(t, d, k)
	for _, b := range [][]byte{k, f.frame(10, 0, nil, nil, 0, nil, true), f.frame(13, 7, nil, nil, 0, nil, false)} {
		if fr, err := d.Apply(b); fr != nil || err != nil {
			t.Fatalf("not dropped: %v %v", fr, err)
		}
	}
	tick := uint32(10)
	for range HeldRing + 5 {
		tick += 3
		mustApply(t, d, f.frame(tick, tick-3, nil, nil, 0, nil, false))
	}
	held := d.Held(nil)
	if len(held) != HeldRing || held[0] != tick-3*(HeldRing-1) {
		t.Fatalf("holds %d frames from %d", len(held), held[0])
	}
	if fr, _ := d.Apply(f.frame(tick+3, held[0]-3, nil, nil, 0, nil, false)); fr != nil {
		t.Fatal("a frame onto a base no longer held was applied")
	}
	mustApply(t, d, f.frame(tick+3, held[0], nil, nil, 0, nil, false))
	if st := d.Stats(); st.Stale != 2 || st.NoBase != 3 || st.Applied != HeldRing+7 || st.Keyframes != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func mustApply(t *testing.T, d *AckedDecoder, b []byte) *DecodedFrame {
	t.Helper()
	fr, err := d.Apply(b)
	if err != nil || fr == nil {
		t.Fatalf("frame not applied: %v", err)
	}
	return fr
}

// TestAckedDecoderResync: a check that differs, or a removal of an entity
// the base does not hold, changes nothing shown, forgets every state (deltas
// are then dropped) and a keyframe puts it right.
func TestAckedDecoderResync(t *testing.T) {
	for _, name := range []string{"check", "removal"} {
		t.Run(name, func(t *testing.T) {
			var f ackedBuilder
			d := NewAckedDecoder()
			mustApply(t, d, f.frame(10, 0, nil, []testChange{{eid: 5, mask: allQuant, rec: recordOf(carA)}}, 0, nil, true))
			mustApply(t, d, f.frame(13, 10, nil, []testChange{{eid: 2, mask: allQuant, rec: recordOf(manB)}}, 1, []Event{boom}, false))
			before := d.Store().Check()
			var bad []byte
			if name == "check" {
				bad = f.frame(16, 10, nil, []testChange{{eid: 5, mask: 1 << GroupFlags, rec: recordOf(manB)}}, 1, []Event{boom, hitB}, true)
				bad[HeaderBytes] ^= 1
			} else {
				bad = f.frame(16, 10, []uint16{2}, nil, 0, nil, false)
			}
			if _, err := d.Apply(bad); !errors.Is(err, ErrResync) {
				t.Fatalf("got %v, want ErrResync", err)
			}
			if d.Synced() || d.Tick() != 0 || d.Store().Check() != before || d.Store().Len() != 2 || d.Serial() != 1 {
				t.Fatal("the failed frame changed what is shown, or the decoder still takes deltas")
			}
			if fr, err := d.Apply(f.frame(19, 13, nil, nil, 0, nil, false)); fr != nil || err != nil {
				t.Fatalf("a delta after a resync: %v %v", fr, err)
			}
			fr := mustApply(t, d, f.frame(22, 0, nil, []testChange{{eid: 5, mask: allQuant | PoseAge, age: 12, rec: recordOf(carA)}}, 2, []Event{hitB}, true))
			// Against the last shown (13): the character is gone, the car
			// the same (its pose measured at 10, as shown).
			if !d.Synced() || len(fr.Removed) != 1 || fr.Removed[0].EID != 2 || len(fr.Changed) != 0 || len(fr.Events) != 1 {
				t.Fatalf("keyframe after resync told %+v", fr)
			}
		})
	}
}

// TestAckedDecoderMalformed: a malformed acked frame is an error and changes
// nothing held.
func TestAckedDecoderMalformed(t *testing.T) {
	var f ackedBuilder
	k := f.frame(10, 0, nil, []testChange{{eid: 5, mask: allQuant, rec: recordOf(carA)}}, 0, nil, true)
	good := f.frame(13, 10, []uint16{5}, []testChange{{eid: 2, mask: 1 << GroupFlags, rec: recordOf(manB)}}, 4, []Event{boom}, false)
	patch := func(b []byte, at int, v ...byte) []byte {
		c := slices.Clone(b)
		copy(c[at:], v)
		return c
	}
	evAt := HeaderBytes + 2 + 4 + FlagsBytes // the events' count
	cases := []struct {
		name  string
		frame []byte
	}{
		{"empty", nil},
		{"ordered kind", patch(good, 0, FrameDelta)},
		{"ordered keyframe", patch(k, 0, FrameKeyframe)},
		{"keyframe without a check", patch(k, 14, 0)},
		{"keyframe with removals", patch(good, 5, 0, 0, 0, 0)},
		{"base not older", patch(good, 5, 13)},
		{"removal of entity 0", patch(good, HeaderBytes, 0, 0)},
		{"no first serial", good[:evAt+1]},
		{"serial cut short", good[:evAt+3]},
		{"event cut short", good[:len(good)-1]},
		{"trailing byte", append(slices.Clone(good), 0)},
		{"no serial, an event", patch(good[:evAt+1], evAt, 1)},
		{"reserved mask bit", patch(good, HeaderBytes+2+3, 0x40)},
		{"entity changed twice", f.frame(13, 10, nil, []testChange{{eid: 2, mask: 1 << GroupFlags}, {eid: 2, mask: 1 << GroupFlags}}, 0, nil, false)},
		{"entity removed twice", f.frame(13, 10, []uint16{5, 5}, nil, 0, nil, false)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := NewAckedDecoder()
			mustApply(t, d, k)
			before := d.Store().Check()
			if fr, err := d.Apply(c.frame); !errors.Is(err, ErrMalformed) || fr != nil {
				t.Fatalf("got %v, want ErrMalformed", err)
			}
			if d.Store().Check() != before || !d.Synced() || d.Tick() != 10 {
				t.Fatal("a malformed frame changed what the decoder holds")
			}
		})
	}
	d := NewAckedDecoder()
	mustApply(t, d, k)
	if fr := mustApply(t, d, good); len(fr.Events) != 1 || d.Serial() != 4 {
		t.Fatalf("the unpatched frame told %+v", fr)
	}
}

// TestAckedDecoderZeroAllocs: applying frames onto older bases allocates
// nothing once grown.
func TestAckedDecoderZeroAllocs(t *testing.T) {
	var f ackedBuilder
	d := NewAckedDecoder()
	mustApply(t, d, f.frame(10, 0, nil, []testChange{{eid: 5, mask: allQuant, rec: recordOf(carA)}, {eid: 2, mask: allQuant, rec: recordOf(manB)}}, 0, nil, true))
	var frames [][]byte
	tick := uint32(10)
	moved := carA
	for i := range 128 {
		tick += 3
		moved.Pos.X += 0.1
		frames = append(frames, f.frame(tick, tick-3*uint32(1+i%3), nil, []testChange{{eid: 5, mask: 1<<GroupPosition | SmallSteps, rec: recordOf(moved)}}, uint32(i+1), []Event{boom}, i%8 == 0))
	}
	i := 0
	apply := func() {
		if fr, err := d.Apply(frames[i]); err != nil || fr == nil {
			panic("not applied")
		}
		i++
	}
	for range HeldRing + 6 { // every frame of the ring grown once
		apply()
	}
	if n := testing.AllocsPerRun(50, apply); n != 0 {
		t.Fatalf("%v allocations per frame", n)
	}
}

package wire

import (
	"errors"
	"testing"
)

// frameBuilder writes frames with the low-level writer, keeping the record
// the client will hold of each entity (for the check).
type frameBuilder struct {
	held Store
	b    []byte
}

func (f *frameBuilder) frame(kind uint8, tick, base uint32, removed []uint16, changes []testChange, events []Event, withCheck bool) []byte {
	if kind == FrameKeyframe {
		f.held.Reset()
	}
	for _, eid := range removed {
		f.held.Remove(eid)
	}
	for i := range changes {
		c := &changes[i]
		h := f.held.Get(c.eid)
		if h == nil {
			h = f.held.At(f.held.Add(c.eid))
		}
		c.from = h.Rec.Position()
		for g := 0; g < GroupCount; g++ {
			if c.mask&(1<<g) != 0 {
				copy(h.Rec.Group(g), c.rec.Group(g))
			}
		}
	}
	h := Header{Kind: kind, Tick: tick, BaseTick: base, LastSeq: 77, InputBuffer: 2,
		Removed: uint16(len(removed)), Changed: uint16(len(changes))}
	if withCheck {
		h.Flags = HeaderCheck
		h.Check = f.held.Check()
	}
	b := AppendHeader(nil, &h)
	for _, eid := range removed {
		b = le.AppendUint16(b, eid)
	}
	for _, c := range changes {
		b = AppendChange(b, c.eid, c.mask, c.age, &c.rec, &c.from)
	}
	b = append(b, byte(len(events)))
	for i := range events {
		b = AppendEvent(b, &events[i])
	}
	return b
}

type testChange struct {
	eid  uint16
	mask uint16
	age  uint8
	rec  Record
	from [3]int32
}

func recordOf(e Entity) Record {
	var r Record
	r.Quantize(&e)
	return r
}

var (
	carA = Entity{Kind: KindCar, Gen: 1, Pos: Vec3{10, 20, 0}, Rot: Quat{W: 1}, Lin: Vec3{5, 0, 0}, HP: 100, MaxHP: 100}
	manB = Entity{Kind: KindCharacter, Player: 1, Gen: 3, Pos: Vec3{-4, 2, 0}, Rot: Quat{Z: 0.6, W: 0.8}, HP: 50, MaxHP: 100}
)

const allQuant = MaskState | MaskQuantPose

func TestDecoderKeyframeAndDeltas(t *testing.T) {
	var f frameBuilder
	d := NewDecoder()
	key := f.frame(FrameKeyframe, 30, 0, nil, []testChange{
		{eid: 5, mask: allQuant | MaskTierOf(2), rec: recordOf(carA)},
		{eid: 2, mask: MaskState | MaskFullPose | PoseFull, rec: recordOf(manB)},
	}, nil, true)
	fr, err := d.Apply(key)
	if err != nil {
		t.Fatal(err)
	}
	if !fr.Checked || len(fr.Changed) != 2 || !fr.Changed[0].New || fr.Changed[0].Tier != 2 || len(fr.Measured) != 2 || fr.Measured[0].Tick != 30 {
		t.Fatalf("keyframe told %+v", fr)
	}
	s := d.Snapshot()
	// By kind, then id: the character (kind 1) before the car (kind 2).
	if len(s.Entities) != 2 || s.Entities[0].EID != 2 || s.Entities[1].EID != 5 || s.LastSeq != 77 || s.InputBuffer != 2 {
		t.Fatalf("snapshot %+v", s)
	}
	if e := s.Entities[0]; !e.PoseFull || e.Pos != manB.Pos || e.Rot != manB.Rot || e.Player != 1 {
		t.Fatalf("own character %+v", e)
	}
	if e := s.Entities[1]; e.PoseFull || e.Pos != carA.Pos || e.Lin != carA.Lin || e.Tier != 2 {
		t.Fatalf("car %+v", e)
	}

	// A delta: the car moves a little (small steps), measured 2 ticks
	// before; the character goes; a new life comes under id 2; an event.
	moved := carA
	moved.Pos.X += 3
	reborn := manB
	reborn.Gen = 4
	ev := Event{Kind: EventHit, Source: 5, Target: 2, Pos: Vec3{1, 2, 3}, Amount: 10}
	delta := f.frame(FrameDelta, 33, 30, []uint16{2}, []testChange{
		{eid: 5, mask: 1<<GroupPosition | SmallSteps | PoseAge | MaskTierOf(1), age: 2, rec: recordOf(moved)},
		{eid: 2, mask: MaskState | MaskQuantPose, rec: recordOf(reborn)},
	}, []Event{ev}, false)
	if got := ChangeBytes(1<<GroupPosition | SmallSteps | PoseAge); got != 4+1+6 {
		t.Fatalf("small step change is %d bytes", got)
	}
	fr, err = d.Apply(delta)
	if err != nil {
		t.Fatal(err)
	}
	if len(fr.Removed) != 1 || fr.Removed[0] != (Removed{EID: 2, Gen: 3, NewLife: true}) {
		t.Fatalf("removed %+v", fr.Removed)
	}
	if len(fr.Measured) != 2 || fr.Measured[0] != (Measured{EID: 5, Tick: 31}) || fr.Changed[0].New || !fr.Changed[1].New || fr.Changed[0].Tier != 1 {
		t.Fatalf("changed %+v measured %+v", fr.Changed, fr.Measured)
	}
	if len(fr.Events) != 1 || fr.Events[0] != ev {
		t.Fatalf("events %+v", fr.Events)
	}
	s = d.Snapshot()
	if e := s.Entities[1]; e.Pos != moved.Pos || e.PoseTick != 31 {
		t.Fatalf("car after small steps %+v", e)
	}
	if e := s.Entities[0]; e.Gen != 4 || e.PoseFull {
		t.Fatalf("new life %+v", e)
	}
	if ok, eid := d.Store().EqualRecords(&f.held); !ok {
		t.Fatalf("entity %d differs from what was sent", eid)
	}

	// A keyframe that keeps the car and drops the character: only the
	// character is removed, and the car is not new.
	key2 := f.frame(FrameKeyframe, 36, 0, nil, []testChange{{eid: 5, mask: allQuant, rec: recordOf(moved)}}, nil, true)
	if fr, err = d.Apply(key2); err != nil {
		t.Fatal(err)
	}
	if len(fr.Removed) != 1 || fr.Removed[0].EID != 2 || fr.Removed[0].NewLife || fr.Changed[0].New {
		t.Fatalf("keyframe removed %+v changed %+v", fr.Removed, fr.Changed)
	}
}

func TestDecoderResync(t *testing.T) {
	var f frameBuilder
	key := f.frame(FrameKeyframe, 30, 0, nil, []testChange{{eid: 5, mask: allQuant, rec: recordOf(carA)}}, nil, true)
	cases := []struct {
		name  string
		first []byte // applied first (nil: nothing)
		frame func() []byte
	}{
		{"delta before any keyframe", nil, func() []byte { return f.frame(FrameDelta, 33, 30, nil, nil, nil, false) }},
		{"wrong base", key, func() []byte { return f.frame(FrameDelta, 36, 33, nil, nil, nil, false) }},
		{"removal of an entity not held", key, func() []byte { return f.frame(FrameDelta, 33, 30, []uint16{9}, nil, nil, false) }},
		{"wrong check", key, func() []byte {
			b := f.frame(FrameDelta, 33, 30, nil, nil, nil, true)
			b[HeaderBytes] ^= 1
			return b
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := NewDecoder()
			if c.first != nil {
				if _, err := d.Apply(c.first); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := d.Apply(c.frame()); !errors.Is(err, ErrResync) {
				t.Fatalf("got %v, want ErrResync", err)
			}
			if d.Synced() {
				t.Fatal("still synced")
			}
			// A keyframe puts it right.
			if _, err := d.Apply(key); err != nil || !d.Synced() {
				t.Fatalf("keyframe after resync: %v", err)
			}
		})
	}
}

func TestDecoderMalformed(t *testing.T) {
	var f frameBuilder
	key := f.frame(FrameKeyframe, 30, 0, nil, []testChange{{eid: 5, mask: allQuant, rec: recordOf(carA)}}, nil, true)
	delta := func(removed []uint16, changes []testChange, events []Event) []byte {
		g := frameBuilder{}
		g.frame(FrameKeyframe, 30, 0, nil, []testChange{{eid: 5, mask: allQuant, rec: recordOf(carA)}}, nil, true)
		return g.frame(FrameDelta, 33, 30, removed, changes, events, false)
	}
	good := delta(nil, []testChange{{eid: 5, mask: 1 << GroupFlags, rec: recordOf(carA)}}, []Event{{Kind: EventBlast, Pos: Vec3{1, 1, 1}, Amount: 3}})
	patch := func(b []byte, at int, v ...byte) []byte {
		c := append([]byte(nil), b...)
		copy(c[at:], v)
		return c
	}
	afterHeader := HeaderBytes
	cases := []struct {
		name  string
		frame []byte
	}{
		{"empty", nil},
		{"short header", good[:HeaderBytes-1]},
		{"unknown kind", patch(good, 0, 9)},
		{"acked kind reserved", patch(good, 0, FrameAcked)},
		{"reserved header flag", patch(good, 14, 0x80)},
		{"check flag with no room", patch(good[:HeaderBytes+1], 14, HeaderCheck)},
		{"counts beyond the bytes", patch(good, 17, 0xFF, 0xFF)},
		{"keyframe with a base", patch(key, 5, 1)},
		{"keyframe without a check", patch(key, 14, 0)},
		{"change of entity 0", patch(good, afterHeader, 0, 0)},
		{"reserved mask bit", patch(good, afterHeader+3, 0x80)},
		{"small steps without position", patch(good, afterHeader+2, byte(1<<GroupFlags), byte(SmallSteps>>8))},
		{"change cut short", good[:afterHeader+5]},
		{"no event count", good[:afterHeader+4+FlagsBytes]},
		{"unknown event", patch(good, afterHeader+4+FlagsBytes+1, 42)},
		{"event cut short", good[:len(good)-1]},
		{"trailing byte", append(append([]byte(nil), good...), 0)},
		{"entity changed twice", delta(nil, []testChange{{eid: 5, mask: 1 << GroupFlags}, {eid: 5, mask: 1 << GroupFlags}}, nil)},
		{"entity removed twice", delta([]uint16{5, 5}, nil, nil)},
		{"removal of entity 0", delta([]uint16{0}, nil, nil)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := NewDecoder()
			if _, err := d.Apply(key); err != nil {
				t.Fatal(err)
			}
			before := d.Store().Check()
			if _, err := d.Apply(c.frame); !errors.Is(err, ErrMalformed) {
				t.Fatalf("got %v, want ErrMalformed", err)
			}
			if d.Store().Check() != before || d.Store().Len() != 1 {
				t.Fatal("a malformed frame changed what the decoder holds")
			}
		})
	}
	d := NewDecoder()
	if _, err := d.Apply(key); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Apply(good); err != nil {
		t.Fatalf("the unpatched frame fails: %v", err)
	}
}

package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ackedGoldenFrames returns the acked golden frames in their order (written
// by netsync's TestAckedGoldenFrames: run `go test ./netsync -run
// AckedGolden -update` after a format change, then this package's
// TestAckedGoldenDecoded with -update).
func ackedGoldenFrames(tb testing.TB) (names []string, frames [][]byte) {
	tb.Helper()
	paths, err := filepath.Glob("testdata/acked/*.bin")
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no acked golden frames: %v", err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		names = append(names, filepath.Base(p))
		frames = append(frames, b)
	}
	return names, frames
}

// TestAckedGoldenDecoded applies the acked golden frames in order and
// compares what the decoder tells and holds after each with
// testdata/acked/decoded.txt.
func TestAckedGoldenDecoded(t *testing.T) {
	names, frames := ackedGoldenFrames(t)
	d := NewAckedDecoder()
	var out strings.Builder
	for i, f := range frames {
		fr, err := d.Apply(f)
		if err != nil || fr == nil {
			t.Fatalf("%s: %v %v", names[i], fr, err)
		}
		fmt.Fprintf(&out, "== %s (%d bytes): kind %d tick %d base %d lastSeq %d inputBuffer %d checked %v serial %d holds %v\n",
			names[i], len(f), fr.Kind, fr.Tick, fr.BaseTick, fr.LastSeq, fr.InputBuffer, fr.Checked, d.Serial(), d.Held(nil))
		for _, r := range fr.Removed {
			fmt.Fprintf(&out, "  removed %d gen %d newLife %v\n", r.EID, r.Gen, r.NewLife)
		}
		for _, c := range fr.Changed {
			fmt.Fprintf(&out, "  changed %d mask %#04x tier %d new %v\n", c.EID, c.Mask, c.Tier, c.New)
		}
		for _, m := range fr.Measured {
			fmt.Fprintf(&out, "  measured %d at %d\n", m.EID, m.Tick)
		}
		for _, ev := range fr.Events {
			fmt.Fprintf(&out, "  event %+v\n", ev)
		}
		for _, e := range d.Snapshot().Entities {
			fmt.Fprintf(&out, "  holds %d kind %d gen %d tier %d full %v poseTick %d pos %+v hp %d act %d\n",
				e.EID, e.Kind, e.Gen, e.Tier, e.PoseFull, e.PoseTick, e.Pos, e.HP, e.Act)
		}
	}
	path := "testdata/acked/decoded.txt"
	if *update {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if out.String() != string(want) {
		t.Fatalf("decoded frames differ from %s:\n%s", path, out.String())
	}
}

// checkAckedDecoder asserts what must hold of an acked decoder after any
// frame, applied, dropped or refused.
func checkAckedDecoder(t *testing.T, d *AckedDecoder, fr *DecodedFrame, err error) {
	t.Helper()
	if err != nil && !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrResync) {
		t.Fatalf("error of no known kind: %v", err)
	}
	if err != nil && fr != nil {
		t.Fatal("a frame told with an error")
	}
	s := d.Snapshot()
	if len(s.Entities) != d.Store().Len() {
		t.Fatalf("snapshot of %d entities, %d held", len(s.Entities), d.Store().Len())
	}
	for i := 1; i < len(s.Entities); i++ {
		p, q := s.Entities[i-1], s.Entities[i]
		if p.Kind > q.Kind || p.Kind == q.Kind && p.EID >= q.EID {
			t.Fatalf("snapshot out of order at %d", i)
		}
	}
	held := d.Held(nil)
	if len(held) > HeldRing || d.Synced() != (len(held) > 0) {
		t.Fatalf("holds %d frames, synced %v", len(held), d.Synced())
	}
	for i := 1; i < len(held); i++ {
		if held[i] <= held[i-1] {
			t.Fatalf("held ticks out of order: %v", held)
		}
	}
	if len(held) > 0 && held[len(held)-1] != d.Tick() {
		t.Fatalf("newest held %d, tick %d", held[len(held)-1], d.Tick())
	}
	if fr != nil && (fr.Tick != d.Tick() || len(fr.Changed) > 0xFFFF) {
		t.Fatalf("frame of tick %d told, decoder at %d", fr.Tick, d.Tick())
	}
}

// chainSeeds returns chained frames onto the golden keyframe (tick 3) and
// onto the golden frame after it (tick 6): one link, three links with a
// removal, a new life, a new entity and events, a link that removes an
// entity not held, a pose of age MaxPoseAge, and two links onto 6.
func chainSeeds(tb testing.TB, frames [][]byte) [][]byte {
	tb.Helper()
	d := NewAckedDecoder()
	if fr, err := d.Apply(frames[0]); err != nil || fr == nil {
		tb.Fatal(err)
	}
	var f, g ackedBuilder
	f.states = map[uint32]*Store{3: cloneStore(d.Store())}
	if fr, err := d.Apply(frames[1]); err != nil || fr == nil || d.Tick() != 6 {
		tb.Fatalf("the golden frame after the keyframe: %v", err)
	}
	g.states = map[uint32]*Store{6: cloneStore(d.Store())}
	entity := func(b *ackedBuilder, tick uint32, eid uint16) Entity {
		var e Entity
		h := b.states[tick].Get(eid)
		h.Rec.Decode(&e, h.PoseFull)
		return e
	}
	moved := func(b *ackedBuilder, tick uint32, dx float32) testChange {
		e := entity(b, tick, 2)
		e.Pos.X += dx
		return testChange{eid: 2, mask: 1<<GroupPosition | SmallSteps, rec: recordOf(e)}
	}
	wholeOf := func(eid uint16, e Entity, mask uint16) testChange {
		rec := recordOf(e)
		return testChange{eid: eid, mask: NonZeroGroups(&rec) | mask, rec: rec}
	}
	life := entity(&f, 3, 3)
	life.Gen++
	hurt := entity(&f, 3, 1)
	hurt.HP -= 30
	three := []chainLink{
		{tick: 4, changes: []testChange{moved(&f, 3, 0.5)}},
		{tick: 5, removed: []uint16{3}, changes: []testChange{wholeOf(3, life, MaskTierOf(2))}},
		{tick: 7, removed: []uint16{4}, changes: []testChange{
			{eid: 1, mask: 1<<GroupDrive | PoseFull, rec: recordOf(hurt)},
			wholeOf(9, entity(&f, 3, 5), 0),
		}},
	}
	seeds := [][]byte{
		f.chain(3, three[:1], 0, nil, false),
		f.chain(3, three, 2, []Event{boom, hitB}, true),
	}
	bad := slices.Clone(three)
	bad[1].removed = []uint16{8}
	seeds = append(seeds, f.chain(3, bad, 0, nil, false))
	aged := testChange{eid: 5, mask: 1<<GroupRotation | PoseAge, age: MaxPoseAge, rec: recordOf(entity(&f, 3, 5))}
	seeds = append(seeds, f.chain(3, []chainLink{three[0], {tick: 9, changes: []testChange{aged}}}, 0, nil, true))
	seeds = append(seeds, g.chain(6, []chainLink{
		{tick: 8, changes: []testChange{moved(&g, 6, -0.25)}},
		{tick: 10, removed: []uint16{5}},
	}, 3, []Event{shotA}, true))
	return seeds
}

// FuzzAckedDecoderFrame applies any bytes as the first frame of a new acked
// decoder, and as the next frame of one that applied the golden keyframe.
func FuzzAckedDecoderFrame(f *testing.F) {
	_, frames := ackedGoldenFrames(f)
	for _, fr := range frames {
		f.Add(fr)
	}
	for _, fr := range chainSeeds(f, frames) {
		f.Add(fr)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d := NewAckedDecoder()
		fr, err := d.Apply(b)
		checkAckedDecoder(t, d, fr, err)
		d = NewAckedDecoder()
		if fr, err := d.Apply(frames[0]); err != nil || fr == nil {
			t.Fatal(err)
		}
		fr, err = d.Apply(b)
		checkAckedDecoder(t, d, fr, err)
	})
}

// FuzzAckedDecoderSequence applies a sequence of frames (each a u16 length,
// then the frame) onto an acked decoder that applied the golden keyframe:
// frames onto any base, stale, duplicated, keyframes, resyncs and garbage in
// any order. After each, it checks the decoder, and that a frame onto a base
// it holds, once applied, leaves it holding what undoing and redoing give:
// the state of every tick it holds is whole again when a keyframe of it
// arrives (checked through the frames' checks).
func FuzzAckedDecoderSequence(f *testing.F) {
	_, frames := ackedGoldenFrames(f)
	seq := func(fs ...[]byte) []byte {
		var b []byte
		for _, fr := range fs {
			b = binary.LittleEndian.AppendUint16(b, uint16(len(fr)))
			b = append(b, fr...)
		}
		return b
	}
	f.Add(seq(frames[1:]...))
	for i := 1; i < len(frames); i++ {
		f.Add(seq(frames[1:i]...))
		f.Add(seq(frames[i]))
		f.Add(seq(frames[i], frames[i-1], frames[i]))
	}
	f.Add(seq(frames[2], frames[1], frames[0], frames[3]))
	chains := chainSeeds(f, frames)
	for _, c := range chains {
		f.Add(seq(c))
	}
	f.Add(seq(chains[0], chains[1]))
	f.Add(seq(chains[1], chains[0], frames[2]))
	f.Add(seq(frames[1], chains[4], chains[1], frames[3]))
	f.Add(seq(chains[2], frames[1], frames[len(frames)-1], chains[1]))
	f.Add(seq(chains[3], chains[1]))
	f.Fuzz(func(t *testing.T, b []byte) {
		d := NewAckedDecoder()
		if fr, err := d.Apply(frames[0]); err != nil || fr == nil {
			t.Fatal(err)
		}
		for len(b) >= 2 {
			n := int(binary.LittleEndian.Uint16(b))
			b = b[2:]
			if n > len(b) {
				n = len(b)
			}
			fr, err := d.Apply(b[:n])
			checkAckedDecoder(t, d, fr, err)
			b = b[n:]
		}
	})
}

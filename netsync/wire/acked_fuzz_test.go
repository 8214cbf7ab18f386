package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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

// FuzzAckedDecoderFrame applies any bytes as the first frame of a new acked
// decoder.
func FuzzAckedDecoderFrame(f *testing.F) {
	_, frames := ackedGoldenFrames(f)
	for _, fr := range frames {
		f.Add(fr)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d := NewAckedDecoder()
		fr, err := d.Apply(b)
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

package wire

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/decoded.txt")

// goldenFrames returns the golden frames in their order (written by
// netsync's TestGoldenFrames: run `go test ./netsync -update` after a format
// change, then this package's with -update).
func goldenFrames(tb testing.TB) (names []string, frames [][]byte) {
	tb.Helper()
	paths, err := filepath.Glob("testdata/golden/*.bin")
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no golden frames: %v", err)
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

// TestGoldenDecoded applies the golden frames in order and compares what the
// decoder tells and holds after each with testdata/golden/decoded.txt.
func TestGoldenDecoded(t *testing.T) {
	names, frames := goldenFrames(t)
	d := NewDecoder()
	var out strings.Builder
	for i, f := range frames {
		fr, err := d.Apply(f)
		if err != nil {
			t.Fatalf("%s: %v", names[i], err)
		}
		fmt.Fprintf(&out, "== %s (%d bytes): kind %d tick %d base %d lastSeq %d inputBuffer %d checked %v\n",
			names[i], len(f), fr.Kind, fr.Tick, fr.BaseTick, fr.LastSeq, fr.InputBuffer, fr.Checked)
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
			fmt.Fprintf(&out, "  holds %+v\n", e)
		}
	}
	path := "testdata/golden/decoded.txt"
	if *update {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if out.String() != string(want) {
		t.Fatalf("decoded golden frames differ from %s:\n%s", path, out.String())
	}
}

// TestGoldenTruncated: every golden frame cut short anywhere is an error,
// never a panic, and leaves the decoder as it was.
func TestGoldenTruncated(t *testing.T) {
	names, frames := goldenFrames(t)
	d := NewDecoder()
	for i, f := range frames {
		for n := 0; n < len(f); n++ {
			before := d.Store().Check()
			if _, err := d.Apply(f[:n]); !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrResync) {
				t.Fatalf("%s cut to %d bytes: %v", names[i], n, err)
			}
			if d.Store().Check() != before {
				t.Fatalf("%s cut to %d bytes changed what the decoder holds", names[i], n)
			}
		}
		// The whole frame still applies: a cut frame did not move the base.
		if i > 0 {
			d.synced = true
		}
		if _, err := d.Apply(f); err != nil {
			t.Fatalf("%s after its cuts: %v", names[i], err)
		}
	}
}

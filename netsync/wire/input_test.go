package wire

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sampleInputFrame() *InputFrame {
	f := &InputFrame{Ack: 300, FirstSeq: 1000, Count: InputsLossy}
	for i := 0; i < f.Count; i++ {
		f.Inputs[i] = Input{Throttle: uint8(255 - i), Brake: uint8(i), Steer: int8(-127 + i), MoveX: 5, MoveY: -7,
			LookYaw: 0xBEEF, LookPitch: -3, Held: 0x0102, Pressed: uint16(1 << i)}
	}
	return f
}

// sampleViewFrame is sampleInputFrame with the inputs' views: drawn 9 to
// 6 ticks before the ack, the newest input last.
func sampleViewFrame() *InputFrame {
	f := sampleInputFrame()
	f.Flags |= InputView
	for i := 0; i < f.Count; i++ {
		f.Inputs[i].View = uint8(9 - i)
	}
	return f
}

func TestInputFrameRoundTrip(t *testing.T) {
	for _, c := range []struct {
		name string
		f    *InputFrame
		size int
	}{
		{"old layout", sampleInputFrame(), InputBytes},
		{"with views", sampleViewFrame(), InputViewBytes},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := AppendInputFrame(nil, c.f)
			if len(b) != InputHeaderBytes+4*c.size {
				t.Fatalf("%d bytes", len(b))
			}
			var g InputFrame
			if err := DecodeInputFrame(b, &g); err != nil {
				t.Fatal(err)
			}
			if g != *c.f {
				t.Fatalf("got %+v\nwant %+v", g, *c.f)
			}
			if !bytes.Equal(AppendInputFrame(nil, &g), b) {
				t.Fatal("re-encoding differs")
			}
		})
	}
}

// TestInputFrameOldLayout: a frame without InputView is the old layout,
// byte for byte, and decodes with every view 0 (the present), whatever the
// frame decoded into held before.
func TestInputFrameOldLayout(t *testing.T) {
	withViews := sampleViewFrame()
	withViews.Flags = 0
	old := AppendInputFrame(nil, withViews) // the views are not written
	if !bytes.Equal(old, AppendInputFrame(nil, sampleInputFrame())) {
		t.Fatal("a frame without InputView is not the old layout")
	}
	g := *sampleViewFrame()
	if err := DecodeInputFrame(old, &g); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < g.Count; i++ {
		if g.Inputs[i].View != 0 {
			t.Fatalf("input %d of an old frame has view %d", i, g.Inputs[i].View)
		}
	}
}

func TestInputFrameMalformed(t *testing.T) {
	good := AppendInputFrame(nil, sampleInputFrame())
	view := AppendInputFrame(nil, sampleViewFrame())
	mut := func(g []byte, f func(b []byte) []byte) []byte { return f(append([]byte(nil), g...)) }
	cases := map[string][]byte{
		"empty":      nil,
		"short":      good[:5],
		"wrong kind": mut(good, func(b []byte) []byte { b[0] = FrameDelta; return b }),
		"flags":      mut(good, func(b []byte) []byte { b[5] = 0x80; return b }),
		"flag 2":     mut(good, func(b []byte) []byte { b[5] = 4; return b }),
		"count 0":    mut(good, func(b []byte) []byte { b[10] = 0; return b }),
		"count 9":    mut(good, func(b []byte) []byte { b[10] = 9; return b }),
		"truncated":  good[:len(good)-1],
		"trailing":   append(append([]byte(nil), good...), 0),
		"count lies": mut(good, func(b []byte) []byte { b[10] = 3; return b }),
		// The view flag on the old layout, or off on the new one: the
		// length is not the count's.
		"view flag, no views": mut(good, func(b []byte) []byte { b[5] |= InputView; return b }),
		"views, no flag":      mut(view, func(b []byte) []byte { b[5] &^= InputView; return b }),
		"view truncated":      view[:len(view)-1],
	}
	for name, b := range cases {
		var f InputFrame
		if err := DecodeInputFrame(b, &f); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err %v, want ErrMalformed", name, err)
		}
	}
}

// goldenInputs are the golden input frames by file name: an old client's
// ordered frame and lossy frame (no views), a lossy frame with views, and
// one asking for a resync with a view at the ack (the newest snapshot
// drawn as it came) and one at the most the byte holds.
func goldenInputs() map[string]*InputFrame {
	resync := &InputFrame{Ack: 7, Flags: InputResync | InputView, FirstSeq: 12, Count: 2}
	resync.Inputs[0] = Input{Throttle: 255, Held: 1, Pressed: 1, View: 0}
	resync.Inputs[1] = Input{Brake: 128, LookYaw: 0x4000, View: 255}
	ordered := &InputFrame{Ack: 41, FirstSeq: 40, Count: 1}
	ordered.Inputs[0] = Input{Steer: -127, MoveY: 127, LookPitch: 12, Held: 0x8000}
	return map[string]*InputFrame{
		"00_ordered.bin": ordered,
		"01_lossy.bin":   sampleInputFrame(),
		"02_views.bin":   sampleViewFrame(),
		"03_resync.bin":  resync,
	}
}

// inputGoldenFrames returns the golden input frames in their order.
func inputGoldenFrames(tb testing.TB) (names []string, frames [][]byte) {
	tb.Helper()
	paths, err := filepath.Glob("testdata/input/*.bin")
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no golden input frames: %v", err)
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

// TestInputGolden compares the input frames the encoder writes with
// testdata/input/*.bin, and what the decoder reads from those files with
// testdata/input/decoded.txt (go test -update rewrites them all). The
// frames without InputView are the layout before views, byte for byte.
func TestInputGolden(t *testing.T) {
	want := goldenInputs()
	if *update {
		for name, f := range want {
			if err := os.WriteFile(filepath.Join("testdata/input", name), AppendInputFrame(nil, f), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	names, frames := inputGoldenFrames(t)
	if len(names) != len(want) {
		t.Fatalf("%d golden input frames, want %d", len(names), len(want))
	}
	var out strings.Builder
	for i, b := range frames {
		f, ok := want[names[i]]
		if !ok {
			t.Fatalf("no golden input frame %s", names[i])
		}
		if !bytes.Equal(b, AppendInputFrame(nil, f)) {
			t.Errorf("%s differs from what the encoder writes", names[i])
		}
		var g InputFrame
		if err := DecodeInputFrame(b, &g); err != nil {
			t.Fatalf("%s: %v", names[i], err)
		}
		fmt.Fprintf(&out, "== %s (%d bytes): ack %d flags %#x firstSeq %d count %d\n", names[i], len(b), g.Ack, g.Flags, g.FirstSeq, g.Count)
		for k := 0; k < g.Count; k++ {
			fmt.Fprintf(&out, "  input %+v\n", g.Inputs[k])
		}
	}
	path := "testdata/input/decoded.txt"
	if *update {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	dump, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if out.String() != string(dump) {
		t.Fatalf("decoded golden input frames differ from %s:\n%s", path, out.String())
	}
}

func FuzzInputFrame(f *testing.F) {
	f.Add(AppendInputFrame(nil, sampleInputFrame()))
	f.Add(AppendInputFrame(nil, &InputFrame{Count: 1}))
	f.Add(AppendInputFrame(nil, &InputFrame{Flags: InputView, Count: 1}))
	_, frames := inputGoldenFrames(f)
	for _, b := range frames {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var fr InputFrame
		if err := DecodeInputFrame(b, &fr); err != nil {
			return
		}
		if fr.Flags&InputView == 0 {
			for i := range fr.Inputs {
				if fr.Inputs[i].View != 0 {
					t.Fatal("a frame without views decoded a view")
				}
			}
		}
		if !bytes.Equal(AppendInputFrame(nil, &fr), b) {
			t.Fatal("a frame that decodes must encode back to itself")
		}
	})
}

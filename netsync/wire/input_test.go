package wire

import (
	"bytes"
	"errors"
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

func TestInputFrameRoundTrip(t *testing.T) {
	f := sampleInputFrame()
	b := AppendInputFrame(nil, f)
	if len(b) != InputHeaderBytes+4*InputBytes {
		t.Fatalf("%d bytes", len(b))
	}
	var g InputFrame
	if err := DecodeInputFrame(b, &g); err != nil {
		t.Fatal(err)
	}
	if g != *f {
		t.Fatalf("got %+v\nwant %+v", g, *f)
	}
	if !bytes.Equal(AppendInputFrame(nil, &g), b) {
		t.Fatal("re-encoding differs")
	}
}

func TestInputFrameMalformed(t *testing.T) {
	good := AppendInputFrame(nil, sampleInputFrame())
	mut := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	cases := map[string][]byte{
		"empty":      nil,
		"short":      good[:5],
		"wrong kind": mut(func(b []byte) []byte { b[0] = FrameDelta; return b }),
		"flags":      mut(func(b []byte) []byte { b[5] = 0x80; return b }),
		"count 0":    mut(func(b []byte) []byte { b[10] = 0; return b }),
		"count 9":    mut(func(b []byte) []byte { b[10] = 9; return b }),
		"truncated":  good[:len(good)-1],
		"trailing":   append(append([]byte(nil), good...), 0),
		"count lies": mut(func(b []byte) []byte { b[10] = 3; return b }),
	}
	for name, b := range cases {
		var f InputFrame
		if err := DecodeInputFrame(b, &f); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err %v, want ErrMalformed", name, err)
		}
	}
}

func FuzzInputFrame(f *testing.F) {
	f.Add(AppendInputFrame(nil, sampleInputFrame()))
	f.Add(AppendInputFrame(nil, &InputFrame{Count: 1}))
	f.Fuzz(func(t *testing.T, b []byte) {
		var fr InputFrame
		if err := DecodeInputFrame(b, &fr); err != nil {
			return
		}
		if !bytes.Equal(AppendInputFrame(nil, &fr), b) {
			t.Fatal("a frame that decodes must encode back to itself")
		}
	})
}

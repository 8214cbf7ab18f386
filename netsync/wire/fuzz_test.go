package wire

import (
	"encoding/binary"
	"errors"
	"testing"
)

// checkDecoder asserts what must hold of a decoder after any frame, applied
// or refused.
func checkDecoder(t *testing.T, d *Decoder, fr *DecodedFrame, err error) {
	t.Helper()
	if err != nil && !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrResync) {
		t.Fatalf("error of no known kind: %v", err)
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
	if err == nil && len(fr.Changed) > 0xFFFF {
		t.Fatal("more changes than a frame can count")
	}
}

// FuzzDecoderFrame applies any bytes as the first frame of a new decoder.
func FuzzDecoderFrame(f *testing.F) {
	_, frames := goldenFrames(f)
	for _, fr := range frames {
		f.Add(fr)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d := NewDecoder()
		fr, err := d.Apply(b)
		checkDecoder(t, d, fr, err)
	})
}

// FuzzDecoderSequence applies a sequence of frames (each a u16 length, then
// the frame) onto a decoder that applied the golden keyframe: deltas onto
// deltas, keyframes, resyncs and garbage in any order.
func FuzzDecoderSequence(f *testing.F) {
	_, frames := goldenFrames(f)
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
	}
	f.Add(seq(frames[1], frames[0], frames[1]))
	f.Fuzz(func(t *testing.T, b []byte) {
		d := NewDecoder()
		if _, err := d.Apply(frames[0]); err != nil {
			t.Fatal(err)
		}
		for len(b) >= 2 {
			n := int(binary.LittleEndian.Uint16(b))
			b = b[2:]
			if n > len(b) {
				n = len(b)
			}
			fr, err := d.Apply(b[:n])
			checkDecoder(t, d, fr, err)
			b = b[n:]
		}
	})
}

// FuzzParseChange reads any bytes as a change and applies it onto a record.
func FuzzParseChange(f *testing.F) {
	f.Add([]byte{1, 0, 0xff, 0x01})
	f.Add([]byte{1, 0, 0x01, 0x22, 3, 1, 0, 2, 0, 3, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		c, n, err := ParseChange(b)
		if err != nil {
			return
		}
		if n > len(b) || n != ChangeBytes(c.Mask) {
			t.Fatalf("change of %d bytes in %d, mask says %d", n, len(b), ChangeBytes(c.Mask))
		}
		var r Record
		ApplyChange(&r, &c)
		// What was applied writes back the same bytes.
		from := [3]int32{}
		if got := AppendChange(nil, c.EID, c.Mask, c.Age, &r, &from); string(got) != string(b[:n]) {
			t.Fatalf("applied change writes back %x, read %x", got, b[:n])
		}
	})
}

// FuzzFrameEvents reads the events of any bytes as a frame not applied,
// ordered and acked: it never panics, a frame it reads is one whose events
// Apply reads alike, and an acked decoder shows each serial once.
func FuzzFrameEvents(f *testing.F) {
	_, frames := goldenFrames(f)
	for _, fr := range frames {
		f.Add(fr)
	}
	_, acked := ackedGoldenFrames(f)
	for _, fr := range chainSeeds(f, acked) {
		f.Add(fr)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d := NewDecoder()
		evs, err := d.Events(b)
		if err == nil {
			got := append([]Event(nil), evs...)
			if fr, aerr := NewDecoder().Apply(b); aerr == nil && fr.Kind == FrameKeyframe && len(fr.Events) != len(got) {
				t.Fatalf("Events read %d events, Apply %d", len(got), len(fr.Events))
			}
		}
		a := NewAckedDecoder()
		first, err := a.Events(b)
		if err != nil {
			return
		}
		n := len(first)
		if again, err := a.Events(b); err != nil || len(again) != 0 {
			t.Fatalf("the same acked frame showed %d events again (of %d), %v", len(again), n, err)
		}
	})
}

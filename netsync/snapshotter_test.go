package netsync

import (
	"slices"
	"testing"

	"github.com/fiveonit/engine/netsync/wire"
)

// switchClient is a client that decodes both kinds of snapshots, each with
// its decoder, and acks at once.
type switchClient struct {
	ord    *wire.Decoder
	ack    *wire.AckedDecoder
	events []wire.Event
}

func (c *switchClient) apply(t *testing.T, b []byte) *wire.DecodedFrame {
	t.Helper()
	var fr *wire.DecodedFrame
	var err error
	if b[0] == wire.FrameAcked {
		fr, err = c.ack.Apply(b)
	} else {
		fr, err = c.ord.Apply(b)
	}
	if err != nil || fr == nil {
		t.Fatalf("frame of kind %d: %v (%v)", b[0], err, fr)
	}
	c.events = append(c.events, fr.Events...)
	return fr
}

// TestSnapshotterSwitch: a client switched from the ordered snapshots to the
// acked ones (and back, and again) gets a keyframe of the new kind first,
// holds what the server believes after every frame, and shows every event
// once, as a client that never switched does. What it holds is not that
// client's: a switch starts a new S(N), with every far pose sent at once.
func TestSnapshotterSwitch(t *testing.T) {
	w := newSimWorld(13, 300, 800)
	for range 100 {
		w.spawn()
	}
	a := NewArena()
	s := NewSnapshotter(a, false)
	ref, refDec := NewEncoder(a), wire.NewDecoder() // a client that never switches
	c := &switchClient{ord: wire.NewDecoder(), ack: wire.NewAckedDecoder()}
	var refEvents []wire.Event
	view := View{Center: wire.Vec3{X: 400, Y: 400}, Own: [3]uint16{w.alive[0]}}
	frame := func() *wire.DecodedFrame {
		for range wire.SnapshotEvery {
			w.step()
			w.fill(a)
		}
		view.Center = w.ents[view.Own[0]].e.Pos
		rfr, err := refDec.Apply(ref.Encode(&view))
		if err != nil {
			t.Fatal(err)
		}
		refEvents = append(refEvents, rfr.Events...)
		fr := c.apply(t, s.Encode(&view))
		held := c.ord.Store()
		if s.Acked() {
			held = c.ack.Store()
			s.Ack(c.ack.Tick())
		}
		if ok, eid := held.EqualRecords(s.State()); !ok {
			t.Fatalf("tick %d: entity %d differs from the server's", w.tick, eid)
		}
		return fr
	}
	kinds := func(n int) (out []uint8) {
		for range n {
			fr := frame()
			k := fr.Kind
			if k == wire.FrameAcked && fr.BaseTick == 0 {
				k = 0 // an acked keyframe
			}
			out = append(out, k)
		}
		return out
	}
	want := func(got []uint8, first, rest uint8) {
		t.Helper()
		if got[0] != first {
			t.Fatalf("first frame of kind %d, want %d", got[0], first)
		}
		if slices.ContainsFunc(got[2:], func(k uint8) bool { return k != rest }) {
			t.Fatalf("frames %v, want %d then %d", got, first, rest)
		}
	}
	want(kinds(20), wire.FrameKeyframe, wire.FrameDelta)
	s.SetAcked(true)
	want(kinds(20), 0, wire.FrameAcked)
	s.SetAcked(true) // no switch: no keyframe
	if k := kinds(1); k[0] != wire.FrameAcked {
		t.Fatalf("setting the same kind made a frame of kind %d", k[0])
	}
	s.SetAcked(false)
	want(kinds(10), wire.FrameKeyframe, wire.FrameDelta)
	s.SetAcked(true) // the same acked decoder: the serials go on
	want(kinds(20), 0, wire.FrameAcked)
	s.RequestKeyframe()
	want(kinds(5), 0, wire.FrameAcked)
	if len(refEvents) == 0 || !slices.Equal(c.events, refEvents) {
		t.Fatalf("the switching client showed %d events, the other %d (or they differ)", len(c.events), len(refEvents))
	}
}

// TestCheckPhase: with a check phase p, the frames that carry the check are
// the keyframes and those whose count (since the keyframe for the ordered
// snapshots, since the acked encoder began for the acked ones) plus p is a
// multiple of wire.CheckEvery; the phase stays across a switch of kind, and
// the client verifies every check.
func TestCheckPhase(t *testing.T) {
	const p = 5
	w := newSimWorld(17, 200, 600)
	for range 60 {
		w.spawn()
	}
	a := NewArena()
	s := NewSnapshotter(a, false)
	s.SetCheckPhase(p)
	c := &switchClient{ord: wire.NewDecoder(), ack: wire.NewAckedDecoder()}
	view := View{Center: wire.Vec3{X: 300, Y: 300}}
	frames := func(n int) {
		t.Helper()
		for i := range n {
			w.step()
			w.fill(a)
			fr := c.apply(t, s.Encode(&view))
			if s.Acked() {
				s.Ack(c.ack.Tick())
			}
			key := fr.Kind == wire.FrameKeyframe || fr.Kind == wire.FrameAcked && fr.BaseTick == 0
			want := key || (uint32(i)+p)%wire.CheckEvery == 0
			if fr.Checked != want {
				t.Fatalf("frame %d of kind %d (key %v): checked %v, want %v", i, fr.Kind, key, fr.Checked, want)
			}
		}
	}
	frames(3 * wire.CheckEvery) // ordered: frame i is i frames after the keyframe
	s.SetAcked(true)
	frames(3 * wire.CheckEvery) // acked: frame i is the acked encoder's i-th
	s.SetAcked(false)
	frames(2 * wire.CheckEvery)
}

// TestSnapshotterMemBytes: the snapshots' memory is their current
// encoder's, ordered and then acked, and grows with what the client holds.
func TestSnapshotterMemBytes(t *testing.T) {
	w := newSimWorld(13, 300, 800)
	for range 100 {
		w.spawn()
	}
	a := NewArena()
	s := NewSnapshotter(a, false)
	view := View{Center: wire.Vec3{X: 400, Y: 400}}
	empty := s.MemBytes()
	for _, acked := range []bool{false, true} {
		s.SetAcked(acked)
		for range 5 {
			w.step()
			w.fill(a)
			s.Encode(&view)
		}
		want := 0
		if acked {
			want = s.AckedEncoder().MemBytes()
		} else {
			want = s.ord.MemBytes()
		}
		if got := s.MemBytes(); got != want || got <= empty {
			t.Errorf("acked %v: MemBytes %d, its encoder's %d, before any frame %d", acked, got, want, empty)
		}
	}
}

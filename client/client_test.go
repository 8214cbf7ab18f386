package client

import (
	"math"
	"testing"
	"time"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/netsync"
	"github.com/fiveonit/engine/netsync/wire"
)

// TestInputFrames: every tick sends one input frame carrying the last
// input (ordered) or the last four (lossy), numbered by the client's
// ticks, with the controls as the server will run them.
func TestInputFrames(t *testing.T) {
	for _, lossy := range []bool{false, true} {
		var sent [][]byte
		c := New(Config{Lossy: lossy, Send: func(b []byte, text bool) error {
			sent = append(sent, append([]byte(nil), b...))
			return nil
		}})
		for i := 0; i < 6; i++ {
			d := components.Drive{Throttle: float32(i) / 10}
			if i == 5 {
				d.Pressed = components.BtnUse
			}
			c.Tick(d)
		}
		var f wire.InputFrame
		if err := wire.DecodeInputFrame(sent[5], &f); err != nil {
			t.Fatal(err)
		}
		want := wire.InputsOrdered
		if lossy {
			want = wire.InputsLossy
		}
		if f.Count != want || f.FirstSeq+uint32(f.Count)-1 != 6 {
			t.Fatalf("lossy %v: frame of %d inputs from %d", lossy, f.Count, f.FirstSeq)
		}
		if last := f.Inputs[f.Count-1]; last.Throttle != 128 || last.Pressed != uint16(components.BtnUse) {
			t.Fatalf("last input %+v", last)
		}
		if err := wire.DecodeInputFrame(sent[0], &f); err != nil || f.Count != 1 || f.FirstSeq != 1 {
			t.Fatalf("first frame: %d inputs from %d (%v)", f.Count, f.FirstSeq, err)
		}
	}
}

func TestTickPeriod(t *testing.T) {
	const nominal = 1000 * time.Microsecond
	cases := []struct {
		lossy  bool
		buffer int
		want   time.Duration
	}{
		{false, 0, 970 * time.Microsecond},
		{false, -1, 950 * time.Microsecond},
		{false, -30, 900 * time.Microsecond},
		{false, 1, nominal},
		{false, 3, nominal},
		{false, 4, 1030 * time.Microsecond},
		{false, 5, 1050 * time.Microsecond},
		{true, 1, 970 * time.Microsecond},
		{true, 2, nominal},
	}
	for _, c := range cases {
		cl := New(Config{Lossy: c.lossy})
		cl.pacer.buffer = c.buffer
		if got := cl.TickPeriod(nominal); got != c.want {
			t.Errorf("lossy %v buffer %d: %v, want %v", c.lossy, c.buffer, got, c.want)
		}
	}
}

// TestRefusedFrameAsksResync: a snapshot the decoder refuses makes the next
// input frame ask for a keyframe.
func TestRefusedFrameAsksResync(t *testing.T) {
	var last []byte
	c := New(Config{Send: func(b []byte, text bool) error { last = append(last[:0], b...); return nil }})
	if err := c.HandleFrame([]byte{wire.FrameDelta, 1, 2}, false); err == nil {
		t.Fatal("a malformed frame must be an error")
	}
	c.Tick(components.Drive{})
	var f wire.InputFrame
	if err := wire.DecodeInputFrame(last, &f); err != nil || f.Flags&wire.InputResync == 0 {
		t.Fatalf("flags %b (%v)", f.Flags, err)
	}
	if c.Stats().Resyncs != 1 {
		t.Fatalf("resyncs %d", c.Stats().Resyncs)
	}
}

// TestHist: the histogram's quantiles fall within a bucket (19 %) of the
// sizes counted, below HistMin are zeros, and merging adds.
func TestHist(t *testing.T) {
	var h Hist
	for i := 1; i <= 1000; i++ {
		h.Add(float32(i) * 0.001) // 1 mm to 1 m
	}
	h.Add(0)
	for _, c := range []struct{ p, want float64 }{{0.5, 0.5}, {0.99, 0.99}, {0.1, 0.1}} {
		got := float64(h.Quantile(c.p))
		if got < c.want || got > c.want*1.19+0.001 {
			t.Errorf("quantile %v: %v, want %v to %v", c.p, got, c.want, c.want*1.19)
		}
	}
	if q := h.Quantile(1); q != 1 {
		t.Errorf("the top quantile %v, want the largest size", q)
	}
	if q := h.Quantile(0); q != 0 {
		t.Errorf("the bottom quantile %v, want 0 (a zero counted)", q)
	}
	var m Hist
	m.Merge(&h)
	m.Merge(&h)
	if m.Count != 2*h.Count || m.Zeros != 2 || m.MaxVal != h.MaxVal || m.Quantile(0.5) != h.Quantile(0.5) {
		t.Errorf("merged %+v", m)
	}
}

// TestPressCopies: over a lossy transport an input that carries a press
// goes in the frames of wire.MaxInputsPerFrame ticks, the others in
// InputsLossy; a trigger held for one tick is a press of BtnFire.
func TestPressCopies(t *testing.T) {
	var frames []wire.InputFrame
	c := New(Config{Lossy: true, Send: func(b []byte, text bool) error {
		var f wire.InputFrame
		if err := wire.DecodeInputFrame(b, &f); err != nil {
			t.Fatal(err)
		}
		frames = append(frames, f)
		return nil
	}})
	for i := 1; i <= 20; i++ {
		var d components.Drive
		switch i {
		case 5:
			d.Pressed = components.BtnHorn
		case 9, 10: // the trigger held two ticks: one press
			d.Held = components.BtnFire
		}
		c.Tick(d)
	}
	copies := map[uint32]int{}
	fires := 0
	for _, f := range frames {
		for i := 0; i < f.Count; i++ {
			copies[f.FirstSeq+uint32(i)]++
			if i == f.Count-1 && f.Inputs[i].Pressed&uint16(components.BtnFire) != 0 {
				fires++
				if f.FirstSeq+uint32(i) != 9 || f.Inputs[i].Held&uint16(components.BtnFire) == 0 {
					t.Fatalf("the trigger pressed at tick %d", f.FirstSeq+uint32(i))
				}
			}
		}
	}
	if fires != 1 {
		t.Fatalf("the trigger pressed %d times, want once (a tap held two ticks)", fires)
	}
	if copies[5] != wire.MaxInputsPerFrame || copies[9] != wire.MaxInputsPerFrame || copies[3] != wire.InputsLossy || copies[15] != wire.InputsLossy {
		t.Fatalf("copies: tick 3 %d, 5 (press) %d, 9 (trigger) %d, 15 %d", copies[3], copies[5], copies[9], copies[15])
	}
}

// TestInputViews: an input carries the server tick of the world drawn when
// it was made (wire.InputView): the render clock to the nearest tick, as
// ticks before the frame's ack, so an input sent again in a later frame
// carries the same tick against a newer ack. A frame with an input made
// before anything was drawn carries none: its inputs fire at the present.
func TestInputViews(t *testing.T) {
	a := netsync.NewArena()
	enc := netsync.NewEncoder(a)
	var frames []wire.InputFrame
	c := New(Config{Lossy: true, Send: func(b []byte, text bool) error {
		var f wire.InputFrame
		if err := wire.DecodeInputFrame(b, &f); err != nil {
			t.Fatal(err)
		}
		frames = append(frames, f)
		return nil
	}})
	view := netsync.View{Own: [3]uint16{1}}
	me := wire.Entity{Kind: wire.KindCharacter, Player: 1, Rot: wire.Quat{W: 1}, HP: 100, MaxHP: 100}
	drawn := map[uint32]uint32{} // the render clock rounded, by client tick
	for tick := 1; tick <= 60; tick++ {
		a.Begin(uint32(tick + 20))
		a.Put(1, &me, true)
		a.End()
		if tick >= 10 && tick%wire.SnapshotEvery == 0 {
			view.LastSeq = uint32(tick)
			if err := c.HandleFrame(enc.Encode(&view), false); err != nil {
				t.Fatal(err)
			}
		}
		if c.remote.clock {
			drawn[c.Seq()] = uint32(math.Round(c.remote.render))
		}
		if err := c.Tick(components.Drive{}); err != nil {
			t.Fatal(err)
		}
	}
	withViews := 0
	for i, f := range frames {
		_, all := drawn[f.FirstSeq]
		if got := f.Flags&wire.InputView != 0; got != all {
			t.Fatalf("frame %d from tick %d: views %v, want %v", i, f.FirstSeq, got, all)
		}
		if !all {
			continue
		}
		withViews++
		for k := 0; k < f.Count; k++ {
			seq := f.FirstSeq + uint32(k)
			if got := f.Ack - uint32(f.Inputs[k].View); got != drawn[seq] {
				t.Fatalf("tick %d in frame %d: drew %d, want %d", seq, i, got, drawn[seq])
			}
			if back := f.Ack - drawn[seq]; back < InterpDelayTicks-wire.SnapshotEvery || back > InterpDelayTicks+wire.SnapshotEvery {
				t.Fatalf("tick %d drew %d ticks before the ack", seq, back)
			}
		}
	}
	if withViews < 40 {
		t.Fatalf("%d frames with views", withViews)
	}
}

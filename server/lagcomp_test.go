package server

import (
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/control"
	"github.com/fiveonit/engine/netsync/wire"
	"github.com/fiveonit/engine/systems/lagcomp"
)

func TestViewOf(t *testing.T) {
	for _, c := range []struct {
		ack  uint32
		back uint8
		want uint64
	}{
		{300, 9, 291},
		{300, 0, 300},
		{300, 255, 45},
		{9, 9, 1}, // tick 0: as old as can be, not "no claim"
		{5, 9, 1},
		{0, 0, 1},
	} {
		if got := viewOf(c.ack, c.back); got != c.want {
			t.Errorf("viewOf(%d, %d) = %d, want %d", c.ack, c.back, got, c.want)
		}
	}
}

// TestViewChecked: a claimed view is the present when it is none, in the
// future or from a client not measured yet; trusted within ViewTolerance
// of the rewind the round trip implies; replaced by that rewind beyond;
// never more than lagcomp.MaxRewind back.
func TestViewChecked(t *testing.T) {
	const now = 1000
	measured := func(ticks uint64) roundTrip { return roundTrip{ticks: ticks, measured: true} }
	want := uint64(6 + ViewBehind) // the rewind a 6-tick round trip implies
	for _, c := range []struct {
		name  string
		rtt   roundTrip
		now   uint64
		claim uint64
		view  uint64
	}{
		{"no claim", measured(6), now, 0, 0},
		{"the present", measured(6), now, now, 0},
		{"the future", measured(6), now, now + 5, 0},
		{"far future", measured(6), now, 1 << 40, 0},
		{"not measured", roundTrip{}, now, now - 10, 0},
		{"as measured", measured(6), now, now - want, now - want},
		{"a tick on", measured(6), now, now - want - 1, now - want - 1},
		{"the tolerance late", measured(6), now, now - want - ViewTolerance, now - want - ViewTolerance},
		{"past the tolerance late", measured(6), now, now - want - ViewTolerance - 1, now - want},
		{"the tolerance early", measured(6), now, now - want + ViewTolerance, now - want + ViewTolerance},
		{"a tick ago", measured(20), now, now - 1, now - 20 - ViewBehind},
		{"a second ago", measured(6), now, now - 60, now - want},
		{"tick 1", measured(6), now, 1, now - want},
		{"a long round trip", measured(40), now, now - 40 - ViewBehind, now - lagcomp.MaxRewind},
		{"a long round trip, absurd", measured(40), now, now - 200, now - lagcomp.MaxRewind},
		{"a young room", measured(6), 5, 1, 1},
		{"a younger room", measured(6), 2, 1, 1},
	} {
		if got := c.rtt.view(c.now, c.claim); got != c.view {
			t.Errorf("%s: view(%d, %d) with a round trip of %d = %d, want %d", c.name, c.now, c.claim, c.rtt.ticks, got, c.view)
		}
	}
}

// TestInputViews: the view of an input frame reaches the character's
// Drive.View checked when the input runs: an old client's frame (no
// InputView) fires at the present, a sane claim is taken as it is, and
// absurd ones are the present or the measured round trip's.
func TestInputViews(t *testing.T) {
	g := newServer(t)
	p := join(t, g, Who{})
	for range 30 {
		p.send(components.Drive{})
		g.Tick()
		p.read()
	}
	fire := components.Drive{Held: components.BtnFire}
	in := control.Quantize(&fire)
	// run sends one input of view back ticks before ack (or none) and
	// returns the Drive.View it ran with, and the tick it ran at.
	run := func(flags uint8, ack uint32, back uint8) (view, now uint64) {
		t.Helper()
		f := wire.InputFrame{Ack: ack, Flags: flags, FirstSeq: p.seq, Count: 1}
		f.Inputs[0] = in
		f.Inputs[0].View = back
		p.seq++
		if err := p.s.Receive(wire.AppendInputFrame(nil, &f), false); err != nil {
			t.Fatal(err)
		}
		now = g.w.Tick()
		g.Tick()
		p.read()
		d, ok := g.Drive(p.s)
		if !ok {
			t.Fatal("no character")
		}
		return d.View, now
	}
	// The round trip in lockstep is a tick or two: a rewind of about
	// ViewBehind is sane.
	ack := p.dec.Tick()
	if v, _ := run(0, ack, 5); v != 0 {
		t.Fatalf("an old client's frame ran with view %d, want the present", v)
	}
	if v, _ := run(wire.InputView, ack, 5); v != uint64(ack)-5 {
		t.Fatalf("a sane view ran as %d, want %d", v, ack-5)
	}
	if v, now := run(wire.InputView, ack, 255); v == 0 || now-v > ViewBehind+3 || now-v < ViewBehind {
		t.Fatalf("a view 255 ticks back ran as %d at %d, want the round trip's", v, now)
	}
	if v, _ := run(wire.InputView, 1<<31, 0); v != 0 {
		t.Fatalf("a view in the future ran as %d, want the present", v)
	}
	// A guessed tick (no input came) keeps the last view, a tick on.
	v0, now0 := run(wire.InputView, ack, 5)
	g.Tick()
	if d, _ := g.Drive(p.s); d.View != v0+1 {
		t.Fatalf("a guess after view %d at %d ran with view %d", v0, now0, d.View)
	}
}

package levels

import (
	"fmt"
	"hash/fnv"
	"testing"
)

// TestSignalTicks: times round to the nearest tick from their float32
// value, halves up. A time written as a whole tick and a half is often a
// hair below it in float32, and rounds down: a client that rounds the
// decimal, or its float64, is a tick off.
func TestSignalTicks(t *testing.T) {
	for _, c := range []struct {
		s    float32
		want int32
	}{
		{0, 0}, {1, 60}, {12.5, 750}, {0.1, 6}, {0.025, 2}, {2.0 / 60, 2}, {300, 18000},
		{0.175, 10},  // 10.4999998 ticks in float32: the decimal's 10.5 would round to 11
		{2.225, 133}, // 133.4999943 ticks, not 134
		{1.525, 91},  // 91.4999986 ticks, not 92
		{5.025, 302}, // 301.5000057 ticks
	} {
		if got := SignalTicks(c.s, 60); got != c.want {
			t.Errorf("SignalTicks(%g, 60) = %d, want %d", c.s, got, c.want)
		}
	}
}

// TestSignalPlan: the crossing's signal (signalLevel), its cycle and every
// lane's light at the edges of its phases. Lane 2 has green in both
// phases: it shows no amber between them, either way round. Lane 8 is in
// no phase: red throughout.
func TestSignalPlan(t *testing.T) {
	l, err := Parse("crossing.json", []byte(signalLevel))
	if err != nil {
		t.Fatal(err)
	}
	p := NewSignalPlan(&l.Roads.Signals[0], 60)
	if fmt.Sprint(p) != "{[1200 750] 180 300 2310}" {
		t.Fatalf("plan %+v", p)
	}
	lanes, masks := l.SignalLanes(0)
	if fmt.Sprint(lanes, masks) != "[0 2 4 6 8] [1 3 2 2 0]" {
		t.Fatalf("lanes %v, masks %v", lanes, masks)
	}
	const G, A, R = SignalGreen, SignalAmber, SignalRed
	cases := []struct {
		tick   uint64
		phase  int
		amber  bool
		lights [5]SignalLight // lanes 0, 2, 4, 6 and 8
	}{
		{0, 0, false, [5]SignalLight{G, G, R, R, R}},    // 5 s in
		{899, 0, false, [5]SignalLight{G, G, R, R, R}},  // 19.98 s in
		{900, 0, true, [5]SignalLight{A, G, R, R, R}},   // 20 s in: amber, lane 2 goes on
		{1079, 0, true, [5]SignalLight{A, G, R, R, R}},  // the amber's last tick
		{1080, 1, false, [5]SignalLight{R, G, G, G, R}}, // 23 s in: phase 1
		{1829, 1, false, [5]SignalLight{R, G, G, G, R}}, // 35.48 s in
		{1830, 1, true, [5]SignalLight{R, G, A, A, R}},  // 35.5 s in: amber, lane 2 goes on
		{2009, 1, true, [5]SignalLight{R, G, A, A, R}},  // the cycle's last tick
		{2010, 0, false, [5]SignalLight{G, G, R, R, R}}, // the cycle again
		{2010 + 2310*1000, 0, false, [5]SignalLight{G, G, R, R, R}},
		{1<<40 + 414, 1, true, [5]SignalLight{R, G, A, A, R}}, // (2^40 + 414 + 300) mod 2310 = 2200
	}
	for _, c := range cases {
		ph, am := p.At(c.tick)
		if ph != c.phase || am != c.amber {
			t.Errorf("tick %d: phase %d amber %v, want %d %v", c.tick, ph, am, c.phase, c.amber)
		}
		var got [5]SignalLight
		for k := range lanes {
			got[k] = p.Light(masks[k], ph, am)
		}
		if got != c.lights {
			t.Errorf("tick %d: lights %v, want %v", c.tick, got, c.lights)
		}
	}
	// Held by hand: a phase shows no amber; SignalAllRed is red for all.
	for _, c := range []struct {
		phase  int
		lights [5]SignalLight
	}{
		{0, [5]SignalLight{G, G, R, R, R}},
		{1, [5]SignalLight{R, G, G, G, R}},
		{SignalAllRed, [5]SignalLight{R, R, R, R, R}},
	} {
		var got [5]SignalLight
		for k := range lanes {
			got[k] = p.Light(masks[k], c.phase, false)
		}
		if got != c.lights {
			t.Errorf("held on %d: lights %v, want %v", c.phase, got, c.lights)
		}
	}
}

// oddSignal is a crossing whose times are not whole ticks: all but one a
// whole tick and a half as decimals, which float32 puts a hair below.
const oddSignal = `{
  "name": "odd-signals", "version": 1,
  "ground": {"min": [-100, -100], "max": [100, 100]},
  "roads": {
    "nodes": [
      {"id": 0, "pos": [0, 0], "intersection": true},
      {"id": 1, "pos": [-90, 0]}, {"id": 2, "pos": [90, 0]},
      {"id": 3, "pos": [0, 90]}, {"id": 4, "pos": [0, -90]}
    ],
    "lanes": [
      {"id": 0, "from": 1, "to": 0, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 1, "from": 0, "to": 1, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 2, "from": 2, "to": 0, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 3, "from": 0, "to": 2, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 4, "from": 3, "to": 0, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 5, "from": 0, "to": 3, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 6, "from": 4, "to": 0, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 7, "from": 0, "to": 4, "width": 3.5, "offset": 1.75, "speedLimit": 14}
    ],
    "signals": [
      {"id": "odd", "node": 0, "phases": [{"lanes": [0, 2], "green": 2.225}, {"lanes": [4], "green": 1.525}, {"lanes": [6, 4], "green": 5.025}], "amber": 0.175, "offset": 0.325}
    ]
  }
}`

// TestSignalPlanDigest: every lane's light of main-city and of oddSignal at
// each of the first 20,000 ticks and at four far ones, then with each
// signal held on each phase and on red, and every plan, hashed. The
// digests were taken from the server's signals system before the plan
// moved here: the plan answers as the system did, to the tick.
func TestSignalPlanDigest(t *testing.T) {
	city, err := Load("main-city")
	if err != nil {
		t.Fatal(err)
	}
	odd, err := Parse("odd.json", []byte(oddSignal))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		l    *Level
		want uint64
	}{
		{city, 0xb8915140ae74b39f},
		{odd, 0xa0a798d58f13dc28},
	} {
		if got := signalDigest(c.l); got != c.want {
			t.Errorf("%s: digest %#x, want %#x", c.l.Name, got, c.want)
		}
	}
}

// signalDigest hashes what TestSignalPlanDigest says.
func signalDigest(l *Level) uint64 {
	type planned struct {
		plan  SignalPlan
		lanes []int32
		masks []uint8
	}
	sigs := make([]planned, len(l.Roads.Signals))
	for i := range sigs {
		sigs[i].plan = NewSignalPlan(&l.Roads.Signals[i], 60)
		sigs[i].lanes, sigs[i].masks = l.SignalLanes(i)
	}
	lights := make([]byte, len(l.Roads.Lanes))
	h := fnv.New64a()
	const free = -2
	put := func(tick uint64, heldSig, heldPhase int) {
		for i := range sigs {
			g := &sigs[i]
			phase, amber := heldPhase, false
			if i != heldSig || heldPhase == free {
				phase, amber = g.plan.At(tick)
			}
			for k, li := range g.lanes {
				lights[li] = byte(g.plan.Light(g.masks[k], phase, amber))
			}
		}
		h.Write(lights)
	}
	for tick := uint64(0); tick < 20000; tick++ {
		put(tick, -1, free)
	}
	for _, tick := range []uint64{99991, 1 << 32, 1<<40 + 12345, 1<<63 + 7} {
		put(tick, -1, free)
	}
	for i := range l.Roads.Signals {
		for ph := SignalAllRed; ph < len(l.Roads.Signals[i].Phases); ph++ {
			put(12345, i, ph)
		}
	}
	put(12346, -1, free)
	for i := range sigs {
		fmt.Fprintf(h, "%v", sigs[i].plan)
	}
	return h.Sum64()
}

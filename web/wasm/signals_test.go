package main

import (
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/systems/signals"
	"github.com/mlange-42/arche/generic"
)

// TestLightsInRoom joins a page to main-city in memory: its lights are the
// server's signals system's at ticks across cycles; a signal held by hand
// (the debug command, as a mission would) shows its hold on the page once
// the signals frame comes, on red too, and its cycle again once released.
func TestLightsInRoom(t *testing.T) {
	r := newRoom(t, "main-city")
	p := r.join(server.Who{Debug: true})
	if p.Lights(0) != nil {
		t.Fatal("lights before the welcome")
	}
	for i := 0; i < 10; i++ {
		r.step()
	}
	l, err := levels.Load("main-city")
	if err != nil {
		t.Fatal(err)
	}
	w, err := ecs.New(ecs.Config{Seed: 1, Level: l})
	if err != nil {
		t.Fatal(err)
	}
	sys := signals.New(w, l)
	res := generic.NewResource[components.Signals](w.Arche)
	check := func(what string, ticks ...uint64) {
		t.Helper()
		for _, tick := range ticks {
			w.Clock.Tick = tick
			sys.Update(w)
			want := res.Get().Lanes
			got := p.Lights(tick)
			if len(got) != len(want) {
				t.Fatalf("%s, tick %d: %d lanes on the page, %d on the server", what, tick, len(got), len(want))
			}
			for i := range want {
				if components.Light(got[i]) != want[i] {
					t.Fatalf("%s, tick %d: lane %d shows %d on the page, %d on the server", what, tick, l.Roads.Lanes[i].ID, got[i], want[i])
				}
			}
		}
	}
	ticks := []uint64{0, 1, 179, 180, 359, 360, 1079, 1080, 1259, 1260, 2159, 2160, 99991, 1 << 40}
	check("on the cycle", ticks...)
	seen := map[components.Light]bool{}
	for _, li := range p.Lights(1080) {
		seen[components.Light(li)] = true
	}
	if !seen[components.LightGreen] || !seen[components.LightRed] || !seen[components.LightNone] {
		t.Errorf("lights at tick 1080 show %v, want green, red and none", seen)
	}

	hold := func(cmd string) {
		t.Helper()
		if err := p.Command(cmd); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 3; i++ {
			r.step()
		}
	}
	hold(`{"type":"debug","cmd":"signal","value":"signal-4-4","phase":1}`)
	sys.Hold("signal-4-4", 1)
	check("held on phase 1", ticks...)
	hold(`{"type":"debug","cmd":"signal","value":"signal-4-4","phase":-1}`)
	sys.Hold("signal-4-4", signals.AllRed)
	check("held on red", ticks...)
	hold(`{"type":"debug","cmd":"signal","value":"signal-4-4"}`)
	sys.Release("signal-4-4")
	check("released", ticks...)

	if a := testing.AllocsPerRun(100, func() { p.Lights(12345) }); a != 0 {
		t.Errorf("Lights allocates %v times per call, want 0", a)
	}
}

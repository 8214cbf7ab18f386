package server

import (
	"testing"

	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/internal/race"
	"github.com/fiveonit/engine/levels"
)

// newFreeRoam returns a server on main-city in free roam (police on).
func newFreeRoam(t *testing.T) *GameServer {
	t.Helper()
	l, err := levels.Load("main-city")
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(Config{Room: "t", Level: l, Seed: 1, Rules: ecs.FreeRoam()})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestClockSentOnJoin: a player gets the room clock as it joins, before
// the clock changes (free roam: noon, an hour of game time a real minute).
func TestClockSentOnJoin(t *testing.T) {
	g := newFreeRoam(t)
	p := join(t, g, Who{})
	g.Tick()
	p.read()
	var clocks []map[string]any
	for i, m := range p.texts {
		if m["type"] == "clock" {
			if i == 0 {
				t.Fatal("a clock frame before the welcome")
			}
			clocks = append(clocks, m)
		}
	}
	if len(clocks) != 1 {
		t.Fatalf("%d clock frames on join, want 1: %v", len(clocks), p.texts)
	}
	if m := clocks[0]["minutes"].(float64); m < 719.9 || m > 720.1 {
		t.Fatalf("clock on join at %v minutes, want noon (720)", m)
	}
	if pace := clocks[0]["pace"].(float64); pace != ecs.FreeRoam().ClockPace {
		t.Fatalf("clock pace %v, want the rules' %v", pace, ecs.FreeRoam().ClockPace)
	}
}

// TestReadoutListsChasers: once a player is wanted, the debug readout
// lists the police chasing them, each with the player's character as its
// target.
func TestReadoutListsChasers(t *testing.T) {
	race.Solo(t)
	g := newFreeRoam(t)
	p := join(t, g, Who{Debug: true})
	g.Tick()
	p.command(`{"type":"debug","id":1,"cmd":"wanted","stars":3}`)
	for i := 0; i < 10*ecs.TickRate; i++ {
		g.Tick()
	}
	p.read()
	r := p.lastText("readout")
	if r == nil {
		t.Fatal("no readout in 10 s")
	}
	chasers, _ := r["chasers"].([]any)
	if len(chasers) == 0 {
		t.Fatalf("3 stars for 10 s and no chaser in the readout: %v", r)
	}
	me := float64(p.welcome.Character)
	for _, c := range chasers {
		c := c.(map[string]any)
		if c["target"].(float64) != me || c["id"].(float64) == 0 || c["mode"] == "" {
			t.Fatalf("chaser %v: want a wire id, a mode and my character (%v) as its target", c, me)
		}
	}
	t.Logf("%d chasers: %v", len(chasers), chasers)
}

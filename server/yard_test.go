package server

import (
	"fmt"
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/ecs/ecstest"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/systems"
)

// yardUse presses Use for p (the others idle) and runs the ticks an
// enter or exit takes.
func yardUse(g *GameServer, p *probe, others ...*probe) {
	hold(g, components.Drive{Pressed: components.BtnUse}, 1, p, others...)
	hold(g, components.Drive{}, 30, p, others...)
	p.read()
}

// yardIn returns the vehicle p's character sits in, zero on foot.
func yardIn(g *GameServer, p *probe) ecs.Entity {
	_, in, _ := g.persons.Get(p.s.char)
	return in.Vehicle
}

// TestYardKeyFromTheWorld is a scenario on main-city with no debug
// command: a player's own car at the yard gate with no key leaves the gate
// shut. The player gets out, walks to the park, picks up the yard key
// lying on the grass, walks back and gets into their car at the gate:
// the gate opens for them. At a locked yard van, another player without
// the key presses Use and stays on foot; the key holder presses Use and
// is in.
func TestYardKeyFromTheWorld(t *testing.T) {
	l, err := levels.Load("main-city")
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(Config{Room: "yard", Level: l, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	p, other := join(t, g, Who{}), join(t, g, Who{})
	gs := systems.Gates(g.World())
	carsTicks(g, wireEvery, p, other)
	car := yardIn(g, p)
	if car.IsZero() || p.s.debug || other.s.debug {
		t.Fatal("the players do not start in their cars without debug")
	}
	// Heading north through the gate (gapsApproach), no key: shut.
	carsPut(g, p.s.char, 240, 195, 1.5707964)
	carsTicks(g, 10, p)
	if _, open := gs.Gate(gapsYardGate); open {
		t.Fatal("the yard gate opened for a driver with no key")
	}

	yardUse(g, p, other)
	if !yardIn(g, p).IsZero() {
		t.Fatal("still in the car after Use")
	}
	var pick levels.Pickup
	for _, pk := range g.Level().Pickups {
		if pk.Item == "yard-key" {
			pick = pk
		}
	}
	key := carsLoose(g, pick.Pos)
	if key == 0 {
		t.Fatal("no yard key lies in main-city's park")
	}
	carsPut(g, p.s.char, pick.Pos.X+1, pick.Pos.Y, 0)
	p.command(fmt.Sprintf(`{"type":"pickup","id":1,"target":%d}`, key))
	carsTicks(g, wireEvery, p)
	gapsOK(t, p, 1, "pick up the yard key")
	yardKey, _ := g.World().Items.ByName("yard-key")
	if g.inv.Get(p.s.char).Count(yardKey) != 1 {
		t.Fatal("the yard key is not in the inventory")
	}
	if _, open := gs.Gate(gapsYardGate); open {
		t.Fatal("the yard gate opened with nobody at it")
	}

	// Back beside the car at the gate, and in: it opens.
	cp := g.posOf(car).Pos
	carsPut(g, p.s.char, cp.X-2, cp.Y, 0)
	yardUse(g, p, other)
	if yardIn(g, p) != car {
		act, _, _ := g.persons.Get(p.s.char)
		t.Fatalf("not back in the car at the gate: person %+v at %+v, car at %+v", *act, g.posOf(p.s.char).Pos, g.posOf(car).Pos)
	}
	carsTicks(g, 3, p)
	if _, open := gs.Gate(gapsYardGate); !open {
		t.Fatal("the yard gate stays shut for the driver who picked up its key")
	}

	// A locked yard van: shut to the other player, open to the key.
	van := carsFirstBay(g, "yard-vans")
	if van.IsZero() || ecstest.Get[components.Flags](g.World(), van).Bits&components.FlagLocked == 0 {
		t.Fatal("no locked yard van parked")
	}
	vp := g.posOf(van).Pos
	yardUse(g, other, p)
	carsPut(g, other.s.char, vp.X-2, vp.Y, 0)
	yardUse(g, other, p)
	if !yardIn(g, other).IsZero() {
		t.Fatal("a player without the key got into the locked yard van")
	}
	carsPut(g, other.s.char, vp.X-12, vp.Y, 0) // out of the way
	yardUse(g, p, other)
	carsPut(g, p.s.char, vp.X-2, vp.Y, 0)
	yardUse(g, p, other)
	if yardIn(g, p) != van {
		t.Fatalf("the key holder is not in the yard van (in %v)", yardIn(g, p))
	}
}

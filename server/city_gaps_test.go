package server

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs/ecstest"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/systems"
	"github.com/fiveonit/engine/systems/spawners"
	"github.com/mlange-42/arche/generic"
)

// gapsCity makes a main-city room with no traffic nor crowd (the zero
// rules) and a plain and a debug client, joined.
func gapsCity(t *testing.T) (g *GameServer, plain, dbg *probe) {
	t.Helper()
	l, err := levels.Load("main-city")
	if err != nil {
		t.Fatal(err)
	}
	g, err = New(Config{Room: "gaps", Level: l, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	plain = join(t, g, Who{})
	dbg = join(t, g, Who{Debug: true})
	g.Tick()
	return g, plain, dbg
}

// gapsReply returns p's reply to command id, failing when there is none.
func gapsReply(t *testing.T, p *probe, id int) map[string]any {
	t.Helper()
	p.read()
	for i := len(p.texts) - 1; i >= 0; i-- {
		if m := p.texts[i]; m["type"] == "reply" && m["id"] == float64(id) {
			return m
		}
	}
	t.Fatalf("no reply to command %d", id)
	return nil
}

// gapsOK fails unless p's reply to id is ok.
func gapsOK(t *testing.T, p *probe, id int, what string) {
	t.Helper()
	if r := gapsReply(t, p, id); r["ok"] != true {
		t.Fatalf("%s: %v", what, r)
	}
}

// gapsRefused fails unless p's reply to id is an error containing want.
func gapsRefused(t *testing.T, p *probe, id int, what, want string) {
	t.Helper()
	r := gapsReply(t, p, id)
	if e, _ := r["error"].(string); r["ok"] != false || !strings.Contains(e, want) {
		t.Fatalf("%s: %v, want an error with %q", what, r, want)
	}
}

// gapsYardGate is the index of main-city's yard gate (key tag "yard") in the
// level's gates; gapsApproach is a place on the road just south of it,
// heading north through it.
const (
	gapsYardGate = 1
	gapsApproach = `"x":240,"y":195,"yaw":1.5707964`
)

// TestGiveKeyCommand: the yard gate stays shut for a debug player's car
// standing at it until `give-key yard`; then it opens. An unknown tag, no
// tag, and a client without debug are refused.
func TestGiveKeyCommand(t *testing.T) {
	g, plain, dbg := gapsCity(t)
	gs := systems.Gates(g.World())
	if gs == nil || gs.HasKey == nil {
		t.Fatal("the room's gates system has no key hook")
	}
	if lg := g.Level().Gates[gapsYardGate]; lg.Rule.KeyTag != "yard" {
		t.Fatalf("gate %d is %q with rule %+v, not the yard's", gapsYardGate, lg.ID, lg.Rule)
	}
	plain.command(`{"type":"debug","id":1,"cmd":"give-key","value":"yard"}`)
	dbg.command(`{"type":"debug","id":2,"cmd":"give-key","value":"nope"}`)
	dbg.command(`{"type":"debug","id":3,"cmd":"give-key"}`)
	dbg.command(`{"type":"debug","id":4,"cmd":"teleport",` + gapsApproach + `}`)
	for range 10 {
		g.Tick()
	}
	gapsRefused(t, plain, 1, "give-key without debug", "debug commands are off")
	gapsRefused(t, dbg, 2, "give-key nope", `unknown key tag "nope"`)
	gapsRefused(t, dbg, 3, "give-key without a tag", "value is required")
	gapsOK(t, dbg, 4, "teleport to the yard gate")
	if _, open := gs.Gate(gapsYardGate); open {
		t.Fatal("the yard gate opened for a driver with no key")
	}
	if k := ecstest.Get[components.Keys](g.World(), dbg.s.char); k != nil {
		t.Fatalf("refused give-keys left keys %+v", *k)
	}

	dbg.command(`{"type":"debug","id":5,"cmd":"give-key","value":"yard"}`)
	for range 3 {
		g.Tick()
	}
	gapsOK(t, dbg, 5, "give-key yard")
	if _, open := gs.Gate(gapsYardGate); !open {
		t.Fatal("the yard gate stays shut for a driver with its key")
	}
	if !gs.HasKey(g.World(), dbg.s.char, "yard") || gs.HasKey(g.World(), plain.s.char, "yard") {
		t.Fatal("the key went to the wrong character")
	}
}

// TestResetLevelCommand drives a car out of its spawner's bay (the bay
// stays empty: its respawn is minutes) and opens the yard gate; then
// `reset-level` parks a new car in the bay at once and shuts the gate
// behind the car that left it (within the gate's hold time). A client
// without debug is refused.
func TestResetLevelCommand(t *testing.T) {
	g, plain, dbg := gapsCity(t)
	w := g.World()
	sp, _ := w.Sched.System(spawners.Name).(*spawners.System)
	gs := systems.Gates(w)
	if sp == nil || gs == nil {
		t.Fatal("no spawners or gates system in the room")
	}
	// The first spawner that parks cars (the garage's bays are the
	// players', empty).
	vs := slices.IndexFunc(g.Level().VehicleSpawners, func(v levels.VehicleSpawner) bool { return v.Model != "" })
	if vs < 0 {
		t.Fatal("main-city has no spawner that parks cars")
	}
	bay := g.Level().VehicleSpawners[vs].Bays[0].Pos
	old := sp.Bay(vs, 0)
	if old.IsZero() || !w.Arche.Alive(old) {
		t.Fatal("the spawner's first bay was not parked at the start")
	}
	// Away onto a road (a traffic spawn point: this room has no traffic).
	road := g.Level().Spawns[g.Level().SpawnsOf(levels.RoleTraffic)[0]]
	dbg.command(fmt.Sprintf(`{"type":"debug","id":1,"cmd":"teleport","target":%d,"x":%g,"y":%g,"yaw":%g}`,
		g.ids.Get(old).WireID, road.Pos.X, road.Pos.Y, road.Yaw))
	dbg.command(`{"type":"debug","id":2,"cmd":"give-key","value":"yard"}`)
	dbg.command(`{"type":"debug","id":3,"cmd":"teleport",` + gapsApproach + `}`)
	for range 10 {
		g.Tick()
	}
	gapsOK(t, dbg, 1, "teleport the bay's car away")
	gapsOK(t, dbg, 2, "give-key yard")
	gapsOK(t, dbg, 3, "teleport to the yard gate")
	if !sp.Bay(vs, 0).IsZero() {
		t.Fatal("the bay was parked again before the reset: the test proves nothing")
	}
	if _, open := gs.Gate(gapsYardGate); !open {
		t.Fatal("the yard gate did not open for the key")
	}

	plain.command(`{"type":"debug","id":4,"cmd":"reset-level"}`)
	// Leave the gate, and reset at once: without the reset it would stay
	// open for its hold time.
	dbg.command(`{"type":"debug","id":5,"cmd":"teleport","x":240,"y":150,"yaw":-1.5707964}`)
	dbg.command(`{"type":"debug","id":6,"cmd":"reset-level"}`)
	g.Tick()
	gapsRefused(t, plain, 4, "reset-level without debug", "debug commands are off")
	gapsOK(t, dbg, 5, "teleport away from the gate")
	gapsOK(t, dbg, 6, "reset-level")
	if _, open := gs.Gate(gapsYardGate); open {
		t.Fatal("the yard gate is still open after the reset")
	}
	parked := sp.Bay(vs, 0)
	if parked.IsZero() || !w.Arche.Alive(parked) || parked == old {
		t.Fatal("the bay was not parked again by the reset")
	}
	if p := g.posOf(parked).Pos; p.X != bay.X || p.Y != bay.Y {
		t.Fatalf("the new car stands at %v, the bay is at %v", p, bay)
	}
	if !w.Arche.Alive(old) {
		t.Fatal("the reset took away the car driven out of the bay")
	}
	if gapsBayCars(g, bay) != 1 {
		t.Fatalf("%d cars in the bay", gapsBayCars(g, bay))
	}
}

// gapsBayCars counts the vehicles within spawners.BayRadius of a bay.
func gapsBayCars(g *GameServer, bay levels.Vec2) int {
	n := 0
	q := generic.NewFilter2[components.Pose, components.Seats]().Query(g.World().Arche)
	for q.Next() {
		p, _ := q.Get()
		if dx, dy := p.Pos.X-bay.X, p.Pos.Y-bay.Y; dx*dx+dy*dy <= spawners.BayRadius*spawners.BayRadius {
			n++
		}
	}
	return n
}

package server

import (
	"fmt"
	"slices"
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/ecs/ecstest"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/prefab"
	"github.com/fiveonit/engine/store"
	"github.com/fiveonit/engine/store/storetest"
	"github.com/fiveonit/engine/systems/cars"
	"github.com/mlange-42/arche/generic"
)

// carsPut stands e (or the car it drives) at (x, y) facing yaw, stopped.
func carsPut(g *GameServer, e ecs.Entity, x, y, yaw float32) {
	if _, in, _ := g.persons.Get(e); in != nil && !in.Vehicle.IsZero() {
		e = in.Vehicle
	}
	pose, vel := g.poses.Get(e)
	pose.Pos.X, pose.Pos.Y, pose.Rot = x, y, components.YawQuat(yaw)
	*vel = components.Velocity{}
}

// carsTicks runs n ticks and reads both probes.
func carsTicks(g *GameServer, n int, ps ...*probe) {
	for range n {
		g.Tick()
	}
	for _, p := range ps {
		p.read()
	}
}

// carsWires returns a keys frame's list named field as wire ids.
func carsWires(m map[string]any, field string) []uint16 {
	var out []uint16
	list, _ := m[field].([]any)
	for _, v := range list {
		out = append(out, uint16(v.(float64)))
	}
	return out
}

// TestCarsOnMainCity plays the cars through on main-city: a player's car
// at their spawn is theirs (the keys frame says so); they keep it in the
// garage for the level's price, refused first without the cash; then
// take it out again. On foot they pick up the yard key lying in the park
// (the keys frame gains "yard" and the yard's vans) and unlock a locked
// van with it, which the other player, without the key, cannot; a car
// out of reach is refused as too far.
func TestCarsOnMainCity(t *testing.T) {
	g, plain, other := gapsCity(t)
	w := g.World()
	l := g.Level()
	carsTicks(g, wireEvery, plain, other)

	// The spawn car is yours.
	keys := plain.lastText("keys")
	if keys == nil {
		t.Fatal("no keys frame on joining")
	}
	if own := carsWires(keys, "own"); !slices.Contains(own, plain.welcome.Car) {
		t.Fatalf("own %v lacks the spawn car %d", own, plain.welcome.Car)
	}
	if tags, _ := keys["tags"].([]any); len(tags) != 0 {
		t.Fatalf("tags %v before any key", tags)
	}
	if gs := plain.welcome.Garages; len(gs) != 1 || gs[0].ID != "garage" || gs[0].Price != 500 || len(gs[0].Bays) != 4 {
		t.Fatalf("welcome garages %+v", gs)
	}
	if gar := plain.lastText("garage"); gar == nil || len(gar["cars"].([]any)) != 0 {
		t.Fatalf("garage frame on joining %v, want one with no cars", gar)
	}

	// Keep it: drive into the garage's first bay; no cash, then the price.
	bay := plain.welcome.Garages[0].Bays[0]
	carsPut(g, plain.s.char, bay.Pos[0], bay.Pos[1], bay.Yaw)
	_, cash := g.wanted.Get(plain.s.char)
	cash.Amount = 499
	plain.command(`{"type":"keep","id":1}`)
	carsTicks(g, 1, plain)
	gapsRefused(t, plain, 1, "keep without the cash", "not enough cash: garage garage asks 500, you have 499")
	cash.Amount = 700
	other.command(`{"type":"keep","id":2}`)
	plain.command(`{"type":"keep","id":3}`)
	carsTicks(g, wireEvery, plain, other)
	gapsRefused(t, other, 2, "keep out of a bay", "not in a bay")
	gapsOK(t, plain, 3, "keep")
	if _, cash = g.wanted.Get(plain.s.char); cash.Amount != 200 {
		t.Fatalf("cash %d after keeping, want 200", cash.Amount)
	}
	if w.Arche.Alive(plain.s.car) {
		t.Fatal("the kept car is still in the world")
	}
	if act, in, _ := g.persons.Get(plain.s.char); act.Act != components.ActOnFoot || !in.Vehicle.IsZero() {
		t.Fatal("the driver of the kept car is not on foot")
	}
	gar := plain.lastText("garage")
	if cs, _ := gar["cars"].([]any); len(cs) != 1 || cs[0].(map[string]any)["garage"] != "garage" || cs[0].(map[string]any)["bay"] != 0.0 {
		t.Fatalf("garage frame after keeping: %v", gar)
	}
	if got := g.cars.sess.of(plain.s).kept; len(got) != 1 || got[0].Garage != "garage" || got[0].Bay != 0 {
		t.Fatalf("account state's cars %+v", got)
	}

	// Take it out again, standing clear of the bay; a second time there
	// is nothing kept.
	carsPut(g, plain.s.char, bay.Pos[0], bay.Pos[1]-8, bay.Yaw)
	plain.command(`{"type":"takeout","id":4,"place":"garage","slot":0}`)
	plain.command(`{"type":"takeout","id":5,"place":"garage","slot":0}`)
	plain.command(`{"type":"takeout","id":6,"place":"nowhere","slot":0}`)
	carsTicks(g, wireEvery, plain)
	gapsOK(t, plain, 4, "takeout")
	gapsRefused(t, plain, 5, "takeout twice", "you keep no car in bay 0 of garage garage")
	gapsRefused(t, plain, 6, "takeout of a garage the level lacks", `no such garage: this level has none called "nowhere"`)
	if gar := plain.lastText("garage"); len(gar["cars"].([]any)) != 0 {
		t.Fatalf("garage frame after taking out: %v", gar)
	}
	out := carsNear(g, bay.Pos[0], bay.Pos[1])
	if out.IsZero() {
		t.Fatal("no car in the bay after taking it out")
	}
	if l := *ecstest.Get[components.CarLock](g.World(), out); l.Owner != g.cars.sess.of(plain.s).owner || l.Owner == 0 {
		t.Fatalf("the car taken out is owner %d's, want %d's", l.Owner, g.cars.sess.of(plain.s).owner)
	}
	if own := carsWires(plain.lastText("keys"), "own"); !slices.Contains(own, g.ids.Get(out).WireID) {
		t.Fatalf("own %v lacks the car taken out", own)
	}

	// The yard key on the park's grass.
	var pick levels.Pickup
	for _, p := range l.Pickups {
		if p.Item == "yard-key" {
			pick = p
		}
	}
	key := carsLoose(g, pick.Pos)
	if key == 0 {
		t.Fatal("no yard key lies in main-city's park")
	}
	carsPut(g, plain.s.char, pick.Pos.X+1, pick.Pos.Y, 0)
	plain.command(fmt.Sprintf(`{"type":"pickup","id":7,"target":%d}`, key))
	carsTicks(g, wireEvery, plain)
	gapsOK(t, plain, 7, "pick up the yard key")
	keys = plain.lastText("keys")
	if tags, _ := keys["tags"].([]any); !slices.Contains(tags, any("yard")) {
		t.Fatalf("keys frame %v after picking up the yard key", keys)
	}
	van := carsFirstBay(g, "yard-vans")
	if van.IsZero() {
		t.Fatal("no yard van parked")
	}
	vanWire := g.ids.Get(van).WireID
	if ks := carsWires(keys, "keys"); !slices.Contains(ks, vanWire) {
		t.Fatalf("keys %v lacks the yard van %d", ks, vanWire)
	}

	// The locked van opens for its key, not for another; too far is
	// refused.
	vp := g.posOf(van).Pos
	plain.command(fmt.Sprintf(`{"type":"unlock","id":8,"target":%d}`, vanWire))
	carsTicks(g, 1, plain)
	gapsRefused(t, plain, 8, "unlock from the park", "too far away")
	carsPut(g, plain.s.char, vp.X-3, vp.Y, 0)
	carsPut(g, other.s.char, vp.X+3.5, vp.Y, 0) // in its car, beside the van
	carsTicks(g, 1, plain, other)
	other.command(fmt.Sprintf(`{"type":"unlock","id":9,"target":%d}`, vanWire))
	plain.command(fmt.Sprintf(`{"type":"unlock","id":10,"target":%d}`, vanWire))
	carsTicks(g, 1, plain, other)
	gapsRefused(t, other, 9, "unlock without the key", `no key: the car opens with the "yard" key`)
	gapsOK(t, plain, 10, "unlock with the key")
	if ecstest.Get[components.Flags](g.World(), van).Bits&components.FlagLocked != 0 {
		t.Fatal("the van is still locked")
	}
}

// wireEvery is enough ticks for every session's snapshot tick to come.
const wireEvery = 3

// carsNear returns a car standing within 1 m of (x, y).
func carsNear(g *GameServer, x, y float32) ecs.Entity {
	q := generic.NewFilter2[components.Pose, components.CarLock]().Query(g.World().Arche)
	var found ecs.Entity
	for q.Next() {
		if p, _ := q.Get(); (p.Pos.X-x)*(p.Pos.X-x)+(p.Pos.Y-y)*(p.Pos.Y-y) < 1 {
			found = q.Entity()
		}
	}
	return found
}

// carsLoose returns the wire id of a loose item lying within 1 m of p.
func carsLoose(g *GameServer, p levels.Vec2) uint16 {
	q := generic.NewFilter3[components.Loose, components.Pose, components.Identity]().Query(g.World().Arche)
	var id uint16
	for q.Next() {
		_, pose, ident := q.Get()
		if dx, dy := pose.Pos.X-p.X, pose.Pos.Y-p.Y; dx*dx+dy*dy < 1 {
			id = ident.WireID
		}
	}
	return id
}

// carsFirstBay returns the car parked in the first bay of the level's
// vehicle spawner id.
func carsFirstBay(g *GameServer, id string) ecs.Entity {
	for _, vs := range g.Level().VehicleSpawners {
		if vs.ID == id {
			return carsNear(g, vs.Bays[0].Pos.X, vs.Bays[0].Pos.Y)
		}
	}
	return ecs.Entity{}
}

// TestMainCityKeysInPlay: main-city puts the yard key in a yard crate and
// on each yard guard as well as on the park's grass.
func TestMainCityKeysInPlay(t *testing.T) {
	l, err := levels.Load("main-city")
	if err != nil {
		t.Fatal(err)
	}
	yardKey := levels.Stack{Item: "yard-key", Count: 1}
	var crate, guards bool
	for _, c := range l.Containers {
		crate = crate || c.ID == "yard-crate-2" && !c.Locked && slices.Contains(c.Items, yardKey)
	}
	for _, n := range l.NPCSpawners {
		guards = guards || n.ID == "yard-guards" && slices.Contains(n.Items, yardKey)
	}
	if !crate || !guards {
		t.Fatalf("yard key in an open yard crate %v, on the yard guards %v", crate, guards)
	}
}

// TestKeptCarsPersist: a car kept in a garage is kept with the account: a
// restart (another process, another room) sends it in the garage frame and
// takes it out again; the Cash paid stays paid.
func TestKeptCarsPersist(t *testing.T) {
	mem := storetest.NewMemory()
	a := newAccounts(t, mem, "p1")
	city := func() *GameServer {
		l, err := levels.Load("main-city")
		if err != nil {
			t.Fatal(err)
		}
		g, err := New(Config{Room: "keep", Level: l, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	g := city()
	p := joinAccount(t, g, a, "alice")
	carsTicks(g, wireEvery, p)
	bay := p.welcome.Garages[0].Bays[2]
	carsPut(g, p.s.char, bay.Pos[0], bay.Pos[1], bay.Yaw)
	p.command(`{"type":"keep","id":1}`)
	carsTicks(g, wireEvery, p)
	gapsOK(t, p, 1, "keep")
	p.s.Leave()
	g.Tick()
	flush(t, a)
	if got, _ := mem.Peek("alice"); len(got.Cars) != 1 || got.Cars[0] != (store.Car{Garage: "garage", Bay: 2, Model: carModel(1), Health: prefab.VehicleHP}) || got.Cash != prefab.StartCash-500 {
		t.Fatalf("kept %+v", got)
	}

	a2 := newAccounts(t, mem, "p2")
	g2 := city()
	p2 := joinAccount(t, g2, a2, "alice")
	carsTicks(g2, wireEvery, p2)
	gar := p2.lastText("garage")
	if cs, _ := gar["cars"].([]any); len(cs) != 1 || cs[0].(map[string]any)["bay"] != 2.0 {
		t.Fatalf("garage frame after a restart: %v", gar)
	}
	carsPut(g2, p2.s.char, bay.Pos[0], bay.Pos[1]-10, bay.Yaw)
	p2.command(`{"type":"takeout","id":2,"place":"garage","slot":2}`)
	carsTicks(g2, wireEvery, p2)
	gapsOK(t, p2, 2, "takeout after a restart")
	if cashOf(g2, p2) != prefab.StartCash-500 {
		t.Fatalf("cash %d after a restart", cashOf(g2, p2))
	}
	p2.s.Leave()
	g2.Tick()
	flush(t, a2)
	if got, _ := mem.Peek("alice"); len(got.Cars) != 0 {
		t.Fatalf("still kept after taking out: %+v", got.Cars)
	}
}

// TestBreakInOnMainCity: on main-city with police, a player on foot picks
// up the yard's crowbar and uses it at a locked yard van: the van opens
// only after cars.BreakTicks at its door, and the break-in is a crime (the
// player's Heat rises). Used away from any car or crate it is refused.
func TestBreakInOnMainCity(t *testing.T) {
	l, err := levels.Load("main-city")
	if err != nil {
		t.Fatal(err)
	}
	rules := ecs.FreeRoam()
	rules.Traffic, rules.Pedestrians = 0, 0
	g, err := New(Config{Room: "break-in", Level: l, Seed: 1, Rules: rules})
	if err != nil {
		t.Fatal(err)
	}
	p := join(t, g, Who{})
	carsTicks(g, wireEvery, p)
	p.send(components.Drive{Pressed: components.BtnUse})
	carsTicks(g, 30, p)
	if _, in, _ := g.persons.Get(p.s.char); !in.Vehicle.IsZero() {
		t.Fatal("still in the car after Use")
	}
	var bar levels.Pickup
	for _, pk := range l.Pickups {
		if pk.Item == "crowbar" {
			bar = pk
		}
	}
	carsPut(g, p.s.char, bar.Pos.X+1, bar.Pos.Y, 0)
	p.command(fmt.Sprintf(`{"type":"pickup","id":1,"target":%d}`, carsLoose(g, bar.Pos)))
	p.command(`{"type":"use","id":2,"slot":0}`)
	carsTicks(g, wireEvery, p)
	gapsOK(t, p, 1, "pick up the crowbar")
	gapsRefused(t, p, 2, "the crowbar with nothing locked near", "no locked car within 1.5 m")

	van := carsFirstBay(g, "yard-vans")
	vp := g.posOf(van).Pos
	carsPut(g, p.s.char, vp.X-2, vp.Y, 0) // at its side: the van's half-width is about 1 m
	p.command(`{"type":"use","id":3,"slot":0}`)
	carsTicks(g, 1, p)
	gapsOK(t, p, 3, "use the crowbar at the van")
	wa, _ := g.wanted.Get(p.s.char)
	if wa.Heat == 0 && wa.Stars == 0 {
		t.Fatal("the break-in was no crime: no Heat, no stars")
	}
	for range cars.BreakTicks - 5 {
		g.Tick()
	}
	if ecstest.Get[components.Flags](g.World(), van).Bits&components.FlagLocked == 0 {
		t.Fatal("the van opened before BreakTicks")
	}
	carsTicks(g, 10, p)
	if ecstest.Get[components.Flags](g.World(), van).Bits&components.FlagLocked != 0 {
		t.Fatal("the van is still locked after BreakTicks at its door")
	}
}

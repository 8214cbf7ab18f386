package server

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/netsync/wire"
	"github.com/fiveonit/engine/systems"
	"github.com/fiveonit/engine/textframe"
	"github.com/mlange-42/arche/generic"
)

// ticks runs n ticks and reads what p got.
func ticks(g *GameServer, p *probe, n int) {
	for i := 0; i < n; i++ {
		g.Tick()
	}
	p.read()
}

// reply sends cmd and returns its reply.
func reply(t *testing.T, g *GameServer, p *probe, cmd string) textframe.ReplyFrame {
	t.Helper()
	p.command(cmd)
	ticks(g, p, 1)
	m := p.lastText("reply")
	if m == nil {
		t.Fatalf("%s: no reply", cmd)
	}
	b, _ := json.Marshal(m)
	var r textframe.ReplyFrame
	json.Unmarshal(b, &r)
	return r
}

// inventory returns the last inventory frame p got.
func inventory(t *testing.T, p *probe) textframe.InventoryFrame {
	t.Helper()
	m := p.lastText("inventory")
	if m == nil {
		t.Fatal("no inventory frame")
	}
	b, _ := json.Marshal(m)
	var f textframe.InventoryFrame
	json.Unmarshal(b, &f)
	return f
}

// TestItemCommandsAndFrames: the welcome lists the catalog; the inventory
// frame comes on join and again only when the inventory, the hand or the
// cash changes; each item command is answered, a bad one with the reason
// and no change.
func TestItemCommandsAndFrames(t *testing.T) {
	g := newGame(t, "test-flat", "city-jobs")
	p := join(t, g, Who{})
	ticks(g, p, 3)
	if len(p.welcome.Items) != g.w.Items.Len() || p.welcome.Items[0].Name != "cash" || p.welcome.Items[0].ID != 1 {
		t.Fatalf("welcome items %+v", p.welcome.Items)
	}
	var water, pistol textframe.WelcomeItem
	for _, it := range p.welcome.Items {
		switch it.Name {
		case "water":
			water = it
		case "pistol":
			pistol = it
		}
	}
	if water.Price == 0 || water.Kind != "consumable" || water.Ammo != "" {
		t.Fatalf("water %+v: priced, a consumable", water)
	}
	if pistol.Weapon != components.WeaponPistol || pistol.Ammo != "pistol-ammo" {
		t.Fatalf("pistol %+v: a weapon that names its ammunition", pistol)
	}
	inv := inventory(t, p)
	phone, _ := g.w.Items.ByName("phone")
	if inv.Slots[components.InventorySlots-1].Item != phone || inv.Cash == 0 {
		t.Fatalf("first inventory %+v", inv)
	}
	count := func() int {
		n := 0
		for _, m := range p.texts {
			if m["type"] == "inventory" {
				n++
			}
		}
		return n
	}
	n := count()
	ticks(g, p, 6)
	if count() != n {
		t.Fatal("an inventory frame with nothing changed")
	}
	if r := reply(t, g, p, `{"type":"debug","cmd":"give-item","item":"medkit","count":2}`); !r.OK {
		t.Fatalf("give-item: %+v", r)
	}
	ticks(g, p, 3)
	medkit, _ := g.w.Items.ByName("medkit")
	if inv := inventory(t, p); inv.Slots[0].Item != medkit || inv.Slots[0].Count != 2 || count() != n+1 {
		t.Fatalf("after give-item: %+v", inv)
	}
	if r := reply(t, g, p, `{"type":"drop","slot":0}`); r.OK || r.Error != "get out of the car first" {
		t.Fatalf("drop in a car: %+v", r)
	}
	getOut(g, p.s)
	for _, c := range []struct{ cmd, want string }{
		{`{"type":"use"}`, `"slot" is required`},
		{`{"type":"use","slot":99}`, "no such slot 99: slots are 0 to 9"},
		{`{"type":"use","slot":0}`, "you are not hurt"},
		{`{"type":"move","slot":0}`, `"to" is required`},
		{`{"type":"move","slot":0,"to":9}`, "the phone stays in its slot"},
		{`{"type":"move","slot":0,"to":3,"count":3}`, "bad count 3: there are 2"},
		{`{"type":"pickup"}`, `"target" is required: a loose item's wire id`},
		{`{"type":"pickup","target":4000}`, "no such thing: no item 4000 lies about"},
		{`{"type":"open"}`, `"place" is required: a container's or shop's id of the level`},
		{`{"type":"open","place":"nowhere"}`, `no such thing: no container "nowhere" here`},
		{`{"type":"take","slot":0}`, "no container open"},
		{`{"type":"close"}`, "no container open"},
		{`{"type":"buy","place":"corner-shop"}`, `"item" is required: an item's name`},
		{`{"type":"buy","place":"corner-shop","item":"water"}`, `no such thing: no shop "corner-shop" here`},
	} {
		r := reply(t, g, p, c.cmd)
		if r.OK || r.Error != c.want {
			t.Fatalf("%s: reply %+v, want %q", c.cmd, r, c.want)
		}
	}
	ticks(g, p, 3)
	if count() != n+1 {
		t.Fatal("a refused command changed the inventory")
	}
	// A drop and a pickup through the commands.
	if r := reply(t, g, p, `{"type":"drop","slot":0,"count":1}`); !r.OK || r.Cmd != "drop" {
		t.Fatalf("drop: %+v", r)
	}
	wid := looseWire(g, medkit)
	if wid == 0 {
		t.Fatal("the dropped medkit does not lie about")
	}
	if r := reply(t, g, p, fmt.Sprintf(`{"type":"pickup","target":%d}`, wid)); !r.OK {
		t.Fatalf("pickup: %+v", r)
	}
	ticks(g, p, 3)
	if inv := inventory(t, p); inv.Slots[0].Count != 2 || looseWire(g, medkit) != 0 {
		t.Fatalf("after the pickup: %+v", inv)
	}
}

// getOut takes s's character out of its car at once, on foot where it is.
func getOut(g *GameServer, s *Session) {
	act, in, _ := g.persons.Get(s.char)
	if v := in.Vehicle; !v.IsZero() {
		g.seats.Get(v).Occupant[in.Seat] = ecs.Entity{}
	}
	in.Vehicle, act.Act = ecs.Entity{}, components.ActOnFoot
}

// looseWire returns the wire id of a loose item of item, 0 for none.
func looseWire(g *GameServer, item components.ItemID) uint16 {
	f := generic.NewFilter2[components.Loose, components.Identity]()
	q := f.Query(g.w.Arche)
	for q.Next() {
		l, id := q.Get()
		if l.Stack.Item == item {
			wid := id.WireID
			q.Close()
			return wid
		}
	}
	return 0
}

// place puts s's character on foot at (x, y), facing yaw.
func place(g *GameServer, s *Session, x, y, yaw float32) {
	getOut(g, s)
	pose, vel := g.poses.Get(s.char)
	pose.Pos.X, pose.Pos.Y, pose.Rot = x, y, components.YawQuat(yaw)
	*vel = components.Velocity{}
}

// hold runs n ticks with p sending d and the others nothing.
func hold(g *GameServer, d components.Drive, n int, p *probe, others ...*probe) {
	for i := 0; i < n; i++ {
		p.send(d)
		for _, o := range others {
			o.send(components.Drive{})
		}
		g.Tick()
	}
	p.read()
	for _, o := range others {
		o.read()
	}
}

// TestSafeZoneOfTheGame: a zone the game's rules make safe reaches the
// damage system: in city-jobs nobody is hurt in the police car park, in
// free roam (where it is only restricted) a round there hurts.
func TestSafeZoneOfTheGame(t *testing.T) {
	for _, c := range []struct {
		game     string
		wantHurt bool
	}{{"free-roam", true}, {"city-jobs", false}} {
		t.Run(c.game, func(t *testing.T) {
			g := newGame(t, "main-city", c.game)
			a, b := join(t, g, Who{Debug: true}), join(t, g, Who{})
			ticks(g, a, 3)
			b.read()
			var lot [2]float32
			for _, z := range g.cfg.Level.Zones {
				if z.ID == "police-lot" {
					for _, p := range z.Polygon {
						lot[0] += p.X / float32(len(z.Polygon))
						lot[1] += p.Y / float32(len(z.Polygon))
					}
				}
			}
			place(g, a.s, lot[0], lot[1], 0)
			place(g, b.s, lot[0]+4, lot[1], 0)
			for _, cmd := range []string{
				`{"type":"debug","cmd":"give-item","item":"pistol"}`,
				`{"type":"debug","cmd":"give-item","item":"pistol-ammo","count":20}`,
				`{"type":"use","slot":0}`,
			} {
				if r := reply(t, g, a, cmd); !r.OK {
					t.Fatalf("%s: %+v", cmd, r)
				}
			}
			hold(g, components.Drive{Held: components.BtnFire}, 30, a, b)
			shots := 0
			for _, ev := range a.events {
				if ev.Kind == uint8(components.EventShot) {
					shots++
				}
			}
			if shots == 0 {
				t.Fatal("no shot fired")
			}
			if hurt := g.health.Get(b.s.char).HP < 100; hurt != c.wantHurt {
				t.Fatalf("hurt %v, want %v", hurt, c.wantHurt)
			}
		})
	}
}

// TestItemsScenario plays the scenario on main-city: buy at the
// corner shop, pick up the yard's crowbar, store it in the yard's locker
// (its key taken from a yard crate), throw a grenade that blows where both
// clients see it, then reset the level: the crowbar lies where it lay, the
// locker is shut, locked and holds what the level put in it, the crate
// holds its key again, the item a player dropped is gone; what the players
// carry stays theirs.
func TestItemsScenario(t *testing.T) {
	g := newGame(t, "main-city", "free-roam")
	a, b := join(t, g, Who{Debug: true}), join(t, g, Who{})
	ticks(g, a, 3)
	b.read()
	w := g.World()
	id := func(name string) components.ItemID { i, _ := w.Items.ByName(name); return i }
	do := func(p *probe, cmd string) {
		t.Helper()
		if r := reply(t, g, p, cmd); !r.OK {
			t.Fatalf("%s: %+v", cmd, r)
		}
	}
	refused := func(p *probe, cmd, want string) {
		t.Helper()
		if r := reply(t, g, p, cmd); r.OK || r.Error != want {
			t.Fatalf("%s: %+v, want %q", cmd, r, want)
		}
	}

	// Buy two waters at the corner shop's counter.
	var shop levels.Shop
	for _, s := range g.cfg.Level.Shops {
		if s.ID == "corner-shop" {
			shop = s
		}
	}
	if shop.ID == "" {
		t.Fatal("main-city has no corner-shop")
	}
	place(g, a.s, shop.Pos.X, shop.Pos.Y-2, 1.57)
	cash := inventory(t, a).Cash
	do(a, `{"type":"buy","place":"corner-shop","item":"water","count":2}`)
	// The refusal lists the shop's stock, as the level has it.
	refused(a, `{"type":"buy","place":"corner-shop","item":"pistol"}`, fmt.Sprintf("not sold here: corner-shop sells %v", shop.Items))
	ticks(g, a, 3)
	water, _ := g.cfg.Game.Price(id("water"))
	if inv := inventory(t, a); inv.Slots[0].Item != id("water") || inv.Slots[0].Count != 2 || inv.Cash != cash-2*water {
		t.Fatalf("after the buy: %+v (cash was %d)", inv, cash)
	}
	place(g, a.s, shop.Pos.X+20, shop.Pos.Y-2, 0)
	refused(a, `{"type":"buy","place":"corner-shop","item":"water"}`, "too far away: the corner-shop counter is 20.1 m away, reach is 2.5 m")

	// Pick up the yard's crowbar.
	crowbarAt := g.cfg.Level.Pickups[1].Pos
	place(g, a.s, crowbarAt.X, crowbarAt.Y+1, 0)
	ticks(g, a, 1)
	wid := looseWire(g, id("crowbar"))
	do(a, fmt.Sprintf(`{"type":"pickup","target":%d}`, wid))
	if looseWire(g, id("crowbar")) != 0 {
		t.Fatal("the crowbar still lies there")
	}

	// Store it in the yard's locker: locked, a crowbar does not force a
	// locker, the key does. The key lies in a crate nearby, as the level
	// puts it there.
	locker, crate := g.cfg.Level.Containers[4], g.cfg.Level.Containers[3]
	if locker.ID != "yard-locker" || crate.ID != "yard-crate-2" {
		t.Fatalf("containers %q and %q, want the yard's locker and crate", locker.ID, crate.ID)
	}
	place(g, a.s, locker.Pos.X-1.5, locker.Pos.Y, 0)
	refused(a, `{"type":"open","place":"yard-locker"}`, `locked: the locker opens with the "yard" key`)
	place(g, a.s, crate.Pos.X-1.5, crate.Pos.Y, 0)
	do(a, `{"type":"open","place":"yard-crate-2"}`)
	do(a, `{"type":"take","slot":0}`) // the yard key
	do(a, `{"type":"close"}`)
	if box := g.boxes.Get(systems.Items(w).Container(3)); box.Slots[0].Item != 0 || g.inv.Get(a.s.char).Count(id("yard-key")) != 1 {
		t.Fatalf("the key is not taken out of the crate: %+v", box.Slots)
	}
	place(g, a.s, locker.Pos.X-1.5, locker.Pos.Y, 0)
	do(a, `{"type":"open","place":"yard-locker"}`)
	ticks(g, a, 3)
	if m := a.lastText("container"); m == nil || m["id"] != "yard-locker" {
		t.Fatalf("container frame %v", m)
	}
	do(a, `{"type":"put","slot":1}`)  // the crowbar
	do(a, `{"type":"take","slot":0}`) // the SMG
	ticks(g, a, 3)
	box := g.boxes.Get(systems.Items(w).Container(4))
	if box.Slots[2].Item != id("crowbar") || inventory(t, a).Slots[1].Item != id("smg") {
		t.Fatalf("locker %+v, inventory %+v", box.Slots, inventory(t, a).Slots)
	}
	do(a, `{"type":"drop","slot":0,"count":1}`) // a water left in the yard

	// A grenade: the pin held through the ticks, thrown on release, seen
	// by both clients, blowing after its fuse.
	do(a, `{"type":"debug","cmd":"give-item","item":"grenade"}`)
	place(g, b.s, locker.Pos.X-30, locker.Pos.Y-30, 0)
	hold(g, components.Drive{Held: components.BtnPin, LookYaw: -1.57}, 20, a, b)
	if n := countProjectiles(g); n != 0 {
		t.Fatal("thrown with the pin held")
	}
	hold(g, components.Drive{LookYaw: -1.57}, 6, a, b)
	if n := countProjectiles(g); n != 1 {
		t.Fatalf("%d projectiles after the release", n)
	}
	seen := func(p *probe, kind uint8) bool {
		for _, e := range p.dec.Snapshot().Entities {
			if e.Kind == kind {
				return true
			}
		}
		return false
	}
	if !seen(a, wire.KindProjectile) {
		t.Fatal("the thrower's client does not see the grenade")
	}
	hold(g, components.Drive{}, 3*ecs.TickRate, a, b)
	blasts := func(p *probe) int {
		n := 0
		for _, ev := range p.events {
			if ev.Kind == uint8(components.EventBlast) {
				n++
			}
		}
		return n
	}
	if blasts(a) != 1 || countProjectiles(g) != 0 {
		t.Fatalf("%d blasts seen, %d projectiles left", blasts(a), countProjectiles(g))
	}
	if !seen(b, wire.KindItem) {
		t.Fatal("loose items are sent to every client, however far")
	}

	// The level reset puts everything back.
	do(a, `{"type":"debug","cmd":"reset-level"}`)
	ticks(g, a, 3)
	box = g.boxes.Get(systems.Items(w).Container(4))
	if !box.Locked || box.Slots[0].Item != id("smg") || box.Slots[2].Item != 0 || !g.inv.Get(a.s.char).Open.IsZero() {
		t.Fatalf("after the reset the locker is %+v", box)
	}
	if g.boxes.Get(systems.Items(w).Container(3)).Slots[0].Item != id("yard-key") {
		t.Fatal("after the reset the yard crate does not hold its key again")
	}
	if looseWire(g, id("crowbar")) == 0 || looseWire(g, id("water")) != 0 {
		t.Fatal("the crowbar is not back, or the dropped water still lies")
	}
	if m := a.lastText("container"); m == nil || m["id"] != "" {
		t.Fatalf("no frame saying the locker shut: %v", m)
	}
	if inventory(t, a).Slots[1].Item != id("smg") {
		t.Fatal("a reset took what the player carries")
	}
}

// countProjectiles counts the projectiles in flight.
func countProjectiles(g *GameServer) int {
	f := generic.NewFilter1[components.Kind]()
	q := f.Query(g.w.Arche)
	n := 0
	for q.Next() {
		if *q.Get() == components.KindProjectile {
			n++
		}
	}
	return n
}

// TestItemCommandFlood: item commands are bounded by the command bucket
// (TextBurst at once, then TextPerSecond a second). A client that puts
// ammo in a crate one round at a time is served for a burst of TextBurst
// and then for TextPerSecond a second. One command more is refused: the
// client is disconnected with the reason, and neither it nor the commands
// after it change the crate. Another client in the room goes on being
// served.
func TestItemCommandFlood(t *testing.T) {
	g := newGame(t, "main-city", "free-roam")
	a, b := join(t, g, Who{Debug: true}), join(t, g, Who{})
	ticks(g, a, 3)
	b.read()
	w := g.World()
	crate, other := g.cfg.Level.Containers[1], g.cfg.Level.Containers[2]
	if crate.ID != "yard-crate-0" || other.ID != "yard-crate-1" {
		t.Fatalf("containers %q and %q, want two yard crates", crate.ID, other.ID)
	}
	place(g, a.s, crate.Pos.X, crate.Pos.Y-1.5, 0)
	place(g, b.s, other.Pos.X, other.Pos.Y-1.5, 0)
	for _, cmd := range []string{
		`{"type":"debug","cmd":"give-item","item":"pistol-ammo","count":60}`,
		`{"type":"open","place":"yard-crate-0"}`,
	} {
		if r := reply(t, g, a, cmd); !r.OK {
			t.Fatalf("%s: %+v", cmd, r)
		}
	}
	if r := reply(t, g, b, `{"type":"open","place":"yard-crate-1"}`); !r.OK {
		t.Fatalf("b opens its crate: %+v", r)
	}
	ammo, _ := w.Items.ByName("pistol-ammo")
	box := g.boxes.Get(systems.Items(w).Container(1))
	inBox := func() int {
		n := 0
		for _, sl := range box.Slots {
			if sl.Item == ammo {
				n += int(sl.Count)
			}
		}
		return n
	}
	start := inBox()
	ticks(g, a, 2*ecs.TickRate) // the bucket fills up again
	b.read()

	id := 0
	put := func() {
		id++
		a.command(fmt.Sprintf(`{"type":"put","id":%d,"slot":0,"count":1}`, id))
	}
	// A burst of TextBurst in one tick, then one every 1/TextPerSecond s.
	for i := 0; i < TextBurst; i++ {
		put()
	}
	ticks(g, a, 1)
	for i := 0; i < TextPerSecond; i++ {
		ticks(g, a, ecs.TickRate/TextPerSecond-1)
		put()
		ticks(g, a, 1)
	}
	served := id
	if closed, reason := a.c.Closed(); closed {
		t.Fatalf("closed within the bucket: %s", reason)
	}
	// The flood: five more at once, the next tick; b takes cash meanwhile.
	for i := 0; i < 5; i++ {
		put()
	}
	_, cash := g.wanted.Get(b.s.char)
	before := cash.Amount
	b.command(`{"type":"take","id":1,"slot":0,"count":10}`)
	ticks(g, a, 1)

	ok := 0
	for _, m := range a.texts {
		if m["type"] == "reply" && m["cmd"] == "put" {
			if m["ok"] != true || int(m["id"].(float64)) > served {
				t.Fatalf("reply %v: only the %d within the bucket are answered, each done", m, served)
			}
			ok++
		}
	}
	if ok != served {
		t.Fatalf("%d puts answered, want %d", ok, served)
	}
	closed, reason := a.c.Closed()
	if !closed || !strings.Contains(reason, "flooding") || !strings.Contains(reason, "commands a second") {
		t.Fatalf("flooder closed %v, reason %q", closed, reason)
	}
	if got := inBox(); got != start+served {
		t.Fatalf("the crate holds %d rounds, want %d: a refused put changed it", got, start+served)
	}
	if len(g.Sessions()) != 1 {
		t.Fatalf("%d sessions left", len(g.Sessions()))
	}
	// b goes on: its take was done and answered, and its snapshots keep
	// coming.
	b.read()
	frames := b.frames
	ticks(g, b, 2*ecs.TickRate)
	if r := b.lastText("reply"); r == nil || r["ok"] != true || r["cmd"] != "take" {
		t.Fatalf("b's take: %v", r)
	}
	if _, cash := g.wanted.Get(b.s.char); cash.Amount != before+10 {
		t.Fatalf("b's cash %d, want %d", cash.Amount, before+10)
	}
	if b.frames <= frames {
		t.Fatal("b gets no snapshots after the flood")
	}
	if r := reply(t, g, b, `{"type":"close","id":2}`); !r.OK {
		t.Fatalf("b's close after the flood: %+v", r)
	}
}

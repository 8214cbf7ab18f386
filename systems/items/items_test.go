package items_test

import (
	"errors"
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/games"
	"github.com/fiveonit/engine/systems/items"
	"github.com/fiveonit/engine/systems/systemstest"
	"github.com/mlange-42/arche/generic"
)

// testLevel has a shop, three containers (an open crate, a locked crate
// and a locked locker) and three pickups, all near the origin.
const testLevel = `{"name":"test-items","version":1,"ground":{"min":[-100,-100],"max":[100,100]},"rules":{},"roads":{},
"spawns":[{"role":"player","pos":[0,0],"yaw":0}],
"shops":[{"id":"kiosk","pos":[10,0],"yaw":0,"items":["water","medkit","phone-card"]}],
"containers":[
 {"id":"crate-open","kind":"crate","pos":[0,10],"yaw":0,"items":[{"item":"pistol-ammo","count":24},{"item":"cash","count":250}]},
 {"id":"crate-locked","kind":"crate","pos":[0,20],"yaw":0,"locked":true,"keyTag":"yard","items":[{"item":"grenade","count":2}]},
 {"id":"locker","kind":"locker","pos":[0,30],"yaw":0,"locked":true,"keyTag":"police","items":[{"item":"pistol","count":1}]}],
"pickups":[{"item":"cash","count":50,"pos":[-10,0]},{"item":"crowbar","count":1,"pos":[-10,10]},{"item":"pistol-ammo","count":300,"pos":[-10,20]}]}`

// rig is a world on testLevel with the items system alone in its
// schedule, of a game's rules and catalog.
type rig struct {
	*systemstest.Rig
	it      *items.System
	inv     generic.Map1[components.Inventory]
	ps      generic.Map2[components.Pose, components.Cash]
	actions generic.Map1[components.PersonAction]
	health  generic.Map1[components.Health]
	boxes   generic.Map1[components.Container]
	loose   generic.Map1[components.Loose]
}

func newRig(t *testing.T, game string) *rig {
	t.Helper()
	l := systemstest.Parse(t, "test-items", testLevel)
	g, err := games.Lookup(game)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Check(l); err != nil {
		t.Fatal(err)
	}
	k := systemstest.New(t, l, systemstest.Options{Seed: 1, Rules: g.Rules, Items: g.Items})
	w := k.W
	keys := map[string]components.KeyID{"yard": 0, "police": 1}
	it := items.New(w, l, g.Price, func(tag string) (components.KeyID, bool) { id, ok := keys[tag]; return id, ok })
	k.Schedule(t, ecs.Entry{Name: items.Name, Phase: ecs.PhasePostStep, System: it})
	r := &rig{Rig: k, it: it,
		inv: generic.NewMap1[components.Inventory](w.Arche), ps: generic.NewMap2[components.Pose, components.Cash](w.Arche),
		actions: generic.NewMap1[components.PersonAction](w.Arche), health: generic.NewMap1[components.Health](w.Arche),
		boxes: generic.NewMap1[components.Container](w.Arche), loose: generic.NewMap1[components.Loose](w.Arche)}
	w.Step() // lays the level out
	return r
}

func (r *rig) player(t *testing.T, x, y float32) ecs.Entity {
	t.Helper()
	e, err := r.B.Character(1, 0, 1, components.Vec3{X: x, Y: y}, 0)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func (r *rig) at(e ecs.Entity, x, y float32) {
	p, _ := r.ps.Get(e)
	p.Pos.X, p.Pos.Y = x, y
}

func (r *rig) id(name string) components.ItemID {
	id, _ := r.W.Items.ByName(name)
	return id
}

func (r *rig) cash(e ecs.Entity) int64 {
	_, c := r.ps.Get(e)
	return c.Amount
}

// looseAt returns the loose item nearest (x, y), within 1 m.
func (r *rig) looseAt(x, y float32) (ecs.Entity, *components.Loose, uint16) {
	f := generic.NewFilter3[components.Loose, components.Pose, components.Identity]()
	q := f.Query(r.W.Arche)
	for q.Next() {
		l, p, id := q.Get()
		if dx, dy := p.Pos.X-x, p.Pos.Y-y; dx*dx+dy*dy < 1 {
			e := q.Entity()
			q.Close()
			return e, l, id.WireID
		}
	}
	return ecs.Entity{}, nil, 0
}

func TestPhoneInTheLastSlot(t *testing.T) {
	for _, c := range []struct {
		game  string
		phone bool
	}{{"free-roam", false}, {"city-jobs", true}} {
		r := newRig(t, c.game)
		inv := r.inv.Get(r.player(t, 0, 0))
		last := inv.Slots[components.InventorySlots-1]
		if got := last.Item == r.id("phone") && last.Count == 1; got != c.phone {
			t.Fatalf("%s: last slot %+v", c.game, last)
		}
	}
}

func TestPickup(t *testing.T) {
	r := newRig(t, "free-roam")
	p := r.player(t, -10, 1)
	_, _, cashID := r.looseAt(-10, 0)
	_, _, crowbar := r.looseAt(-10, 10)
	_, _, ammo := r.looseAt(-10, 20)
	if cashID == 0 || crowbar == 0 || ammo == 0 {
		t.Fatal("the level's pickups are not laid out")
	}
	before := r.cash(p)
	if err := r.it.Pickup(r.W, p, cashID); err != nil || r.cash(p) != before+50 {
		t.Fatalf("cash: %v, %d", err, r.cash(p))
	}
	if e, _, _ := r.looseAt(-10, 0); !e.IsZero() {
		t.Fatal("the cash still lies there")
	}
	if err := r.it.Pickup(r.W, p, crowbar); !errors.Is(err, items.ErrTooFar) {
		t.Fatalf("a crowbar 9 m away: %v", err)
	}
	if err := r.it.Pickup(r.W, p, cashID); !errors.Is(err, items.ErrNotThere) {
		t.Fatalf("cash picked up twice: %v", err)
	}
	if err := r.it.Pickup(r.W, p, 9999); !errors.Is(err, items.ErrNotThere) {
		t.Fatalf("no such id: %v", err)
	}
	// 300 rounds, 120 a slot: all fit in ten empty slots.
	r.at(p, -10, 19)
	if err := r.it.Pickup(r.W, p, ammo); err != nil || r.inv.Get(p).Count(r.id("pistol-ammo")) != 300 {
		t.Fatalf("ammo: %v", err)
	}
	// A full inventory takes what fits and leaves the rest.
	inv := r.inv.Get(p)
	for i := range inv.Slots {
		inv.Slots[i] = components.Stack{Item: r.id("crowbar"), Count: 1}
	}
	inv.Slots[0] = components.Stack{Item: r.id("pistol-ammo"), Count: 100}
	if err := r.it.Drop(r.W, p, 0, 0); err != nil {
		t.Fatal(err)
	}
	e, l, wid := r.looseAt(-10, 19)
	if e.IsZero() || l.Stack.Count != 100 || l.Pickup != -1 {
		t.Fatalf("the dropped stack: %+v", l)
	}
	inv = r.inv.Get(p)
	inv.Slots[0] = components.Stack{Item: r.id("pistol-ammo"), Count: 90}
	if err := r.it.Pickup(r.W, p, wid); err != nil {
		t.Fatal(err)
	}
	if _, l, _ := r.looseAt(-10, 19); l == nil || l.Stack.Count != 70 || r.inv.Get(p).Slots[0].Count != 120 {
		t.Fatalf("partial pickup left %+v", l)
	}
	if err := r.it.Pickup(r.W, p, wid); !errors.Is(err, items.ErrFull) {
		t.Fatalf("nothing fits: %v", err)
	}
}

func TestUseMoveDrop(t *testing.T) {
	r := newRig(t, "city-jobs")
	p := r.player(t, 0, 0)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(r.it.Give(r.W, p, "medkit", 2))
	must(r.it.Give(r.W, p, "pistol", 1))
	must(r.it.Give(r.W, p, "pistol-ammo", 30))
	inv := r.inv.Get(p)
	if inv.Slots[0].Item != r.id("medkit") || inv.Slots[1].Item != r.id("pistol") || inv.Slots[2].Count != 30 {
		t.Fatalf("given: %+v", inv.Slots)
	}
	// A medkit at full health is refused; hurt, it heals and is used up.
	if err := r.it.Use(r.W, p, 0); !errors.Is(err, items.ErrNotHurt) {
		t.Fatal(err)
	}
	r.health.Get(p).HP = 10
	must(r.it.Use(r.W, p, 0))
	if r.health.Get(p).HP != 70 || r.inv.Get(p).Slots[0].Count != 1 {
		t.Fatalf("healed to %d, %d medkits left", r.health.Get(p).HP, r.inv.Get(p).Slots[0].Count)
	}
	// The pistol goes into the hand and out again.
	must(r.it.Use(r.W, p, 1))
	if r.actions.Get(p).Weapon != components.WeaponPistol {
		t.Fatal("not in hand")
	}
	must(r.it.Use(r.W, p, 1))
	if r.actions.Get(p).Weapon != components.WeaponNone {
		t.Fatal("not put away")
	}
	for _, c := range []struct {
		name     string
		from, to int
		n        int
		want     error
	}{
		{"slot out of range", 0, components.InventorySlots, 0, items.ErrSlot},
		{"negative slot", -1, 3, 0, items.ErrSlot},
		{"same slot", 1, 1, 0, items.ErrSlot},
		{"empty", 5, 6, 0, items.ErrEmpty},
		{"too many", 2, 6, 31, items.ErrCount},
		{"negative count", 2, 6, -1, items.ErrCount},
		{"into the phone's slot", 2, components.InventorySlots - 1, 0, items.ErrPhone},
		{"the phone out", components.InventorySlots - 1, 6, 0, items.ErrPhone},
		{"part onto another item", 2, 0, 5, items.ErrFull},
	} {
		before := r.inv.Get(p).Slots
		if err := r.it.Move(r.W, p, c.from, c.to, c.n); !errors.Is(err, c.want) {
			t.Fatalf("%s: %v, want %v", c.name, err, c.want)
		}
		if r.inv.Get(p).Slots != before {
			t.Fatalf("%s: a refused move changed the slots", c.name)
		}
	}
	must(r.it.Move(r.W, p, 2, 6, 10)) // split
	must(r.it.Move(r.W, p, 6, 2, 0))  // merge back
	must(r.it.Move(r.W, p, 0, 1, 0))  // swap medkit and pistol
	inv = r.inv.Get(p)
	if inv.Slots[2].Count != 30 || inv.Slots[6].Item != 0 || inv.Slots[0].Item != r.id("pistol") || inv.Slots[1].Item != r.id("medkit") {
		t.Fatalf("after the moves: %+v", inv.Slots)
	}
	// Dropping the pistol in hand empties the hand.
	must(r.it.Use(r.W, p, 0))
	must(r.it.Drop(r.W, p, 0, 0))
	if r.actions.Get(p).Weapon != 0 || r.inv.Get(p).Slots[0].Item != 0 {
		t.Fatal("the dropped pistol is still held")
	}
	if e, l, _ := r.looseAt(0, 0); e.IsZero() || l.Stack.Item != r.id("pistol") {
		t.Fatal("the pistol does not lie at the player's feet")
	}
	if err := r.it.Drop(r.W, p, components.InventorySlots-1, 0); !errors.Is(err, items.ErrPhone) {
		t.Fatalf("dropping the phone: %v", err)
	}
	if err := r.it.Use(r.W, p, components.InventorySlots-1); !errors.Is(err, items.ErrNoUse) {
		t.Fatalf("the phone: %v", err)
	}
	// The dead do nothing.
	r.actions.Get(p).Act = components.ActDead
	if err := r.it.Drop(r.W, p, 2, 0); !errors.Is(err, items.ErrDead) {
		t.Fatalf("dead: %v", err)
	}
}

func TestContainers(t *testing.T) {
	r := newRig(t, "free-roam")
	a, b := r.player(t, 0, 8), r.player(t, 1, 8)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := r.it.Open(r.W, a, "crate-locked"); !errors.Is(err, items.ErrTooFar) {
		t.Fatalf("far: %v", err)
	}
	if err := r.it.Open(r.W, a, "nope"); !errors.Is(err, items.ErrNotThere) {
		t.Fatalf("unknown: %v", err)
	}
	if err := r.it.Take(r.W, a, 0, 0); !errors.Is(err, items.ErrNotOpen) {
		t.Fatalf("nothing open: %v", err)
	}
	must(r.it.Open(r.W, a, "crate-open"))
	must(r.it.Open(r.W, b, "crate-open"))
	// Both take the ammo: the first gets it, the second finds it gone.
	must(r.it.Take(r.W, a, 0, 0))
	if err := r.it.Take(r.W, b, 0, 0); !errors.Is(err, items.ErrEmpty) {
		t.Fatalf("taken twice: %v", err)
	}
	cash := r.cash(b)
	must(r.it.Take(r.W, b, 1, 100))
	if r.cash(b) != cash+100 {
		t.Fatal("cash from a crate goes to Cash")
	}
	// a puts half back, b takes it: the total is kept.
	must(r.it.Put(r.W, a, 0, 12))
	must(r.it.Take(r.W, b, 0, 0))
	ammo := r.id("pistol-ammo")
	if ia, ib := r.inv.Get(a).Count(ammo), r.inv.Get(b).Count(ammo); ia != 12 || ib != 12 {
		t.Fatalf("ammo %d and %d, want 12 each", ia, ib)
	}
	if err := r.it.Take(r.W, a, components.ContainerSlots, 0); !errors.Is(err, items.ErrSlot) {
		t.Fatalf("slot out of range: %v", err)
	}
	// Walking away shuts it.
	r.at(a, 0, 0)
	r.W.Step()
	if !r.inv.Get(a).Open.IsZero() || r.inv.Get(b).Open.IsZero() {
		t.Fatal("walking away shuts only the walker's")
	}
	// Locked: the locker opens with its key item, the crate with a crowbar.
	r.at(a, 0, 28)
	if err := r.it.Open(r.W, a, "locker"); !errors.Is(err, items.ErrLocked) {
		t.Fatalf("locked: %v", err)
	}
	must(r.it.Give(r.W, a, "crowbar", 1))
	if err := r.it.Open(r.W, a, "locker"); !errors.Is(err, items.ErrLocked) {
		t.Fatalf("a crowbar does not force a locker: %v", err)
	}
	must(r.it.Give(r.W, a, "police-key", 1))
	must(r.it.Open(r.W, a, "locker"))
	r.at(b, 0, 19)
	must(r.it.Give(r.W, b, "crowbar", 1))
	must(r.it.Use(r.W, b, indexOf(r, b, "crowbar")))
	if r.inv.Get(b).Open != r.it.Container(1) || r.boxes.Get(r.it.Container(1)).Locked {
		t.Fatal("the crowbar forced the crate open")
	}
	// A level reset refills, relocks and shuts them, and lays the
	// pickups out again.
	must(r.it.Take(r.W, a, 0, 0))
	r.it.ResetLevel()
	r.W.Step()
	if !r.inv.Get(b).Open.IsZero() || !r.boxes.Get(r.it.Container(2)).Locked || r.boxes.Get(r.it.Container(2)).Slots[0].Item != r.id("pistol") {
		t.Fatal("not laid out again")
	}
	if e, l, _ := r.looseAt(-10, 0); e.IsZero() || l.Stack.Count != 50 {
		t.Fatal("the cash pickup is not back")
	}
}

func indexOf(r *rig, e ecs.Entity, name string) int {
	for i, s := range r.inv.Get(e).Slots {
		if s.Item == r.id(name) {
			return i
		}
	}
	return -1
}

func TestBuy(t *testing.T) {
	r := newRig(t, "free-roam")
	p := r.player(t, 9, 0)
	g, _ := games.Lookup("free-roam")
	price, _ := g.Price(r.id("water"))
	cash := r.cash(p)
	if err := r.it.Buy(r.W, p, "kiosk", "water", 3); err != nil {
		t.Fatal(err)
	}
	if r.cash(p) != cash-3*price || r.inv.Get(p).Count(r.id("water")) != 3 {
		t.Fatalf("cash %d, water %d", r.cash(p), r.inv.Get(p).Count(r.id("water")))
	}
	for _, c := range []struct {
		name, shop, item string
		n                int
		setup            func()
		want             error
	}{
		{"not sold here", "kiosk", "pistol", 1, nil, items.ErrNotSold},
		{"no such item", "kiosk", "gold", 1, nil, items.ErrNotSold},
		{"no such shop", "mall", "water", 1, nil, items.ErrNotThere},
		{"too many", "kiosk", "water", 6, nil, items.ErrCount},
		{"negative", "kiosk", "water", -1, nil, items.ErrCount},
		{"too far", "kiosk", "water", 1, func() { r.at(p, 20, 0) }, items.ErrTooFar},
		{"no cash", "kiosk", "medkit", 1, func() { r.at(p, 9, 0); _, c := r.ps.Get(p); c.Amount = 5 }, items.ErrNoCash},
		{"full", "kiosk", "water", 1, func() {
			_, c := r.ps.Get(p)
			c.Amount = 1000
			inv := r.inv.Get(p)
			for i := range inv.Slots {
				inv.Slots[i] = components.Stack{Item: r.id("crowbar"), Count: 1}
			}
		}, items.ErrFull},
	} {
		if c.setup != nil {
			c.setup()
		}
		inv, cash := *r.inv.Get(p), r.cash(p)
		if err := r.it.Buy(r.W, p, c.shop, c.item, c.n); !errors.Is(err, c.want) {
			t.Fatalf("%s: %v, want %v", c.name, err, c.want)
		}
		if *r.inv.Get(p) != inv || r.cash(p) != cash {
			t.Fatalf("%s: a refused buy changed something", c.name)
		}
	}
}

// TestTwoAtOneContainer: two players at one container take and put at
// random, in turn, 2,000 times: after every act, of every item, the
// container and the two inventories hold together what they held at the
// start; nothing doubled, nothing lost.
func TestTwoAtOneContainer(t *testing.T) {
	r := newRig(t, "free-roam")
	a, b := r.player(t, 0, 9), r.player(t, 1, 9)
	for _, p := range []ecs.Entity{a, b} {
		if err := r.it.Give(r.W, p, "medkit", 3); err != nil {
			t.Fatal(err)
		}
		if err := r.it.Give(r.W, p, "pistol-ammo", 200); err != nil {
			t.Fatal(err)
		}
		if err := r.it.Open(r.W, p, "crate-open"); err != nil {
			t.Fatal(err)
		}
	}
	box := r.it.Container(0)
	total := func() map[components.ItemID]int {
		m := map[components.ItemID]int{}
		for _, s := range r.boxes.Get(box).Slots {
			m[s.Item] += int(s.Count)
		}
		for _, p := range []ecs.Entity{a, b} {
			for _, s := range r.inv.Get(p).Slots {
				m[s.Item] += int(s.Count)
			}
		}
		delete(m, 0)
		return m
	}
	cash := r.cash(a) + r.cash(b) + 250 // the crate's cash
	want := total()
	delete(want, r.id("cash"))
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 2000; i++ {
		p := []ecs.Entity{a, b}[rng.IntN(2)]
		slot, n := rng.IntN(components.ContainerSlots+2)-1, rng.IntN(130)-2
		var err error
		if rng.IntN(2) == 0 {
			err = r.it.Take(r.W, p, slot, n)
		} else {
			err = r.it.Put(r.W, p, slot, n)
		}
		got := total()
		delete(got, r.id("cash"))
		if !maps.Equal(got, want) {
			t.Fatalf("act %d (%v): items %v, want %v", i, err, got, want)
		}
		left := r.boxes.Get(box).Slots
		boxCash := 0
		for _, s := range left {
			if s.Item == r.id("cash") {
				boxCash += int(s.Count)
			}
		}
		if c := r.cash(a) + r.cash(b) + int64(boxCash); c != cash {
			t.Fatalf("act %d: cash %d, want %d", i, c, cash)
		}
	}
}

// TestLockedContainers: a locked container opens for a key item that
// answers to its tag and for that tag on the key ring (components.Keys);
// a locked crate also opens for a crowbar. Anything else is refused with
// the reason, and the container stays locked and shut.
func TestLockedContainers(t *testing.T) {
	for _, c := range []struct {
		name, place string
		items       []string
		ring        []components.KeyID
		want        error
	}{
		{"locker, nothing", "locker", nil, nil, items.ErrLocked},
		{"locker, key item", "locker", []string{"police-key"}, nil, nil},
		{"locker, wrong key item", "locker", []string{"yard-key"}, nil, items.ErrLocked},
		{"locker, key on the ring", "locker", nil, []components.KeyID{1}, nil},
		{"locker, wrong key on the ring", "locker", nil, []components.KeyID{0}, items.ErrLocked},
		{"locker, crowbar", "locker", []string{"crowbar"}, nil, items.ErrLocked},
		{"crate, key on the ring", "crate-locked", nil, []components.KeyID{0}, nil},
		{"crate, wrong key on the ring", "crate-locked", nil, []components.KeyID{1}, items.ErrLocked},
		{"crate, crowbar", "crate-locked", []string{"crowbar"}, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, "free-roam")
			i, y := 2, float32(28)
			if c.place == "crate-locked" {
				i, y = 1, 18
			}
			p := r.player(t, 0, y)
			for _, name := range c.items {
				if err := r.it.Give(r.W, p, name, 1); err != nil {
					t.Fatal(err)
				}
			}
			if c.ring != nil {
				k := &components.Keys{}
				for _, id := range c.ring {
					k.Add(id)
				}
				keys := generic.NewMap1[components.Keys](r.W.Arche)
				keys.Assign(p, k)
			}
			err := r.it.Open(r.W, p, c.place)
			if !errors.Is(err, c.want) {
				t.Fatalf("open: %v, want %v", err, c.want)
			}
			box := r.it.Container(i)
			open := r.inv.Get(p).Open == box
			if locked := r.boxes.Get(box).Locked; open == (c.want != nil) || locked == (c.want == nil) {
				t.Fatalf("open %v, locked %v after %v", open, locked, err)
			}
		})
	}
}

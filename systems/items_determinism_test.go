package systems_test

import (
	"bytes"
	"encoding/binary"
	"slices"
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/games"
	"github.com/fiveonit/engine/systems"
	"github.com/fiveonit/engine/systems/systemstest"
	"github.com/mlange-42/arche/generic"
)

// itemsScenario is main-city with every system of a room (free roam,
// no traffic or crowd, the police on), and eight players in the gated
// yard on a script: they pick up the crowbar, open the crates and the
// locker (one with the yard's key), take and put, buy nothing far from a
// shop (refused), drop what they hold, and throw grenades that bounce off
// the yard's walls and blow among them. Without commands they only walk
// and throw.
func itemsScenario(t testing.TB, seed uint64, commands bool) *systemstest.Rig {
	t.Helper()
	g, _ := games.Lookup("free-roam")
	rules := g.Rules
	rules.Traffic, rules.Pedestrians = 0, 0
	r := systemstest.New(t, systemstest.Load(t, "main-city"), systemstest.Options{Seed: seed, Rules: rules, Items: g.Items})
	w, l, st := r.W, r.Level, r.Static
	drives := generic.NewMap1[components.Drive](w.Arche)
	loose := generic.NewFilter2[components.Loose, components.Identity]()
	var it interface {
		Pickup(*ecs.World, ecs.Entity, uint16) error
		Open(*ecs.World, ecs.Entity, string) error
		Take(*ecs.World, ecs.Entity, int, int) error
		Put(*ecs.World, ecs.Entity, int, int) error
		Drop(*ecs.World, ecs.Entity, int, int) error
		Buy(*ecs.World, ecs.Entity, string, string, int) error
		Give(*ecs.World, ecs.Entity, string, int) error
	}
	input := ecs.SystemFunc(func(w *ecs.World) {
		tick := w.Tick()
		for i, e := range r.Inputs {
			d := drives.Get(e)
			*d = components.Drive{LookYaw: float32(i) * 0.8}
			phase := (tick + uint64(i)*29) % 400
			switch {
			case phase < 60:
				d.MoveY = 0.6 // wander
			case phase < 90:
				d.Held |= components.BtnPin // the pin out...
			case !commands:
			case phase == 100:
				_ = it.Open(w, e, []string{"yard-crate-0", "yard-crate-1", "yard-locker"}[i%3])
			case phase == 110:
				_ = it.Take(w, e, i%2, 0)
			case phase == 120:
				_ = it.Put(w, e, 0, 1)
			case phase == 130:
				q := loose.Query(w.Arche) // the first loose item within reach
				var wid uint16
				for q.Next() {
					if _, idn := q.Get(); wid == 0 {
						wid = idn.WireID
					}
				}
				_ = it.Pickup(w, e, wid)
			case phase == 140:
				_ = it.Drop(w, e, 1, 0)
			case phase == 150:
				_ = it.Buy(w, e, "corner-shop", "water", 1)
			}
		}
	})
	r.Schedule(t, systems.Entries(w, systems.Options{Level: l, Static: st, Input: input, Prices: g.Price})...)
	systems.Warm(w)
	items := systems.Items(w)
	it = items
	yard := [2]float32{240, 232}
	for i := 0; i < 8; i++ {
		e, err := r.B.Character(uint16(i+1), 0, 0, components.Vec3{X: yard[0] + float32(i%4)*8, Y: yard[1] - float32(i/4)*6}, 0)
		if err != nil {
			t.Fatal(err)
		}
		r.Inputs = append(r.Inputs, e)
		w.Step() // the first lays the level out
		if err := items.Give(w, e, "grenade", 3); err != nil {
			t.Fatal(err)
		}
		if i == 2 {
			items.Give(w, e, "yard-key", 1)
		}
	}
	return r
}

// dumpItems serializes what the items are: every inventory and Cash, every
// loose item, container and thrown grenade, by wire id or level index.
func dumpItems(w *ecs.World) []byte {
	type row struct {
		key int
		b   []byte
	}
	var rows []row
	add := func(key int, v ...any) {
		var b bytes.Buffer
		for _, x := range v {
			binary.Write(&b, binary.LittleEndian, x)
		}
		rows = append(rows, row{key, b.Bytes()})
	}
	inv := generic.NewFilter3[components.Inventory, components.Cash, components.Identity]()
	q := inv.Query(w.Arche)
	for q.Next() {
		in, c, idn := q.Get()
		add(int(idn.WireID), in.Slots, c.Amount, !in.Open.IsZero())
	}
	lf := generic.NewFilter3[components.Loose, components.Pose, components.Identity]()
	lq := lf.Query(w.Arche)
	for lq.Next() {
		l, p, idn := lq.Get()
		add(1<<16+int(idn.WireID), l.Stack, l.Pickup, p.Pos)
	}
	cf := generic.NewFilter1[components.Container]()
	cq := cf.Query(w.Arche)
	for cq.Next() {
		c := cq.Get()
		add(2<<16+int(c.Level), *c)
	}
	pf := generic.NewFilter3[components.Projectile, components.Pose, components.Identity]()
	pq := pf.Query(w.Arche)
	for pq.Next() {
		p, pose, idn := pq.Get()
		add(3<<16+int(idn.WireID), p.Item, p.Blast, p.Height, p.Climb, pose.Pos, wireOf(w, p.By))
	}
	slices.SortFunc(rows, func(a, b row) int { return a.key - b.key })
	var out []byte
	for _, r := range rows {
		out = append(out, r.b...)
	}
	return out
}

// TestDeterminismItems runs the items scenario twice for 1,200 ticks and
// compares every component byte for byte, the items' with the rest; the
// script's grenades blow, its players pick up, take and put.
func TestDeterminismItems(t *testing.T) {
	const ticks = 1200
	var start []byte
	run := func() ([]byte, []byte, int) {
		r := itemsScenario(t, 7, true)
		start = dumpItems(r.W)
		blasts := 0
		for i := 0; i < ticks; i++ {
			r.W.Step()
			for _, ev := range r.W.Events {
				if ev.Kind == components.EventBlast {
					blasts++
				}
			}
		}
		return dump(r.W), dumpItems(r.W), blasts
	}
	a, ai, blasts := run()
	b, bi, _ := run()
	if !bytes.Equal(a, b) || !bytes.Equal(ai, bi) {
		t.Fatal("two runs of the same inputs differ")
	}
	if blasts == 0 || bytes.Equal(start, ai) {
		t.Fatalf("%d blasts, items changed %v: the test proves little", blasts, !bytes.Equal(start, ai))
	}
	t.Logf("%d blasts; %d bytes of items", blasts, len(ai))
}

// TestItemsTickAllocatesNothing: grenades thrown, flying, bouncing and
// blowing, loose items and containers about, the tick allocates nothing
// once the lists have grown.
func TestItemsTickAllocatesNothing(t *testing.T) {
	r := itemsScenario(t, 3, false)
	r.Step(900)
	grenade, _ := r.W.Items.ByName("grenade")
	inv := generic.NewMap1[components.Inventory](r.W.Arche)
	for _, e := range r.Inputs {
		inv.Get(e).Slots[0] = components.Stack{Item: grenade, Count: 5}
	}
	if n := testing.AllocsPerRun(400, r.W.Step); n != 0 {
		t.Fatalf("%v allocations per tick", n)
	}
	if projectiles(r.W) == 0 {
		t.Fatal("no grenade in the air at the end: the test proved little")
	}
}

func projectiles(w *ecs.World) int {
	f := generic.NewFilter1[components.Projectile]()
	q := f.Query(w.Arche)
	n := 0
	for q.Next() {
		n++
	}
	return n
}

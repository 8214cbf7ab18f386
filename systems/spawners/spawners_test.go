package spawners_test

import (
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/ecs/ecstest"
	"github.com/fiveonit/engine/levels"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems/city/citytest"
	"github.com/fiveonit/engine/systems/spawners"
	"github.com/fiveonit/engine/systems/systemstest"
	"github.com/mlange-42/arche/generic"
)

const level = `{
  "name": "test-spawners",
  "version": 1,
  "ground": {"min":[-200,-200],"max":[200,200]},
  "buildings": [
    {"id":"depot","footprint":[[90,-170],[110,-170],[110,-160],[90,-160]],"height":5,"use":"garage"}
  ],
  "vehicleSpawners": [
    {"id":"lot","model":"van","bays":[{"pos":[0,0],"yaw":0},{"pos":[0,5],"yaw":0}],"respawn":2,"locked":true,"keyTag":"yard"},
    {"id":"depot-bays","bays":[{"pos":[100,-150],"yaw":0}],"garage":"depot","price":10}
  ],
  "npcSpawners": [
    {"id":"guards","role":"guard","pos":[50,50],"yaw":0,"count":2,"radius":3,"patrol":[[40,40],[60,40],[60,60],[40,60]],"items":[{"item":"yard-key","count":1}]},
    {"id":"day","role":"civilian","pos":[-50,50],"yaw":0,"count":3,"radius":5,"schedule":{"every":2,"from":9,"to":17}},
    {"id":"night","role":"target","pos":[-50,-50],"yaw":0,"count":1,"schedule":{"from":20,"to":6}},
    {"id":"driver","role":"driver","pos":[50,-50],"yaw":0,"count":1,"schedule":{"every":1}},
    {"id":"vip","role":"vip","pos":[0,-80],"yaw":0,"count":1}
  ]
}`

// Spawner indices of level.
const (
	guards = iota
	day
	night
	driver
	vip
)

// rig makes a world at clock minute start going at pace (game minutes a
// second).
func rig(t testing.TB, start, pace float64, seed uint64) *citytest.Rig {
	t.Helper()
	l := systemstest.Parse(t, "test-spawners", level)
	return citytest.New(t, l, citytest.Options{Seed: seed, Rules: ecs.Rules{PlayersHurt: "on", ClockStart: start, ClockPace: pace}})
}

func alive(r *citytest.Rig, e ecs.Entity) bool { return !e.IsZero() && r.W.Arche.Alive(e) }

func TestParksBays(t *testing.T) {
	r := rig(t, 12*60, 0, 1)
	r.Step(1)
	van, _ := levelsModel(t, "van")
	for j := range 2 {
		car := r.Spawners.Bay(0, j)
		if !alive(r, car) {
			t.Fatalf("bay %d empty after the first tick", j)
		}
		if k := *ecstest.Get[components.Kind](r.W, car); k != components.KindCar {
			t.Fatalf("kind %s", k)
		}
		if m := ecstest.Get[components.Identity](r.W, car).Model; m != van {
			t.Fatalf("model %d, want the van %d", m, van)
		}
		if ecstest.Get[components.Flags](r.W, car).Bits&components.FlagLocked == 0 {
			t.Fatal("a locked spawner's car is not locked")
		}
		yard, _ := r.Gates.KeyID("yard")
		if l := *ecstest.Get[components.CarLock](r.W, car); l != (components.CarLock{}).WithKey(yard) {
			t.Fatalf("the car's lock %+v: want nobody's, the spawner's key tag yard (id %d)", l, yard)
		}
		if d := ecstest.Get[components.Seats](r.W, car).Occupant[0]; !d.IsZero() {
			t.Fatal("a parked car has a driver")
		}
		p := ecstest.Get[components.Pose](r.W, car).Pos
		if p.X != 0 || p.Y != float32(j*5) {
			t.Fatalf("bay %d car at %v", j, p)
		}
	}
}

func levelsModel(t *testing.T, name string) (uint8, bool) {
	t.Helper()
	for i, m := range phys.CarModels {
		if m.Name == name {
			return uint8(i), true
		}
	}
	t.Fatalf("no model %q", name)
	return 0, false
}

func TestBayRefill(t *testing.T) {
	cases := []struct {
		name  string
		lose  func(r *citytest.Rig, car ecs.Entity)
		block bool // another car parks in the bay
	}{
		{"driven away", func(r *citytest.Rig, car ecs.Entity) {
			ecstest.Get[components.Pose](r.W, car).Pos.X = 30
		}, false},
		{"wrecked", func(r *citytest.Rig, car ecs.Entity) {
			ecstest.Get[components.Health](r.W, car).HP = 0
			ecstest.Get[components.Flags](r.W, car).Bits |= components.FlagWrecked
		}, false},
		{"removed", func(r *citytest.Rig, car ecs.Entity) { r.W.Despawn(car) }, false},
		{"blocked", func(r *citytest.Rig, car ecs.Entity) {
			ecstest.Get[components.Pose](r.W, car).Pos.X = 30
		}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rig(t, 12*60, 0, 1)
			r.Step(1)
			old := r.Spawners.Bay(0, 0)
			c.lose(r, old)
			var blocker ecs.Entity
			if c.block {
				blocker = r.Vehicle(t, components.KindCar, phys.ModelSedan, 0.5, 0, 0)
			}
			r.Step(2)
			if !r.Spawners.Bay(0, 0).IsZero() {
				t.Fatal("the bay still holds the lost car")
			}
			r.Step(2*ecs.TickRate - 2)
			if n := r.Spawners.Bay(0, 0); !n.IsZero() {
				t.Fatal("a car came back before the respawn time")
			}
			r.Step(spawners.RetryEvery + 1)
			n := r.Spawners.Bay(0, 0)
			if c.block {
				if !n.IsZero() {
					t.Fatal("a car was put in a taken bay")
				}
				r.W.Despawn(blocker)
				r.Step(spawners.RetryEvery + 1)
				n = r.Spawners.Bay(0, 0)
			}
			if !alive(r, n) || n == old {
				t.Fatalf("no new car in the bay: %v (old %v)", n, old)
			}
			if c.name == "wrecked" && alive(r, old) {
				t.Fatal("the wreck was left in the bay under the new car")
			}
			if c.name == "driven away" && !alive(r, old) {
				t.Fatal("the car driven away was taken")
			}
		})
	}
}

// count counts the spawner's first n NPCs that are in the world and not
// down (a body at 0 HP is left out).
func count(r *citytest.Rig, spawner int, n int) int {
	alive := 0
	for k := range n {
		e, _ := r.Spawners.NPC(spawner, k)
		if !e.IsZero() && r.W.Arche.Alive(e) && ecstest.Get[components.Health](r.W, e).HP != 0 {
			alive++
		}
	}
	return alive
}

func TestNPCSpawners(t *testing.T) {
	r := rig(t, 12*60, 0, 1)
	r.Step(1)
	cases := []struct {
		spawner, count int
		kind           components.Kind
		role           components.NPCRole
		want           int
	}{
		{guards, 2, components.KindGuard, components.RoleGuard, 2},
		{day, 3, components.KindPedestrian, components.RoleCivilian, 3},
		{night, 1, components.KindPedestrian, components.RoleTarget, 0},
		{driver, 1, components.KindPedestrian, components.RoleDriver, 1},
		{vip, 1, components.KindPedestrian, components.RoleVIP, 1},
	}
	for _, c := range cases {
		if got := count(r, c.spawner, c.count); got != c.want {
			t.Fatalf("spawner %d: %d NPCs, want %d", c.spawner, got, c.want)
		}
		for k := range c.want {
			e, car := r.Spawners.NPC(c.spawner, k)
			if kind := *ecstest.Get[components.Kind](r.W, e); kind != c.kind {
				t.Fatalf("spawner %d: kind %s", c.spawner, kind)
			}
			npc := ecstest.Get[components.NPC](r.W, e)
			if npc.Role != c.role || int(npc.Spawner) != c.spawner {
				t.Fatalf("spawner %d: NPC %+v", c.spawner, *npc)
			}
			if always := ecstest.Get[components.Replicated](r.W, e).Always; always != (c.kind == components.KindGuard) {
				t.Fatalf("spawner %d: Replicated.Always %v", c.spawner, always)
			}
			if c.role == components.RoleDriver {
				if !alive(r, car) || ecstest.Get[components.Seats](r.W, car).Occupant[0] != e ||
					ecstest.Get[components.PersonAction](r.W, e).Act != components.ActDriving {
					t.Fatal("the driver is not at the wheel of a car")
				}
			}
			p := ecstest.Get[components.Pose](r.W, e).Pos
			sp := r.Level.NPCSpawners[c.spawner]
			if dx, dy := p.X-sp.Pos.X, p.Y-sp.Pos.Y; dx*dx+dy*dy > (sp.Radius+0.01)*(sp.Radius+0.01) {
				t.Fatalf("spawner %d: NPC at %v beyond its radius", c.spawner, p)
			}
		}
	}
}

func TestWithin(t *testing.T) {
	cases := []struct {
		sc   *levels.Schedule
		hour float32
		want bool
	}{
		{nil, 3, true},
		{&levels.Schedule{From: 9, To: 17}, 8.99, false},
		{&levels.Schedule{From: 9, To: 17}, 9, true},
		{&levels.Schedule{From: 9, To: 17}, 17, false},
		{&levels.Schedule{From: 20, To: 6}, 23, true},
		{&levels.Schedule{From: 20, To: 6}, 5.5, true},
		{&levels.Schedule{From: 20, To: 6}, 12, false},
		{&levels.Schedule{From: 5, To: 5}, 12, true},
		{&levels.Schedule{Every: 3}, 0, true},
	}
	for _, c := range cases {
		if got := spawners.Within(c.sc, c.hour); got != c.want {
			t.Errorf("%+v at %v: %v", c.sc, c.hour, got)
		}
	}
}

func TestScheduleHours(t *testing.T) {
	for _, near := range []bool{false, true} {
		// 16:59, an hour a second: 17:00 is one second away, 20:00 four.
		r := rig(t, 16*60+59, 60, 1)
		if near {
			r.Character(t, -50, 45, 0)
		}
		r.Step(1)
		if n := count(r, day, 3); n != 3 {
			t.Fatalf("%d day civilians at 16:59", n)
		}
		r.Step(ecs.TickRate + spawners.RetryEvery)
		n := count(r, day, 3)
		if near && n != 3 {
			t.Fatalf("%d civilians left in front of a player", n)
		}
		if !near && n != 0 {
			t.Fatalf("%d day civilians after 17:00", n)
		}
		if n := count(r, night, 1); n != 0 {
			t.Fatal("the night target is out before 20:00")
		}
		r.Step(3 * ecs.TickRate)
		if n := count(r, night, 1); n != 1 {
			t.Fatal("the night target is not out after 20:00")
		}
	}
}

func TestReplaceEvery(t *testing.T) {
	r := rig(t, 21*60, 0, 1)
	r.Step(1)
	kill := func(spawner int) ecs.Entity {
		e, _ := r.Spawners.NPC(spawner, 0)
		ecstest.Get[components.Health](r.W, e).HP = 0
		return e
	}
	tgt := kill(night) // every 0: never
	v := kill(vip)     // no schedule: never
	d, car := r.Spawners.NPC(driver, 0)
	r.W.Despawn(d) // every 1 s
	r.Step(2*ecs.TickRate + spawners.RetryEvery + 1)
	if n := count(r, night, 1); n != 0 {
		t.Fatal("a target with every 0 was replaced")
	}
	if e, _ := r.Spawners.NPC(night, 0); e != tgt {
		t.Fatal("the dead target's body was taken")
	}
	if e, _ := r.Spawners.NPC(vip, 0); e != v {
		t.Fatal("the VIP without a schedule was replaced")
	}
	nd, ncar := r.Spawners.NPC(driver, 0)
	if !alive(r, nd) || nd == d || !alive(r, ncar) || ncar == car {
		t.Fatal("the driver was not replaced with a car")
	}
	if alive(r, car) {
		t.Fatal("the lost driver's empty car was left")
	}

	// In hours, a dead civilian is replaced after two seconds and its body
	// taken away.
	r = rig(t, 12*60, 0, 1)
	r.Step(1)
	civ := kill(day)
	r.Step(ecs.TickRate)
	if e, _ := r.Spawners.NPC(day, 0); e != civ {
		t.Fatal("replaced before its time")
	}
	r.Step(ecs.TickRate + spawners.RetryEvery + 1)
	if n := count(r, day, 3); n != 3 || alive(r, civ) {
		t.Fatalf("%d civilians, dead body left %v", n, alive(r, civ))
	}
}

func TestGuardsPatrol(t *testing.T) {
	r := rig(t, 12*60, 0, 1)
	r.Step(1)
	g, _ := r.Spawners.NPC(guards, 0)
	start := ecstest.Get[components.Pose](r.W, g).Pos
	visited := map[int]bool{}
	pts := r.Level.NPCSpawners[guards].Patrol
	for range 90 * ecs.TickRate / 10 {
		r.Step(10)
		p := ecstest.Get[components.Pose](r.W, g).Pos
		for i, q := range pts {
			if dx, dy := p.X-q.X, p.Y-q.Y; dx*dx+dy*dy < 1 {
				visited[i] = true
			}
		}
	}
	if len(visited) != len(pts) {
		t.Fatalf("guard from %v visited %v of %d patrol points", start, visited, len(pts))
	}
}

func TestReset(t *testing.T) {
	r := rig(t, 12*60, 0, 1)
	r.Step(1)
	kept := r.Spawners.Bay(0, 0)
	other := r.Spawners.Bay(0, 1)
	p := r.Character(t, 0, 3, 0)
	r.Seat(p, kept)
	g, _ := r.Spawners.NPC(guards, 0)
	r.Spawners.ResetLevel()
	r.Step(1)
	if !alive(r, kept) {
		t.Fatal("reset took a car a player sits in")
	}
	if alive(r, other) || alive(r, g) {
		t.Fatal("reset left the old car or guard")
	}
	if n := r.Spawners.Bay(0, 1); !alive(r, n) {
		t.Fatal("reset did not park the bay again")
	}
	if !r.Spawners.Bay(0, 0).IsZero() {
		t.Fatal("a car was parked on top of the player's")
	}
	if n := count(r, guards, 2); n != 2 {
		t.Fatalf("%d guards after reset", n)
	}
}

func positions(r *citytest.Rig) []components.Vec3 {
	var out []components.Vec3
	for _, sp := range []struct{ i, n int }{{guards, 2}, {day, 3}, {driver, 1}, {vip, 1}} {
		for k := range sp.n {
			e, _ := r.Spawners.NPC(sp.i, k)
			out = append(out, ecstest.Get[components.Pose](r.W, e).Pos)
		}
	}
	return out
}

func TestDeterministic(t *testing.T) {
	a, b, c := rig(t, 12*60, 0, 7), rig(t, 12*60, 0, 7), rig(t, 12*60, 0, 8)
	for _, r := range []*citytest.Rig{a, b, c} {
		r.Step(120)
	}
	pa, pb, pc := positions(a), positions(b), positions(c)
	for i := range pa {
		if pa[i] != pb[i] {
			t.Fatalf("NPC %d at %v and %v with one seed", i, pa[i], pb[i])
		}
	}
	same := true
	for i := range pa {
		same = same && pa[i] == pc[i]
	}
	if same {
		t.Fatal("another seed scattered the NPCs the same: the test proves nothing")
	}
}

func TestSteadyAllocatesNothing(t *testing.T) {
	r := rig(t, 12*60, 0, 1)
	r.Step(120)
	if allocs := testing.AllocsPerRun(100, r.W.Step); allocs != 0 {
		t.Fatalf("%v allocations per tick", allocs)
	}
}

// TestGarageBaysStayEmpty: a garage's spawner without a model parks
// nothing: its bays are for the cars players keep.
func TestGarageBaysStayEmpty(t *testing.T) {
	r := rig(t, 12*60, 0, 1)
	r.Step(2)
	if car := r.Spawners.Bay(1, 0); !car.IsZero() {
		t.Fatal("a garage's bay without a model was parked")
	}
	n := 0
	q := generic.NewFilter1[components.Seats]().Query(r.W.Arche)
	for q.Next() {
		if p := ecstest.Get[components.Pose](r.W, q.Entity()).Pos; p.X == 100 && p.Y == -150 {
			n++
		}
	}
	if n != 0 {
		t.Fatalf("%d vehicles in the garage's bay", n)
	}
}

// TestGuardDropsWhatItCarries: a guard that dies drops the spawner's items
// (its key) where it lies, once; one that lives drops nothing.
func TestGuardDropsWhatItCarries(t *testing.T) {
	r := rig(t, 12*60, 0, 1)
	r.Step(2)
	key, ok := r.W.Items.ByName("yard-key")
	if !ok {
		t.Fatal("no yard-key in the catalog")
	}
	loose := func() (n int, at components.Vec3) {
		q := generic.NewFilter2[components.Loose, components.Pose]().Query(r.W.Arche)
		for q.Next() {
			l, p := q.Get()
			if l.Stack.Item == key {
				n += int(l.Stack.Count)
				at = p.Pos
				if l.Pickup != -1 {
					t.Errorf("the dropped key is pickup %d, want -1 (dropped in play)", l.Pickup)
				}
			}
		}
		return n, at
	}
	if n, _ := loose(); n != 0 {
		t.Fatalf("%d keys lie about before any guard died", n)
	}
	g, _ := r.Spawners.NPC(guards, 0)
	ecstest.Get[components.Health](r.W, g).HP = 0
	ecstest.Get[components.PersonAction](r.W, g).Act = components.ActDead
	where := ecstest.Get[components.Pose](r.W, g).Pos
	r.Step(5)
	n, at := loose()
	if n != 1 {
		t.Fatalf("%d keys on the ground after a guard died, want 1", n)
	}
	if at.X != where.X || at.Y != where.Y {
		t.Errorf("the key lies at %v, the guard died at %v", at, where)
	}
}

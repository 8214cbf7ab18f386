package city_test

import (
	"math/rand/v2"
	"testing"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/ecs/ecstest"
	"github.com/fiveonit/engine/levels"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems/city"
	"github.com/fiveonit/engine/systems/city/citytest"
	"github.com/fiveonit/engine/systems/police"
	"github.com/fiveonit/engine/systems/systemstest"
)

// mainCity makes main-city under free roam with n players, each at the
// wheel of a car of their own where PlayerSpawn puts them, as the server
// does on joins.
func mainCity(tb testing.TB, n int, seed uint64) (*citytest.Rig, []ecs.Entity) {
	tb.Helper()
	r := citytest.New(tb, systemstest.Load(tb, "main-city"), citytest.Options{Seed: seed, Rules: ecs.FreeRoam()})
	r.Step(1) // the spawners' cars and NPCs, the gates
	var players []ecs.Entity
	for i := 1; i <= n; i++ {
		pos, yaw, ok := r.City.PlayerSpawn(r.W, uint16(i))
		if !ok {
			tb.Fatalf("player %d: no free spawn", i)
		}
		car := r.Vehicle(tb, components.KindCar, phys.ModelSedan, pos.X, pos.Y, yaw)
		p := r.Character(tb, pos.X, pos.Y, yaw)
		r.Seat(p, car)
		players = append(players, p)
	}
	return r, players
}

func TestMainCityJoins(t *testing.T) {
	r, players := mainCity(t, 64, 1)
	var at []components.Vec3
	for _, p := range players {
		pos := ecstest.Get[components.Pose](r.W, p).Pos
		if r.Static.Overlaps(phys.Flat(pos), 1.2) {
			t.Fatalf("a player's car at %v stands in a building", pos)
		}
		for _, q := range at {
			if dx, dy := pos.X-q.X, pos.Y-q.Y; dx*dx+dy*dy < city.SpawnClear*city.SpawnClear {
				t.Fatalf("two players' cars at %v and %v", pos, q)
			}
		}
		at = append(at, pos)
	}
	// The level's own: every bay of a spawner with a model parked (a
	// garage's are the players'), the gates shut, the NPCs of noon.
	bays, want := 0, 0
	for i, vs := range r.Level.VehicleSpawners {
		for j := range vs.Bays {
			if !r.Spawners.Bay(i, j).IsZero() {
				bays++
			}
			if vs.Model != "" {
				want++
			}
		}
	}
	if bays != want || want == 0 {
		t.Fatalf("%d bays parked, want %d", bays, want)
	}
	for i := range r.Level.Gates {
		if e, open := r.Gates.Gate(i); e.IsZero() || open {
			t.Fatalf("gate %d: %v open %v", i, e, open)
		}
	}
	if n := citytest.Count[components.NPC](r.W, components.KindGuard); n != 3 {
		t.Fatalf("%d guards in the yard, want 3", n)
	}
}

// TestMainCityScenario drives 16 players round main-city for two minutes:
// one runs over pedestrians (the police come after them and go once the
// stars are gone), one dies and comes back at the hospital.
func TestMainCityScenario(t *testing.T) {
	if testing.Short() {
		t.Skip("two minutes of ticks")
	}
	r, players := mainCity(t, 16, 3)
	r.Chase = 0.6
	rng := rand.New(rand.NewPCG(3, 3))
	r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) {
		d.Throttle = 0.3 + 0.2*rng.Float32()
		d.Steer = 0.2 * math32.Sin(float32(tick)/90+float32(e.ID()))
	}
	bad, victim := players[0], players[1]
	for range 3 {
		r.W.Crimes = append(r.W.Crimes, components.Crime{Kind: components.CrimeKillPedestrian, Offender: bad})
	}
	sawPolice := false
	var died bool
	for tick := 0; tick < 120*ecs.TickRate; tick++ {
		r.W.Step()
		if _, chasing := r.Police.Units(); chasing > 0 {
			sawPolice = true
		}
		if tick == 10*ecs.TickRate {
			ecstest.Get[components.Health](r.W, victim).HP = 0
			died = true
		}
	}
	if !sawPolice {
		t.Fatal("no police came after three kills")
	}
	if !died {
		t.Fatal("scenario broken")
	}
	hp := ecstest.Get[components.Health](r.W, victim)
	if hp.HP == 0 {
		t.Fatal("the dead player never came back")
	}
	// Once the stars are gone, the police go.
	wt := ecstest.Get[components.Wanted](r.W, bad)
	r.Drive = nil
	chasing := func() int { _, n := r.Police.Units(); return n }
	for i := 0; i < 10*police.DecayTicks && (wt.Stars > 0 || chasing() > 0); i++ {
		r.W.Step()
		wt = ecstest.Get[components.Wanted](r.W, bad)
	}
	if wt.Stars != 0 || chasing() != 0 {
		t.Fatalf("stars %d, police chasing %d at the end", wt.Stars, chasing())
	}
	r.Step(police.RecallTicks + police.SightEvery)
	if all, _ := r.Police.Units(); all != 0 {
		t.Fatalf("%d police cars still out a recall time after", all)
	}
}

func TestMainCityRespawnAtHospital(t *testing.T) {
	r, players := mainCity(t, 4, 1)
	p := players[2]
	pos := ecstest.Get[components.Pose](r.W, p).Pos
	want, ok := r.Level.NearestSpawn(levels.RoleHospital, levels.Vec2{X: pos.X, Y: pos.Y})
	if !ok {
		t.Fatal("main-city has no hospital")
	}
	ecstest.Get[components.Health](r.W, p).HP = 0
	r.Step(city.RespawnTicks + 2)
	got := ecstest.Get[components.Pose](r.W, p).Pos
	if dx, dy := got.X-want.Pos.X, got.Y-want.Pos.Y; dx*dx+dy*dy > 4 {
		t.Fatalf("came back at %v, the hospital is at %v", got, want.Pos)
	}
	if r.Zones.Safe(got) != true {
		t.Fatal("the hospital's spawn is not in the hospital grounds' safe zone")
	}
}

// state dumps every replicated entity's pose, health and flags, and every
// player's Wanted and Cash, by wire id.
func state(r *citytest.Rig) []float32 {
	var out []float32
	for wid := 1; wid <= ecs.MaxWireIDs; wid++ {
		e, ok := r.W.ByWireID(uint16(wid))
		if !ok {
			continue
		}
		p := ecstest.Get[components.Pose](r.W, e)
		h := ecstest.Get[components.Health](r.W, e)
		f := ecstest.Get[components.Flags](r.W, e)
		out = append(out, float32(wid), p.Pos.X, p.Pos.Y, p.Rot.Z, float32(h.HP), float32(f.Bits))
		if wt := ecstest.Get[components.Wanted](r.W, e); wt != nil {
			out = append(out, float32(wt.Stars), wt.Heat, float32(wt.Arrests), float32(ecstest.Get[components.Cash](r.W, e).Amount))
		}
	}
	return out
}

// TestMainCityDeterminism runs the same minute on main-city twice, with
// crimes, police, crashes and the spawners' random scatter: the two end
// the same.
func TestMainCityDeterminism(t *testing.T) {
	run := func() []float32 {
		r, players := mainCity(t, 16, 9)
		r.Chase = 0.6
		r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) {
			d.Throttle = 0.6
			d.Steer = 0.3 * math32.Sin(float32(tick)/70+float32(e.ID()))
		}
		for _, p := range players[:4] {
			r.W.Crimes = append(r.W.Crimes, components.Crime{Kind: components.CrimeKillPedestrian, Offender: p},
				components.Crime{Kind: components.CrimeRamPolice, Offender: p})
		}
		// The police are out while the stars last (the first 20 s).
		r.Step(20 * ecs.TickRate)
		if all, _ := r.Police.Units(); all == 0 {
			t.Fatal("no police: the test proves less than it says")
		}
		r.Step(40 * ecs.TickRate)
		return state(r)
	}
	a, b := run(), run()
	if len(a) != len(b) {
		t.Fatalf("%d and %d values", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("runs differ at value %d: %v and %v", i, a[i], b[i])
		}
	}
}

// TestMainCitySteadyAllocatesNothing counts the allocations of a tick of
// every city system at once on main-city: 64 players in their cars, eight
// of them wanted, the police out, 200 pedestrians walking, the gates and
// the spawners' NPCs at work (the guards on patrol).
func TestMainCitySteadyAllocatesNothing(t *testing.T) {
	r, players := mainCity(t, 64, 1)
	for i := range 200 {
		pav := r.Level.Pavements[i%len(r.Level.Pavements)]
		p := pav.Points[(i/len(r.Level.Pavements))%len(pav.Points)]
		r.Inputs = append(r.Inputs, r.Pedestrian(t, p.X+float32(i%3), p.Y))
	}
	r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) {
		d.MoveY, d.LookYaw = 1, float32(tick)*0.01+float32(e.ID())
	}
	for _, p := range players[:8] {
		r.W.Crimes = append(r.W.Crimes, components.Crime{Kind: components.CrimeKillPedestrian, Offender: p},
			components.Crime{Kind: components.CrimeKillPedestrian, Offender: p})
	}
	r.Step(5 * ecs.TickRate)
	if all, _ := r.Police.Units(); all == 0 {
		t.Fatal("no police out: the test measures less than it says")
	}
	if allocs := testing.AllocsPerRun(200, r.W.Step); allocs != 0 {
		t.Fatalf("%v allocations per tick", allocs)
	}
}

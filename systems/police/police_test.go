package police_test

import (
	"testing"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/ecs/ecstest"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems/city/citytest"
	"github.com/fiveonit/engine/systems/police"
	"github.com/fiveonit/engine/systems/systemstest"
	"github.com/mlange-42/arche/generic"
)

// level has three police spawn points at x = 100 facing west and a block
// at x in [115, 125] that hides x = 140 from them.
const level = `{
  "name": "test-police",
  "version": 1,
  "ground": {"min":[-300,-300],"max":[300,300]},
  "buildings": [
    {"id":"block","footprint":[[115,-40],[125,-40],[125,40],[115,40]],"height":20,"use":"generic"}
  ],
  "spawns": [
    {"role":"player","pos":[0,0],"yaw":0},
    {"role":"hospital","pos":[-100,0],"yaw":0},
    {"role":"police","pos":[100,0],"yaw":3.1415927},
    {"role":"police","pos":[100,20],"yaw":3.1415927},
    {"role":"police","pos":[100,-20],"yaw":3.1415927}
  ]
}`

func rig(t testing.TB, rules ecs.Rules) *citytest.Rig {
	t.Helper()
	return citytest.New(t, systemstest.Parse(t, "test-police", level), citytest.Options{Seed: 1, Rules: rules})
}

func policeRules() ecs.Rules { return ecs.Rules{Name: "test", Police: true, PlayersHurt: "on"} }

// commit files crimes by offender as if a system had seen them last tick.
func commit(w *ecs.World, offender ecs.Entity, kinds ...components.CrimeKind) {
	for _, k := range kinds {
		w.Crimes = append(w.Crimes, components.Crime{Kind: k, Offender: offender})
	}
}

func wanted(r *citytest.Rig, e ecs.Entity) *components.Wanted {
	return ecstest.Get[components.Wanted](r.W, e)
}

func TestCrimesRaiseWanted(t *testing.T) {
	const (
		hit  = components.CrimeHitPedestrian
		kill = components.CrimeKillPedestrian
		ram  = components.CrimeRamPolice
		jack = components.CrimeCarjack
		shot = components.CrimeShooting
	)
	cases := []struct {
		name   string
		crimes []components.CrimeKind
		byNPC  bool
		off    bool
		stars  uint8
		heat   float32
	}{
		{"one hit", []components.CrimeKind{hit}, false, false, 0, 0.4},
		{"three hits", []components.CrimeKind{hit, hit, hit}, false, false, 1, 0.2},
		{"a kill", []components.CrimeKind{kill}, false, false, 1, 0},
		{"kill and ram", []components.CrimeKind{kill, ram}, false, false, 2, 0},
		{"carjack and shots", []components.CrimeKind{jack, shot, shot}, false, false, 1, 0},
		{"rampage tops out", []components.CrimeKind{kill, kill, kill, kill, kill, kill, kill}, false, false, 5, 1},
		{"an NPC's crimes", []components.CrimeKind{kill, kill}, true, false, 0, 0},
		{"no police", []components.CrimeKind{kill, kill}, false, true, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rules := policeRules()
			rules.Police = !c.off
			r := rig(t, rules)
			p := r.Character(t, 0, 0, 0)
			offender := p
			if c.byNPC {
				offender = r.Pedestrian(t, 5, 5)
			}
			r.Step(1)
			commit(r.W, offender, c.crimes...)
			r.Step(1)
			wt := wanted(r, p)
			heat := c.heat
			if c.stars == 0 && heat > 0 {
				heat -= police.HeatDecay * ecs.Dt // one tick of decay
			}
			if wt.Stars != c.stars || math32.Abs(wt.Heat-heat) > 1e-4 {
				t.Fatalf("stars %d heat %v, want %d %v", wt.Stars, wt.Heat, c.stars, heat)
			}
		})
	}
}

func TestHeatFades(t *testing.T) {
	r := rig(t, policeRules())
	p := r.Character(t, 0, 0, 0)
	commit(r.W, p, components.CrimeHitPedestrian)
	r.Step(1)
	r.Step(int(0.4/police.HeatDecay*ecs.TickRate) + 2)
	if wt := wanted(r, p); wt.Heat != 0 || wt.Stars != 0 {
		t.Fatalf("heat %v stars %d after it should have faded", wt.Heat, wt.Stars)
	}
}

// units lists the police cars chasing target.
func units(t *testing.T, r *citytest.Rig, target ecs.Entity) int {
	t.Helper()
	n := 0
	for _, e := range policeCars(r) {
		c := ecstest.Get[components.Chaser](r.W, e)
		if c == nil || c.Target != target {
			continue
		}
		n++
		if f := ecstest.Get[components.Flags](r.W, e); f.Bits&components.FlagSiren == 0 {
			t.Fatal("a chasing police car with its siren off")
		}
		st := ecstest.Get[components.Seats](r.W, e)
		o := st.Occupant[0]
		if o.IsZero() || *ecstest.Get[components.Kind](r.W, o) != components.KindOfficer ||
			ecstest.Get[components.PersonAction](r.W, o).Act != components.ActDriving ||
			ecstest.Get[components.NPC](r.W, o).Role != components.RoleOfficer {
			t.Fatalf("police car without an officer driving: %v", o)
		}
	}
	return n
}

func policeCars(r *citytest.Rig) []ecs.Entity {
	var out []ecs.Entity
	f := generic.NewFilter1[components.Kind]()
	q := f.Query(r.W.Arche)
	for q.Next() {
		if *q.Get() == components.KindPoliceCar {
			out = append(out, q.Entity())
		}
	}
	return out
}

func TestStarsBringPolice(t *testing.T) {
	cases := []struct {
		kills int
		want  int // cars: CarsPerStar, at most the three spawn points (the cars stand there: no AI)
	}{{0, 0}, {1, 1}, {2, 2}, {5, 3}}
	for _, c := range cases {
		r := rig(t, policeRules())
		p := r.Character(t, 0, 0, 0)
		for range c.kills {
			commit(r.W, p, components.CrimeKillPedestrian)
		}
		r.Step(police.SpawnEvery*4 + 1)
		if got := units(t, r, p); got != c.want {
			t.Fatalf("%d stars: %d police cars, want %d", c.kills, got, c.want)
		}
		if all, chasing := r.Police.Units(); all != c.want || chasing != c.want {
			t.Fatalf("Units() = %d, %d", all, chasing)
		}
	}
}

func TestStarsDecayUnseen(t *testing.T) {
	cases := []struct {
		name  string
		x     float32
		decay bool
	}{
		{"far away", -150, true},
		{"in sight of the station", 60, false},
		{"behind the block", 140, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rig(t, policeRules())
			p := r.Character(t, c.x, 0, 0)
			commit(r.W, p, components.CrimeKillPedestrian, components.CrimeKillPedestrian)
			r.Step(police.SpawnEvery*3 + 1)
			if wanted(r, p).Stars != 2 || units(t, r, p) != 2 {
				t.Fatalf("stars %d units %d", wanted(r, p).Stars, units(t, r, p))
			}
			r.Step(2*police.DecayTicks + police.SightEvery)
			stars := wanted(r, p).Stars
			if c.decay != (stars == 0) {
				t.Fatalf("stars %d after two decay times, want decay %v", stars, c.decay)
			}
			if !c.decay {
				return
			}
			// Recalled: no Chaser left; out of sight, so taken away.
			r.Step(police.SightEvery * 2)
			if n := len(policeCars(r)); n != 0 {
				t.Fatalf("%d police cars left after the stars were gone", n)
			}
			if n := citytest.Count[components.NPC](r.W, components.KindOfficer); n != 0 {
				t.Fatalf("%d officers left", n)
			}
		})
	}
}

func TestArrest(t *testing.T) {
	cases := []struct {
		name   string
		cash   int64
		stars  int
		moving bool
		fine   int64
	}{
		{"one star", 500, 1, false, police.Fines[1]},
		{"two stars", 500, 2, false, police.Fines[2]},
		{"short of cash", 50, 2, false, 50},
		{"keeps moving", 500, 2, true, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rig(t, policeRules())
			// Beside where the first police car comes out (x = 100,
			// facing west: its nose at 97.6).
			p := r.Character(t, 95, 0, 0)
			ecstest.Get[components.Cash](r.W, p).Amount = c.cash
			if c.moving {
				r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) {
					d.MoveY = 1
					d.LookYaw = math32.Pi / 2
					if (tick/40)%2 == 1 {
						d.LookYaw = -math32.Pi / 2
					}
				}
			}
			for range c.stars {
				commit(r.W, p, components.CrimeKillPedestrian)
			}
			r.Step(1 + police.ArrestTicks + 2*police.SpawnEvery)
			wt := wanted(r, p)
			cash := ecstest.Get[components.Cash](r.W, p).Amount
			if c.moving {
				if wt.Arrests != 0 || int(wt.Stars) != c.stars || cash != c.cash {
					t.Fatalf("moving player arrested: %+v cash %d", *wt, cash)
				}
				return
			}
			if wt.Arrests != 1 || wt.Stars != 0 || wt.Fine != c.fine || cash != c.cash-c.fine {
				t.Fatalf("after arrest: %+v cash %d, want fine %d", *wt, cash, c.fine)
			}
			if _, chasing := r.Police.Units(); chasing != 0 {
				t.Fatalf("%d units still chasing after the arrest", chasing)
			}
			// In the player's sight the recalled cars stay, at most a
			// RecallTicks.
			r.Step(police.RecallTicks + police.SightEvery)
			if all, _ := r.Police.Units(); all != 0 || len(policeCars(r)) != 0 {
				t.Fatalf("%d units left a recall time after", all)
			}
		})
	}
}

func TestCarjackIsACrime(t *testing.T) {
	r := rig(t, policeRules())
	car, driver, err := r.B.NPCCar(components.RoleDriver, -1, phys.ModelSedan, components.Vec3{X: 0, Y: 0}, 0)
	if err != nil {
		t.Fatal(err)
	}
	p := r.Character(t, 0, 2.2, 0)
	r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) {
		if tick == 1 {
			d.Pressed = components.BtnUse
		}
	}
	r.Step(2) // tick 1: the carjack
	jacks := citytest.Crimes(r.W, components.CrimeCarjack)
	if len(jacks) != 1 || jacks[0].Offender != p || jacks[0].Victim != driver {
		t.Fatalf("carjack crimes %+v", jacks)
	}
	r.Step(1)
	if h := wanted(r, p).Heat; math32.Abs(h-police.CrimeHeat[components.CrimeCarjack]) > 0.01 {
		t.Fatalf("heat %v after a carjack", h)
	}
	if st := ecstest.Get[components.Seats](r.W, car); st.Occupant[0] != p {
		t.Fatal("the carjack did not happen")
	}
}

func TestDeathClearsStars(t *testing.T) {
	r := rig(t, policeRules())
	p := r.Character(t, 0, 0, 0)
	commit(r.W, p, components.CrimeKillPedestrian, components.CrimeKillPedestrian)
	r.Step(police.SpawnEvery + 1)
	ecstest.Get[components.Health](r.W, p).HP = 0
	r.Step(1)
	if wt := wanted(r, p); wt.Stars != 0 {
		t.Fatalf("dead player keeps %d stars", wt.Stars)
	}
	r.Step(1)
	if _, chasing := r.Police.Units(); chasing != 0 {
		t.Fatalf("%d units chase a dead player", chasing)
	}
}

func TestPoliceOffRecalls(t *testing.T) {
	r := rig(t, policeRules())
	p := r.Character(t, 0, 0, 0)
	commit(r.W, p, components.CrimeKillPedestrian)
	r.Step(police.SpawnEvery + 1)
	if units(t, r, p) != 1 {
		t.Fatal("no police car came")
	}
	r.W.Rules.Police = false
	r.Step(police.SightEvery + 1)
	if all, _ := r.Police.Units(); all != 0 {
		t.Fatalf("%d units left without police", all)
	}
}

// TestChaseAndArrest runs the whole loop with a stand-in for the AI's
// chaser driving: a crime, a car out of the station driving to the player,
// who stands still and is arrested.
func TestChaseAndArrest(t *testing.T) {
	r := rig(t, policeRules())
	r.Chase = 0.5
	p := r.Character(t, 30, 0, 0)
	commit(r.W, p, components.CrimeKillPedestrian)
	arrested := uint64(0)
	for i := 0; i < 60*ecs.TickRate && arrested == 0; i++ {
		r.W.Step()
		if wanted(r, p).Arrests == 1 {
			arrested = r.W.Tick()
		}
	}
	if arrested == 0 {
		t.Fatalf("never arrested: %+v", *wanted(r, p))
	}
	if cash := ecstest.Get[components.Cash](r.W, p).Amount; cash != 500-police.Fines[1] {
		t.Fatalf("cash %d", cash)
	}
}

func TestSteadyAllocatesNothing(t *testing.T) {
	r := rig(t, policeRules())
	p := r.Character(t, 60, 0, 0) // in sight of the station: no decay, no arrest
	q := r.Character(t, -150, 0, 0)
	for range 5 {
		commit(r.W, p, components.CrimeKillPedestrian)
	}
	commit(r.W, q, components.CrimeHitPedestrian)
	r.Step(police.SpawnEvery*4 + 1)
	if units(t, r, p) != 3 {
		t.Fatal("police did not come out")
	}
	if allocs := testing.AllocsPerRun(200, r.W.Step); allocs != 0 {
		t.Fatalf("%v allocations per tick", allocs)
	}
	if wanted(r, p).Stars != 5 {
		t.Fatal("the stars changed: the test measured something else")
	}
}

// areaLevel has a two-way road along y = 0 from x = -250 to 250, a police
// spawn area over its stretch from x = 100 to 200, and one police spawn
// point at (0, -200), far from the road.
const areaLevel = `{
  "name": "test-police-area",
  "version": 1,
  "ground": {"min":[-300,-300],"max":[300,300]},
  "roads": {
    "nodes": [{"id":1,"pos":[-250,0]},{"id":2,"pos":[250,0]}],
    "lanes": [
      {"id":0,"from":1,"to":2,"width":3.5,"offset":1.75,"speedLimit":14},
      {"id":1,"from":2,"to":1,"width":3.5,"offset":1.75,"speedLimit":14}
    ]
  },
  "spawns": [
    {"role":"player","pos":[0,0],"yaw":0},
    {"role":"police","pos":[0,-200],"yaw":0}
  ],
  "spawnAreas": [
    {"id":"beat","role":"police","polygon":[[100,-10],[200,-10],[200,10],[100,10]]}
  ]
}`

// TestSpawnAreaBringsPolice: a police car comes out of a police spawn
// area when a lane point of it is nearer to the wanted player than every
// free spawn point: the point nearest to the player, on a lane that runs
// toward them, facing its way; not within AreaMin of the player; one car
// per area a tick. A spawn point nearer than the area is taken first.
func TestSpawnAreaBringsPolice(t *testing.T) {
	cases := []struct {
		name    string
		at      phys.Vec // the player
		want    phys.Vec // the first car
		wantYaw float32
	}{
		// From (20, 0) the area's nearest lane point that faces the
		// player is the last of lane 1 (westward) before x = 100 (lane
		// points every AreaStep from 240); lane 0 runs away from them.
		{"west of the area", phys.Vec{X: 20, Y: 0}, phys.Vec{X: 100, Y: 1.75}, math32.Pi},
		// At x = 160 inside the area: the nearest point AreaMin away,
		// west of it on lane 0, and east of it on lane 1 is as far: the
		// earlier lane wins.
		{"inside the area", phys.Vec{X: 160, Y: 0}, phys.Vec{X: 120, Y: -1.75}, 0},
		// Near the spawn point: the spawn point.
		{"by the spawn point", phys.Vec{X: 0, Y: -150}, phys.Vec{X: 0, Y: -200}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := citytest.New(t, systemstest.Parse(t, "test-police-area", areaLevel), citytest.Options{Seed: 1, Rules: policeRules()})
			p := r.Character(t, c.at.X, c.at.Y, 0)
			commit(r.W, p, components.CrimeKillPedestrian) // a star: one car
			r.Step(police.SpawnEvery + 1)
			cars := policeCars(r)
			if len(cars) != 1 {
				t.Fatalf("%d police cars, want 1", len(cars))
			}
			pose := ecstest.Get[components.Pose](r.W, cars[0])
			got := phys.Flat(pose.Pos)
			if got.Sub(c.want).Len() > 0.01 || math32.Abs(pose.Rot.Yaw()-c.wantYaw) > 1e-3 {
				t.Fatalf("the car came out at %v facing %v, want %v facing %v", got, pose.Rot.Yaw(), c.want, c.wantYaw)
			}
			if d := got.Sub(c.at).Len(); c.want.Y != -200 && d < police.AreaMin {
				t.Fatalf("the car came out %v m from the player", d)
			}
		})
	}
	// Two players with stars on one tick: the area gives one car a tick,
	// the other comes out of the spawn point.
	r := citytest.New(t, systemstest.Parse(t, "test-police-area", areaLevel), citytest.Options{Seed: 1, Rules: policeRules()})
	a := r.Character(t, 20, 0, 0)
	b := r.Character(t, 30, 3, 0)
	commit(r.W, a, components.CrimeKillPedestrian)
	commit(r.W, b, components.CrimeKillPedestrian)
	r.Step(police.SpawnEvery + 1)
	var inArea, atPoint int
	for _, e := range policeCars(r) {
		switch p := phys.Flat(ecstest.Get[components.Pose](r.W, e).Pos); {
		case p.X >= 100 && p.X <= 200:
			inArea++
		case p.Sub(phys.Vec{X: 0, Y: -200}).Len() < 0.01:
			atPoint++
		}
	}
	if inArea != 1 || atPoint != 1 {
		t.Fatalf("%d cars out of the area and %d out of the spawn point, want 1 and 1", inArea, atPoint)
	}
}

// TestStarsHoldWhileOnTheWay: a player's stars hold while a police car
// sent after them comes nearer, unseen by it, HoldTicks at most; a car
// that stands (no AI) holds nothing. The player stands 390 m from the
// station, and the stand-in chaser drives slowly, so it is never in sight
// of them within the test.
func TestStarsHoldWhileOnTheWay(t *testing.T) {
	cases := []struct {
		name  string
		chase float32
		hold  bool
	}{
		{"on the way", 0.07, true},
		{"standing", 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rig(t, policeRules())
			r.Chase = c.chase
			at := phys.Vec{X: -290}
			p := r.Character(t, at.X, at.Y, 0)
			commit(r.W, p, components.CrimeKillPedestrian)
			check := func(when string, stars uint8) {
				t.Helper()
				for _, e := range policeCars(r) {
					if d := phys.Flat(ecstest.Get[components.Pose](r.W, e).Pos).Sub(at).Len(); d <= police.SightRange {
						t.Fatalf("%s: a police car %.0f m from the player: the test proves less than it says", when, d)
					}
				}
				if got := wanted(r, p).Stars; got != stars {
					t.Fatalf("%s: %d stars, want %d", when, got, stars)
				}
			}
			r.Step(police.DecayTicks + 2*ecs.TickRate)
			if !c.hold {
				check("a decay time after", 0)
				return
			}
			check("a decay time after", 1)
			r.Step(police.HoldTicks - police.DecayTicks - 3*ecs.TickRate)
			check("just before the hold's end", 1)
			r.Step(police.DecayTicks + 2*ecs.TickRate)
			check("a decay time after the hold's end", 0)
		})
	}
}

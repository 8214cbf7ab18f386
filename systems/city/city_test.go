package city_test

import (
	"testing"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/ecs/ecstest"
	"github.com/fiveonit/engine/levels"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems/city"
	"github.com/fiveonit/engine/systems/city/citytest"
	"github.com/fiveonit/engine/systems/systemstest"
)

const level = `{
  "name": "test-city",
  "version": 1,
  "ground": {"min":[-300,-300],"max":[300,300]},
  "buildings": [
    {"id":"house","footprint":[[-110,5],[-90,5],[-90,15],[-110,15]],"height":5,"use":"hospital"}
  ],
  "spawns": [
    {"role":"player","pos":[0,0],"yaw":0},
    {"role":"player","pos":[0,20],"yaw":0},
    {"role":"hospital","pos":[-100,0],"yaw":0},
    {"role":"hospital","pos":[100,100],"yaw":3.1415927},
    {"role":"police","pos":[250,0],"yaw":3.1415927}
  ],
  "zones": [
    {"id":"lot","kind":"restricted","polygon":[[-20,60],[20,60],[20,100],[-20,100]]},
    {"id":"grounds","kind":"safe","polygon":[[-120,-20],[-80,-20],[-80,20],[-120,20]]}
  ]
}`

func rig(t testing.TB, rules ecs.Rules) *citytest.Rig {
	t.Helper()
	return citytest.New(t, systemstest.Parse(t, "test-city", level), citytest.Options{Seed: 1, Rules: rules})
}

func TestPlayerSpawn(t *testing.T) {
	cases := []struct {
		name   string
		taken  [][2]float32 // cars standing at these points
		player uint16
		want   [2]float32
		ok     bool
	}{
		{"first player, first spawn", nil, 1, [2]float32{0, 0}, true},
		{"second player, second spawn", nil, 2, [2]float32{0, 20}, true},
		{"third player wraps round", nil, 3, [2]float32{0, 0}, true},
		{"own spawn taken", [][2]float32{{0, 1}}, 1, [2]float32{0, 20}, true},
		{"all taken: behind the own", [][2]float32{{0, 0}, {0, 20}}, 1, [2]float32{-city.SpawnRowGap, 0}, true},
		{"all taken, second player", [][2]float32{{0, 0}, {0, 20}}, 2, [2]float32{-city.SpawnRowGap, 20}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rig(t, ecs.FreeRoam())
			for _, p := range c.taken {
				r.Vehicle(t, components.KindCar, phys.ModelSedan, p[0], p[1], 0)
			}
			pos, yaw, ok := r.City.PlayerSpawn(r.W, c.player)
			if ok != c.ok || pos.X != c.want[0] || pos.Y != c.want[1] || yaw != 0 {
				t.Fatalf("got %v yaw %v ok %v, want %v", pos, yaw, ok, c.want)
			}
			again, _, _ := r.City.PlayerSpawn(r.W, c.player)
			if again != pos {
				t.Fatalf("asked twice: %v then %v", pos, again)
			}
		})
	}
}

func TestRespawn(t *testing.T) {
	cases := []struct {
		name    string
		respawn string
		dieAt   [2]float32
		inCar   bool
		want    [2]float32 // near this point; NaN-free: back false means stays dead
		back    bool
	}{
		{"nearest hospital west", city.RespawnHospital, [2]float32{-60, 0}, false, [2]float32{-100, 0}, true},
		{"nearest hospital north-east", city.RespawnHospital, [2]float32{90, 80}, false, [2]float32{100, 100}, true},
		{"out of the car", city.RespawnHospital, [2]float32{90, 80}, true, [2]float32{100, 100}, true},
		{"at a player spawn", city.RespawnSpawn, [2]float32{90, 80}, false, [2]float32{0, 0}, true},
		{"stays dead", "", [2]float32{90, 80}, false, [2]float32{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rules := ecs.FreeRoam()
			rules.Respawn = c.respawn
			r := rig(t, rules)
			p := r.Character(t, c.dieAt[0], c.dieAt[1], 0)
			var car ecs.Entity
			if c.inCar {
				car = r.Vehicle(t, components.KindCar, phys.ModelSedan, c.dieAt[0], c.dieAt[1], 0)
				r.Seat(p, car)
			}
			r.Step(1)
			ecstest.Get[components.Health](r.W, p).HP = 0
			ecstest.Get[components.PersonAction](r.W, p).Act = components.ActDead
			// A death the damage system did not see: no cause, and when
			// they come back.
			ecstest.Get[components.Death](r.W, p).Cause = components.DeathShot // an earlier death's
			r.Step(1)
			d := *ecstest.Get[components.Death](r.W, p)
			wantBack := uint64(0)
			if c.back {
				wantBack = d.Tick + city.RespawnTicks
			}
			if d.Cause != components.DeathUnknown || d.By != components.KindNone || d.Tick != r.W.Tick()-1 || d.Back != wantBack {
				t.Fatalf("death %+v at tick %d, want no cause and back at %d", d, r.W.Tick()-1, wantBack)
			}
			r.Step(city.RespawnTicks - 1)
			if hp := ecstest.Get[components.Health](r.W, p).HP; hp != 0 {
				t.Fatal("back before the respawn time")
			}
			r.Step(1)
			hp := ecstest.Get[components.Health](r.W, p)
			if c.back && r.W.Tick()-1 != d.Back {
				t.Fatalf("back at tick %d, the death said %d", r.W.Tick()-1, d.Back)
			}
			if !c.back {
				r.Step(10 * city.RespawnTicks)
				if hp.HP != 0 {
					t.Fatal("came back under respawn \"\"")
				}
				return
			}
			if hp.HP != hp.Max {
				t.Fatalf("hp %d after respawn", hp.HP)
			}
			pos := ecstest.Get[components.Pose](r.W, p).Pos
			if dx, dy := pos.X-c.want[0], pos.Y-c.want[1]; dx*dx+dy*dy > 4 {
				t.Fatalf("came back at %v, want near %v", pos, c.want)
			}
			if a := ecstest.Get[components.PersonAction](r.W, p).Act; a != components.ActOnFoot {
				t.Fatalf("act %d", a)
			}
			if sd := ecstest.Get[components.SeatedIn](r.W, p); !sd.Vehicle.IsZero() {
				t.Fatal("still seated")
			}
			if c.inCar && !ecstest.Get[components.Seats](r.W, car).Occupant[0].IsZero() {
				t.Fatal("the car's seat still holds the respawned player")
			}
			g := ecstest.Get[components.Ghost](r.W, p)
			b := ecstest.Get[components.Body](r.W, p)
			f := ecstest.Get[components.Flags](r.W, p)
			ghostTicks := uint64(rules.GhostSeconds * ecs.TickRate)
			if g == nil || g.Until != r.W.Tick()-1+ghostTicks || f.Bits&components.FlagGhost == 0 ||
				b.Layer != components.LayerGhost || b.Mask != city.GhostMask {
				t.Fatalf("not a ghost: %v %+v flags %b", g, *b, f.Bits)
			}
			r.Step(int(ghostTicks))
			b = ecstest.Get[components.Body](r.W, p)
			if ecstest.Get[components.Ghost](r.W, p) != nil || ecstest.Get[components.Flags](r.W, p).Bits&components.FlagGhost != 0 ||
				b.Layer != components.LayerPerson || b.Mask != phys.DefaultWalker.Body().Mask {
				t.Fatalf("still a ghost after %d ticks: %+v", ghostTicks, *b)
			}
		})
	}
}

// TestRespawnAt: a player the RespawnAt hook names a place for comes back
// there, on foot, whatever the rules' place; one it leaves to the rules
// comes back at the rules' place; the hook changes nothing for the rule
// that leaves the dead where they lie.
func TestRespawnAt(t *testing.T) {
	for _, c := range []struct {
		name    string
		respawn string
		hook    bool // the hook names the checkpoint for the player
		want    [2]float32
		back    bool
	}{
		{"the hook's place", city.RespawnHospital, true, [2]float32{40, -40}, true},
		{"left to the rules", city.RespawnHospital, false, [2]float32{-100, 0}, true},
		{"stays dead all the same", "", true, [2]float32{}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			rules := ecs.FreeRoam()
			rules.Respawn = c.respawn
			r := rig(t, rules)
			p := r.Character(t, -60, 0, 0)
			other := r.Character(t, -60, 10, 0)
			asked := 0
			r.City.RespawnAt = func(e ecs.Entity) (levels.Spawn, bool) {
				asked++
				return levels.Spawn{Pos: levels.Vec2{X: 40, Y: -40}, Yaw: 1}, c.hook && e == p
			}
			r.Step(1)
			for _, e := range []ecs.Entity{p, other} {
				ecstest.Get[components.Health](r.W, e).HP = 0
				ecstest.Get[components.PersonAction](r.W, e).Act = components.ActDead
			}
			r.Step(city.RespawnTicks + 1)
			if hp := ecstest.Get[components.Health](r.W, p).HP; (hp != 0) != c.back {
				t.Fatalf("hp %d: back %v, want %v", hp, hp != 0, c.back)
			}
			if !c.back {
				if asked != 0 {
					t.Fatal("the hook was asked for a player who stays dead")
				}
				return
			}
			pos := ecstest.Get[components.Pose](r.W, p).Pos
			if dx, dy := pos.X-c.want[0], pos.Y-c.want[1]; dx*dx+dy*dy > 4 {
				t.Fatalf("came back at %v, want near %v", pos, c.want)
			}
			if a := ecstest.Get[components.PersonAction](r.W, p).Act; a != components.ActOnFoot {
				t.Fatalf("act %d", a)
			}
			if o := ecstest.Get[components.Pose](r.W, other).Pos; o.X > -90 {
				t.Fatalf("the other player came back at %v, not the hospital", o)
			}
			if asked != 2 {
				t.Fatalf("the hook was asked %d times, want once per player", asked)
			}
		})
	}
}

// TestGhostPassesThroughCars drives a car through a ghost: no contact, no
// harm; once the ghost time is over, the same car knocks it down.
func TestGhostPassesThroughCars(t *testing.T) {
	for _, ghost := range []bool{true, false} {
		r := rig(t, ecs.FreeRoam())
		p := r.Character(t, 50, -30, 0)
		car := r.Vehicle(t, components.KindCar, phys.ModelSedan, 40, -30, 0)
		ecstest.Get[components.Velocity](r.W, car).Lin.X = 15
		if ghost {
			ecstest.Get[components.Flags](r.W, p).Bits |= components.FlagGhost
			b := ecstest.Get[components.Body](r.W, p)
			b.Layer, b.Mask = components.LayerGhost, city.GhostMask
		}
		touched := false
		for range 60 {
			r.W.Step()
			for _, c := range r.W.Contacts {
				touched = touched || c.A == p || c.B == p
			}
		}
		if touched == ghost {
			t.Fatalf("ghost %v: touched %v", ghost, touched)
		}
	}
}

func TestRestrictedZone(t *testing.T) {
	rules := ecs.FreeRoam()
	r := rig(t, rules)
	walker := r.Character(t, 0, 50, 1.5707964)  // walks north into the lot and out
	inside := r.Character(t, 10, 80, 1.5707964) // comes in inside: no crime
	r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) {
		if e == walker {
			d.MoveY, d.Held = 1, components.BtnSprint
			d.LookYaw = 1.5707964
			if tick > 8*ecs.TickRate && tick < 16*ecs.TickRate {
				d.LookYaw = -1.5707964 // back out and in again
			}
		}
	}
	var entries []uint64
	for range 20 * ecs.TickRate {
		r.W.Step()
		for _, c := range citytest.Crimes(r.W, components.CrimeRestricted) {
			if c.Offender == inside {
				t.Fatal("a player who came in inside committed a crime")
			}
			if c.Offender == walker {
				entries = append(entries, r.W.Tick())
			}
		}
	}
	if len(entries) != 2 {
		t.Fatalf("entries at ticks %v, want two", entries)
	}
	// The police made stars of them.
	if s := ecstest.Get[components.Wanted](r.W, walker).Stars; s == 0 {
		t.Fatal("entering a restricted zone raised no star")
	}
}

func TestClock(t *testing.T) {
	r := rig(t, ecs.FreeRoam())
	r.Character(t, 0, 0, 0) // physics.Step panics on a world of no body
	if m := r.W.Clock.Minutes(); m != 12*60 {
		t.Fatalf("free roam starts at minute %v, want noon", m)
	}
	r.Step(60 * ecs.TickRate)
	if m := r.W.Clock.Minutes(); m != 13*60 {
		t.Fatalf("a minute later: minute %v, want 13:00", m)
	}
	rev := r.W.Clock.Revision()
	r.W.Rules.ClockStart, r.W.Rules.ClockPace = 6*60, 0
	city.ResetClock(r.W)
	r.Step(600)
	if m := r.W.Clock.Minutes(); m != 6*60 || r.W.Clock.Revision() == rev {
		t.Fatalf("after ResetClock: minute %v revision %d", m, r.W.Clock.Revision())
	}
}

func TestSteadyAllocatesNothing(t *testing.T) {
	r := rig(t, ecs.FreeRoam())
	for i := range 20 {
		r.Character(t, float32(i)*2-20, 40, 1.5707964)
	}
	r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) {
		d.MoveY, d.LookYaw = 1, 1.5707964
		if (tick/600)%2 == 1 {
			d.LookYaw = -1.5707964
		}
	}
	r.Step(700)
	if allocs := testing.AllocsPerRun(200, r.W.Step); allocs != 0 {
		t.Fatalf("%v allocations per tick", allocs)
	}
}

// TestSpotNear: a team's players start at its place, then a car's width
// (TeamSpread) to the right of its heading, to its left, twice that to
// the right, and so on: the first spot clear of bodies and buildings.
func TestSpotNear(t *testing.T) {
	const s = city.TeamSpread
	cases := []struct {
		name  string
		at    levels.Vec2
		yaw   float32
		taken [][2]float32 // cars standing at these points
		want  [2]float32
		ok    bool
	}{
		{"the place is free", levels.Vec2{X: 0, Y: -50}, 0, nil, [2]float32{0, -50}, true},
		{"a car on the place: to its right", levels.Vec2{X: 0, Y: -50}, 0, [][2]float32{{0, -50}}, [2]float32{0, -50 - s}, true},
		{"right taken too: to its left", levels.Vec2{X: 0, Y: -50}, 0, [][2]float32{{0, -50}, {0, -50 - s}}, [2]float32{0, -50 + s}, true},
		// The house stands from y 5 to 15 at x -110 to -90: the place
		// and the spots across the heading within a car's radius of it
		// are in its walls; the first clear one is 2 spreads right.
		{"a building on the place", levels.Vec2{X: -100, Y: 8}, 0, nil, [2]float32{-100, 8 - 2*s}, true},
		// Facing north the side across the heading is x: right is east.
		{"facing north, right is east", levels.Vec2{X: 0, Y: -50}, math32.Pi / 2, [][2]float32{{0, -50}}, [2]float32{s, -50}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rig(t, ecs.FreeRoam())
			for _, p := range c.taken {
				r.Vehicle(t, components.KindCar, phys.ModelSedan, p[0], p[1], 0)
			}
			pos, ok := r.City.SpotNear(r.W, c.at, c.yaw)
			if ok != c.ok || math32.Abs(pos.X-c.want[0]) > 1e-3 || math32.Abs(pos.Y-c.want[1]) > 1e-3 {
				t.Fatalf("got %v ok %v, want %v", pos, ok, c.want)
			}
		})
	}
}

package damage_test

import (
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/ecs/ecstest"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems/city/citytest"
	"github.com/fiveonit/engine/systems/damage"
	"github.com/fiveonit/engine/systems/systemstest"
)

// level is open ground with a safe zone round x in [-60, -40] and a wall
// to drive into at x = 60.
const level = `{
  "name": "test-damage",
  "version": 1,
  "ground": {"min":[-200,-200],"max":[200,200]},
  "buildings": [
    {"id":"wall","footprint":[[60,-20],[62,-20],[62,20],[60,20]],"height":3,"use":"wall"}
  ],
  "zones": [
    {"id":"hospital-grounds","kind":"safe","polygon":[[-60,-20],[-40,-20],[-40,20],[-60,20]]},
    {"id":"plaza","kind":"restricted","polygon":[[-60,60],[-40,60],[-40,80],[-60,80]]}
  ]
}`

func rig(t testing.TB, rules ecs.Rules) *citytest.Rig {
	t.Helper()
	return citytest.New(t, systemstest.Parse(t, "test-damage", level), citytest.Options{Seed: 1, Rules: rules})
}

// drivenCar makes a sedan at (x, y) heading east at speed v with a player
// at the wheel, who keeps the throttle at throttle.
func drivenCar(t *testing.T, r *citytest.Rig, x, y, v, throttle float32) (car, driver ecs.Entity) {
	t.Helper()
	car = r.Vehicle(t, components.KindCar, phys.ModelSedan, x, y, 0)
	driver = r.Character(t, x, y+3, 0)
	r.Seat(driver, car)
	ecstest.Get[components.Velocity](r.W, car).Lin.X = v
	prev := r.Drive
	r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) {
		if prev != nil {
			prev(tick, e, d)
		}
		if e == driver {
			d.Throttle = throttle
		}
	}
	return car, driver
}

// collect steps n ticks and gathers the crimes and events of each.
func collect(r *citytest.Rig, n int) (crimes []components.Crime, events []components.Event) {
	for range n {
		r.W.Step()
		crimes = append(crimes, r.W.Crimes...)
		events = append(events, r.W.Events...)
	}
	return crimes, events
}

func TestRunOverPedestrian(t *testing.T) {
	cases := []struct {
		name   string
		speed  float32
		x      float32 // the pedestrian's x (in the safe zone: -50)
		ghost  bool
		hurt   bool
		killed bool
	}{
		{"walking pace", 4, 8, false, false, false},
		{"10 m/s hurts", 10, 8, false, true, false},
		{"15 m/s hurts more", 15, 8, false, true, false},
		{"25 m/s kills", 25, 8, false, true, true},
		{"safe zone", 25, -50, false, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rig(t, ecs.Rules{PlayersHurt: "on"})
			ped := r.Pedestrian(t, c.x, 0)
			car, driver := drivenCar(t, r, c.x-8, 0, c.speed, 0)
			crimes, events := collect(r, 90)
			hp := ecstest.Get[components.Health](r.W, ped).HP
			act := ecstest.Get[components.PersonAction](r.W, ped).Act
			if got := hp < 100; got != c.hurt {
				t.Fatalf("hurt %v (hp %d), want %v", got, hp, c.hurt)
			}
			if got := hp == 0; got != c.killed {
				t.Fatalf("killed %v (hp %d), want %v", got, hp, c.killed)
			}
			if c.killed && act != components.ActDead {
				t.Fatalf("dead pedestrian act %d", act)
			}
			hits := 0
			var dealt float32
			for _, ev := range events {
				if ev.Kind == components.EventHit && ev.Target == ped {
					hits++
					dealt += ev.Amount
					if ev.Source != car {
						t.Fatalf("hit source %v, want the car %v", ev.Source, car)
					}
				}
			}
			if c.hurt && (hits == 0 || int(dealt) != 100-int(hp)) {
				t.Fatalf("hit events %d dealing %v, hp lost %d", hits, dealt, 100-hp)
			}
			want := components.CrimeHitPedestrian
			if c.killed {
				want = components.CrimeKillPedestrian
			}
			n := 0
			for _, cr := range crimes {
				if cr.Victim == ped {
					if cr.Offender != driver {
						t.Fatalf("crime offender %v, want the driver %v", cr.Offender, driver)
					}
					if cr.Kind == want {
						n++
					}
				}
			}
			if c.hurt != (n > 0) {
				t.Fatalf("%d crimes of kind %d, hurt %v", n, want, c.hurt)
			}
		})
	}
}

func TestNoDriverNoCrime(t *testing.T) {
	r := rig(t, ecs.Rules{PlayersHurt: "on"})
	ped := r.Pedestrian(t, 8, 0)
	car := r.Vehicle(t, components.KindCar, phys.ModelSedan, 0, 0, 0)
	ecstest.Get[components.Velocity](r.W, car).Lin.X = 15
	crimes, _ := collect(r, 90)
	if hp := ecstest.Get[components.Health](r.W, ped).HP; hp == 100 {
		t.Fatal("a runaway car hurt nobody")
	}
	if len(crimes) != 0 {
		t.Fatalf("crimes %v with nobody at the wheel", crimes)
	}
}

func TestPlayersHurtRule(t *testing.T) {
	cases := []struct {
		rule         string
		party1, part uint16
		hurt         bool
	}{
		{"on", 1, 1, true},
		{"off", 1, 2, false},
		{"rivals", 1, 1, false},
		{"rivals", 1, 2, true},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			r := rig(t, ecs.Rules{PlayersHurt: c.rule})
			_, driver := drivenCar(t, r, 0, 0, 15, 0)
			victim := r.Character(t, 8, 0, 0)
			ecstest.Get[components.Identity](r.W, driver).Party = c.party1
			ecstest.Get[components.Identity](r.W, victim).Party = c.part
			crimes, _ := collect(r, 90)
			hp := ecstest.Get[components.Health](r.W, victim).HP
			if (hp < 100) != c.hurt {
				t.Fatalf("victim hp %d, want hurt %v", hp, c.hurt)
			}
			assaults := 0
			for _, cr := range crimes {
				if cr.Kind == components.CrimeAssault && cr.Offender == driver && cr.Victim == victim {
					assaults++
				}
			}
			if (assaults > 0) != c.hurt {
				t.Fatalf("%d assaults, want hurt %v", assaults, c.hurt)
			}
		})
	}
}

func TestGhostTakesNoDamage(t *testing.T) {
	r := rig(t, ecs.Rules{PlayersHurt: "on"})
	drivenCar(t, r, 0, 0, 25, 0)
	victim := r.Character(t, 8, 0, 0)
	ecstest.Get[components.Flags](r.W, victim).Bits |= components.FlagGhost
	collect(r, 60)
	if hp := ecstest.Get[components.Health](r.W, victim).HP; hp != 100 {
		t.Fatalf("a ghost lost health: %d", hp)
	}
}

func TestWreckStopsAndExplodes(t *testing.T) {
	r := rig(t, ecs.Rules{PlayersHurt: "on"})
	car, driver := drivenCar(t, r, 40, 0, 40, 1)
	ped := r.Pedestrian(t, 55, 6) // beside the crash, clear of the car's path
	far := r.Pedestrian(t, 30, 30)
	var wreckedAt uint64
	for i := 0; i < 120 && wreckedAt == 0; i++ {
		r.W.Step()
		if ecstest.Get[components.Flags](r.W, car).Bits&components.FlagWrecked != 0 {
			wreckedAt = r.W.Tick()
		}
	}
	if wreckedAt == 0 {
		t.Fatalf("a 40 m/s crash into a wall left hp %d", ecstest.Get[components.Health](r.W, car).HP)
	}
	if r.Damage.Pending() != 1 {
		t.Fatalf("pending blasts %d", r.Damage.Pending())
	}
	// Full throttle held: the wreck still stands within a second.
	r.Step(60)
	v := ecstest.Get[components.Velocity](r.W, car).Lin
	if v.X*v.X+v.Y*v.Y > 0.01 {
		t.Fatalf("wreck still moving at %v", v)
	}
	_, events := collect(r, damage.BlastDelay)
	blasts := 0
	for _, ev := range events {
		if ev.Kind == components.EventBlast && ev.Source == car {
			blasts++
		}
	}
	if blasts != 1 {
		t.Fatalf("%d blasts", blasts)
	}
	if hp := ecstest.Get[components.Health](r.W, ped).HP; hp == 100 {
		t.Fatal("the blast hurt nobody beside it")
	}
	if hp := ecstest.Get[components.Health](r.W, far).HP; hp != 100 {
		t.Fatalf("the blast hurt someone 30 m away: %d", hp)
	}
	if hp := ecstest.Get[components.Health](r.W, driver).HP; hp != 0 {
		t.Fatalf("the driver of the exploding car has %d hp", hp)
	}
	if a := ecstest.Get[components.PersonAction](r.W, driver).Act; a != components.ActDead {
		t.Fatalf("driver act %d", a)
	}
}

func TestRamPolice(t *testing.T) {
	for _, playerRams := range []bool{true, false} {
		r := rig(t, ecs.Rules{PlayersHurt: "on"})
		var player, cop ecs.Entity
		if playerRams {
			_, player = drivenCar(t, r, 0, 0, 15, 0)
			cop = r.Vehicle(t, components.KindPoliceCar, phys.ModelPolice, 8, 0, 0)
		} else {
			cop = r.Vehicle(t, components.KindPoliceCar, phys.ModelPolice, 0, 0, 0)
			ecstest.Get[components.Velocity](r.W, cop).Lin.X = 15
			car := r.Vehicle(t, components.KindCar, phys.ModelSedan, 8, 0, 0)
			player = r.Character(t, 8, 3, 0)
			r.Seat(player, car)
		}
		crimes, _ := collect(r, 60)
		if hp := ecstest.Get[components.Health](r.W, cop).HP; hp == 1000 {
			t.Fatal("the crash hurt no car")
		}
		rams := 0
		for _, c := range crimes {
			if c.Kind == components.CrimeRamPolice && c.Offender == player && c.Victim == cop {
				rams++
			}
		}
		if (rams > 0) != playerRams {
			t.Fatalf("player rams %v: %d CrimeRamPolice", playerRams, rams)
		}
	}
}

// TestSteadyAllocatesNothing steps cars grinding into each other and a
// wall, and counts allocations per tick once the buffers have grown.
func TestSteadyAllocatesNothing(t *testing.T) {
	r := rig(t, ecs.Rules{PlayersHurt: "on"})
	for i := range 10 {
		drivenCar(t, r, 50, float32(i)*3-15, 0, 1)
		r.Pedestrian(t, -50, float32(i)*2)
	}
	r.Step(240)
	if allocs := testing.AllocsPerRun(100, r.W.Step); allocs != 0 {
		t.Fatalf("%v allocations per tick", allocs)
	}
}

// TestDeathCause: a player killed is told how and by whom
// (components.Death), each way a player dies here.
func TestDeathCause(t *testing.T) {
	type setup func(t *testing.T, r *citytest.Rig) (victim ecs.Entity, by uint16)
	cases := []struct {
		name  string
		setup setup
		ticks int
		cause components.DeathCause
		kind  components.Kind
	}{
		{"run over by a player", func(t *testing.T, r *citytest.Rig) (ecs.Entity, uint16) {
			t.Helper()
			_, driver := drivenCar(t, r, 0, 0, 30, 0)
			return r.Character(t, 8, 0, 0), ecstest.Get[components.Identity](r.W, driver).Player
		}, 60, components.DeathRunOver, components.KindCharacter},
		{"run over by a car nobody drives", func(t *testing.T, r *citytest.Rig) (ecs.Entity, uint16) {
			t.Helper()
			car := r.Vehicle(t, components.KindCar, phys.ModelSedan, 0, 0, 0)
			ecstest.Get[components.Velocity](r.W, car).Lin.X = 30
			return r.Character(t, 8, 0, 0), 0
		}, 60, components.DeathRunOver, components.KindCar},
		{"in their car, wrecked against a wall", func(t *testing.T, r *citytest.Rig) (ecs.Entity, uint16) {
			t.Helper()
			_, driver := drivenCar(t, r, 40, 0, 40, 1)
			return driver, 0
		}, 120 + damage.BlastDelay, components.DeathWreck, components.KindNone},
		{"in their car, rammed by the police", func(t *testing.T, r *citytest.Rig) (ecs.Entity, uint16) {
			t.Helper()
			// Their car stands against the wall: the police car
			// crushes it there.
			cop := r.Vehicle(t, components.KindPoliceCar, phys.ModelPolice, 20, 0, 0)
			ecstest.Get[components.Velocity](r.W, cop).Lin.X = 45
			car := r.Vehicle(t, components.KindCar, phys.ModelSedan, 57, 0, 0)
			p := r.Character(t, 57, 3, 0)
			r.Seat(p, car)
			return p, 0
		}, 60 + damage.BlastDelay, components.DeathWreck, components.KindPoliceCar},
		{"beside a wreck", func(t *testing.T, r *citytest.Rig) (ecs.Entity, uint16) {
			t.Helper()
			drivenCar(t, r, 40, 0, 40, 1)
			return r.Character(t, 58, 1.8, 0), 0
		}, 120 + damage.BlastDelay, components.DeathExplosion, components.KindNone},
		{"a player's grenade", func(t *testing.T, r *citytest.Rig) (ecs.Entity, uint16) {
			t.Helper()
			thrower := r.Character(t, -30, 0, 0)
			victim := r.Character(t, 0, 0, 0)
			if _, err := r.B.Thrown(components.Vec3{X: 1}, components.Vec3{}, components.Projectile{By: thrower, Blast: 2, Radius: 8, Harm: 500}); err != nil {
				t.Fatal(err)
			}
			return victim, ecstest.Get[components.Identity](r.W, thrower).Player
		}, 10, components.DeathExplosion, components.KindCharacter},
		{"a guard's rounds", func(t *testing.T, r *citytest.Rig) (ecs.Entity, uint16) {
			t.Helper()
			guard, err := r.B.NPCPerson(components.KindGuard, components.RoleGuard, -1, components.Vec3{X: -10}, 0)
			if err != nil {
				t.Fatal(err)
			}
			victim := r.Character(t, 0, 0, 0)
			// A round a tick from the guard at the victim, as the
			// weapons system would fire it.
			r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) {
				if e == victim {
					r.W.Events = append(r.W.Events, components.Event{Kind: components.EventShot, Source: guard,
						Pos: components.Vec3{X: -9.5}, Dir: components.Vec3{X: 1}, Amount: 40})
				}
			}
			return victim, 0
		}, 5, components.DeathShot, components.KindGuard},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rig(t, ecs.Rules{PlayersHurt: "on"})
			victim, by := c.setup(t, r)
			r.Step(c.ticks)
			if hp := ecstest.Get[components.Health](r.W, victim).HP; hp != 0 {
				t.Fatalf("the victim lives, %d hp", hp)
			}
			d := ecstest.Get[components.Death](r.W, victim)
			if d.Cause != c.cause || d.By != c.kind || d.Player != by || d.Tick == 0 {
				t.Fatalf("death %+v, want cause %d by %v player %d", *d, c.cause, c.kind, by)
			}
		})
	}
}

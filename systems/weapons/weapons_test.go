package weapons_test

import (
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/ecs/ecstest"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems/city/citytest"
	"github.com/fiveonit/engine/systems/damage"
	"github.com/fiveonit/engine/systems/systemstest"
	"github.com/fiveonit/engine/systems/weapons"
	"github.com/mlange-42/arche/generic"
)

// level has a wall at x in [20, 22] for y in [20, 40] and a safe zone at
// y in [60, 80].
const level = `{
  "name": "test-weapons",
  "version": 1,
  "ground": {"min":[-200,-200],"max":[200,200]},
  "buildings": [
    {"id":"wall","footprint":[[20,20],[22,20],[22,40],[20,40]],"height":3,"use":"wall"}
  ],
  "zones": [
    {"id":"grounds","kind":"safe","polygon":[[-100,60],[100,60],[100,80],[-100,80]]}
  ]
}`

func TestShots(t *testing.T) {
	cases := []struct {
		name     string
		y        float32 // the row the shooter and the target stand on
		targetX  float32 // the target's x; the shooter is at x = 0 facing east
		weapon   uint8
		seated   bool
		shots    int // rounds fired in one second
		wantHurt bool
	}{
		{"hit at 10 m", 0, 10, weapons.Pistol, false, 4, true},
		{"bare hands", 0, 10, 0, false, 0, false},
		{"in a car", 0, 10, weapons.Pistol, true, 0, false},
		{"out of range", 0, damage.ShotRange + 5, weapons.Pistol, false, 4, false},
		{"behind a wall", 30, 30, weapons.Pistol, false, 4, false},
		{"in the safe zone", 70, 10, weapons.Pistol, false, 4, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := citytest.New(t, systemstest.Parse(t, "test-weapons", level), citytest.Options{Seed: 1, Rules: ecs.Rules{PlayersHurt: "on"}})
			shooter := r.Character(t, 0, c.y, 0)
			r.Give(t, shooter, "pistol", 1)
			r.Give(t, shooter, "pistol-ammo", 100)
			target := r.Pedestrian(t, c.targetX, c.y)
			bystander := r.Pedestrian(t, 5, c.y+5) // beside the line of fire
			ecstest.Get[components.PersonAction](r.W, shooter).Weapon = c.weapon
			if c.seated {
				car := r.Vehicle(t, components.KindCar, phys.ModelSedan, 0, c.y-20, 0)
				r.Seat(shooter, car)
			}
			r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) {
				if e == shooter {
					d.Held |= components.BtnFire
				}
			}
			shots, crimes := 0, 0
			for range ecs.TickRate {
				r.W.Step()
				for _, ev := range citytest.Events(r.W, components.EventShot) {
					if ev.Source != shooter || ev.Dir.X < 0.99 {
						t.Fatalf("shot %+v", ev)
					}
					shots++
				}
				for _, cr := range citytest.Crimes(r.W, components.CrimeShooting) {
					if cr.Offender == shooter {
						crimes++
					}
				}
			}
			if shots != c.shots || crimes != c.shots {
				t.Fatalf("%d shots, %d shooting crimes, want %d", shots, crimes, c.shots)
			}
			hp := ecstest.Get[components.Health](r.W, target).HP
			if c.wantHurt != (hp < 100) {
				t.Fatalf("target hp %d, want hurt %v", hp, c.wantHurt)
			}
			if c.wantHurt && hp != 100-weapons.PistolHarm*uint16(c.shots) {
				t.Fatalf("target hp %d after %d rounds", hp, c.shots)
			}
			if hp := ecstest.Get[components.Health](r.W, bystander).HP; hp != 100 {
				t.Fatal("a round hit the bystander beside the line of fire")
			}
		})
	}
}

func TestShotHitsACar(t *testing.T) {
	r := citytest.New(t, systemstest.Parse(t, "test-weapons", level), citytest.Options{Seed: 1, Rules: ecs.Rules{PlayersHurt: "on"}})
	shooter := r.Character(t, 0, 0, 0)
	r.Give(t, shooter, "pistol", 1)
	r.Give(t, shooter, "pistol-ammo", 100)
	ecstest.Get[components.PersonAction](r.W, shooter).Weapon = weapons.Pistol
	car := r.Vehicle(t, components.KindCar, phys.ModelSedan, 15, 0, 1.5707964)
	behind := r.Pedestrian(t, 20, 0)
	r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) { d.Held |= components.BtnFire }
	r.Step(ecs.TickRate)
	if hp := ecstest.Get[components.Health](r.W, car).HP; hp != 1000-4*weapons.PistolHarm {
		t.Fatalf("car hp %d", hp)
	}
	if hp := ecstest.Get[components.Health](r.W, behind).HP; hp != 100 {
		t.Fatal("a round went through the car")
	}
}

func TestSteadyAllocatesNothing(t *testing.T) {
	r := citytest.New(t, systemstest.Parse(t, "test-weapons", level), citytest.Options{Seed: 1, Rules: ecs.Rules{PlayersHurt: "on"}})
	for i := range 10 {
		s := r.Character(t, 0, float32(i)*3, 0)
		r.Give(t, s, "pistol", 1)
		r.Give(t, s, "pistol-ammo", 1000)
		ecstest.Get[components.PersonAction](r.W, s).Weapon = weapons.Pistol
		r.Vehicle(t, components.KindCar, phys.ModelVan, 15, float32(i)*3, 1.5707964)
	}
	r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) { d.Held |= components.BtnFire }
	r.Step(60)
	if allocs := testing.AllocsPerRun(100, r.W.Step); allocs != 0 {
		t.Fatalf("%v allocations per tick", allocs)
	}
}

// TestDrawAndHolster: a BtnWeapon press draws the pistol of a person on
// foot who carries one and a second one holsters it; one seated in a car
// does not draw, nor one with no pistol. Only with the pistol drawn does
// the held trigger fire.
func TestDrawAndHolster(t *testing.T) {
	r := citytest.New(t, systemstest.Parse(t, "test-weapons", level), citytest.Options{Seed: 1})
	walker := r.Character(t, 0, 0, 0)
	driver := r.Character(t, 0, -10, 0)
	unarmed := r.Character(t, 0, 10, 0)
	for _, e := range []ecs.Entity{walker, driver} {
		r.Give(t, e, "pistol", 1)
		r.Give(t, e, "pistol-ammo", 10)
	}
	r.Seat(driver, r.Vehicle(t, components.KindCar, phys.ModelSedan, 0, -20, 0))
	press := map[uint64]bool{}
	r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) {
		d.Held |= components.BtnFire
		if press[tick] {
			d.Pressed |= components.BtnWeapon
		}
	}
	steps := []struct {
		press      bool
		want       uint8 // the walker's weapon after the tick
		wantDriver uint8
	}{
		{false, 0, 0},
		{true, weapons.Pistol, 0},
		{false, weapons.Pistol, 0},
		{true, 0, 0},
		{true, weapons.Pistol, 0},
	}
	for i, s := range steps {
		press[r.W.Tick()] = s.press
		r.W.Step()
		shots := len(citytest.Events(r.W, components.EventShot))
		if got := ecstest.Get[components.PersonAction](r.W, walker).Weapon; got != s.want {
			t.Fatalf("step %d: the walker holds %d, want %d", i, got, s.want)
		}
		if got := ecstest.Get[components.PersonAction](r.W, driver).Weapon; got != s.wantDriver {
			t.Fatalf("step %d: the driver holds %d, want %d", i, got, s.wantDriver)
		}
		if got := ecstest.Get[components.PersonAction](r.W, unarmed).Weapon; got != 0 {
			t.Fatalf("step %d: the unarmed person holds %d", i, got)
		}
		switch {
		case s.want == 0 && shots > 0:
			t.Fatalf("step %d: %d shots with the pistol holstered", i, shots)
		case i == 1 && shots != 1:
			t.Fatalf("step %d: %d shots as the pistol is drawn with the trigger held, want 1", i, shots)
		}
	}
}

// TestAmmoRunsOut: each round takes one of the gun's ammunition; with none
// left the trigger clicks. Dropping the gun empties the hand.
func TestAmmoRunsOut(t *testing.T) {
	r := citytest.New(t, systemstest.Parse(t, "test-weapons", level), citytest.Options{Seed: 1})
	p := r.Character(t, 0, 0, 0)
	r.Give(t, p, "pistol", 1)
	r.Give(t, p, "pistol-ammo", 3)
	ecstest.Get[components.PersonAction](r.W, p).Weapon = weapons.Pistol
	r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) { d.Held |= components.BtnFire }
	shots := 0
	for range 2 * ecs.TickRate {
		r.W.Step()
		shots += len(citytest.Events(r.W, components.EventShot))
	}
	ammo, _ := r.W.Items.ByName("pistol-ammo")
	if inv := ecstest.Get[components.Inventory](r.W, p); shots != 3 || inv.Count(ammo) != 0 {
		t.Fatalf("%d shots, %d rounds left: want 3 and 0", shots, inv.Count(ammo))
	}
	pistol, _ := r.W.Items.ByName("pistol")
	ecstest.Get[components.Inventory](r.W, p).Remove(pistol, 1)
	r.W.Step()
	if got := ecstest.Get[components.PersonAction](r.W, p).Weapon; got != 0 {
		t.Fatalf("holds %d with no pistol", got)
	}
}

// TestGrenade: BtnPin held pulls the pin and keeps it (no throw however
// long it is held: the input queue's guess keeps it held); the release
// throws a projectile that flies, lands and blows after its fuse, hurting
// who is near and leaving no projectile; the grenade is used up.
func TestGrenade(t *testing.T) {
	r := citytest.New(t, systemstest.Parse(t, "test-weapons", level), citytest.Options{Seed: 1, Rules: ecs.Rules{PlayersHurt: "on"}})
	p := r.Character(t, 0, -40, 0) // facing east, away from the wall
	r.Give(t, p, "grenade", 2)
	near := r.Pedestrian(t, 17, -40)
	far := r.Pedestrian(t, 40, -40)
	hold := 20
	r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) {
		if tick < uint64(hold) {
			d.Held |= components.BtnPin
		}
	}
	for range hold {
		r.W.Step()
		if n := citytest.Count[components.Projectile](r.W, components.KindProjectile); n != 0 {
			t.Fatal("thrown while the pin is held")
		}
	}
	if got := ecstest.Get[components.PersonAction](r.W, p).Weapon; got != components.WeaponGrenade {
		t.Fatalf("holds %d with the pin out, want the grenade", got)
	}
	r.W.Step() // released
	if n := citytest.Count[components.Projectile](r.W, components.KindProjectile); n != 1 {
		t.Fatalf("%d projectiles after the release, want 1", n)
	}
	grenade, _ := r.W.Items.ByName("grenade")
	if inv := ecstest.Get[components.Inventory](r.W, p); inv.Count(grenade) != 1 {
		t.Fatalf("%d grenades left, want 1", inv.Count(grenade))
	}
	var maxH float32
	blasts := 0
	for range weapons.FuseTicks {
		f := generic.NewFilter2[components.Projectile, components.Pose]()
		q := f.Query(r.W.Arche)
		for q.Next() {
			pr, _ := q.Get()
			maxH = max(maxH, pr.Height)
		}
		r.W.Step()
		for _, ev := range citytest.Events(r.W, components.EventBlast) {
			blasts++
			if ev.Other != p || ev.Pos.X < 12 || ev.Pos.X > 22 {
				t.Fatalf("blast %+v: by the thrower, 12 to 22 m east", ev)
			}
		}
	}
	if blasts != 1 || citytest.Count[components.Projectile](r.W, components.KindProjectile) != 0 {
		t.Fatalf("%d blasts, want 1, and the grenade gone", blasts)
	}
	if maxH < 2 {
		t.Fatalf("flew no higher than %.2f m", maxH)
	}
	if hp := ecstest.Get[components.Health](r.W, near).HP; hp == 100 {
		t.Fatal("the pedestrian beside the blast is unhurt")
	}
	if hp := ecstest.Get[components.Health](r.W, far).HP; hp != 100 {
		t.Fatal("the pedestrian far away is hurt")
	}
}

// TestGrenadeBouncesOffAWall: thrown at the wall, it comes back.
func TestGrenadeBouncesOffAWall(t *testing.T) {
	r := citytest.New(t, systemstest.Parse(t, "test-weapons", level), citytest.Options{Seed: 1})
	p := r.Character(t, 14, 30, 0) // 6 m west of the wall, facing it
	r.Give(t, p, "grenade", 1)
	r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) {
		if tick < ecs.TickRate {
			d.Held |= components.BtnPin
		}
	}
	r.Step(ecs.TickRate + 1)
	var x float32
	for range ecs.TickRate {
		r.W.Step()
		f := generic.NewFilter2[components.Projectile, components.Pose]()
		q := f.Query(r.W.Arche)
		for q.Next() {
			_, pose := q.Get()
			x = pose.Pos.X
		}
		if x > 20 {
			t.Fatalf("went through the wall: x %.2f", x)
		}
	}
	if x > 19 {
		t.Fatalf("did not bounce back: x %.2f", x)
	}
}

// TestNoGrenadeNoPin: BtnPin with no grenade does nothing.
func TestNoGrenadeNoPin(t *testing.T) {
	r := citytest.New(t, systemstest.Parse(t, "test-weapons", level), citytest.Options{Seed: 1})
	p := r.Character(t, 0, 0, 0)
	r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) {
		if tick%20 < 10 {
			d.Held |= components.BtnPin
		}
	}
	r.Step(60)
	if ecstest.Get[components.PersonAction](r.W, p).Weapon != 0 || citytest.Count[components.Projectile](r.W, components.KindProjectile) != 0 {
		t.Fatal("a pin pulled from no grenade")
	}
}

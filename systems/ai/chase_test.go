package ai_test

import (
	"testing"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/ecs/ecstest"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems/ai"
	"github.com/fiveonit/engine/systems/pedestrians"
	"github.com/fiveonit/engine/systems/systemstest"
	"github.com/mlange-42/arche/generic"
)

// policeCar makes a police car at (x, y) facing yaw chasing target.
func (r *rig) policeCar(t testing.TB, x, y, yaw float32, target ecs.Entity) ecs.Entity {
	t.Helper()
	e, err := r.B.Vehicle(components.KindPoliceCar, phys.ModelPolice, components.Vec3{X: x, Y: y}, yaw, ecs.Entity{})
	if err != nil {
		t.Fatal(err)
	}
	chaserOf := generic.NewMap1[components.Chaser](r.W.Arche)
	chaserOf.Assign(e, &components.Chaser{Target: target})
	return e
}

// TestChaserReaches sends a police car after a player standing still
// blocks away on main-city: it gets to them along the roads (round the
// buildings, through the traffic), sees them when near, and pulls up
// against them.
func TestChaserReaches(t *testing.T) {
	cases := []struct {
		name         string
		fromX, fromY float32
		yaw          float32
		targX, targY float32
		traffic      int
		within       int // seconds
	}{
		{"across the city", -200, -193.75, 0, 150, 193.75, 0, 60},
		{"through traffic", -200, -193.75, 0, 150, 193.75, 30, 70},
		{"facing away", 100, -97.75, 0, -150, 100, 0, 60},
		{"out of the police lot", 228, -284, -math32.Pi / 2, 0, -150, 0, 60},
	}
	l := systemstest.Load(t, "main-city")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, l, ecs.Rules{Traffic: c.traffic, Pedestrians: 0}, 1, nil)
			target := r.Character(t, c.targX, c.targY, 0)
			car := r.policeCar(t, c.fromX, c.fromY, c.yaw, target)
			tp := phys.Vec{X: c.targX, Y: c.targY}
			if r.Static.Overlaps(tp, 0.5) || r.Static.Overlaps(phys.Vec{X: c.fromX, Y: c.fromY}, 2.5) {
				t.Fatal("the test's places are in buildings")
			}
			start := r.Pos(car).Sub(tp).Len()
			reached := -1
			for sec := 0; sec < c.within && reached < 0; sec++ {
				r.Step(60)
				if r.Pos(car).Sub(r.Pos(target)).Len() < 8 {
					reached = sec
				}
				if testing.Verbose() && sec%2 == 0 {
					ro := r.ai.Readout()
					t.Logf("t=%d pos %v %+v", sec, r.Pos(car), ro.Chasers)
				}
			}
			if reached < 0 {
				ro := r.ai.Readout()
				t.Fatalf("from %.0f m away, still %.0f m off after %d s: %+v", start, r.Pos(car).Sub(r.Pos(target)).Len(), c.within, ro.Chasers)
			}
			r.Step(60 * 3)
			if !ecstest.Get[components.Chaser](r.W, car).Sees {
				t.Fatal("beside its target and does not see it")
			}
			if v := r.Speed(car); v > 2 {
				t.Fatalf("at its standing target and going %.1f m/s", v)
			}
			t.Logf("%.0f m in %d s", start, reached+1)
		})
	}
}

// TestChaserSees checks Sees: in sight within range, not behind a
// building, not too far.
func TestChaserSees(t *testing.T) {
	l := systemstest.Load(t, "main-city")
	cases := []struct {
		name   string
		cx, cy float32
		tx, ty float32
		want   bool
	}{
		{"along the street", -150, -193.75, -100, -193.75, true},
		{"round the corner", 140, -97.75, 94.25, -50, false},
		{"too far", -350, -193.75, 0, -193.75, false},
	}
	for _, c := range cases {
		r := newRig(t, l, ecs.Rules{}, 1, nil)
		target := r.Character(t, c.tx, c.ty, 0)
		car := r.policeCar(t, c.cx, c.cy, 0, target)
		r.Step(1)
		if got := ecstest.Get[components.Chaser](r.W, car).Sees; got != c.want {
			t.Errorf("%s: Sees %v, want %v", c.name, got, c.want)
		}
	}
}

// TestChaserTakenByPlayer: a player at the wheel of a chaser drives it;
// the AI leaves it alone.
func TestChaserTakenByPlayer(t *testing.T) {
	l := systemstest.Load(t, "main-city")
	r := newRig(t, l, ecs.Rules{}, 1, nil)
	target := r.Character(t, -100, -193.75, 0)
	car := r.policeCar(t, -150, -193.75, 0, target)
	thief := r.Character(t, -150, -193.75+2.4, 0)
	r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) {
		if e == thief && tick == 0 {
			d.Pressed = components.BtnUse
		}
	}
	r.Step(60)
	if s := ecstest.Get[components.Seats](r.W, car); s.Occupant[0] != thief {
		t.Fatal("the thief is not at the wheel")
	}
	if p := r.Pos(car); p.Sub(phys.Vec{X: -150, Y: -193.75}).Len() > 1 {
		t.Fatalf("the AI drove the taken car to %v", p)
	}
}

// TestCarjackedTrafficReleased: a player pulls the driver out of an
// ambient car: the car is an ordinary one from then on, and the driver,
// on foot, runs away as a pedestrian.
func TestCarjackedTrafficReleased(t *testing.T) {
	l := systemstest.Parse(t, "test", crossLevel)
	r := newRig(t, l, ecs.Rules{Traffic: 1}, 1, nil)
	car := r.trafficCar(t, phys.ModelSedan, -90, -1.75, 0, 0, 2)
	driver := ecstest.Get[components.Seats](r.W, car).Occupant[0]
	jacker := r.Character(t, -90, -1.75+2.3, 0)
	r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) {
		if tick == 0 {
			d.Pressed = components.BtnUse
		}
	}
	r.Step(2)
	if ecstest.Get[components.Seats](r.W, car).Occupant[0] != jacker {
		t.Fatal("no carjack")
	}
	if ecstest.Get[components.NPC](r.W, car) != nil || ecstest.Get[ai.Route](r.W, car) != nil {
		t.Fatal("the jacked car is still the AI's")
	}
	r.Step(60 * 2)
	npc := ecstest.Get[components.NPC](r.W, driver)
	if npc.Role != components.RoleWalker || npc.Mode&0x7f != pedestrians.ModeFlee {
		t.Fatalf("driver's NPC %+v: want a fleeing walker", *npc)
	}
	if d := r.Pos(driver).Sub(r.Pos(car)).Len(); d < 6 {
		t.Fatalf("the driver is %.1f m from the car after 2 s", d)
	}
}

// TestPoliceUnitRecalled drives a police unit as the police make it (an
// officer at the wheel): the AI chases with it, and when the police take
// its Chaser away it pulls up and stands.
func TestPoliceUnitRecalled(t *testing.T) {
	l := systemstest.Load(t, "main-city")
	r := newRig(t, l, ecs.Rules{}, 1, nil)
	target := r.Character(t, 150, 193.75, 0)
	car, officer, err := r.B.PoliceCar(components.Vec3{X: -200, Y: -193.75}, 0, target, 0)
	if err != nil {
		t.Fatal(err)
	}
	r.Step(60 * 5)
	if v := r.Speed(car); v < 8 {
		t.Fatalf("the unit goes %.1f m/s after 5 s of chase", v)
	}
	if a := ecstest.Get[components.PersonAction](r.W, officer); a.Act != components.ActDriving {
		t.Fatal("the officer left the wheel")
	}
	chaserOf := generic.NewMap1[components.Chaser](r.W.Arche)
	chaserOf.Remove(car)
	r.Step(60 * 5)
	if v := r.Speed(car); v > 0.2 {
		t.Fatalf("recalled, the unit still goes %.1f m/s", v)
	}
	if n := len(r.ai.Readout().Chasers); n != 0 {
		t.Fatalf("%d chasers in the readout", n)
	}
}

func TestReadoutText(t *testing.T) {
	r := ai.Readout{Tick: 1200, Traffic: 38, TrafficWant: 40, Pedestrians: 58, PedestriansWant: 60, Chasers: []ai.ChaserState{
		{WireID: 12, Target: 3, Mode: ai.ModeFollow, Dist: 84.25, Speed: 17.94, Lane: 17},
		{WireID: 13, Target: 3, Mode: ai.ModeDirect, Dist: 9.5, Speed: 3, Sees: true, Lane: -1},
	}}
	want := "ai tick 1200 traffic 38/40 crowd 58/60 chasers 2\n" +
		"chaser 12 -> 3 follow 84.2m 17.9m/s lane 17 unseen\n" +
		"chaser 13 -> 3 direct 9.5m 3.0m/s lane -1 sees"
	if got := string(r.AppendText(nil)); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// TestGuardCarsTakeTrafficsRoom sends six guard cars after a player, as a
// mission's getaway does: the ambient traffic spawns none while they
// chase and takes cars away until the two together keep the room's count.
func TestGuardCarsTakeTrafficsRoom(t *testing.T) {
	const traffic, guards = 20, 6
	l := systemstest.Load(t, "main-city")
	r := newRig(t, l, ecs.Rules{Traffic: traffic, Pedestrians: 0}, 3, nil)
	target := r.Character(t, 150, 193.75, 0)
	for sec := 0; sec < 30 && r.ai.Readout().Traffic < traffic; sec++ {
		r.Step(60)
	}
	if n := r.ai.Readout().Traffic; n != traffic {
		t.Fatalf("%d cars of traffic before the chase, want %d", n, traffic)
	}
	for i := range guards {
		if _, _, err := r.B.ChaserCar(phys.ModelVan, components.Vec3{X: -200 + 12*float32(i), Y: -193.75}, 0, target, r.W.Tick()); err != nil {
			t.Fatal(err)
		}
	}
	most := 0
	for range 90 {
		r.Step(60)
		most = max(most, r.ai.Readout().Traffic)
	}
	t.Logf("most %d, at the end %d, tick %d", most, r.ai.Readout().Traffic, r.W.Tick())
	if most > traffic {
		t.Errorf("traffic rose to %d cars with %d guard cars out, want at most %d", most, guards, traffic)
	}
	if n := r.ai.Readout().Traffic; n > traffic-guards {
		t.Errorf("%d cars of traffic after 90 s with %d guard cars out, want at most %d", n, guards, traffic-guards)
	}
}

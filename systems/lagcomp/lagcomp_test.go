package lagcomp_test

import (
	"testing"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/ecs/ecstest"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems/city/citytest"
	"github.com/fiveonit/engine/systems/lagcomp"
	"github.com/fiveonit/engine/systems/motion"
	"github.com/fiveonit/engine/systems/seats"
	"github.com/fiveonit/engine/systems/systemstest"
	"github.com/fiveonit/engine/systems/weapons"
)

// level has a wall at x in [8, 9] for y in [1.5, 40]: north of the line of
// fire y = 0 from the origin eastward, between the shooter and a car north
// of that line at x = 15.
const level = `{
  "name": "test-lagcomp",
  "version": 1,
  "ground": {"min":[-200,-200],"max":[200,200]},
  "buildings": [
    {"id":"wall","footprint":[[8,1.5],[9,1.5],[9,40],[8,40]],"height":3,"use":"wall"}
  ]
}`

func TestRewound(t *testing.T) {
	for _, c := range []struct {
		name            string
		now, view, want uint64
	}{
		{"no claim", 100, 0, 100},
		{"the present", 100, 100, 100},
		{"the future", 100, 101, 100},
		{"far future", 100, 1 << 40, 100},
		{"a tick ago", 100, 99, 99},
		{"within", 100, 80, 80},
		{"at the bound", 100, 100 - lagcomp.MaxRewind, 100 - lagcomp.MaxRewind},
		{"older than the bound", 100, 100 - lagcomp.MaxRewind - 1, 100 - lagcomp.MaxRewind},
		{"tick 1", 100, 1, 100 - lagcomp.MaxRewind},
		{"a young room", 10, 1, 1},
	} {
		if got := lagcomp.Rewound(c.now, c.view); got != c.want {
			t.Errorf("%s: Rewound(%d, %d) = %d, want %d", c.name, c.now, c.view, got, c.want)
		}
	}
}

func TestRay(t *testing.T) {
	circle := lagcomp.Hitbox{X: 10, Shape: components.ShapeCircle, Radius: 0.5}
	box := lagcomp.Hitbox{X: 10, Cos: 0, Sin: 1, Shape: components.ShapeBox, HalfX: 2.3, HalfY: 0.95} // heading north
	east, north := phys.Vec{X: 1}, phys.Vec{Y: 1}
	for _, c := range []struct {
		name  string
		h     lagcomp.Hitbox
		o, d  phys.Vec
		hit   bool
		wantT float32
	}{
		{"circle ahead", circle, phys.Vec{}, east, true, 9.5},
		{"circle beside", lagcomp.Hitbox{X: 10, Y: 0.6, Shape: components.ShapeCircle, Radius: 0.5}, phys.Vec{}, east, false, 0},
		{"circle behind", circle, phys.Vec{X: 20}, east, false, 0},
		{"inside a circle", circle, phys.Vec{X: 10}, east, false, 0},
		{"box across", box, phys.Vec{}, east, true, 9.05},
		{"box along", box, phys.Vec{X: 10, Y: -10}, north, true, 7.7},
		{"box beside", lagcomp.Hitbox{X: 10, Y: 2.4, Cos: 0, Sin: 1, Shape: components.ShapeBox, HalfX: 2.3, HalfY: 0.95}, phys.Vec{}, east, false, 0},
	} {
		tt, ok := c.h.Ray(c.o, c.d)
		if ok != c.hit || ok && math32.Abs(tt-c.wantT) > 1e-4 {
			t.Errorf("%s: %v at %v, want %v at %v", c.name, ok, tt, c.hit, c.wantT)
		}
	}
}

// rig is a world on the test level with the input, seats, weapons,
// physics, damage and the history in the schedule's order, and a car
// moved by hand: north at 15 m/s along x = 15, across the line of fire
// y = 0 at tick cross.
type rig struct {
	*citytest.Rig
	past    *lagcomp.History
	shooter ecs.Entity
	car     ecs.Entity
}

const (
	speed = 15 // m/s
	cross = 60 // the tick the car is on the line of fire
)

// carY is where the car is at tick k.
func carY(k uint64) float32 { return speed * (float32(k) - cross) / ecs.TickRate }

func newRig(t *testing.T) *rig {
	t.Helper()
	r := &rig{Rig: citytest.New(t, systemstest.Parse(t, "test-lagcomp", level), citytest.Options{Seed: 1})}
	w := r.W
	r.past = lagcomp.New(w)
	r.Damage.Rewind = r.past
	r.shooter = r.Character(t, 0, 0, 0)
	r.Give(t, r.shooter, "pistol", 1)
	r.Give(t, r.shooter, "pistol-ammo", 100)
	ecstest.Get[components.PersonAction](w, r.shooter).Weapon = weapons.Pistol
	r.car = r.Car(t, 15, carY(0), math32.Pi/2)
	mover := func(w *ecs.World) {
		p := ecstest.Get[components.Pose](w, r.car)
		p.Pos = components.Vec3{X: 15, Y: carY(w.Tick())}
		*ecstest.Get[components.Velocity](w, r.car) = components.Velocity{}
	}
	r.Schedule(t,
		ecs.Entry{Name: "input", Phase: ecs.PhaseInput, System: ecs.SystemFunc(r.Input)},
		ecs.Entry{Name: seats.Name, Phase: ecs.PhaseInput, System: seats.New(w, r.Static)},
		ecs.Entry{Name: weapons.Name, Phase: ecs.PhaseInput, System: weapons.New(w)},
		ecs.Entry{Name: "mover", Phase: ecs.PhasePreStep, System: ecs.SystemFunc(mover)},
		ecs.Entry{Name: motion.Name, Phase: ecs.PhaseStep, System: motion.New(w, r.Static)},
		ecs.Entry{Name: "damage", Phase: ecs.PhasePostStep, System: r.Damage},
		ecs.Entry{Name: lagcomp.Name, Phase: ecs.PhaseSync, System: r.past},
	)
	return r
}

// TestShotRewound: a round fired east along y = 0 at tick fire, by a
// shooter who saw tick view, hits the car when the car was on that line
// at the tick it is rewound to: what the shooter saw, never more than
// MaxRewind ticks back, the present for no view or one in the future. The
// car north of the line is behind the wall now, but not where the shooter
// saw it: the wall stays where it is, and the round reaches it.
func TestShotRewound(t *testing.T) {
	for _, c := range []struct {
		name       string
		fire, view uint64
		hit        bool
	}{
		{"present, on the line", cross, 0, true},
		{"present, gone on", cross + 20, 0, false}, // 5 m on, behind the wall
		{"rewound to what it saw", cross + 20, cross, true},
		{"rewound, a tick off", cross + 20, cross + 1, true},
		{"rewound, 12 ticks off", cross + 20, cross + 12, false}, // 3 m off: the car is 2.3 m from its centre
		{"rewound to the bound", cross + lagcomp.MaxRewind, cross, true},
		{"older than the bound", cross + lagcomp.MaxRewind + 20, cross, false}, // rewound 30 ticks: 5 m on
		{"the future", cross + 20, cross + 100, false},
		{"the future, on the line", cross, cross + 100, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t)
			r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) {
				if tick == c.fire {
					d.Held |= components.BtnFire
					d.View = c.view
				}
			}
			shots := 0
			for r.W.Tick() <= c.fire {
				r.W.Step()
				shots += len(citytest.Events(r.W, components.EventShot))
			}
			if shots != 1 {
				t.Fatalf("%d shots", shots)
			}
			hp := ecstest.Get[components.Health](r.W, r.car).HP
			if hit := hp < 1000; hit != c.hit {
				t.Fatalf("hit %v (hp %d), want %v", hit, hp, c.hit)
			}
		})
	}
}

// TestPastRecords: the history holds each of the last MaxRewind ticks'
// bodies where they stood at that tick's end, the people seated in a
// vehicle left out; older ticks are gone.
func TestPastRecords(t *testing.T) {
	r := newRig(t)
	driver := r.Character(t, -20, -20, 0)
	van := r.Vehicle(t, components.KindCar, phys.ModelVan, -20, -20, 0)
	r.Seat(driver, van)
	r.Step(100)
	now := r.W.Tick()
	for view := now - lagcomp.MaxRewind; view < now; view++ {
		past, ok := r.past.Past(now, view)
		if !ok {
			t.Fatalf("tick %d not held at %d", view, now)
		}
		found := false
		for _, h := range past {
			switch h.E {
			case r.car:
				found = true
				if h.Y != carY(view) || h.X != 15 {
					t.Fatalf("tick %d: car at %v,%v, want 15,%v", view, h.X, h.Y, carY(view))
				}
			case driver:
				t.Fatal("a driver recorded: the vehicle takes the round")
			}
		}
		if !found {
			t.Fatalf("tick %d: no car", view)
		}
	}
	if _, ok := r.past.Past(now, now); ok {
		t.Fatal("the present rewound")
	}
	// Older than the ring: its oldest tick.
	past, _ := r.past.Past(now, 1)
	for _, h := range past {
		if h.E == r.car && h.Y != carY(now-lagcomp.MaxRewind) {
			t.Fatalf("clamped to y %v, want %v", h.Y, carY(now-lagcomp.MaxRewind))
		}
	}
}

// TestSteadyAllocatesNothing: recording 1,000 bodies a tick and rewinding
// shots allocates nothing once the ring has room for them.
func TestSteadyAllocatesNothing(t *testing.T) {
	r := newRig(t)
	for i := range 500 {
		x, y := float32(i%25)*6-75, float32(i/25)*6+50
		r.Car(t, x, y, 0)
		r.Pedestrian(t, x, y+3)
	}
	r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) {
		d.Held |= components.BtnFire
		d.View = tick - 10
	}
	r.Step(2 * lagcomp.MaxRewind)
	if allocs := testing.AllocsPerRun(100, r.W.Step); allocs != 0 {
		t.Fatalf("%v allocations per tick", allocs)
	}
}

// TestCreepingCountAllocatesNothing: bodies that come one at a time, as
// players join and pedestrians spawn, do not make the ring's slots grow
// at each new high. The ring fills with 250 bodies, and then a pedestrian
// comes every other tick, 50 in all: the count passes 256, where a slot
// grown by append alone would be full.
func TestCreepingCountAllocatesNothing(t *testing.T) {
	r := newRig(t)
	for i := range 124 { // and the shooter and the car
		x, y := float32(i%25)*6-75, float32(i/25)*6+50
		r.Car(t, x, y, 0)
		r.Pedestrian(t, x, y+3)
	}
	r.Step(2 * lagcomp.MaxRewind)
	var allocs float64
	for i := range 50 {
		r.Pedestrian(t, float32(i%25)*6-75, float32(i/25)*6-30)
		allocs += testing.AllocsPerRun(1, r.W.Step) // a step unmeasured, then one measured
	}
	if allocs != 0 {
		t.Fatalf("%v allocations in 50 ticks while the bodies crept from 250 to 300", allocs)
	}
}

// BenchmarkRecord times the history's Update alone: the hitboxes of 1,000
// bodies (500 cars, 500 people on foot) a tick.
func BenchmarkRecord(b *testing.B) {
	r := &rig{Rig: citytest.New(b, systemstest.Parse(b, "test-lagcomp", level), citytest.Options{Seed: 1})}
	h := lagcomp.New(r.W)
	for i := range 500 {
		x, y := float32(i%25)*6-75, float32(i/25)*6+50
		r.Car(b, x, y, 0)
		r.Pedestrian(b, x, y+3)
	}
	for range lagcomp.MaxRewind {
		h.Update(r.W)
		r.W.Clock.Tick++
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		h.Update(r.W)
		r.W.Clock.Tick++
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/body")
}

// blastRig is a world on the test level with the schedule of newRig, a
// car moved by hand north at speed along x = 15, beside y = 0 at tick
// cross, and a thrower at (34, 0) facing west with a grenade.
type blastRig struct {
	*citytest.Rig
	thrower ecs.Entity
	car     ecs.Entity
	cross   uint64
}

// y is where the car of r is at tick k.
func (r *blastRig) y(k uint64) float32 {
	return speed * (float32(k) - float32(r.cross)) / ecs.TickRate
}

func newBlastRig(t *testing.T, cross uint64) *blastRig {
	t.Helper()
	r := &blastRig{Rig: citytest.New(t, systemstest.Parse(t, "test-lagcomp", level), citytest.Options{Seed: 1}), cross: cross}
	w := r.W
	past := lagcomp.New(w)
	r.Damage.Rewind = past
	r.thrower = r.Character(t, 34, 0, math32.Pi)
	r.Give(t, r.thrower, "grenade", 1)
	r.car = r.Car(t, 15, r.y(0), math32.Pi/2)
	mover := func(w *ecs.World) {
		p := ecstest.Get[components.Pose](w, r.car)
		p.Pos = components.Vec3{X: 15, Y: r.y(w.Tick())}
		*ecstest.Get[components.Velocity](w, r.car) = components.Velocity{}
	}
	r.Schedule(t,
		ecs.Entry{Name: "input", Phase: ecs.PhaseInput, System: ecs.SystemFunc(r.Input)},
		ecs.Entry{Name: seats.Name, Phase: ecs.PhaseInput, System: seats.New(w, r.Static)},
		ecs.Entry{Name: weapons.Name, Phase: ecs.PhaseInput, System: weapons.New(w)},
		ecs.Entry{Name: "mover", Phase: ecs.PhasePreStep, System: ecs.SystemFunc(mover)},
		ecs.Entry{Name: motion.Name, Phase: ecs.PhaseStep, System: motion.New(w, r.Static)},
		ecs.Entry{Name: "damage", Phase: ecs.PhasePostStep, System: r.Damage},
		ecs.Entry{Name: lagcomp.Name, Phase: ecs.PhaseSync, System: past},
	)
	return r
}

// TestBlastNotRewound: a grenade's blast hurts what stands within its
// radius when it blows, not what stood there at the thrower's view: lag
// compensation rewinds rounds, never blasts. The thrower taps a grenade
// west, to blow about 4.3 m east of the car's line, every one of their
// inputs carrying a view MaxRewind ticks (7.5 m of the car's way) old. A
// car that drove into the radius since that view is hurt; one that drove
// out of it is not.
func TestBlastNotRewound(t *testing.T) {
	const release = 10 // the tick the thrower lets go of the pin
	blastAt := uint64(release + weapons.FuseTicks)
	for _, c := range []struct {
		name  string
		cross uint64 // the tick the car passes the blast
		hurt  bool
	}{
		// 7.5 m south of the blast at the view, beside it now.
		{"drove in", blastAt, true},
		// Beside the blast at the view, 7.5 m north of it now.
		{"drove out", blastAt - lagcomp.MaxRewind, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newBlastRig(t, c.cross)
			r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) {
				if e != r.thrower {
					return
				}
				d.LookYaw = math32.Pi
				if tick < release {
					d.Held |= components.BtnPin
				}
				d.View = max(tick, lagcomp.MaxRewind+1) - lagcomp.MaxRewind
			}
			var blasts []components.Event
			var tick uint64 // the tick of the blast
			for r.W.Tick() <= blastAt {
				tick = r.W.Tick()
				r.W.Step()
				blasts = append(blasts, citytest.Events(r.W, components.EventBlast)...)
				if len(blasts) > 0 {
					break
				}
			}
			if len(blasts) != 1 || tick != blastAt {
				t.Fatalf("%d blasts by tick %d, want 1 at tick %d", len(blasts), tick, blastAt)
			}
			// The case is what it says: the car's centre within the
			// radius at the blast and out of it at the view, or the other
			// way about.
			b := blasts[0].Pos
			in := func(k uint64) bool {
				dx, dy := 15-b.X, r.y(k)-b.Y
				return dx*dx+dy*dy < weapons.BlastRadius*weapons.BlastRadius
			}
			if in(tick) != c.hurt || in(tick-lagcomp.MaxRewind) == c.hurt {
				t.Fatalf("blast at %v: the car within it now %v, at the view %v", b, in(tick), in(tick-lagcomp.MaxRewind))
			}
			hp := ecstest.Get[components.Health](r.W, r.car).HP
			if hurt := hp < 1000; hurt != c.hurt {
				t.Fatalf("hurt %v (hp %d), want %v", hurt, hp, c.hurt)
			}
		})
	}
}

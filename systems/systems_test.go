package systems_test

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/ecs/ecstest"
	"github.com/fiveonit/engine/levels"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems"
	"github.com/fiveonit/engine/systems/seats"
	"github.com/fiveonit/engine/systems/systemstest"
	"github.com/mlange-42/arche/generic"
)

// newRig returns a rig on the shipped level named level with the systems
// of a room that need no level (systems.Entries given none): the seats,
// the weapons and the physics, its players driven by the rig's Drive.
func newRig(t testing.TB, level string, seed uint64) *systemstest.Rig {
	t.Helper()
	r := systemstest.New(t, systemstest.Load(t, level), systemstest.Options{Seed: seed, Rules: ecs.Rules{PlayersHurt: "on"}})
	r.Schedule(t, systems.Entries(r.W, systems.Options{Static: r.Static, Input: ecs.SystemFunc(r.Input)})...)
	return r
}

func TestEnterDriveExit(t *testing.T) {
	r := newRig(t, "test-flat", 1)
	car := r.Car(t, 10, 0, 0)
	p := r.Character(t, 10, 2.2, 0) // beside the left door
	press := uint64(5)
	r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) {
		switch {
		case tick == press:
			d.Pressed = components.BtnUse
		case tick > press+seats.EnterTicks+1 && tick < press+seats.EnterTicks+120:
			d.Throttle = 1
		}
	}
	r.Step(int(press) + 1)
	act, in := ecstest.Get[components.PersonAction](r.W, p), ecstest.Get[components.SeatedIn](r.W, p)
	if act.Act != components.ActEntering || in.Vehicle != car || in.Seat != 0 {
		t.Fatalf("after Use: act %d seat %+v", act.Act, *in)
	}
	r.Step(seats.EnterTicks + 2)
	if ecstest.Get[components.PersonAction](r.W, p).Act != components.ActDriving {
		t.Fatal("not driving after getting in")
	}
	r.Step(120)
	cp := ecstest.Get[components.Pose](r.W, car)
	if cp.Pos.X < 18 {
		t.Fatalf("car at x=%v after two seconds of throttle", cp.Pos.X)
	}
	if pp := ecstest.Get[components.Pose](r.W, p); pp.Pos != cp.Pos {
		t.Fatalf("driver at %v, car at %v", pp.Pos, cp.Pos)
	}
	// Let it roll to a stop, then get out.
	r.Drive = nil
	r.Step(600)
	exitAt := r.W.Tick()
	r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) {
		if tick == exitAt {
			d.Pressed = components.BtnUse
		}
	}
	r.Step(seats.ExitTicks + 2)
	act, in = ecstest.Get[components.PersonAction](r.W, p), ecstest.Get[components.SeatedIn](r.W, p)
	if act.Act != components.ActOnFoot || !in.Vehicle.IsZero() {
		t.Fatalf("after exit: act %d seated %+v", act.Act, *in)
	}
	if s := ecstest.Get[components.Seats](r.W, car); !s.Occupant[0].IsZero() {
		t.Fatal("driver's seat still taken")
	}
	cp, pp := ecstest.Get[components.Pose](r.W, car), ecstest.Get[components.Pose](r.W, p)
	dx, dy := pp.Pos.X-cp.Pos.X, pp.Pos.Y-cp.Pos.Y
	if d := math32.Sqrt(dx*dx + dy*dy); d < 1 || d > 3 {
		t.Fatalf("got out %v m from the car", d)
	}
}

func TestPassengerDoesNotDrive(t *testing.T) {
	r := newRig(t, "test-flat", 1)
	r.W.Rules.PlayersHurt = "off" // no carjack: the second one gets in beside
	car := r.Car(t, 0, 0, 0)
	driver := r.Character(t, 0, 2, 0)
	pass := r.Character(t, 0, -2, 0)
	r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) {
		if tick == 1 && e == driver {
			d.Pressed = components.BtnUse
		}
		if tick == 2 && e == pass {
			d.Pressed = components.BtnUse
		}
		if tick > 30 && e == pass {
			d.Throttle = 1
		}
	}
	r.Step(90)
	if a := ecstest.Get[components.PersonAction](r.W, pass); a.Act != components.ActPassenger {
		t.Fatalf("second person act %d, want passenger", a.Act)
	}
	if a := ecstest.Get[components.PersonAction](r.W, driver); a.Act != components.ActDriving {
		t.Fatalf("first person act %d, want driving", a.Act)
	}
	if p := ecstest.Get[components.Pose](r.W, car); math32.Abs(p.Pos.X) > 0.01 {
		t.Fatalf("a passenger's throttle moved the car to x=%v", p.Pos.X)
	}
}

func TestCarjackRuleHook(t *testing.T) {
	for _, allow := range []bool{true, false} {
		r := newRig(t, "test-flat", 1)
		car := r.Car(t, 0, 0, 0)
		victim := r.Character(t, 0, 2, 0)
		jacker := r.Character(t, 0, -2, 0)
		seatsSys := r.W.Sched.System(seats.Name).(*seats.System)
		seatsSys.Carjack = func(*ecs.World, ecs.Entity, ecs.Entity) bool { return allow }
		r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) {
			if (tick == 1 && e == victim) || (tick == 40 && e == jacker) {
				d.Pressed = components.BtnUse
			}
		}
		r.Step(40)
		jacks := 0
		r.Step(1)
		for _, ev := range r.W.Events {
			if ev.Kind == components.EventCarjack && ev.Source == jacker && ev.Target == victim && ev.Other == car {
				jacks++
			}
		}
		r.Step(30)
		s := ecstest.Get[components.Seats](r.W, car)
		va := ecstest.Get[components.PersonAction](r.W, victim)
		if allow {
			if s.Occupant[0] != jacker || va.Act != components.ActOnFoot || jacks != 1 {
				t.Fatalf("allowed: driver %v victim act %d events %d", s.Occupant[0], va.Act, jacks)
			}
		} else {
			// Refused: the jacker takes a passenger seat instead.
			if s.Occupant[0] != victim || ecstest.Get[components.SeatedIn](r.W, jacker).Seat == 0 || jacks != 0 {
				t.Fatalf("refused: driver %v events %d", s.Occupant[0], jacks)
			}
		}
	}
}

// TestExitNeverInsideBuilding parks a car against a building on main-city
// with its left side to the wall and gets out: the person lands on a free
// spot, never inside the building.
func TestExitNeverInsideBuilding(t *testing.T) {
	r := newRig(t, "main-city", 1)
	l := r.Level
	var bld levels.Building
	for _, b := range l.Buildings {
		if b.Use != levels.UseWall && len(b.Footprint) == 4 {
			bld = b
			break
		}
	}
	// The building's south edge, and a car just south of it facing east.
	minX, minY, maxX := bld.Footprint[0].X, bld.Footprint[0].Y, bld.Footprint[0].X
	for _, p := range bld.Footprint {
		minX, maxX, minY = min(minX, p.X), max(maxX, p.X), min(minY, p.Y)
	}
	spec := phys.CarModel(phys.ModelSedan)
	cx, cy := (minX+maxX)/2, minY-spec.HalfY-0.05
	car := r.Car(t, cx, cy, 0)
	p := r.Character(t, cx, cy-spec.HalfY-1, 0)
	r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) {
		if tick == 1 || tick == 40 {
			d.Pressed = components.BtnUse
		}
	}
	r.Step(70)
	if a := ecstest.Get[components.PersonAction](r.W, p); a.Act != components.ActOnFoot {
		t.Fatalf("act %d, want on foot", a.Act)
	}
	pp := ecstest.Get[components.Pose](r.W, p)
	if r.Static.Overlaps(phys.Flat(pp.Pos), phys.DefaultWalker.Radius*0.9) {
		t.Fatalf("got out inside a building at %v", pp.Pos)
	}
	if pp.Pos.Y > cy {
		t.Fatalf("got out on the wall's side (y=%v, car y=%v)", pp.Pos.Y, cy)
	}
	_ = car
}

// scenario makes n people each beside a car on main-city, driving, getting
// out, walking and getting back in on a seeded script.
func scenario(t testing.TB, seed uint64, n int) *systemstest.Rig {
	t.Helper()
	r := newRig(t, "main-city", seed)
	l := r.Level
	spawns := l.SpawnsOf(levels.RolePlayer)
	for i := 0; i < n; i++ {
		s := l.Spawns[spawns[i%len(spawns)]]
		off := float32(i/len(spawns)) * 7
		co, si := math32.Cos(s.Yaw), math32.Sin(s.Yaw)
		x, y := s.Pos.X+co*off, s.Pos.Y+si*off
		r.Car(t, x, y, s.Yaw)
		r.Character(t, x-si*2.2, y+co*2.2, 0)
	}
	rngs := make([]*rand.Rand, n)
	for i := range rngs {
		rngs[i] = rand.New(rand.NewPCG(seed, uint64(i)))
	}
	idx := map[ecs.Entity]int{}
	for i, e := range r.Inputs {
		idx[e] = i
	}
	r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) {
		g := rngs[idx[e]]
		phase := (tick + uint64(idx[e])*37) % 900
		switch {
		case phase == 1 || phase == 700:
			d.Pressed = components.BtnUse
		case phase < 700:
			d.Throttle = 0.5 + 0.5*g.Float32()
			d.Steer = g.Float32()*2 - 1
			if g.IntN(50) == 0 {
				d.Held |= components.BtnHandbrake
			}
		default:
			d.MoveY = 1
			d.LookYaw += g.Float32() - 0.5
		}
	}
	return r
}

// dump serializes every replicated entity's state, by wire id.
func dump(w *ecs.World) []byte {
	type row struct {
		wid uint16
		b   []byte
	}
	var rows []row
	f := generic.NewFilter8[components.Identity, components.Pose, components.Velocity, components.Drive, components.Health, components.Flags, components.Body, components.Kind]()
	q := f.Query(w.Arche)
	for q.Next() {
		id, pose, vel, drive, hp, fl, body, kind := q.Get()
		var buf bytes.Buffer
		for _, v := range []any{*id, *pose, *vel, *drive, *hp, *fl, *body, *kind} {
			binary.Write(&buf, binary.LittleEndian, v)
		}
		e := q.Entity()
		if a := ecstest.Get[components.PersonAction](w, e); a != nil {
			binary.Write(&buf, binary.LittleEndian, *a)
			s := ecstest.Get[components.SeatedIn](w, e)
			binary.Write(&buf, binary.LittleEndian, s.Seat)
			binary.Write(&buf, binary.LittleEndian, wireOf(w, s.Vehicle))
		}
		if s := ecstest.Get[components.Seats](w, e); s != nil {
			for _, o := range s.Occupant {
				binary.Write(&buf, binary.LittleEndian, wireOf(w, o))
			}
		}
		rows = append(rows, row{id.WireID, buf.Bytes()})
	}
	slices.SortFunc(rows, func(a, b row) int { return int(a.wid) - int(b.wid) })
	var out []byte
	for _, r := range rows {
		out = append(out, r.b...)
	}
	return out
}

func wireOf(w *ecs.World, e ecs.Entity) uint16 {
	if e.IsZero() {
		return 0
	}
	return ecstest.Get[components.Identity](w, e).WireID
}

func TestDeterminism(t *testing.T) {
	const ticks = 3600
	run := func() ([]byte, []byte) {
		r := scenario(t, 42, 24)
		start := dump(r.W)
		r.Step(ticks)
		return start, dump(r.W)
	}
	s1, a := run()
	_, b := run()
	if !bytes.Equal(a, b) {
		t.Fatal("two runs of the same inputs differ after 3600 ticks")
	}
	if bytes.Equal(s1, a) {
		t.Fatal("nothing moved: the test proves nothing")
	}
}

// TestSteadyTickAllocatesNothing steps 1,000 moving cars and characters
// (500 people driving, 500 walking) and counts allocations per tick.
func TestSteadyTickAllocatesNothing(t *testing.T) {
	r := newRig(t, "test-flat", 1)
	for i := 0; i < 500; i++ {
		x, y := float32(i%25)*30-375, float32(i/25)*30-300
		r.Car(t, x, y, float32(i))
		r.Character(t, x, y+2.2, 0)
		r.Character(t, x+10, y+10, 0)
	}
	r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) {
		if tick == 1 && (e.ID()%2 == 0) {
			d.Pressed = components.BtnUse
		}
		d.Throttle, d.Steer, d.MoveY = 0.6, 0.3, 1
		d.LookYaw = float32(tick) * 0.01
	}
	r.Step(120) // get in, grow every buffer
	allocs := testing.AllocsPerRun(100, func() { r.W.Step() })
	if allocs != 0 {
		t.Fatalf("%v allocations per tick", allocs)
	}
}

// TestEmptyWorldSteps: a room with nobody in it (the default room at start)
// steps without a body.
func TestEmptyWorldSteps(t *testing.T) {
	r := newRig(t, "main-city", 1)
	r.Step(3)
	if r.W.Tick() != 3 {
		t.Fatal("did not step")
	}
}

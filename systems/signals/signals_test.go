package signals_test

import (
	"errors"
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/ecs/ecstest"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/systems/signals"
	"github.com/fiveonit/engine/systems/systemstest"
	"github.com/mlange-42/arche/generic"
)

// crossing is a crossroads (node 0) with a signal of two phases: the
// east-west lanes 0 and 2 for 10 s, then the north-south lanes 4 and 6
// and again lane 2 for 5 s, each with 2 s of amber: a cycle of 19 s, 1 s
// in at tick 0. Lane 2 has green in both phases, so it never shows amber
// between phase 0 and phase 1, but does between phase 1 and phase 0.
const crossing = `{
  "name": "test-signals", "version": 1,
  "ground": {"min": [-100, -100], "max": [100, 100]},
  "roads": {
    "nodes": [
      {"id": 0, "pos": [0, 0], "intersection": true},
      {"id": 1, "pos": [-90, 0]}, {"id": 2, "pos": [90, 0]},
      {"id": 3, "pos": [0, 90]}, {"id": 4, "pos": [0, -90]}
    ],
    "lanes": [
      {"id": 0, "from": 1, "to": 0, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 1, "from": 0, "to": 1, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 2, "from": 2, "to": 0, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 3, "from": 0, "to": 2, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 4, "from": 3, "to": 0, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 5, "from": 0, "to": 3, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 6, "from": 4, "to": 0, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 7, "from": 0, "to": 4, "width": 3.5, "offset": 1.75, "speedLimit": 14}
    ],
    "signals": [
      {"id": "cross", "node": 0, "phases": [{"lanes": [0, 2], "green": 10}, {"lanes": [4, 6, 2], "green": 5}], "amber": 2, "offset": 1}
    ]
  }
}`

// load parses crossing.
func load(t testing.TB) *levels.Level {
	t.Helper()
	return systemstest.Parse(t, "test-signals", crossing)
}

// rig is a world on crossing with the signals system alone.
type rig struct {
	*systemstest.Rig
	sys *signals.System
	res generic.Resource[components.Signals]
}

func newRig(t testing.TB) *rig {
	t.Helper()
	k := systemstest.New(t, load(t), systemstest.Options{Seed: 1})
	s := signals.New(k.W, k.Level)
	k.Schedule(t, ecs.Entry{Name: signals.Name, Phase: ecs.PhasePreStep, System: s})
	return &rig{Rig: k, sys: s, res: generic.NewResource[components.Signals](k.W.Arche)}
}

// stepTo steps the world until the signals have run at tick.
func (r *rig) stepTo(t *testing.T, tick uint64) {
	t.Helper()
	if r.W.Tick() > tick {
		t.Fatalf("at tick %d, past %d", r.W.Tick(), tick)
	}
	for r.W.Tick() <= tick {
		r.W.Step()
	}
}

// lights returns the lights of lanes 0, 2, 4 and 6 (into the crossing)
// and of lane 1 (out of it).
func (r *rig) lights() [5]components.Light {
	l := r.res.Get().Lanes
	return [5]components.Light{l[0], l[2], l[4], l[6], l[1]}
}

const (
	G = components.LightGreen
	A = components.LightAmber
	R = components.LightRed
	N = components.LightNone
)

// TestPlanAt: the cycle, tick by tick at its edges.
func TestPlanAt(t *testing.T) {
	l := load(t)
	p := signals.NewPlan(&l.Roads.Signals[0])
	if p.Cycle != 19*60 || p.Offset != 60 || p.Amber != 120 || p.Green[0] != 600 || p.Green[1] != 300 {
		t.Fatalf("plan %+v", p)
	}
	cases := []struct {
		tick  uint64
		phase int
		amber bool
	}{
		{0, 0, false},                 // 1 s in
		{539, 0, false},               // 9.98 s in
		{540, 0, true},                // 10 s in: amber
		{659, 0, true},                // the last tick of the amber
		{660, 1, false},               // 12 s in: phase 1
		{959, 1, false},               // 16.98 s in
		{960, 1, true},                // 17 s in: amber
		{1079, 1, true},               // 18.98 s in
		{1080, 0, false},              // the cycle again
		{1080 + 19*60*1000, 0, false}, // a thousand cycles on
		{1<<40 + 0, 0, false},         // far on: (2^40 + 60) mod 1140
	}
	for _, c := range cases {
		want := c
		if c.tick == 1<<40 {
			// Work it out the long way.
			tt := (c.tick + 60) % 1140
			switch {
			case tt < 600:
				want.phase, want.amber = 0, false
			case tt < 720:
				want.phase, want.amber = 0, true
			case tt < 1020:
				want.phase, want.amber = 1, false
			default:
				want.phase, want.amber = 1, true
			}
		}
		if ph, am := p.At(c.tick); ph != want.phase || am != want.amber {
			t.Errorf("tick %d: phase %d amber %v, want %d %v", c.tick, ph, am, want.phase, want.amber)
		}
	}
}

func TestTicks(t *testing.T) {
	for _, c := range []struct {
		s    float32
		want int32
	}{{0, 0}, {1, 60}, {12.5, 750}, {0.1, 6}, {0.025, 2}, {2.0 / 60, 2}, {300, 18000}} {
		if got := signals.Ticks(c.s); got != c.want {
			t.Errorf("Ticks(%g) = %d, want %d", c.s, got, c.want)
		}
	}
}

// TestLights: the lights of every lane through a cycle; a lane in two
// phases in a row stays green between them, the lanes out of the crossing
// show none.
func TestLights(t *testing.T) {
	r := newRig(t)
	cases := []struct {
		tick uint64
		want [5]components.Light // lanes 0, 2, 4, 6 and 1
	}{
		{0, [5]components.Light{G, G, R, R, N}},
		{540, [5]components.Light{A, G, R, R, N}}, // lane 2 goes on into phase 1
		{660, [5]components.Light{R, G, G, G, N}},
		{960, [5]components.Light{R, G, A, A, N}}, // and on into phase 0
		{1080, [5]components.Light{G, G, R, R, N}},
	}
	for _, c := range cases {
		r.stepTo(t, c.tick)
		if got := r.lights(); got != c.want {
			t.Errorf("tick %d: lights %v, want %v", c.tick, got, c.want)
		}
	}
}

// TestHoldAndRelease: a mission holds the signal on a phase, then on red,
// and releases it; each change counts in the revision, a repeat does not,
// and a bad id or phase changes nothing.
func TestHoldAndRelease(t *testing.T) {
	r := newRig(t)
	if r.sys.Revision() != 1 {
		t.Fatalf("revision %d on a level with signals, want 1", r.sys.Revision())
	}
	r.stepTo(t, 10)
	steps := []struct {
		name   string
		do     func() error
		err    error
		rev    uint32
		lights [5]components.Light
		state  signals.State
		held   []signals.Held
	}{
		{"hold phase 1", func() error { return r.sys.Hold("cross", 1) }, nil, 2,
			[5]components.Light{R, G, G, G, N}, signals.State{Phase: 1, Held: true}, []signals.Held{{"cross", 1}}},
		{"hold it again", func() error { return r.sys.Hold("cross", 1) }, nil, 2,
			[5]components.Light{R, G, G, G, N}, signals.State{Phase: 1, Held: true}, []signals.Held{{"cross", 1}}},
		{"hold a missing phase", func() error { return r.sys.Hold("cross", 2) }, signals.ErrNoPhase, 2,
			[5]components.Light{R, G, G, G, N}, signals.State{Phase: 1, Held: true}, []signals.Held{{"cross", 1}}},
		{"hold below red", func() error { return r.sys.Hold("cross", -2) }, signals.ErrNoPhase, 2,
			[5]components.Light{R, G, G, G, N}, signals.State{Phase: 1, Held: true}, []signals.Held{{"cross", 1}}},
		{"hold a missing signal", func() error { return r.sys.Hold("nope", 0) }, signals.ErrNoSignal, 2,
			[5]components.Light{R, G, G, G, N}, signals.State{Phase: 1, Held: true}, []signals.Held{{"cross", 1}}},
		{"hold on red", func() error { return r.sys.Hold("cross", signals.AllRed) }, nil, 3,
			[5]components.Light{R, R, R, R, N}, signals.State{Phase: signals.AllRed, Held: true}, []signals.Held{{"cross", signals.AllRed}}},
		{"release a missing signal", func() error { return r.sys.Release("nope") }, signals.ErrNoSignal, 3,
			[5]components.Light{R, R, R, R, N}, signals.State{Phase: signals.AllRed, Held: true}, []signals.Held{{"cross", signals.AllRed}}},
		{"release", func() error { return r.sys.Release("cross") }, nil, 4,
			[5]components.Light{G, G, R, R, N}, signals.State{Phase: 0}, nil},
		{"release again", func() error { return r.sys.Release("cross") }, nil, 4,
			[5]components.Light{G, G, R, R, N}, signals.State{Phase: 0}, nil},
		{"hold then reset", func() error { r.sys.Hold("cross", 1); r.sys.ResetLevel(); return nil }, nil, 6,
			[5]components.Light{G, G, R, R, N}, signals.State{Phase: 0}, nil},
	}
	for _, st := range steps {
		err := st.do()
		if !errors.Is(err, st.err) || (err == nil) != (st.err == nil) {
			t.Fatalf("%s: error %v, want %v", st.name, err, st.err)
		}
		r.W.Step() // tick 11 on: phase 0 by the cycle
		if got := r.sys.Revision(); got != st.rev {
			t.Errorf("%s: revision %d, want %d", st.name, got, st.rev)
		}
		if got := r.lights(); got != st.lights {
			t.Errorf("%s: lights %v, want %v", st.name, got, st.lights)
		}
		if got, err := r.sys.State("cross"); err != nil || got != st.state {
			t.Errorf("%s: state %+v (%v), want %+v", st.name, got, err, st.state)
		}
		got := r.sys.Held(nil)
		if len(got) != len(st.held) || len(got) > 0 && got[0] != st.held[0] {
			t.Errorf("%s: held %v, want %v", st.name, got, st.held)
		}
	}
	if _, err := r.sys.State("nope"); !errors.Is(err, signals.ErrNoSignal) {
		t.Errorf("State of a missing signal: %v", err)
	}
}

// TestNoSignals: a level without signals has lights of none, revision 0;
// a world without a level has an empty resource.
func TestNoSignals(t *testing.T) {
	for _, lv := range []*levels.Level{systemstest.Load(t, "test-flat"), nil} {
		w := ecstest.New(t, ecs.Config{Seed: 1, Level: lv})
		s := signals.New(w, lv)
		s.Update(w)
		if s.Revision() != 0 || len(s.Held(nil)) != 0 {
			t.Errorf("revision %d, held %v", s.Revision(), s.Held(nil))
		}
		res := generic.NewResource[components.Signals](w.Arche)
		if !res.Has() {
			t.Fatal("no resource")
		}
		for _, li := range res.Get().Lanes {
			if li != N {
				t.Fatalf("a light %d without signals", li)
			}
		}
	}
}

// TestDeterministic: two worlds stepped alike show the same lights at every
// tick, and they are Plan.At's.
func TestDeterministic(t *testing.T) {
	a, b := newRig(t), newRig(t)
	p := signals.NewPlan(&load(t).Roads.Signals[0])
	for i := 0; i < 3*19*60; i++ {
		a.W.Step()
		b.W.Step()
		if a.lights() != b.lights() {
			t.Fatalf("tick %d: %v and %v", i, a.lights(), b.lights())
		}
		ph, am := p.At(uint64(i))
		want := R
		if ph == 0 {
			want = G
			if am {
				want = A
			}
		}
		if got := a.lights()[0]; got != want {
			t.Fatalf("tick %d: lane 0 %v, want %v (phase %d, amber %v)", i, got, want, ph, am)
		}
	}
}

// TestUpdateAllocatesNothing: the tick allocates nothing.
func TestUpdateAllocatesNothing(t *testing.T) {
	r := newRig(t)
	r.sys.Hold("cross", 1)
	if n := testing.AllocsPerRun(2000, func() { r.W.Step() }); n != 0 {
		t.Errorf("%v allocations per tick", n)
	}
}

func BenchmarkUpdate(b *testing.B) {
	l := systemstest.Load(b, "main-city")
	w := ecstest.New(b, ecs.Config{Seed: 1, Level: l})
	s := signals.New(w, l)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		w.Clock.Tick++
		s.Update(w)
	}
}

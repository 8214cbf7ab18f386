package ecs

import (
	"errors"
	"strings"
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/levels"
	"github.com/mlange-42/arche/generic"
)

func newTestWorld(t *testing.T, entries ...Entry) *World {
	t.Helper()
	w, err := New(Config{Seed: 1, MaxIDs: 8, Entries: entries})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestNewScheduleValidates(t *testing.T) {
	nop := SystemFunc(func(*World) {})
	cases := []struct {
		name    string
		entries []Entry
		want    string
	}{
		{"ok", []Entry{{"a", PhaseInput, nop}, {"b", PhasePreStep, nop}, {"c", PhasePreStep, nop}, {"d", PhaseStep, nop}}, ""},
		{"phase back", []Entry{{"d", PhaseStep, nop}, {"b", PhaseInput, nop}}, "phase input after step"},
		{"dup name", []Entry{{"a", PhaseInput, nop}, {"a", PhaseInput, nop}}, "used twice"},
		{"no system", []Entry{{"a", PhaseInput, nil}}, "required"},
		{"no name", []Entry{{"", PhaseInput, nop}}, "required"},
		{"bad phase", []Entry{{"a", Phase(9), nop}}, "unknown phase"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewSchedule(c.entries)
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want %q", err, c.want)
			}
		})
	}
}

func TestScheduleRunsInOrderAndTimes(t *testing.T) {
	var order []string
	sys := func(name string) Entry {
		return Entry{name, PhasePreStep, SystemFunc(func(*World) { order = append(order, name) })}
	}
	w := newTestWorld(t, Entry{"input", PhaseInput, SystemFunc(func(*World) { order = append(order, "input") })},
		sys("e"), sys("a"), sys("d"), sys("b"), sys("c"))
	w.Step()
	w.Step()
	want := "input e a d b c input e a d b c"
	if got := strings.Join(order, " "); got != want {
		t.Fatalf("order %q", got)
	}
	for _, tm := range w.Sched.Timings() {
		if tm.Runs != 2 || tm.Total < tm.Last || tm.Max < tm.Last {
			t.Fatalf("timing %+v", tm)
		}
	}
	if w.Tick() != 2 {
		t.Fatalf("tick %d", w.Tick())
	}
}

// TestCommandsDeferInsideQuery removes and creates entities from inside an
// open query, which arche forbids: the buffer must apply them after the
// system, and the next system must see them.
func TestCommandsDeferInsideQuery(t *testing.T) {
	var seenAfter int
	var w *World
	remover := SystemFunc(func(w *World) {
		f := generic.NewFilter1[components.Identity]()
		q := f.Query(w.Arche)
		for q.Next() {
			e := q.Entity()
			if q.Get().Model == 1 {
				w.Despawn(e) // locked: must defer, not panic
				w.Cmd.Do(func(w *World) {
					m := generic.NewMap1[components.Identity](w.Arche)
					n := m.NewWith(&components.Identity{Model: 2})
					if err := w.AssignWireID(n); err != nil {
						t.Error(err)
					}
				})
			}
		}
	})
	counter := SystemFunc(func(w *World) {
		f := generic.NewFilter1[components.Identity]()
		q := f.Query(w.Arche)
		seenAfter = q.Count()
		q.Close()
	})
	w = newTestWorld(t, Entry{"remove", PhaseInput, remover}, Entry{"count", PhasePreStep, counter})
	m := generic.NewMap1[components.Identity](w.Arche)
	for i := 0; i < 3; i++ {
		e := m.NewWith(&components.Identity{Model: uint8(i % 2)})
		if err := w.AssignWireID(e); err != nil {
			t.Fatal(err)
		}
	}
	w.Step()
	if seenAfter != 3 {
		t.Fatalf("next system saw %d entities, want 3 (one removed, one created)", seenAfter)
	}
	if w.IDs.InUse() != 3 {
		t.Fatalf("wire ids in use %d, want 3", w.IDs.InUse())
	}
	// The removed entity's id (2) went to the back of the free list: the new
	// entity got id 4, the first never used.
	if _, ok := w.ByWireID(2); ok {
		t.Fatal("wire id 2 should be free")
	}
	if e, ok := w.ByWireID(4); !ok || m.Get(e).Model != 2 {
		t.Fatal("new entity should hold wire id 4")
	}
}

func TestAssignWireIDExhausted(t *testing.T) {
	w := newTestWorld(t)
	m := generic.NewMap1[components.Identity](w.Arche)
	for i := 0; i < 8; i++ {
		if err := w.AssignWireID(m.New()); err != nil {
			t.Fatal(err)
		}
	}
	e := m.New()
	if err := w.AssignWireID(e); !errors.Is(err, ErrNoWireIDs) {
		t.Fatalf("err %v, want ErrNoWireIDs", err)
	}
	if err := w.AssignWireID(w.Arche.NewEntity()); err == nil {
		t.Fatal("entity without Identity must be an error")
	}
}

func TestClock(t *testing.T) {
	var c Clock
	c.Set(0, 12*60, 1) // noon, an hour a minute
	c.Tick = 60 * 60   // one real minute
	if got := c.Minutes(); got != 13*60 {
		t.Fatalf("minutes %v, want 780", got)
	}
	c.Tick = 60 * 60 * 12 // twelve real minutes: midnight
	if got := c.Minutes(); got != 0 {
		t.Fatalf("minutes %v, want 0", got)
	}
	r := c.Revision()
	c.SetNow(-30, 0)
	if got := c.Minutes(); got != 23*60+30 {
		t.Fatalf("minutes %v, want 1410", got)
	}
	if c.Revision() == r {
		t.Fatal("revision must change on Set")
	}
}

func TestRulesMayHurt(t *testing.T) {
	cases := []struct {
		mode string
		a, b uint16
		want bool
	}{
		{"on", 1, 1, true}, {"rivals", 1, 1, false}, {"rivals", 1, 2, true},
		{"rivals", 0, 0, true}, {"off", 1, 2, false}, {"", 1, 2, false},
	}
	for _, c := range cases {
		r := Rules{PlayersHurt: c.mode}
		if got := r.MayHurt(c.a, c.b); got != c.want {
			t.Errorf("%s %d %d: %v", c.mode, c.a, c.b, got)
		}
	}
}

// TestLastCrimes checks that a pre-step system sees exactly the crimes of
// the previous tick, and that they are gone a tick later.
func TestLastCrimes(t *testing.T) {
	var seen [][]components.Crime
	reader := SystemFunc(func(w *World) {
		seen = append(seen, append([]components.Crime(nil), w.LastCrimes()...))
	})
	commit := SystemFunc(func(w *World) {
		if w.Tick() < 2 {
			w.Crimes = append(w.Crimes, components.Crime{Kind: components.CrimeCarjack, Pos: components.Vec3{X: float32(w.Tick())}})
		}
	})
	w := newTestWorld(t, Entry{"reader", PhasePreStep, reader}, Entry{"committer", PhasePostStep, commit})
	for i := 0; i < 4; i++ {
		w.Step()
	}
	want := []int{0, 1, 1, 0}
	for i, s := range seen {
		if len(s) != want[i] {
			t.Fatalf("tick %d: the pre-step saw %d crimes, want %d", i, len(s), want[i])
		}
		if len(s) == 1 && s[0].Pos.X != float32(i-1) {
			t.Fatalf("tick %d: saw the crime of tick %v", i, s[0].Pos.X)
		}
	}
}

// TestWorldHoldsLevel: the level a world is made on is its resource,
// shared by the systems.
func TestWorldHoldsLevel(t *testing.T) {
	l, err := levels.Load("test-flat")
	if err != nil {
		t.Fatal(err)
	}
	w, err := New(Config{Seed: 1, Level: l, Rules: FreeRoam()})
	if err != nil {
		t.Fatal(err)
	}
	if w.Level != l {
		t.Fatalf("World.Level = %p, want the level it was made on (%p)", w.Level, l)
	}
}

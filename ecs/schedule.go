package ecs

import (
	"fmt"
	"time"
)

// Phase is a stage of a tick. Systems run phase by phase, in the order the
// schedule lists them.
type Phase uint8

// The phases of a tick, in order.
const (
	// PhaseInput applies the players' inputs: what they drive, where
	// they sit, what they fire.
	PhaseInput Phase = iota
	// PhasePreStep runs the world's own agents, who act before the step
	// moves everyone.
	PhasePreStep
	// PhaseStep moves the bodies and finds their collisions.
	PhaseStep
	// PhasePostStep reacts to the step: the damage its collisions did,
	// the zones the bodies ended in.
	PhasePostStep
	// PhaseSync quantizes the world for the snapshots.
	PhaseSync
	phaseCount
)

var phaseNames = [phaseCount]string{"input", "pre-step", "step", "post-step", "sync"}

// String returns the phase's name.
func (p Phase) String() string {
	if p < phaseCount {
		return phaseNames[p]
	}
	return fmt.Sprintf("phase(%d)", p)
}

// System is one job run once per tick.
//
// Update runs with the world unlocked; it may open queries and must close
// any it leaves early. While a query is open it records structural changes
// in w.Cmd instead of making them; the schedule applies them as soon as
// Update returns, so the next system sees them. Update must not keep
// component pointers across ticks.
type System interface {
	Update(w *World)
}

// SystemFunc makes a plain function a System.
type SystemFunc func(w *World)

// Update calls f(w).
func (f SystemFunc) Update(w *World) { f(w) }

// Entry is one line of the schedule: a system, its name and its phase.
type Entry struct {
	Name   string
	Phase  Phase
	System System
}

// Timing is what the schedule measured of one system.
type Timing struct {
	Name  string
	Phase Phase
	Last  time.Duration // the last tick's run
	Max   time.Duration // the longest run
	Total time.Duration // all runs together
	Runs  uint64
}

// Schedule runs its systems in the one order it was given and measures each.
type Schedule struct {
	entries []Entry
	timings []Timing
	last    time.Duration // the last tick, all systems and command buffers
}

// NewSchedule checks entries and returns their schedule. The entries must be
// in phase order and have unique non-empty names and a non-nil System.
// Within a phase they run in the order given: the caller that lists the
// systems owns that order.
func NewSchedule(entries []Entry) (*Schedule, error) {
	s := &Schedule{entries: append([]Entry(nil), entries...)}
	for i, e := range s.entries {
		if e.Name == "" || e.System == nil {
			return nil, fmt.Errorf("ecs: schedule entry %d: name and system are required", i)
		}
		if e.Phase >= phaseCount {
			return nil, fmt.Errorf("ecs: schedule entry %q: unknown phase %d", e.Name, e.Phase)
		}
		if i > 0 && e.Phase < s.entries[i-1].Phase {
			return nil, fmt.Errorf("ecs: schedule entry %q: phase %s after %s", e.Name, e.Phase, s.entries[i-1].Phase)
		}
		for _, prev := range s.entries[:i] {
			if prev.Name == e.Name {
				return nil, fmt.Errorf("ecs: schedule entry %q: name used twice", e.Name)
			}
		}
		s.timings = append(s.timings, Timing{Name: e.Name, Phase: e.Phase})
	}
	return s, nil
}

// Run runs every system once, in order, applying w.Cmd after each, and
// records each system's time (its command buffer's included).
func (s *Schedule) Run(w *World) {
	start := time.Now()
	t0 := start
	for i := range s.entries {
		s.entries[i].System.Update(w)
		w.Cmd.Apply(w)
		t1 := time.Now()
		d := t1.Sub(t0)
		t0 = t1
		tm := &s.timings[i]
		tm.Last = d
		tm.Total += d
		tm.Runs++
		if d > tm.Max {
			tm.Max = d
		}
	}
	s.last = t0.Sub(start)
}

// Entries returns the schedule's systems in order. The caller must not
// modify the slice.
func (s *Schedule) Entries() []Entry { return s.entries }

// Timings returns each system's measured times, in schedule order. The
// slice is the schedule's own and changes with every Run: copy what you keep.
func (s *Schedule) Timings() []Timing { return s.timings }

// Last returns how long the last Run took in all.
func (s *Schedule) Last() time.Duration { return s.last }

// System returns the system named name, or nil.
func (s *Schedule) System(name string) System {
	for _, e := range s.entries {
		if e.Name == name {
			return e.System
		}
	}
	return nil
}

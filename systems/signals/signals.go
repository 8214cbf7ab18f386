// Package signals is the system that runs the level's traffic signals
// (levels.Signal). Every tick, in the pre-step before the AI, it works out
// what each signal shows and writes the light at the end of every lane
// into the world's components.Signals resource, which the AI's traffic
// obeys: it stops at amber and red and goes at green.
//
// A signal runs its cycle on the room's tick: what it shows is a pure
// function of the level and the tick (levels.SignalPlan), the same on
// every replay and on every client that has the level and the tick, so
// the ordinary cycling needs no messages. A mission may hold a signal on one phase, or
// on red for every lane (AllRed), and release it back to its cycle (Hold,
// Release); those holds are all a client must be told (Held, Revision).
// A level reset releases every hold (Reset).
//
// The missions reach the system through the schedule
// (systems.Signals(w)); Hold, Release and Reset may be called from any
// system of the room's goroutine, and take effect at the next Update.
package signals

import (
	"errors"
	"fmt"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/mlange-42/arche/generic"
)

// Name is the system's name in the schedule.
const Name = "signals"

// AllRed is the phase Hold takes to hold a signal on red for every lane.
const AllRed = levels.SignalAllRed

// Errors of Hold, Release and State.
var (
	// ErrNoSignal: the level has no signal of that id.
	ErrNoSignal = errors.New("signals: no such signal")
	// ErrNoPhase: the signal has no phase of that number.
	ErrNoPhase = errors.New("signals: no such phase")
)

// notHeld is a signal's hold when it runs its cycle.
const notHeld = -2

// Plan is a signal's cycle in ticks (levels.SignalPlan): what a signal
// shows at a tick is a pure function of its plan and the tick. Make one
// with NewPlan.
type Plan = levels.SignalPlan

// Ticks rounds a time in seconds to the nearest whole tick (halves up), as
// levels.SignalTicks does at ecs.TickRate.
func Ticks(seconds float32) int32 {
	return levels.SignalTicks(seconds, ecs.TickRate)
}

// NewPlan returns the cycle of signal sg, which must have passed
// levels.Validate, at ecs.TickRate.
func NewPlan(sg *levels.Signal) Plan {
	return levels.NewSignalPlan(sg, ecs.TickRate)
}

// State is what a signal shows.
type State struct {
	// Phase is the phase it is in, AllRed when held on red.
	Phase int
	// Amber is whether the phase shows its amber.
	Amber bool
	// Held is whether a mission holds it.
	Held bool
}

// Held is a signal held by hand.
type Held struct {
	// ID is the signal's id in the level.
	ID string
	// Phase is the phase it is held on, AllRed for red on every lane.
	Phase int
}

// System is the signals system. Make it with New.
type System struct {
	sigs   []signal
	lights *components.Signals
	rev    uint32
}

// signal is one level signal and what it shows.
type signal struct {
	id    string
	plan  Plan
	lanes []int32 // the lanes into its node, by index in Roads.Lanes
	green []uint8 // per lane: bit k set when it has green in phase k
	hold  int     // notHeld, AllRed or the phase held
	shown State
	fresh bool // shown was written to the lights
}

// New returns the signals system of w on level l (nil: no signals), and
// adds the lights resource to w (or takes the one w has).
func New(w *ecs.World, l *levels.Level) *System {
	s := &System{}
	res := generic.NewResource[components.Signals](w.Arche)
	if res.Has() {
		s.lights = res.Get()
	} else {
		s.lights = &components.Signals{}
		res.Add(s.lights)
	}
	if l == nil {
		return s
	}
	s.lights.Lanes = make([]components.Light, len(l.Roads.Lanes))
	for i := range l.Roads.Signals {
		sg := &l.Roads.Signals[i]
		g := signal{id: sg.ID, plan: NewPlan(sg), hold: notHeld}
		g.lanes, g.green = l.SignalLanes(i)
		s.sigs = append(s.sigs, g)
	}
	if len(s.sigs) > 0 {
		s.rev = 1 // so that a client is told the (no) holds as it joins
	}
	return s
}

// Update works out what every signal shows this tick and writes the lights
// of those that changed.
func (s *System) Update(w *ecs.World) {
	tick := w.Tick()
	for i := range s.sigs {
		g := &s.sigs[i]
		st := State{Phase: g.hold, Held: true}
		if g.hold == notHeld {
			st.Phase, st.Amber = g.plan.At(tick)
			st.Held = false
		}
		if st == g.shown && g.fresh {
			continue
		}
		g.shown, g.fresh = st, true
		for k, li := range g.lanes {
			s.lights.Lanes[li] = components.Light(g.plan.Light(g.green[k], st.Phase, st.Amber))
		}
	}
}

// find returns the signal of id.
func (s *System) find(id string) (*signal, error) {
	for i := range s.sigs {
		if s.sigs[i].id == id {
			return &s.sigs[i], nil
		}
	}
	return nil, fmt.Errorf("%w %q", ErrNoSignal, id)
}

// Hold holds signal id on phase (an index into the level signal's Phases)
// from the next Update on: that phase's lanes green, every other red, and
// no amber, until Release. AllRed holds every lane on red. A car too near
// to stop when its lane turns red goes on through, as on amber. It fails
// with ErrNoSignal for an id the level has no signal of and ErrNoPhase for
// a phase the signal does not have.
func (s *System) Hold(id string, phase int) error {
	g, err := s.find(id)
	if err != nil {
		return err
	}
	if phase < AllRed || phase >= len(g.plan.Green) {
		return fmt.Errorf("%w: signal %q has phases 0 to %d (or %d for red), not %d", ErrNoPhase, id, len(g.plan.Green)-1, AllRed, phase)
	}
	if g.hold != phase {
		g.hold = phase
		s.rev++
	}
	return nil
}

// Release gives signal id back to its cycle from the next Update on, where
// the tick has it. Releasing a signal that is not held does nothing. It
// fails with ErrNoSignal for an id the level has no signal of.
func (s *System) Release(id string) error {
	g, err := s.find(id)
	if err != nil {
		return err
	}
	if g.hold != notHeld {
		g.hold = notHeld
		s.rev++
	}
	return nil
}

// ResetLevel releases every signal held (a level reset).
func (s *System) ResetLevel() {
	for i := range s.sigs {
		if s.sigs[i].hold != notHeld {
			s.sigs[i].hold = notHeld
			s.rev++
		}
	}
}

// State returns what signal id showed at the last Update. It fails with
// ErrNoSignal for an id the level has no signal of.
func (s *System) State(id string) (State, error) {
	g, err := s.find(id)
	if err != nil {
		return State{}, err
	}
	return g.shown, nil
}

// Held appends the signals held by hand to dst, in the level's order, and
// returns it.
func (s *System) Held(dst []Held) []Held {
	for i := range s.sigs {
		if g := &s.sigs[i]; g.hold != notHeld {
			dst = append(dst, Held{ID: g.id, Phase: g.hold})
		}
	}
	return dst
}

// Revision counts the holds and releases that changed a signal (from 1 on
// a level with signals, 0 on one without): a change tells the server to
// send the held signals again.
func (s *System) Revision() uint32 { return s.rev }

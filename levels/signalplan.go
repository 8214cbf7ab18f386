package levels

import "math"

// SignalPlan is a signal's cycle in ticks: its level data with every time
// rounded to the nearest whole tick. What a signal shows at a tick is a
// pure function of its plan and the tick, so the server's signals system
// and a client that has the level agree tick for tick. Make one with
// NewSignalPlan.
type SignalPlan struct {
	// Green is each phase's green, in ticks.
	Green []int32
	// Amber is each phase's amber after its green, in ticks.
	Amber int32
	// Offset is how far into the cycle the signal is at tick 0, in ticks.
	Offset int32
	// Cycle is every phase's green and amber, in ticks.
	Cycle int32
}

// SignalLight is what a signal shows the cars at the end of a lane.
// components.Light takes its values from these.
type SignalLight uint8

// The lights. SignalNone is a lane that ends at no signal.
const (
	SignalNone SignalLight = iota
	SignalGreen
	SignalAmber
	SignalRed
)

// SignalAllRed is the phase of a signal held on red for every lane.
const SignalAllRed = -1

// SignalTicks rounds a time in seconds to the nearest whole tick at rate
// ticks per second, halves away from zero. The float32 time is widened to
// float64 before the product: a time that is a whole and a half ticks in
// float64 may be a little more in float32, and rounds up.
func SignalTicks(seconds float32, rate float64) int32 {
	return int32(math.Round(float64(seconds) * rate))
}

// NewSignalPlan returns the cycle of signal sg at rate ticks per second. sg
// must have passed Validate.
func NewSignalPlan(sg *Signal, rate float64) SignalPlan {
	p := SignalPlan{Green: make([]int32, len(sg.Phases)), Amber: SignalTicks(sg.Amber, rate), Offset: SignalTicks(sg.Offset, rate)}
	for k, ph := range sg.Phases {
		p.Green[k] = SignalTicks(ph.Green, rate)
		p.Cycle += p.Green[k] + p.Amber
	}
	return p
}

// At returns the phase the signal of p is in at tick, and whether it shows
// that phase's amber.
func (p *SignalPlan) At(tick uint64) (phase int, amber bool) {
	t := int32((tick + uint64(p.Offset)) % uint64(p.Cycle))
	for k, g := range p.Green {
		if t < g {
			return k, false
		}
		if t < g+p.Amber {
			return k, true
		}
		t -= g + p.Amber
	}
	return len(p.Green) - 1, true // not reached: t < Cycle
}

// Light returns the light of a lane that has green in the phases of mask
// (bit k for phase k) while the signal of p is in phase, showing that
// phase's amber or not. Phase SignalAllRed is red for every lane. A lane
// green in the next phase too shows no amber between the two.
func (p *SignalPlan) Light(mask uint8, phase int, amber bool) SignalLight {
	switch {
	case phase < 0 || mask&(1<<phase) == 0:
		return SignalRed
	case !amber || mask&(1<<((phase+1)%len(p.Green))) != 0:
		return SignalGreen
	}
	return SignalAmber
}

// SignalLanes returns the lanes into the node of signal i (an index into
// Roads.Signals), as indices into Roads.Lanes in ascending order, and per
// lane the phases it has green in: bit k for phase k. The level must have
// passed Validate, which allows at most MaxSignalPhases phases.
func (l *Level) SignalLanes(i int) (lanes []int32, masks []uint8) {
	sg := &l.Roads.Signals[i]
	node, _ := l.NodeIndex(sg.Node)
	for _, li := range l.LanesIn(node) {
		var mask uint8
		for k, ph := range sg.Phases {
			for _, id := range ph.Lanes {
				if id == l.Roads.Lanes[li].ID {
					mask |= 1 << k
				}
			}
		}
		lanes = append(lanes, li)
		masks = append(masks, mask)
	}
	return lanes, masks
}

package levels

import (
	"cmp"
	"fmt"
	"slices"
)

// Limits of a level's traffic signals.
const (
	// MaxSignalPhases caps a signal's phases: a crossing of four roads
	// with a turn arrow each is eight.
	MaxSignalPhases = 8
	// MinSignalGreen and MaxSignalTime bound a phase's green, and
	// MaxSignalTime the amber, in seconds.
	MinSignalGreen = 1
	MaxSignalTime  = 300
)

// Signal is a traffic signal at an intersection. It gives the lanes that
// enter its node green in turn, phase after phase: each phase's lanes have
// Green seconds of green, then Amber seconds of amber, and red the rest of
// the cycle. A lane in two phases in a row stays green through the amber
// between them. The cycle (every phase's green and amber) runs on the room's
// tick from Offset seconds into it at tick 0, each time rounded to whole
// ticks, so anyone with the level and the tick can tell what a signal shows.
type Signal struct {
	// ID names the signal among all of the level's string ids.
	ID string `json:"id"`
	// Node is the id of the intersection node it stands at.
	Node int `json:"node"`
	// Phases are the signal's phases, in the order they come.
	Phases []SignalPhase `json:"phases"`
	// Amber is how long each phase shows amber after its green, in
	// seconds, 0..MaxSignalTime.
	Amber float32 `json:"amber"`
	// Offset is how far into its cycle the signal is at tick 0, in
	// seconds: 0 up to the cycle's length. Neighbours set apart by the
	// time a car takes between them make a green wave.
	Offset float32 `json:"offset,omitempty"`
}

// SignalPhase is one phase of a signal: the lanes it gives green, and how
// long.
type SignalPhase struct {
	// Lanes are the ids of the lanes into the signal's node that have
	// green in this phase.
	Lanes []int `json:"lanes"`
	// Green is the phase's green, in seconds,
	// MinSignalGreen..MaxSignalTime.
	Green float32 `json:"green"`
}

// Cycle returns the length of s's cycle in seconds: every phase's green and
// amber.
func (s *Signal) Cycle() float32 {
	var c float32
	for _, ph := range s.Phases {
		c += ph.Green + s.Amber
	}
	return c
}

// SignalAt returns the index in Roads.Signals of the signal at node (an
// index into Roads.Nodes), or -1.
func (l *Level) SignalAt(node int) int {
	for i := range l.Roads.Signals {
		if n, ok := l.NodeIndex(l.Roads.Signals[i].Node); ok && n == node {
			return i
		}
	}
	return -1
}

// LaneIndex returns the index in Roads.Lanes of the lane with the given id.
func (l *Level) LaneIndex(id int) (int, bool) {
	for i := range l.Roads.Lanes {
		if l.Roads.Lanes[i].ID == id {
			return i, true
		}
	}
	return -1, false
}

// signals checks the road graph's traffic signals (after the lanes).
func (v *validator) signals() {
	sigs := v.l.Roads.Signals
	if len(sigs) == 0 {
		return
	}
	lanes := v.l.Roads.Lanes
	laneByID := make([]idIndex, len(lanes))
	for i := range lanes {
		laneByID[i] = idIndex{id: lanes[i].ID, i: int32(i)}
	}
	slices.SortFunc(laneByID, func(a, b idIndex) int { return cmp.Compare(a.id, b.id) })
	signalAt := make(map[int32]int, len(sigs)) // node index -> signal; only looked up
	for i := range sigs {
		s := &sigs[i]
		p := fmt.Sprintf("roads.signals[%d]", i)
		v.id(p+".id", s.ID)
		if v.err != nil {
			return
		}
		n, ok := findID(v.nodeByID, s.Node)
		switch {
		case !ok:
			v.fail(p+".node", "node %d does not exist", s.Node)
		case !v.l.Roads.Nodes[n].Intersection:
			v.fail(p+".node", "node %d is not an intersection: a signal stands where roads meet", s.Node)
		default:
			if j, dup := signalAt[int32(n)]; dup {
				v.fail(p+".node", "node %d already has roads.signals[%d]", s.Node, j)
			}
			signalAt[int32(n)] = i
		}
		if len(s.Phases) < 2 || len(s.Phases) > MaxSignalPhases {
			v.fail(p+".phases", "must have 2 to %d phases, got %d", MaxSignalPhases, len(s.Phases))
		}
		if v.err != nil {
			return
		}
		in := v.lanesInto(int32(n))
		if len(in) > 64 {
			v.fail(p+".node", "%d lanes enter node %d: a signal takes at most 64", len(in), s.Node)
			return
		}
		var covered uint64 // bit k: in[k] has a phase
		for k := range s.Phases {
			ph := &s.Phases[k]
			pp := fmt.Sprintf("%s.phases[%d]", p, k)
			if len(ph.Lanes) == 0 {
				v.fail(pp+".lanes", "must list at least one lane")
			}
			for m, id := range ph.Lanes {
				lp := fmt.Sprintf("%s.lanes[%d]", pp, m)
				li, ok := findID(laneByID, id)
				switch {
				case !ok:
					v.fail(lp, "lane %d does not exist", id)
				case v.laneTo[li] != int32(n):
					v.fail(lp, "lane %d does not enter node %d", id, s.Node)
				case slices.Contains(ph.Lanes[:m], id):
					v.fail(lp, "lane %d is listed twice", id)
				default:
					covered |= 1 << slices.Index(in, int32(li))
				}
			}
			v.number(pp+".green", ph.Green, MinSignalGreen, MaxSignalTime, "s")
			if v.err != nil {
				return
			}
		}
		v.number(p+".amber", s.Amber, 0, MaxSignalTime, "s")
		if v.err != nil {
			return
		}
		if cycle := s.Cycle(); !(s.Offset >= 0 && s.Offset < cycle) {
			v.fail(p+".offset", "must be from 0 up to the cycle's %g s, got %g", cycle, s.Offset)
			return
		}
		for k, li := range in {
			if covered&(1<<k) == 0 && !lanes[li].NoTraffic {
				v.fail(p+".phases", "lane %d into node %d is in no phase: its traffic would wait for ever", lanes[li].ID, s.Node)
				return
			}
		}
	}
}

// lanesInto returns the indices of the lanes that enter node n, ascending.
func (v *validator) lanesInto(n int32) []int32 {
	var in []int32
	for i, to := range v.laneTo {
		if to == n {
			in = append(in, int32(i))
		}
	}
	return in
}

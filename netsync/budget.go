package netsync

import (
	"github.com/fiveonit/engine/netsync/wire"
)

// A client's frames may have a budget in bytes (SetBudget): the changes
// beyond it wait. What always goes: the client's own entities, the new
// and the removed, an entity's groups other than its quantized pose (its
// state, its tier), and a pose that stops or starts. What waits is a
// quantized pose whose turn came after the frame's budget was spent: it
// goes at a later turn of its tier, and until then the client holds the
// pose it had.
//
// The budget goes by priority (Fiedler's priority accumulator): a frame
// looks at the poses whose turn it is in the order of a key that grows
// with the entity's nearness (its tier: 8 for tier 0, then 4, 2 and 1)
// times one more than the frames it waited (entWalk.waited: each turn
// missed counts the frames to the tier's next turn). A pose that missed a
// turn thus goes before any that missed none, and among those that
// missed, the near before the far of the same wait. Every player still
// comes to every client: far ones come less often, and sooner the longer
// they wait.
//
// A budget bounds the pose changes, not the frame: a keyframe, a frame
// full of newcomers and the acked frames built against an old base are as
// large as they must be. The server bounds what a client costs over time
// by skipping its snapshots when it is over its bytes (server.Session's
// credit).

// maxWaited is the most frames an entWalk counts.
const maxWaited = 255

// wait counts a turn w's pose waited past: the frames to its next turn.
func (w *entWalk) wait() {
	w.waited = uint8(min(int(w.waited)+int(wire.TierEvery[w.tier&(wire.TierCount-1)]), maxWaited))
}

// SetBudget sets the bytes a frame's changes may take before the poses
// that may wait wait (0: no bound), from the next frame on.
func (e *Encoder) SetBudget(bytes int) { e.state.budget = max(bytes, 0) }

// SetBudget sets the budget of the acked frames' changes, as
// Encoder.SetBudget; the changes are counted as an ordered frame would
// carry them.
func (e *AckedEncoder) SetBudget(bytes int) { e.state.budget = max(bytes, 0) }

// overBudget reports whether the frame's budget is spent.
func (s *clientState) overBudget() bool {
	if s.budget == 0 {
		return false
	}
	return len(s.out)-s.head >= s.budget
}

// priority returns the key the frame's budget goes by for the entity in
// slot: its tier's weight (8 for tier 0 down to 1) times one more than
// the frames it waited, at most 255.
func (s *clientState) priority(slot int32) int {
	w := &s.walks[slot]
	return min((int(w.waited)+1)<<(wire.TierCount-1-int(w.tier&(wire.TierCount-1))), 255)
}

// byPriority orders cands, slots, by priority, the highest first, and in
// slot order within one: a counting sort into s.order, which it reuses,
// copied back. Each candidate's key is read once (its entWalk is a cache
// miss) into s.prio. It allocates nothing once s.order holds the picks.
func (s *clientState) byPriority(cands []int32) {
	if cap(s.order) < len(cands) {
		s.order = make([]int32, len(cands), cap(s.cands))
		s.prio = make([]uint8, len(cands), cap(s.cands))
	}
	order, prio := s.order[:len(cands)], s.prio[:len(cands)]
	var count [256]int32
	for i, c := range cands {
		k := uint8(255 - s.priority(c))
		prio[i] = k
		count[k]++
	}
	at := int32(0)
	for k, n := range count {
		count[k] = at
		at += n
	}
	for i, c := range cands {
		k := prio[i]
		order[count[k]] = c
		count[k]++
	}
	copy(cands, order)
}

// controlsOnly reports whether, of the groups other than the pose, only
// the drive group's controls of wid changed since the client's last
// frame: its throttle, brake, steer and buttons, not its health.
func (s *clientState) controlsOnly(wid uint16) bool {
	at := &s.arena.groupAt[wid]
	last := s.lastTick
	return at[1] <= last && at[2] <= last && at[3] <= last && at[healthAt] <= last
}

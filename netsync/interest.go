package netsync

import (
	"math"

	"github.com/fiveonit/engine/netsync/wire"
)

// Interest says which entities a client gets and how often their poses come.
type Interest struct {
	// Enter is the radius within which an entity comes into the client's
	// snapshots, Leave the one beyond which it leaves them (Leave >= Enter:
	// hysteresis).
	Enter, Leave float32
	// TierRadius are the distances where tiers 0, 1 and 2 end.
	TierRadius [wire.TierCount - 1]float32
	// TierHysteresis is how far past a tier's edge an entity goes before
	// its tier changes.
	TierHysteresis float32

	enter2, leave2 float32
	r2, out2, in2  [wire.TierCount - 1]float32 // squared edges; to go farther, nearer
	// The edges an entity of each tier may cross, for its slack: farther
	// (outer: none for the last tier), nearer (inner: none for tier 0), and
	// the leave radius (reach).
	outer, inner [wire.TierCount]float32
	reach        float32
}

// InterestFor returns an interest of radius r with the game's proportions:
// leave at 1.1 r, tiers ending at 0.2 r, 0.4 r and 0.7 r. The game's own
// interest is InterestFor(wire.AOIRadius): wire.AOILeaveRadius,
// wire.TierRadius and wire.TierHysteresis to the bit.
func InterestFor(r float32) Interest {
	k := r / wire.AOIRadius
	return Interest{
		Enter: r, Leave: wire.AOILeaveRadius * k,
		TierRadius:     [3]float32{wire.TierRadius[0] * k, wire.TierRadius[1] * k, wire.TierRadius[2] * k},
		TierHysteresis: wire.TierHysteresis * k,
	}
}

func (in *Interest) prepare() {
	in.enter2 = in.Enter * in.Enter
	in.reach = max(in.Leave, in.Enter)
	in.leave2 = in.reach * in.reach
	in.outer[wire.TierCount-1], in.inner[0] = math.MaxFloat32, -math.MaxFloat32
	for i, r := range in.TierRadius {
		in.r2[i] = r * r
		in.out2[i] = (r + in.TierHysteresis) * (r + in.TierHysteresis)
		lo := max(r-in.TierHysteresis, 0)
		in.in2[i] = lo * lo
		in.outer[i] = r + in.TierHysteresis
		in.inner[i+1] = r - in.TierHysteresis
	}
}

// tier returns the tier at squared distance d2 for an entity now in tier
// held (held > 3: none yet, no hysteresis).
func (in *Interest) tier(d2 float32, held uint8) uint8 {
	// Without branches: the tiers of the entities a client holds are
	// mixed, so a branch on each edge is a guess often wrong.
	t := uint8(b2i(d2 > in.r2[0]) + b2i(d2 > in.r2[1]) + b2i(d2 > in.r2[2]))
	switch {
	case t == held || held >= wire.TierCount:
	case t > held && d2 <= in.out2[held]:
		t = held // not far enough past held's outer edge
	case t < held && d2 >= in.in2[held-1]:
		t = held // not far enough inside held's inner edge
	}
	return t
}

// setTier sets the tier of the entity in slot.
func (s *clientState) setTier(slot int, tier uint8) {
	s.walks[slot].tier = tier
	s.picks[slot].turns = turnBits(tier, s.picks[slot].wid)
}

// turnBits returns the turns of an entity of tier tier under wid: bit f
// set when wire.Due(tier, frame, wid) for the frames numbered f modulo 8
// (every TierEvery divides 8).
func turnBits(tier uint8, wid uint16) uint8 {
	var b uint8
	for f := range uint32(8) {
		if wire.Due(tier, f, wid) {
			b |= 1 << f
		}
	}
	return b
}

// slack returns how far the centre may travel before an entity at squared
// distance d2, in tier, could leave (when bound) or change tier (unless own).
func (s *clientState) slack(d2 float32, tier uint8, own, bound bool) float32 {
	if own {
		return math.MaxFloat32
	}
	in := s.in
	d := float32(math.Sqrt(float64(d2)))
	sl := float32(maxSlack)
	if bound {
		sl = in.reach - d
	}
	// The last tier has no edge farther, tier 0 none nearer: theirs are
	// ±MaxFloat32, whose distance no slack reaches (at a finite distance:
	// at an infinite one, like a NaN's, the slack is none, a look a frame).
	t := tier & (wire.TierCount - 1)
	return min(sl, in.outer[t]-d, d-in.inner[t], maxSlack) - slackEpsilon
}

// maxSlack bounds a slack, in metres (a slack less than the distance to an
// edge only makes a look sooner): an event's step on the odometer
// (eventOdo) passes every edge.
const maxSlack = 1 << 20

// slackEpsilon is taken off every slack: the distances are float32, and an
// edge must be looked at a little early rather than a little late.
const slackEpsilon = 0.01

// threshold returns the reading of the centre's odometer at which an entity
// at squared distance d2, in tier, is looked at again (when it does not
// move: see clientEnt).
func (s *clientState) threshold(d2 float32, tier uint8, own, bound bool) float64 {
	thr := s.moved + float64(s.slack(d2, tier, own, bound))
	if thr != thr { // a NaN position: look at it every frame
		thr = math.Inf(-1)
	}
	return thr
}

// thrScale is the steps of a metre of a thrKey.
const thrScale = 1024

// thrMax bounds a thrKey: the odometers and the edges stay far from
// overflowing an int64 when added or subtracted.
const thrMax = 1 << 62

// thrKey returns the threshold thr (metres of the centre's odometer) as an
// integer, so that a frame compares every entity's with a subtraction:
// rounded down (truncated toward zero, which is up only below 0, where
// every reading of the odometer is past it anyway), so that an entity is
// looked at no later than its thr; -Inf is -thrMax and any thr beyond 1e12 m
// thrMax.
func thrKey(thr float64) int64 {
	switch {
	case !(thr > -1e12): // -Inf (a NaN position); thr is never NaN
		return -thrMax
	case thr > 1e12:
		return thrMax
	}
	return int64(thr * thrScale)
}

// setThr sets when to look at the entity in slot again: its thr (a reading
// of the centre's odometer), with the entity's odometer at odo.
func (s *clientState) setThr(slot int, thr float64, odo int64) {
	s.picks[slot].edge = thrKey(thr) + odo
}

package netsync

import (
	"math"

	"github.com/fiveonit/engine/netsync/wire"
)

// Interest says which entities a client gets and how often their poses come.
type Interest struct {
	// Enter is the radius within which an entity comes into the client's
	// snapshots. Leave is the radius beyond which it leaves them; a Leave
	// larger than Enter keeps an entity at the edge from coming and going
	// every frame.
	Enter, Leave float32
	// TierRadius are the distances where tiers 0, 1 and 2 end.
	TierRadius [wire.TierCount - 1]float32
	// TierHysteresis is how far past a tier's edge an entity goes before
	// its tier changes.
	TierHysteresis float32

	// What prepare works out from the fields above, squared so that a
	// frame compares squared distances and takes no square root.
	enter2, leave2 float32
	// r2 are the tier radii squared. An entity of tier i moves to a
	// farther tier beyond out2[i], and one of tier i+1 to a nearer tier
	// nearer than in2[i]: each a hysteresis away from the radius.
	r2, out2, in2 [wire.TierCount - 1]float32
	// The edges that bound an entity's slack: for each tier, outer is the
	// edge to the next tier out and inner the edge to the next tier in.
	// The last tier has no outer edge and tier 0 no inner one: theirs are
	// ±MaxFloat32. reach is the leave radius.
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

// prepare works out the squared radii and the edges from the exported
// fields, which may change between frames (SetInterest).
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
// held. A held of wire.TierCount or more means the entity has no tier yet,
// so no hysteresis applies.
func (in *Interest) tier(d2 float32, held uint8) uint8 {
	// No branches: a client holds entities of every tier in no order, so
	// the processor would often guess a branch on each edge wrong.
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

// turnBits returns the turns of the entity wid in tier: bit f is set when
// wire.Due(tier, frame, wid) holds for the frames whose number is f modulo
// 8. Every TierEvery divides 8, so 8 bits hold every frame's answer.
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
	// The last tier has no outer edge and tier 0 no inner one: theirs are
	// ±MaxFloat32, so maxSlack bounds the slack at any finite distance.
	// At an infinite or NaN distance the slack is -Inf or NaN, and the
	// entity is looked at every frame (threshold).
	t := tier & (wire.TierCount - 1)
	return min(sl, in.outer[t]-d, d-in.inner[t], maxSlack) - slackEpsilon
}

// maxSlack bounds a slack, in metres, so that an event's step on an
// entity's odometer (eventOdo) is longer than any slack and gets the
// entity looked at in the next frame. A slack shorter than the way to the
// edge is safe: it only brings the next look sooner.
const maxSlack = 1 << 20

// slackEpsilon is taken off every slack: the distances are float32, and an
// edge must be looked at a little early rather than a little late.
const slackEpsilon = 0.01

// threshold returns the reading of the centre's odometer at which an entity
// at squared distance d2, in tier, is looked at again if it does not move
// itself. setThr adds what the entity's own odometer does.
func (s *clientState) threshold(d2 float32, tier uint8, own, bound bool) float64 {
	thr := s.moved + float64(s.slack(d2, tier, own, bound))
	if thr != thr { // a NaN position: look at it every frame
		thr = math.Inf(-1)
	}
	return thr
}

// thrScale is the number of thrKey steps per metre. The arena's odometers
// count in the same steps.
const thrScale = 1024

// thrMax bounds a thrKey, so that adding and subtracting odometers and
// edges stays far from overflowing an int64.
const thrMax = 1 << 62

// thrKey returns thr, a reading of the centre's odometer in metres, as an
// integer count of steps of 1/thrScale m: the pick compares it with every
// entity's edge by an integer subtraction. It truncates toward zero. For a
// thr of 0 or more that rounds down, so an entity is looked at no later
// than its thr. A negative thr rounds up, which does no harm: the odometer
// starts at 0, so it is past every negative thr already. -Inf becomes
// -thrMax, and a thr beyond 1e12 m becomes thrMax.
func thrKey(thr float64) int64 {
	switch {
	case !(thr > -1e12): // -Inf (a NaN position); thr is never NaN
		return -thrMax
	case thr > 1e12:
		return thrMax
	}
	return int64(thr * thrScale)
}

// setThr sets when the pick looks at the entity in slot again: thr is a
// reading of the centre's odometer (threshold) and odo the entity's
// odometer now. See entPick.edge.
func (s *clientState) setThr(slot int, thr float64, odo int64) {
	s.picks[slot].edge = thrKey(thr) + odo
}

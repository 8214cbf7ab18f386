package server

import "github.com/fiveonit/engine/netsync/wire"

// The server keeps each client's round trip in ticks, to know how long a
// keyframe it sent takes to be acknowledged: the acked snapshots apply onto
// a keyframe unacknowledged for that long before another goes (a join
// costs one keyframe, not one a frame until the first acknowledgement), and
// a request for a keyframe that comes later than that is the client's
// refusal of the keyframe itself, honoured at once, not after
// ResyncTimeout.
//
// The first measure is the welcome's: the client ticks, and so sends its
// first input frame, once the welcome has come. Then every new
// acknowledgement of a frame's tick is one. The estimate follows a longer
// round trip at once and a shorter one by an eighth a sample: it is a
// bound to wait for, better long than short.

// RoundTripMargin is what a keyframe's acknowledgement is waited for
// beyond the round trip: two snapshots (the next frame's turn, the
// client's tick), 6 ticks.
const RoundTripMargin = 2 * wire.SnapshotEvery

// roundTrip is a client's round trip as the server measures it.
type roundTrip struct {
	ticks    uint64 // the estimate
	welcome  uint64 // the tick the welcome went
	measured bool
}

// sample takes one measure of the round trip.
func (r *roundTrip) sample(ticks uint64) {
	switch {
	case !r.measured || ticks > r.ticks:
		r.ticks = ticks
	default:
		r.ticks -= (r.ticks - ticks) / 8
	}
	r.measured = true
}

// wait returns how many ticks a keyframe's acknowledgement is waited for:
// the round trip and RoundTripMargin, or ResyncTimeout before a measure.
func (r *roundTrip) wait() uint64 {
	if !r.measured {
		return ResyncTimeout
	}
	return r.ticks + RoundTripMargin
}

// measureRoundTrip takes what an input frame of s tells of its round trip
// (the first frame: from the welcome; a newer ack: from that frame's
// tick), and tells the snapshots how long to wait for a keyframe's
// acknowledgement.
func (g *GameServer) measureRoundTrip(s *Session, ack uint32, newAck bool) {
	now := g.w.Tick()
	switch {
	case !s.rtt.measured:
		s.rtt.sample(now - s.rtt.welcome)
	case newAck:
		s.rtt.sample(now - uint64(ack))
	default:
		return
	}
	if s.snap != nil {
		s.snap.SetKeyframeWait(uint32((s.rtt.wait() + wire.SnapshotEvery - 1) / wire.SnapshotEvery))
	}
}

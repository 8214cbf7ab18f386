package server

import (
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/netsync/wire"
)

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
	// ping is the round trip the roster shows, in ms, smoothed; 0 until
	// the first ack.
	ping float32
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

// measureRoundTrip takes what an input frame of s, handled at tick now,
// tells of its round trip (the first frame: from the welcome; a newer ack:
// from that frame's tick), and tells the snapshots how long to wait for a
// keyframe's acknowledgement.
func (s *Session) measureRoundTrip(now uint64, ack uint32, newAck bool) {
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

// samplePing takes a round trip from the ack of a snapshot frame of tick
// ack, handled at tick now. At least one tick always passes (a frame goes
// out at the end of its tick; its ack is handled at a later tick's start),
// so that tick is not counted.
func (r *roundTrip) samplePing(now uint64, ack uint32) {
	ms := float32(max(uint32(now)-ack, 1)-1) * 1000 / ecs.TickRate
	if r.ping == 0 {
		r.ping = max(ms, 1)
		return
	}
	r.ping += (ms - r.ping) / 8
}

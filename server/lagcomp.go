package server

import "github.com/fiveonit/engine/systems/lagcomp"

// Lag compensation (package systems/lagcomp): a client's input says which
// server tick it drew when it made the input (the input frame's view), and
// its shots are tested against the bodies of that tick. The server never
// trusts the claim. A view in the future is the present. A rewind far from
// the one the client's measured round trip implies, by more than
// ViewTolerance, is replaced by that one. No rewind goes back more than
// lagcomp.MaxRewind. A client whose round trip is not measured yet, or
// whose frames carry no view (an old client), fires at the present.

// ViewTolerance is how far (ticks) the rewind a client claims may be from
// the one its measured round trip implies: 12 ticks, 200 ms, Source's
// check of a command's time against the measured latency. A client's
// round trip wanders by its jitter, and its drawn world by the render
// clock's steering (a tick or two); a claim further off is a client that
// lies or is broken.
const ViewTolerance = 12

// ViewBehind is how far behind the server's present (ticks) a client
// draws the world beyond its round trip: its interpolation, 6 ticks
// behind its newest snapshot (client.InterpDelayTicks) less the 1.5 ticks
// its render clock runs on from a snapshot until the next, plus the 2
// ticks its input waits in the server's queue (the middle of
// client.BufferLow..BufferHigh). The round trip the server measures runs
// from a snapshot's tick to its acknowledgement.
const ViewBehind = 7

// viewOf returns the server tick an input's view byte stands for in a
// frame of ack: back ticks before it, at least 1 (0 is no claim). A view
// from before the first tick is as old as can be: it is clamped.
func viewOf(ack uint32, back uint8) uint64 {
	if uint32(back) >= ack {
		return 1
	}
	return uint64(ack - uint32(back))
}

// view returns the tick that an input run at tick now, whose client claims
// it drew tick claim, rewinds its shots to (components.Drive.View): 0, the
// present, for no claim, a claim in the future or an unmeasured round
// trip; the claim when its rewind is within ViewTolerance of the round
// trip's and ViewBehind; that rewind otherwise; never more than
// lagcomp.MaxRewind ticks back.
func (r *roundTrip) view(now, claim uint64) uint64 {
	if claim == 0 || claim >= now || !r.measured {
		return 0
	}
	rewind, want := now-claim, r.ticks+ViewBehind
	if rewind > want+ViewTolerance || rewind+ViewTolerance < want {
		rewind = want
	}
	rewind = min(rewind, lagcomp.MaxRewind, now-1)
	if rewind == 0 {
		return 0
	}
	return now - rewind
}

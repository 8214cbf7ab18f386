package bot

import "time"

// Rate keeps the bytes a client received in each whole second of its run,
// so that a load run reports bytes per client per second as a spread (the
// median and the p99 of every client's seconds) and not a mean alone: a
// byte budget per client bounds the seconds, not their mean. It allocates
// once per second at most, and nothing per frame.
type Rate struct {
	// Seconds holds the bytes of each whole second from the run's start,
	// in order. A loop that stalled across several seconds puts the bytes
	// of the stall in the first of them and 0 in the others.
	Seconds []uint32
	next    time.Duration // the end of the second being counted (0: the first, not begun)
	last    uint64        // the total at its start
}

// Due reports whether a second ended by now (from the run's start): Add
// has one to close. A caller whose total costs something to read asks
// first.
func (r *Rate) Due(now time.Duration) bool { return now >= max(r.next, time.Second) }

// Add takes total, the bytes received from the run's start to now, at now
// (from the run's start): it closes every second that ended by now.
func (r *Rate) Add(now time.Duration, total uint64) {
	if r.next == 0 {
		r.next = time.Second
	}
	for now >= r.next {
		r.Seconds = append(r.Seconds, uint32(min(total-r.last, 1<<32-1)))
		r.last = total
		r.next += time.Second
	}
}

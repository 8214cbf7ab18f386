package client

import "time"

// Nominal is a client tick's nominal period: 1/60 s, the server's.
const Nominal = time.Second / 60

// MaxCatchUp is the most client ticks a Schedule owes at once after a
// stall: half a second's worth. Further behind, it drops the rest, as the
// server's guesses have spent those ticks anyway.
const MaxCatchUp = 30

// Schedule paces a client's ticks on a fixed step, each step the client's
// TickPeriod, on a clock its caller keeps (the wall clock since some start
// for the bots, a simulated one in the tests and the load generator). It is
// the loop every Go client runs: wait until Next, hand the client the
// frames that came, run Due ticks.
type Schedule struct {
	// CatchUp is the most ticks owed at once (0: MaxCatchUp). The web
	// page catches up on none after a freeze (its loop drops a gap over
	// 250 ms), as CatchUp 1.
	CatchUp int

	next    time.Duration
	started bool
	skips   uint64 // the client's Stats.Skips at the last Due
}

// Due returns how many ticks of c to run at now: those whose time has come
// (one at least, once started), at most CatchUp; a schedule further behind
// drops the rest. A client that skipped ahead since the last call (the
// snapshots said it had fallen behind) owes no tick from before: the skip
// made them up, and running them too would put it as far ahead.
func (s *Schedule) Due(c *Client, now time.Duration) int {
	if !s.started || c.stats.Skips != s.skips && s.next < now {
		s.next = now
	}
	s.started, s.skips = true, c.stats.Skips
	most := s.CatchUp
	if most <= 0 {
		most = MaxCatchUp
	}
	n := 0
	for n < most && s.next <= now {
		s.next += c.TickPeriod(Nominal)
		n++
	}
	if s.next < now {
		s.next = now // further behind than MaxCatchUp: drop the rest
	}
	return n
}

// Next returns when the next tick is due.
func (s *Schedule) Next() time.Duration { return s.next }

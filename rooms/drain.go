package rooms

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// ErrDraining is a join of a new player refused while the server drains
// (Drain). It wraps ErrShuttingDown and is wrapped with the time left:
// "rooms: shutting down: the server is draining: it stops in 25 s; join
// another server". A player whose place a room holds may still take it
// back.
var ErrDraining = fmt.Errorf("%w: the server is draining", ErrShuttingDown)

// RunResultLead is the most time before a drain's end at which a run room
// that is still playing ends its run, with a result, so that its players
// see it before the room closes. A drain shorter than twice it ends them
// halfway.
const RunResultLead = 5 * time.Second

// drainMarks are the times left at which a draining room tells its
// players again, after the notice it gives as the drain starts.
var drainMarks = []time.Duration{10 * time.Minute, 5 * time.Minute, time.Minute, 30 * time.Second, 10 * time.Second}

// drain is a drain under way: it ends at until; run rooms end their runs
// lead before.
type drain struct {
	until time.Time
	lead  time.Duration
}

// drained is what a room did of a drain under way. Room goroutine only.
type drained struct {
	told  bool // the first notice went
	next  int  // the next of drainMarks to tell at
	ended bool // the run was ended, or had
}

// Drain starts the drain of a server that stops at until (on the
// manager's clock): from now on no room is made and no new player joins
// (ErrDraining; a held place may be taken back), every room tells its
// players how long is left (a notice frame as it starts, then at 10 min,
// 5 min, 1 min, 30 s and 10 s left), and a run room ends its run with a
// result RunResultLead before until if it has not finished. The rooms
// close at Shutdown. A second Drain is ignored.
func (m *Manager) Drain(until time.Time) {
	left := until.Sub(m.cfg.Clock.Now())
	m.drain.CompareAndSwap(nil, &drain{until: until, lead: min(RunResultLead, left/2)})
}

// Draining reports whether Drain was called.
func (m *Manager) Draining() bool { return m.drain.Load() != nil }

// draining returns the refusal of a new player while the manager drains,
// nil otherwise.
func (m *Manager) draining() error {
	d := m.drain.Load()
	if d == nil {
		return nil
	}
	return fmt.Errorf("%w: it stops in %s; join another server", ErrDraining, Left(d.until.Sub(m.cfg.Clock.Now())))
}

// Idle reports whether no room has a player (joined, joining, or whose
// place it holds): a drain has nobody left to wait for.
func (m *Manager) Idle() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range m.rooms {
		if r.gs.Players() > 0 {
			return false
		}
	}
	return true
}

// Left writes a time left for a player: whole minutes from 2 min up,
// else whole seconds, rounded up ("25 s", "3 min").
func Left(d time.Duration) string {
	d = max(d, 0)
	if d >= 2*time.Minute {
		return fmt.Sprintf("%d min", int((d+time.Minute-1)/time.Minute))
	}
	return fmt.Sprintf("%d s", int((d+time.Second-1)/time.Second))
}

// drainNotice is what a draining room tells its players.
func drainNotice(left time.Duration) string {
	return "This server shuts down in " + Left(left) + ". Your account is saved: join again to play on."
}

// runDrainedText is a run's result when a drain ends it.
const runDrainedText = "The server is shutting down: the run ends here."

// drainStep is a room's part of drain d at now: its notices, and its run
// ended in time. Room goroutine only.
func (r *Room) drainStep(d *drain, now time.Time) {
	left := d.until.Sub(now)
	dr := &r.drained
	switch {
	case !dr.told:
		dr.told = true
		for dr.next < len(drainMarks) && left <= drainMarks[dr.next] {
			dr.next++
		}
		r.gs.Notice(drainNotice(left))
	case dr.next < len(drainMarks) && left <= drainMarks[dr.next]:
		for dr.next < len(drainMarks) && left <= drainMarks[dr.next] {
			dr.next++
		}
		r.gs.Notice(drainNotice(left))
	}
	if r.Options.Run != nil && !dr.ended && left <= d.lead {
		dr.ended = true
		if r.gs.EndRun(runDrainedText) {
			r.log.Info("run ended by the drain", "left", left)
		}
	}
}

// Stall is a room whose goroutine has not run its ticks for a while
// (Stalled).
type Stall struct {
	Room string
	For  time.Duration
}

// Stalled returns the rooms whose goroutine has not run its ticks for
// longer than after (on the manager's clock), by name: a room stuck in a
// tick, or starved of the CPU. A room runs its ticks 60 times per second.
// Once the manager shuts down it returns none: its rooms stop on purpose.
func (m *Manager) Stalled(after time.Duration) []Stall {
	now := m.cfg.Clock.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	var out []Stall
	for _, r := range m.rooms {
		if d := now.Sub(time.Unix(0, r.tickedAt.Load())); d > after {
			out = append(out, Stall{Room: r.Name, For: d})
		}
	}
	slices.SortFunc(out, func(a, b Stall) int { return strings.Compare(a.Room, b.Room) })
	return out
}

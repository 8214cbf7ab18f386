// Package clocktest is a fake clock.Clock for tests: its time moves only
// when the test advances it, and then it fires the timers that fall due.
//
// A service's goroutine that waits on a timer and arms it again once it
// has done its work (a writer's batch, a room's tick) is driven step by
// step: the test calls Advance, which fires the timers due, then Settle,
// which waits until every timer fired has been armed again or stopped by
// its owner, that is until the work it started is done. Nothing sleeps,
// and what the test checks next no longer depends on the scheduler.
package clocktest

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/fiveonit/engine/clock"
)

// SettleTimeout is how long Settle waits for the timers' owners before it
// fails its test: an owner that takes longer is stuck.
const SettleTimeout = 10 * time.Second

// Fake is a clock.Clock that moves only by Advance. Safe for concurrent
// use.
type Fake struct {
	mu      sync.Mutex
	now     time.Time
	armed   []*timer // the timers waiting to fire, in no order
	fired   int      // timers fired and neither reset nor stopped since
	settled chan struct{}
}

// Start is the time a Fake made by New starts at: an arbitrary fixed
// instant, so that the times a test sees are the same on every run.
var Start = time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)

// New returns a fake clock at Start.
func New() *Fake { return &Fake{now: Start} }

// Now returns the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// NewTimer returns a timer that fires once the clock has been advanced by
// d; at once if d is not positive.
func (f *Fake) NewTimer(d time.Duration) clock.Timer {
	t := &timer{f: f, c: make(chan time.Time, 1)}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.arm(t, d)
	return t
}

// Advance moves the clock on by d and fires every timer due by then, in
// the order of their times, each with the clock at its time. A timer
// armed again by its owner meanwhile is not fired again in this Advance:
// its owner runs at its own pace, not under Advance's lock. Advance does
// not wait for the owners; Settle does.
func (f *Fake) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	end := f.now.Add(d)
	for {
		i := -1
		for j, t := range f.armed {
			if !t.when.After(end) && (i < 0 || t.when.Before(f.armed[i].when)) {
				i = j
			}
		}
		if i < 0 {
			break
		}
		t := f.armed[i]
		f.armed = slices.Delete(f.armed, i, i+1)
		if t.when.After(f.now) {
			f.now = t.when
		}
		f.fire(t)
	}
	f.now = end
}

// Settle waits until every timer that fired has been reset or stopped by
// its owner: the goroutines the clock drives are back waiting on it. It
// fails tb if they are not within SettleTimeout.
func (f *Fake) Settle(tb testing.TB) {
	tb.Helper()
	f.mu.Lock()
	if f.fired == 0 {
		f.mu.Unlock()
		return
	}
	if f.settled == nil {
		f.settled = make(chan struct{})
	}
	ch, n := f.settled, f.fired
	f.mu.Unlock()
	select {
	case <-ch:
	case <-time.After(SettleTimeout):
		tb.Fatalf("clocktest: %d timers fired and not armed again or stopped within %s", n, SettleTimeout)
	}
}

// Step advances the clock by d, then settles: one step of the goroutines
// it drives.
func (f *Fake) Step(tb testing.TB, d time.Duration) {
	tb.Helper()
	f.Advance(d)
	f.Settle(tb)
}

// Armed returns how many timers wait to fire.
func (f *Fake) Armed() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.armed)
}

// arm arms t to fire d from now, or fires it at once. f.mu is held.
func (f *Fake) arm(t *timer, d time.Duration) {
	if d <= 0 {
		f.fire(t)
		return
	}
	t.when = f.now.Add(d)
	f.armed = append(f.armed, t)
}

// fire sends the time on t's channel and counts it fired until its owner
// resets or stops it. f.mu is held.
func (f *Fake) fire(t *timer) {
	select {
	case t.c <- f.now:
	default: // not drained: a Reset or Stop drains it first
	}
	if !t.fired {
		t.fired = true
		f.fired++
	}
}

// disarm takes t off the armed list and out of the fired count, and
// empties its channel; it reports whether t was armed. f.mu is held.
func (f *Fake) disarm(t *timer) bool {
	i := slices.Index(f.armed, t)
	if i >= 0 {
		f.armed = slices.Delete(f.armed, i, i+1)
	}
	if t.fired {
		t.fired = false
		if f.fired--; f.fired == 0 && f.settled != nil {
			close(f.settled)
			f.settled = nil
		}
	}
	select {
	case <-t.c:
	default:
	}
	return i >= 0
}

// timer is a Fake's clock.Timer.
type timer struct {
	f     *Fake
	c     chan time.Time
	when  time.Time // when it fires, while armed
	fired bool      // fired, and neither reset nor stopped since
}

func (t *timer) C() <-chan time.Time { return t.c }

func (t *timer) Reset(d time.Duration) bool {
	f := t.f
	f.mu.Lock()
	defer f.mu.Unlock()
	if d <= 0 {
		// Due at once: it stays fired, so that Settle waits for the
		// work it starts as well.
		i := slices.Index(f.armed, t)
		if i >= 0 {
			f.armed = slices.Delete(f.armed, i, i+1)
		}
		select {
		case <-t.c:
		default:
		}
		f.fire(t)
		return i >= 0
	}
	was := f.disarm(t)
	f.arm(t, d)
	return was
}

func (t *timer) Stop() bool {
	t.f.mu.Lock()
	defer t.f.mu.Unlock()
	return t.f.disarm(t)
}

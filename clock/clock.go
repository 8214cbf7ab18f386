// Package clock is the time the engine's services wait on: the process's
// own clock (Real), or a test's fake one (package clock/clocktest) that
// moves only when the test says so.
//
// A service that reads the time or waits on a timer takes a Clock in its
// config, as ebiten's game loop takes its time from a now function: the
// account store's writer (store.AccountsConfig) and the rooms' tick loops
// (rooms.Config). Its tests then drive the clock rather than sleep.
package clock

import "time"

// Clock tells the time and makes timers. Real is package time's; a fake
// one fires its timers when its test advances it. A Clock is safe for
// concurrent use.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// NewTimer returns a timer that sends the current time on its channel
	// once d has passed, as time.NewTimer does.
	NewTimer(d time.Duration) Timer
}

// Timer is a one-shot timer: time.Timer behind an interface. As with
// time.Timer since Go 1.23, no time sent before a Reset or Stop is
// received after it.
type Timer interface {
	// C returns the channel the timer sends the time on when it fires.
	C() <-chan time.Time
	// Reset makes the timer fire once d from now, whether or not it
	// had fired or was stopped; it reports whether it was still armed.
	Reset(d time.Duration) bool
	// Stop keeps the timer from firing; it reports whether it was still
	// armed.
	Stop() bool
}

// Real is the process's clock: time.Now and time.NewTimer.
var Real Clock = realClock{}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }

// realTimer is a time.Timer as a Timer. It holds only the pointer, so
// making an interface of it allocates nothing.
type realTimer struct{ t *time.Timer }

func (r realTimer) C() <-chan time.Time        { return r.t.C }
func (r realTimer) Reset(d time.Duration) bool { return r.t.Reset(d) }
func (r realTimer) Stop() bool                 { return r.t.Stop() }

// Or returns c, or Real when c is nil: what a config's zero value means.
func Or(c Clock) Clock {
	if c == nil {
		return Real
	}
	return c
}

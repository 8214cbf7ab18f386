package clocktest_test

import (
	"testing"
	"time"

	"github.com/fiveonit/engine/clock"
	"github.com/fiveonit/engine/clock/clocktest"
)

// received returns what c holds now, if anything.
func received(c <-chan time.Time) (time.Time, bool) {
	select {
	case v := <-c:
		return v, true
	default:
		return time.Time{}, false
	}
}

// TestAdvanceFires: a timer fires once the clock reaches its time, not
// before, with the clock at that time; Advance fires the timers due in
// the order of their times and ends at its own time.
func TestAdvanceFires(t *testing.T) {
	f := clocktest.New()
	start := f.Now()
	a, b := f.NewTimer(30*time.Millisecond), f.NewTimer(10*time.Millisecond)
	f.Advance(9 * time.Millisecond)
	if _, ok := received(b.C()); ok {
		t.Fatal("fired before its time")
	}
	var order []time.Duration
	f.Advance(100 * time.Millisecond)
	for _, tm := range []clock.Timer{a, b} {
		v, ok := received(tm.C())
		if !ok {
			t.Fatal("a timer due did not fire")
		}
		order = append(order, v.Sub(start))
	}
	if order[0] != 30*time.Millisecond || order[1] != 10*time.Millisecond {
		t.Errorf("fired at %v, want each at its own time [30ms 10ms]", order)
	}
	if got := f.Now().Sub(start); got != 109*time.Millisecond {
		t.Errorf("the clock at %v after the advances, want 109ms", got)
	}
	if f.Armed() != 0 {
		t.Errorf("%d timers armed after both fired", f.Armed())
	}
}

// TestResetAndStop: Reset and Stop report whether the timer was armed,
// and leave no time sent before them to be received after them.
func TestResetAndStop(t *testing.T) {
	f := clocktest.New()
	tm := f.NewTimer(time.Second)
	if !tm.Stop() || tm.Stop() {
		t.Error("Stop: want true once, then false")
	}
	f.Advance(2 * time.Second)
	if _, ok := received(tm.C()); ok {
		t.Error("a stopped timer fired")
	}
	if tm.Reset(time.Second) {
		t.Error("Reset of a stopped timer reported it armed")
	}
	f.Advance(time.Second) // fires: a time waits in the channel
	if tm.Reset(time.Second) {
		t.Error("Reset of a fired timer reported it armed")
	}
	if _, ok := received(tm.C()); ok {
		t.Error("the time sent before a Reset was received after it")
	}
	if !tm.Reset(0) {
		t.Error("Reset of an armed timer reported it not armed")
	}
	if _, ok := received(tm.C()); !ok {
		t.Error("Reset(0) did not fire at once")
	}
}

// TestSettle: Settle returns once the goroutine the timer drives has armed
// it again, having done its work; a Reset due at once keeps it waiting for
// the work that starts too.
func TestSettle(t *testing.T) {
	f := clocktest.New()
	tm := f.NewTimer(time.Second)
	work := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 3 {
			<-tm.C()
			time.Sleep(time.Millisecond) // the work, slow: Settle must wait for it
			work++
			d := time.Second
			if work == 2 {
				d = 0 // behind: due again at once
			}
			tm.Reset(d)
		}
		tm.Stop()
	}()
	f.Step(t, time.Second)
	if work != 1 {
		t.Fatalf("after one step: %d runs of the work, want 1", work)
	}
	f.Step(t, time.Second)
	if work != 3 {
		t.Fatalf("after a step whose work was due again at once: %d runs, want 3", work)
	}
	<-done
	f.Settle(t) // nothing fired: returns at once
}

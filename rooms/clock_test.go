package rooms

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/fiveonit/engine/clock/clocktest"
	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/server/servertest"
)

// roomWatch is a RoomObserver a test waits on instead of polling: until
// runs a condition in a room's goroutine after each of its ticks, where
// it may read the room's game server.
type roomWatch struct {
	mu    sync.Mutex
	waits []*roomWait
}

// roomWait is one condition waited on.
type roomWait struct {
	room string
	cond func(r *Room) bool
	done chan struct{}
}

// Ticked checks the conditions waited on for r; it is called in r's
// goroutine.
func (w *roomWatch) Ticked(r *Room) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.waits = slices.DeleteFunc(w.waits, func(x *roomWait) bool {
		if x.room != r.Name || !x.cond(r) {
			return false
		}
		close(x.done)
		return true
	})
}

// Closed does nothing: a condition on a closed room never holds.
func (w *roomWatch) Closed(*Room) {}

// until waits at most d for cond to hold after a tick of the room named
// name (open already or not), and reports whether it did.
func (w *roomWatch) until(name string, d time.Duration, cond func(r *Room) bool) bool {
	x := &roomWait{room: name, cond: cond, done: make(chan struct{})}
	w.mu.Lock()
	w.waits = append(w.waits, x)
	w.mu.Unlock()
	select {
	case <-x.done:
		return true
	case <-time.After(d):
		w.mu.Lock()
		defer w.mu.Unlock()
		w.waits = slices.DeleteFunc(w.waits, func(y *roomWait) bool { return y == x })
		return false
	}
}

// TestCatchUp: a room runs the ticks that fell due on its clock since it
// last woke, at most MaxCatchUp at once; further behind, it skips the
// rest and counts them as overruns.
func TestCatchUp(t *testing.T) {
	clk := clocktest.New()
	m := newManager(t, Config{DefaultLevel: "test-flat", Clock: clk})
	room := m.Rooms()[0]
	for i, c := range []struct {
		advance         time.Duration
		ticks, overruns uint64
	}{
		{TickPeriod, 2, 0},               // the tick due as it opened, and the one due now
		{TickPeriod, 3, 0},               // one more
		{3 * TickPeriod, 6, 0},           // three behind: all three run
		{10 * TickPeriod, 11, 5},         // ten behind: five run, five skipped
		{TickPeriod / 2, 11, 5},          // none due
		{TickPeriod / 2, 12, 5},          // one due: back on the beat
		{MaxCatchUp * TickPeriod, 17, 5}, // as far behind as it catches up
	} {
		clk.Step(t, c.advance)
		if got := room.Info(); got.Ticks != c.ticks || got.Overruns != c.overruns {
			t.Fatalf("step %d (%v on): %d ticks and %d overruns, want %d and %d", i, c.advance, got.Ticks, got.Overruns, c.ticks, c.overruns)
		}
	}
}

// TestEmptyRoomGrace: a room other than the default closes once it has
// been seen empty for the grace period on its clock (it looks once a
// second), and not before; the default room never closes.
func TestEmptyRoomGrace(t *testing.T) {
	clk := clocktest.New()
	const grace = 5 * time.Second
	m := newManager(t, Config{DefaultLevel: "test-flat", Grace: grace, Clock: clk})
	r, s, err := m.Join("brief", Options{Level: "test-flat", Traffic: -1, Pedestrians: -1}, servertest.NewMemConn(false, 0), server.Who{})
	if err != nil {
		t.Fatal(err)
	}
	clk.Step(t, TickPeriod) // in the room
	s.Leave()
	clk.Step(t, TickPeriod) // out of it: empty from here
	open := func() bool { return slices.ContainsFunc(m.List(), func(i RoomInfo) bool { return i.Name == "brief" }) }
	// The room first sees itself empty at its first look, a second on,
	// and closes at the first look a grace period after that.
	for sec := 1; sec <= 1+int(grace/time.Second); sec++ {
		if !open() {
			t.Fatalf("closed %d s after it emptied, want %v after the first look", sec-1, grace)
		}
		clk.Step(t, time.Second)
	}
	if open() {
		t.Fatalf("still open %v after it was first seen empty: %+v", grace, m.List())
	}
	// The room leaves the list before its goroutine ends: wait for the
	// end, bounded.
	select {
	case <-r.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("closed, and its goroutine runs on")
	}
	for range 40 {
		clk.Step(t, time.Second)
	}
	if l := m.List(); len(l) != 1 || l[0].Name != "default" {
		t.Fatalf("rooms %+v, want the default room open", l)
	}
}

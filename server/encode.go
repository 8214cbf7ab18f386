package server

import (
	"runtime"
	"sync/atomic"
)

// encoders runs a tick's snapshot encoding on several goroutines. The
// encoders of different clients are independent and only read the arena
// (netsync.Encoder's contract), so their frames can be written at once; the
// views before and the sends after stay on the room goroutine, in order.
// The workers live as long as the GameServer (Close stops them), and a tick
// allocates nothing.
//
// The room goroutine and the workers take the due sessions one at a time
// from a shared counter, so the room goroutine never waits for a share
// handed out: once every session is taken it waits only for the ones still
// being encoded (at most one a worker) and for the workers to be done with
// the tick. It waits without parking, yielding its processor: a goroutine
// that blocks takes a sudog, and after a GC has emptied the runtime's
// central cache of them that is an allocation in the tick.
type encoders struct {
	n       int
	wake    chan struct{} // a token a worker for each tick's work
	stopped bool

	due   []*Session   // this tick's, set before the tokens are sent
	next  atomic.Int32 // the next session to take
	ended atomic.Int32 // the workers done with this tick
}

// newEncoders starts n-1 workers (the room goroutine encodes too); n <= 1
// encodes on the room goroutine alone.
func newEncoders(n int) *encoders {
	e := &encoders{n: max(n, 1)}
	if e.n > 1 {
		e.wake = make(chan struct{}, e.n-1)
		for i := 1; i < e.n; i++ {
			go e.work()
		}
	}
	return e
}

func (e *encoders) work() {
	for range e.wake {
		e.take()
		e.ended.Add(1)
	}
}

// take encodes due sessions until none is left to take.
func (e *encoders) take() {
	for {
		i := int(e.next.Add(1)) - 1
		if i >= len(e.due) {
			return
		}
		s := e.due[i]
		s.frame = s.snap.Encode(&s.view)
	}
}

// minShare is the fewest clients a tick worth waking the workers for.
const minShare = 4

// run encodes every due session's frame (into s.frame).
func (e *encoders) run(due []*Session) {
	if e.n <= 1 || e.stopped || len(due) < 2*minShare {
		encodeAll(due)
		return
	}
	e.due = due
	e.next.Store(0)
	e.ended.Store(0)
	workers := int32(e.n - 1)
	for i := int32(0); i < workers; i++ {
		e.wake <- struct{}{} // the buffer holds them: the workers took the last tick's
	}
	e.take()
	for e.ended.Load() < workers {
		runtime.Gosched()
	}
	e.due = nil
}

func encodeAll(due []*Session) {
	for _, s := range due {
		s.frame = s.snap.Encode(&s.view)
	}
}

// stop ends the workers.
func (e *encoders) stop() {
	if e.wake != nil && !e.stopped {
		close(e.wake)
		e.stopped = true
	}
}

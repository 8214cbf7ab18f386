package server

// encoders runs a tick's snapshot encoding on several goroutines. The
// encoders of different clients are independent and only read the arena
// (netsync.Encoder's contract), so their frames can be written at once; the
// views before and the sends after stay on the room goroutine, in order.
// The workers live as long as the GameServer (Close stops them), and a tick
// allocates nothing: a job is a slice of the tick's due sessions.
type encoders struct {
	n       int
	jobs    chan []*Session
	done    chan struct{}
	stopped bool
}

// newEncoders starts n-1 workers (the room goroutine encodes a share too);
// n <= 1 encodes on the room goroutine alone.
func newEncoders(n int) *encoders {
	e := &encoders{n: max(n, 1)}
	if e.n > 1 {
		e.jobs = make(chan []*Session, e.n-1)
		e.done = make(chan struct{}, e.n-1)
		for i := 1; i < e.n; i++ {
			go e.work(e.jobs, e.done)
		}
	}
	return e
}

func (e *encoders) work(jobs <-chan []*Session, done chan<- struct{}) {
	for due := range jobs {
		encodeAll(due)
		done <- struct{}{}
	}
}

// minShare is the fewest clients worth a worker's hand-off.
const minShare = 4

// run encodes every due session's frame (into s.frame).
func (e *encoders) run(due []*Session) {
	n := min(e.n, len(due)/minShare)
	if e.stopped {
		n = 1
	}
	if n <= 1 {
		encodeAll(due)
		return
	}
	per := (len(due) + n - 1) / n
	sent := 0
	for i := per; i < len(due); i += per {
		e.jobs <- due[i:min(i+per, len(due))]
		sent++
	}
	encodeAll(due[:per])
	for ; sent > 0; sent-- {
		<-e.done
	}
}

func encodeAll(due []*Session) {
	for _, s := range due {
		s.frame = s.snap.Encode(&s.view)
	}
}

// stop ends the workers.
func (e *encoders) stop() {
	if e.jobs != nil && !e.stopped {
		close(e.jobs)
		e.stopped = true
	}
}

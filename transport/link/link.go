// Package link simulates a network link for the tests, the benchmarks and
// the bots: a delay, a jitter and a loss each way, from a seeded generator,
// so that a run can be repeated.
//
// A Pipe is one direction of a link on a clock its caller keeps: frames go
// in with Push and come out with Pop once their time has come. The
// in-process tools (bench/loadgen, the server's tests) drive pipes on a
// simulated clock. A Conn wraps a client's real connection (a WebSocket or
// a WebRTC data channel pair) in a pipe each way on the wall clock, for the
// bots.
package link

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// Config is one direction of a link.
type Config struct {
	// Delay is the one-way delay of every frame.
	Delay time.Duration
	// Jitter spreads each frame's delay uniformly over Delay±Jitter
	// (never below zero).
	Jitter time.Duration
	// Loss is the fraction (0..1) of the binary frames dropped. Text
	// frames are never dropped: the server's reliable frames stay
	// reliable.
	Loss float64
	// Reorder lets binary frames overtake each other, as on an unordered
	// channel (a WebRTC data channel). Without it every frame waits for
	// the one before, as over TCP (a WebSocket). Text frames always keep
	// their order.
	Reorder bool
}

// ErrConfig is returned by Validate for a link that cannot be.
var ErrConfig = errors.New("link: bad config")

// Validate reports whether c is a link: no negative delay or jitter, a
// loss within 0..1.
func (c Config) Validate() error {
	switch {
	case c.Delay < 0:
		return fmt.Errorf("%w: delay %v is negative", ErrConfig, c.Delay)
	case c.Jitter < 0:
		return fmt.Errorf("%w: jitter %v is negative", ErrConfig, c.Jitter)
	case !(c.Loss >= 0 && c.Loss <= 1): // NaN too
		return fmt.Errorf("%w: loss %v is not within 0..1", ErrConfig, c.Loss)
	}
	return nil
}

// Zero reports whether the link changes nothing: no delay, jitter or loss.
func (c Config) Zero() bool { return c.Delay == 0 && c.Jitter == 0 && c.Loss == 0 }

// Frame is a frame in a pipe.
type Frame struct {
	Data []byte
	Text bool
	// At is when it comes out of the pipe, on the pipe's clock.
	At time.Duration
}

// PipeStats counts what a pipe did.
type PipeStats struct {
	Frames uint64 // frames pushed
	Lost   uint64 // of them, dropped by the loss
}

// Pipe is one direction of a link on a clock its caller keeps. It copies
// every frame pushed, and reuses the buffers of the frames handed back with
// Release, so that a steady stream allocates nothing. It is not safe for
// concurrent use.
type Pipe struct {
	cfg      Config
	rng      *rand.Rand
	q        []Frame // in the order pushed; Pop takes the due ones out
	lastAt   time.Duration
	lastText time.Duration
	free     [][]byte
	stats    PipeStats
}

// NewPipe returns a pipe with c's delay, jitter and loss, seeded by seed.
// It fails with ErrConfig for a c that Validate refuses.
func NewPipe(c Config, seed uint64) (*Pipe, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &Pipe{cfg: c, rng: rand.New(rand.NewPCG(seed, 0x11e4))}, nil
}

// Config returns the pipe's link.
func (p *Pipe) Config() Config { return p.cfg }

// Stats returns the pipe's counters.
func (p *Pipe) Stats() PipeStats { return p.stats }

// Len returns the frames in the pipe.
func (p *Pipe) Len() int { return len(p.q) }

// Push puts a frame into the pipe at now, to come out after its delay. It
// reports false when the loss dropped it. data is copied.
func (p *Pipe) Push(now time.Duration, data []byte, text bool) bool {
	p.stats.Frames++
	if !text && p.cfg.Loss > 0 && p.rng.Float64() < p.cfg.Loss {
		p.stats.Lost++
		return false
	}
	d := p.cfg.Delay
	if j := p.cfg.Jitter; j > 0 {
		d += time.Duration((p.rng.Float64()*2 - 1) * float64(j))
	}
	at := now + max(d, 0)
	switch {
	case text:
		at = max(at, p.lastText)
		if !p.cfg.Reorder {
			at = max(at, p.lastAt)
		}
		p.lastText = at
	case !p.cfg.Reorder:
		at = max(at, p.lastAt)
	}
	if !p.cfg.Reorder {
		p.lastAt = max(p.lastAt, at)
	}
	p.q = append(p.q, Frame{Data: append(p.take(len(data)), data...), Text: text, At: at})
	return true
}

// take returns an empty buffer that holds n bytes: one given back, or a new
// one.
func (p *Pipe) take(n int) []byte {
	for i := len(p.free) - 1; i >= 0; i-- {
		if b := p.free[i]; cap(b) >= n {
			last := len(p.free) - 1
			p.free[i], p.free[last] = p.free[last], nil
			p.free = p.free[:last]
			return b[:0]
		}
	}
	return make([]byte, 0, max(n, 256))
}

// Next returns when the next frame comes out, and false when the pipe is
// empty.
func (p *Pipe) Next() (time.Duration, bool) {
	if len(p.q) == 0 {
		return 0, false
	}
	at := p.q[0].At
	for i := 1; i < len(p.q); i++ {
		at = min(at, p.q[i].At)
	}
	return at, true
}

// Pop appends to out the frames due at now, in the order they come out (by
// time, then in the order pushed), and returns it. The frames' buffers are
// the caller's until it hands them back with Release.
func (p *Pipe) Pop(now time.Duration, out []Frame) []Frame {
	start := len(out)
	k := 0
	for _, f := range p.q {
		if f.At <= now {
			out = append(out, f)
			continue
		}
		p.q[k] = f
		k++
	}
	clear(p.q[k:])
	p.q = p.q[:k]
	due := out[start:]
	// A stable insertion sort by time: few frames, mostly in order.
	for i := 1; i < len(due); i++ {
		for j := i; j > 0 && due[j].At < due[j-1].At; j-- {
			due[j], due[j-1] = due[j-1], due[j]
		}
	}
	return out
}

// Release gives back the buffers of frames from Pop, for the next pushes.
func (p *Pipe) Release(frames []Frame) {
	for i := range frames {
		if len(p.free) < 256 {
			p.free = append(p.free, frames[i].Data)
		}
		frames[i].Data = nil
	}
}

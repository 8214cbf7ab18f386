package link

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Inner is a client's connection as the bots use it (bot.Conn): a
// WebSocket or a WebRTC client connection.
type Inner interface {
	Send(ctx context.Context, frame []byte, text bool) error
	Read(ctx context.Context) (frame []byte, text bool, err error)
	Close() error
	Lossy() bool
}

// ErrClosed is returned by Send and Read after Close.
var ErrClosed = errors.New("link: closed")

// Conn is a client connection seen through a simulated link on the wall
// clock: a frame sent waits in the up pipe before the inner connection
// sends it, and a frame the inner connection receives waits in the down
// pipe before Read returns it. The inner connection's own error (the
// server's close) comes after the frames received before it, delayed
// alike. Send and Read may be called from different goroutines.
type Conn struct {
	inner Inner
	start time.Time
	lossy bool

	mu        sync.Mutex
	up, down  *Pipe
	ready     []Frame // popped from down, not yet read
	readErr   error
	readErrAt time.Duration
	sendErr   error

	upWake, downWake chan struct{}
	done             chan struct{}
	closeOnce        sync.Once
}

// Wrap puts inner behind a link: up for what the client sends, down for
// what it receives, each seeded from seed. It fails with ErrConfig for a
// direction that Config.Validate refuses. Wrap starts two goroutines,
// which Close ends.
func Wrap(inner Inner, up, down Config, seed uint64) (*Conn, error) {
	pu, err := NewPipe(up, seed)
	if err != nil {
		return nil, err
	}
	pd, err := NewPipe(down, seed^0x9e3779b97f4a7c15)
	if err != nil {
		return nil, err
	}
	c := &Conn{
		inner: inner, start: time.Now(), lossy: inner.Lossy() || up.Loss > 0 || down.Loss > 0,
		up: pu, down: pd,
		upWake: make(chan struct{}, 1), downWake: make(chan struct{}, 1), done: make(chan struct{}),
	}
	go c.receive()
	go c.send()
	return c, nil
}

func (c *Conn) now() time.Duration { return time.Since(c.start) }

func wake(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// receive reads the inner connection into the down pipe until it fails.
func (c *Conn) receive() {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-c.done
		cancel()
	}()
	for {
		data, text, err := c.inner.Read(ctx)
		c.mu.Lock()
		if err != nil {
			c.readErr, c.readErrAt = err, c.now()+c.down.cfg.Delay
			c.mu.Unlock()
			wake(c.downWake)
			return
		}
		c.down.Push(c.now(), data, text)
		c.mu.Unlock()
		wake(c.downWake)
	}
}

// send hands the frames of the up pipe to the inner connection as their
// time comes.
func (c *Conn) send() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	var due []Frame
	for {
		c.mu.Lock()
		due = c.up.Pop(c.now(), due[:0])
		next, ok := c.up.Next()
		c.mu.Unlock()
		for _, f := range due {
			if err := c.inner.Send(ctx, f.Data, f.Text); err != nil {
				c.mu.Lock()
				if c.sendErr == nil {
					c.sendErr = err
				}
				c.mu.Unlock()
			}
		}
		c.mu.Lock()
		c.up.Release(due)
		c.mu.Unlock()
		wait := time.Hour
		if ok {
			wait = max(next-c.now(), 0)
		}
		t.Reset(wait)
		select {
		case <-c.done:
			return
		case <-c.upWake:
		case <-t.C:
		}
	}
}

// Send puts a frame into the up pipe (frame is copied). It returns the
// inner connection's last send error, if any.
func (c *Conn) Send(ctx context.Context, frame []byte, text bool) error {
	select {
	case <-c.done:
		return ErrClosed
	default:
	}
	c.mu.Lock()
	err := c.sendErr
	if err == nil {
		c.up.Push(c.now(), frame, text)
	}
	c.mu.Unlock()
	wake(c.upWake)
	return err
}

// Read returns the next frame out of the down pipe, waiting for it; then,
// once the frames before it are read and its time has come, the inner
// connection's error.
func (c *Conn) Read(ctx context.Context) ([]byte, bool, error) {
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for {
		c.mu.Lock()
		now := c.now()
		if len(c.ready) == 0 {
			c.ready = c.down.Pop(now, c.ready[:0])
		}
		if len(c.ready) > 0 {
			f := c.ready[0]
			c.ready = c.ready[1:]
			c.mu.Unlock()
			return f.Data, f.Text, nil // the buffer is the caller's: never released
		}
		wait := time.Hour
		if next, ok := c.down.Next(); ok {
			wait = next - now
		} else if c.readErr != nil {
			if now >= c.readErrAt {
				err := c.readErr
				c.mu.Unlock()
				return nil, false, err
			}
			wait = c.readErrAt - now
		}
		c.mu.Unlock()
		t.Reset(max(wait, 0))
		select {
		case <-ctx.Done():
			return nil, false, ctx.Err()
		case <-c.done:
			return nil, false, ErrClosed
		case <-c.downWake:
		case <-t.C:
		}
	}
}

// Close closes the inner connection and ends the link's goroutines.
func (c *Conn) Close() error {
	var err error
	c.closeOnce.Do(func() {
		close(c.done)
		err = c.inner.Close()
	})
	return err
}

// Lossy reports whether frames may be lost: the inner connection's, or the
// link's own loss.
func (c *Conn) Lossy() bool { return c.lossy }

// Stats returns the counters of the up and the down pipes.
func (c *Conn) Stats() (up, down PipeStats) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.up.Stats(), c.down.Stats()
}

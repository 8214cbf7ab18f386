package link

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"
)

// TestPipeDelayJitterOrder: every frame comes out within Delay±Jitter of
// its push; without Reorder in the order pushed (a frame waits for the one
// before), with Reorder some binary frames overtake, text frames never.
func TestPipeDelayJitterOrder(t *testing.T) {
	const delay, jitter = 50 * time.Millisecond, 10 * time.Millisecond
	for _, reorder := range []bool{false, true} {
		p, err := NewPipe(Config{Delay: delay, Jitter: jitter, Reorder: reorder}, 1)
		if err != nil {
			t.Fatal(err)
		}
		const n = 2000
		sent := map[string]time.Duration{}
		for i := range n {
			now := time.Duration(i) * time.Millisecond
			name := fmt.Sprint(i)
			p.Push(now, []byte(name), i%10 == 0)
			sent[name] = now
		}
		var out []Frame
		for now := time.Duration(0); now < n*time.Millisecond+time.Second; now += time.Millisecond {
			out = p.Pop(now, out)
		}
		if len(out) != n || p.Len() != 0 {
			t.Fatalf("reorder %v: %d frames out of %d, %d left", reorder, len(out), n, p.Len())
		}
		overtaken, lastText := 0, -1
		for i, f := range out {
			var k int
			fmt.Sscan(string(f.Data), &k)
			d := f.At - sent[string(f.Data)]
			if d < delay-jitter || (reorder && d > delay+jitter) {
				t.Fatalf("reorder %v: frame %d delayed %v", reorder, k, d)
			}
			if i > 0 && f.At < out[i-1].At {
				t.Fatalf("reorder %v: Pop's frames out of time order", reorder)
			}
			if i > 0 {
				var prev int
				fmt.Sscan(string(out[i-1].Data), &prev)
				if k < prev {
					overtaken++
				}
			}
			if f.Text {
				if k < lastText {
					t.Fatalf("reorder %v: text frame %d after %d", reorder, k, lastText)
				}
				lastText = k
			}
		}
		if reorder != (overtaken > 0) {
			t.Fatalf("reorder %v: %d frames overtaken", reorder, overtaken)
		}
	}
}

// TestPipeLoss: the loss drops its share of the binary frames, never a text
// frame, and the same seed drops the same frames.
func TestPipeLoss(t *testing.T) {
	run := func(seed uint64) (lost []int, text int) {
		p, _ := NewPipe(Config{Loss: 0.2}, seed)
		for i := range 10000 {
			if !p.Push(0, []byte{1}, i%5 == 0) {
				lost = append(lost, i)
			}
		}
		for _, f := range p.Pop(0, nil) {
			if f.Text {
				text++
			}
		}
		if st := p.Stats(); st.Lost != uint64(len(lost)) || st.Frames != 10000 {
			t.Fatalf("stats %+v, %d lost", st, len(lost))
		}
		return lost, text
	}
	a, text := run(7)
	b, _ := run(7)
	c, _ := run(8)
	if text != 2000 {
		t.Fatalf("%d text frames of 2000 came out", text)
	}
	if share := float64(len(a)) / 8000; math.Abs(share-0.2) > 0.02 {
		t.Fatalf("lost %.3f of the binary frames, want 0.2", share)
	}
	if fmt.Sprint(a) != fmt.Sprint(b) || fmt.Sprint(a) == fmt.Sprint(c) {
		t.Fatal("the loss is not the seed's")
	}
}

func TestConfigValidate(t *testing.T) {
	for _, c := range []Config{{Delay: -1}, {Jitter: -1}, {Loss: -0.1}, {Loss: 1.1}, {Loss: math.NaN()}} {
		if err := c.Validate(); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: %v", c, err)
		}
	}
	if err := (Config{Delay: time.Second, Jitter: time.Millisecond, Loss: 1}).Validate(); err != nil {
		t.Error(err)
	}
}

// fakeInner is a connection whose frames the test feeds and whose sends it
// collects.
type fakeInner struct {
	in     chan []byte
	mu     sync.Mutex
	sent   []time.Time
	closed bool
}

var errGone = errors.New("gone")

func (f *fakeInner) Send(ctx context.Context, frame []byte, text bool) error {
	f.mu.Lock()
	f.sent = append(f.sent, time.Now())
	f.mu.Unlock()
	return nil
}

func (f *fakeInner) Read(ctx context.Context) ([]byte, bool, error) {
	select {
	case b, ok := <-f.in:
		if !ok {
			return nil, false, errGone
		}
		return b, false, nil
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
}

func (f *fakeInner) Close() error {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
	return nil
}

func (f *fakeInner) Lossy() bool { return false }

// TestConnDelays: over the wall clock, a frame sent reaches the inner
// connection a delay later, a frame received is read a delay later, in
// order, and the inner connection's end comes after its frames.
func TestConnDelays(t *testing.T) {
	const delay = 40 * time.Millisecond
	in := &fakeInner{in: make(chan []byte, 8)}
	c, err := Wrap(in, Config{Delay: delay}, Config{Delay: delay}, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	if err := c.Send(context.Background(), []byte{1}, false); err != nil {
		t.Fatal(err)
	}
	in.in <- []byte{1}
	in.in <- []byte{2}
	close(in.in)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for want := byte(1); want <= 2; want++ {
		b, _, err := c.Read(ctx)
		if err != nil || len(b) != 1 || b[0] != want {
			t.Fatalf("read %v, %v; want frame %d", b, err, want)
		}
		if d := time.Since(start); d < delay {
			t.Fatalf("frame %d read after %v, before the delay", want, d)
		}
	}
	if _, _, err := c.Read(ctx); !errors.Is(err, errGone) {
		t.Fatalf("after the frames: %v, want the inner connection's error", err)
	}
	var sent []time.Time
	for deadline := time.Now().Add(2 * time.Second); len(sent) == 0 && time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		in.mu.Lock()
		sent = in.sent
		in.mu.Unlock()
	}
	if len(sent) != 1 || sent[0].Sub(start) < delay {
		t.Fatalf("sent %v", sent)
	}
	c.Close()
	if err := c.Send(context.Background(), []byte{1}, false); !errors.Is(err, ErrClosed) {
		t.Fatalf("send after close: %v", err)
	}
}

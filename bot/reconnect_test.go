package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fiveonit/engine/textframe"
)

// TestBackoffSchedule: the waits double from Min and stop at Max, and the
// jitter takes at most its share off each, drawn from the source given.
func TestBackoffSchedule(t *testing.T) {
	ms := time.Millisecond
	want := []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, 1600 * ms, 3200 * ms, 5000 * ms, 5000 * ms, 5000 * ms,
		5000 * ms, 5000 * ms, 5000 * ms, 5000 * ms, 5000 * ms, 5000 * ms}
	b := DefaultBackoff
	if b.Tries != len(want) {
		t.Fatalf("%d tries, want %d", b.Tries, len(want))
	}
	for k, w := range want {
		if got := b.Delay(k, nil); got != w {
			t.Errorf("try %d: %v, want %v", k, got, w)
		}
	}
	if got := b.Delay(1000, nil); got != 5*time.Second {
		t.Errorf("try 1000: %v, want the cap", got)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var off float64
	for k, w := range want {
		got := b.Delay(k, rng)
		if got > w || got < w*3/4 {
			t.Errorf("try %d with jitter: %v, want within %v..%v", k, got, w*3/4, w)
		}
		off += 1 - float64(got)/float64(w)
	}
	if off == 0 {
		t.Error("the jitter took nothing off")
	}
}

// fakeConn is a connection to a server that sends a welcome (with a
// reconnect token, tok) and nothing more, until it drops.
type fakeConn struct {
	welcome []byte
	refuse  error // returned by Read at once, instead of the welcome
	mu      sync.Mutex
	sent    []string // the text frames sent
	closed  string   // "", "dropped" or "closed"
	gone    chan struct{}
	once    sync.Once
}

func newFakeConn(t *testing.T, tok string) *fakeConn {
	t.Helper()
	w, err := json.Marshal(textframe.Welcome{Type: "welcome", Session: 7, Character: 3, Car: 4, Level: "test-flat", Rejoin: tok, RejoinSeconds: 30})
	if err != nil {
		t.Fatal(err)
	}
	return &fakeConn{welcome: w, gone: make(chan struct{})}
}

var errFakeDrop = errors.New("fake: connection reset")

func (f *fakeConn) Read(ctx context.Context) ([]byte, bool, error) {
	if f.refuse != nil {
		return nil, false, f.refuse
	}
	f.mu.Lock()
	w := f.welcome
	f.welcome = nil
	f.mu.Unlock()
	if w != nil {
		return w, true, nil
	}
	select {
	case <-f.gone:
		return nil, false, errFakeDrop
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
}

func (f *fakeConn) Send(ctx context.Context, frame []byte, text bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed != "" {
		return errFakeDrop
	}
	if text {
		f.sent = append(f.sent, string(frame))
	}
	return nil
}

func (f *fakeConn) end(how string) error {
	f.once.Do(func() {
		f.mu.Lock()
		f.closed = how
		f.mu.Unlock()
		close(f.gone)
	})
	return nil
}

func (f *fakeConn) Close() error { return f.end("closed") }
func (f *fakeConn) Drop() error  { return f.end("dropped") }
func (f *fakeConn) Lossy() bool  { return false }

func (f *fakeConn) state() (string, []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed, append([]string(nil), f.sent...)
}

// closeError is a server's close with a reason, as a transport reports it.
type closeError struct{ reason string }

func (e *closeError) Error() string       { return "closed by the server: " + e.reason }
func (e *closeError) CloseReason() string { return e.reason }

// sleeps records the backoff's waits and waits none.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

// TestRedialSpendsItsTries: a bot whose connection drops and whose every
// dial fails tries Backoff.Tries times, waiting the schedule's delays with
// the jitter of its seed (the same again for the same seed), and stops with
// the last dial's error; it dials with the welcome's token and drops the
// old connection (no normal close: the room holds the place).
func TestRedialSpendsItsTries(t *testing.T) {
	run := func(seed uint64) (Result, []time.Duration, *fakeConn, []string) {
		first := newFakeConn(t, "tok-1")
		var sl sleeps
		var tokens []string
		o := Options{DropAt: 50 * time.Millisecond, Sleep: sl.sleep,
			Redial: func(ctx context.Context, token string) (Conn, error) {
				tokens = append(tokens, token)
				return nil, fmt.Errorf("dial %d: connection refused", len(tokens))
			}}
		res := RunWith(context.Background(), first, seed, 10*time.Second, o)
		return res, sl.d, first, tokens
	}
	res, delays, first, tokens := run(5)
	if res.Err == nil || !strings.Contains(res.Err.Error(), "dial 15: connection refused") || !res.ReconnectFailed {
		t.Fatalf("err %v, failed %v; want the 15th dial's error", res.Err, res.ReconnectFailed)
	}
	if res.Dials != 15 || len(tokens) != 15 || tokens[0] != "tok-1" || tokens[14] != "tok-1" {
		t.Fatalf("%d dials with tokens %q, want 15 with the welcome's", res.Dials, tokens)
	}
	if res.Drops != 1 || res.Reconnects != 0 {
		t.Fatalf("%d drops, %d reconnects; want 1 and 0", res.Drops, res.Reconnects)
	}
	if how, _ := first.state(); how != "dropped" {
		t.Fatalf("the old connection was %s, want dropped", how)
	}
	rng := rand.New(rand.NewPCG(5, backoffStream))
	for k, d := range delays {
		if want := DefaultBackoff.Delay(k, rng); d != want {
			t.Errorf("wait %d: %v, want %v", k, d, want)
		}
		if base := DefaultBackoff.Delay(k, nil); d > base || d < base*3/4 {
			t.Errorf("wait %d: %v, want within %v..%v", k, d, base*3/4, base)
		}
	}
	if len(delays) != 15 {
		t.Fatalf("%d waits, want 15", len(delays))
	}
	_, again, _, _ := run(5)
	_, other, _, _ := run(6)
	for k := range delays {
		if again[k] != delays[k] {
			t.Fatalf("wait %d: %v, then %v with the same seed", k, delays[k], again[k])
		}
	}
	if fmt.Sprint(other) == fmt.Sprint(delays) {
		t.Fatal("another seed drew the same jitter")
	}
}

// TestRedialComesBack: a bot whose connection drops dials again and is back
// with the new connection's welcome, once; its later token is the new
// welcome's; a bot that ends its run sends the leave command and closes
// normally.
func TestRedialComesBack(t *testing.T) {
	first := newFakeConn(t, "tok-1")
	var sl sleeps
	var conns []*fakeConn
	var tokens []string
	o := Options{DropAt: 100 * time.Millisecond, DropEvery: 300 * time.Millisecond, Sleep: sl.sleep,
		Redial: func(ctx context.Context, token string) (Conn, error) {
			tokens = append(tokens, token)
			c := newFakeConn(t, fmt.Sprintf("tok-%d", len(tokens)+1))
			conns = append(conns, c)
			return c, nil
		}}
	res := RunWith(context.Background(), first, 1, 550*time.Millisecond, o)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	// Dropped at 100 ms and 400 ms.
	if res.Drops != 2 || res.Reconnects != 2 || len(res.ReconnectTimes) != 2 || len(res.Welcomes) != 3 || res.Dials != 2 {
		t.Fatalf("%d drops, %d reconnects (%v), %d welcomes, %d dials", res.Drops, res.Reconnects, res.ReconnectTimes, len(res.Welcomes), res.Dials)
	}
	if strings.Join(tokens, " ") != "tok-1 tok-2" {
		t.Fatalf("dialled with %q, want each welcome's token in turn", tokens)
	}
	if len(sl.d) != 2 || sl.d[0] > 100*time.Millisecond || sl.d[1] > 100*time.Millisecond {
		t.Fatalf("waits %v: the tries count from each drop anew", sl.d)
	}
	for i, c := range append([]*fakeConn{first}, conns[:1]...) {
		if how, _ := c.state(); how != "dropped" {
			t.Errorf("connection %d was %q, want dropped", i, how)
		}
	}
	how, sent := conns[1].state()
	if how != "closed" || len(sent) != 1 || !strings.Contains(sent[0], `"type":"leave"`) {
		t.Fatalf("the last connection: %q after %q; want the leave command, then a close", how, sent)
	}
}

// TestRedialRefused: a server's close with a reason on the new connection
// (the place gone) ends the run with the reason after that one try.
func TestRedialRefused(t *testing.T) {
	first := newFakeConn(t, "tok-1")
	var sl sleeps
	o := Options{DropAt: 50 * time.Millisecond, Sleep: sl.sleep,
		Redial: func(ctx context.Context, token string) (Conn, error) {
			c := newFakeConn(t, "")
			c.refuse = &closeError{"your place in this room is gone: join again"}
			return c, nil
		}}
	res := RunWith(context.Background(), first, 1, 10*time.Second, o)
	if reason, ok := ServerClosed(res.Err); !ok || reason != "your place in this room is gone: join again" || !res.ReconnectFailed || res.Dials != 1 {
		t.Fatalf("err %v (reason %q), failed %v, %d dials", res.Err, reason, res.ReconnectFailed, res.Dials)
	}
	if res.Seconds > 5 {
		t.Fatalf("the run went on %.1f s after the refusal", res.Seconds)
	}
}

// TestNoRedialWithoutToken: a room that holds no places gives no token: a
// drop ends the run, with no dial.
func TestNoRedialWithoutToken(t *testing.T) {
	first := newFakeConn(t, "")
	dials := 0
	o := Options{DropAt: 50 * time.Millisecond, Sleep: (&sleeps{}).sleep,
		Redial: func(ctx context.Context, token string) (Conn, error) { dials++; return nil, errors.New("no") }}
	res := RunWith(context.Background(), first, 1, 10*time.Second, o)
	if res.Err == nil || !strings.Contains(res.Err.Error(), "no reconnect token") || dials != 0 || res.ReconnectFailed {
		t.Fatalf("err %v, %d dials, failed %v", res.Err, dials, res.ReconnectFailed)
	}
}

// TestServerCloseEndsTheRun: without Redial, a drop ends the run with the
// read's error, as before reconnection existed; and ServerClosed tells a
// close with a reason from another error.
func TestServerCloseEndsTheRun(t *testing.T) {
	first := newFakeConn(t, "tok-1")
	go func() {
		time.Sleep(50 * time.Millisecond)
		first.end("reset") // the network fails
	}()
	res := RunWith(context.Background(), first, 1, 10*time.Second, Options{})
	if !errors.Is(res.Err, errFakeDrop) || res.Dials != 0 {
		t.Fatalf("err %v, %d dials", res.Err, res.Dials)
	}
	if _, ok := ServerClosed(fmt.Errorf("wrapped: %w", &closeError{"kicked"})); !ok {
		t.Error("a wrapped close is not the server's")
	}
	if _, ok := ServerClosed(errFakeDrop); ok {
		t.Error("a reset is the server's close")
	}
}

package agones_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fiveonit/engine/fleet/agones"
	"github.com/fiveonit/engine/fleet/agones/agonestest"
)

// logBuf is a log the client writes from many goroutines.
type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// count returns how many records have message msg.
func (l *logBuf) count(msg string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, line := range strings.Split(l.b.String(), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == msg {
			n++
		}
	}
	return n
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// newFake starts a fake SDK server with a rooms counter and a players
// list, closed when the test ends.
func newFake(t *testing.T) *agonestest.Server {
	t.Helper()
	f, err := agonestest.New(agonestest.Options{
		Counters: map[string]agonestest.Counter{"rooms": {Count: 0, Capacity: 10}},
		Lists:    map[string]agonestest.List{"players": {Capacity: 3}},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

// newClient returns a client of addr logging JSON into a logBuf.
func newClient(t *testing.T, addr string, cfg agones.Config) (*agones.Client, *logBuf) {
	t.Helper()
	logs := &logBuf{}
	cfg.Addr = addr
	cfg.Log = slog.New(slog.NewJSONHandler(logs, nil))
	c, err := agones.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	return c, logs
}

func ctxT(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestLifecycleAndMetadata: Ready, Health, SetLabel, SetAnnotation and
// Shutdown send the documented routes and bodies, and the GameServer
// follows: Ready, the labels and annotation prefixed, Shutdown.
func TestLifecycleAndMetadata(t *testing.T) {
	f := newFake(t)
	c, _ := newClient(t, f.Addr(), agones.Config{})
	ctx := ctxT(t)
	for _, step := range []struct {
		name string
		call func() error
	}{
		{"ready", func() error { return c.Ready(ctx) }},
		{"health", func() error { return c.Health(ctx) }},
		{"label", func() error { return c.SetLabel(ctx, "rooms", "3") }},
		{"annotation", func() error { return c.SetAnnotation(ctx, "run", "duel: open, 2 seats") }},
	} {
		if err := step.call(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
	}
	gs, err := c.GameServer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if gs.Status.State != agones.StateReady || gs.ObjectMeta.Labels["agones.dev/sdk-rooms"] != "3" ||
		gs.ObjectMeta.Annotations["agones.dev/sdk-run"] != "duel: open, 2 seats" || gs.ObjectMeta.Generation != 1 {
		t.Errorf("GameServer %+v", gs)
	}
	if p, ok := gs.Port("default"); !ok || p != 7654 {
		t.Errorf("port default %d %v", p, ok)
	}
	if gs.Spec.Health.PeriodSeconds != 5 || gs.Spec.Health.FailureThreshold != 3 {
		t.Errorf("health %+v", gs.Spec.Health)
	}
	if err := c.Shutdown(ctx); err != nil || f.State() != "Shutdown" {
		t.Fatalf("shutdown: %v, state %s", err, f.State())
	}
	for route, body := range map[string]string{
		"POST /ready": "{}", "POST /health": "{}", "POST /shutdown": "{}",
		"PUT /metadata/label":      `{"key":"rooms","value":"3"}`,
		"PUT /metadata/annotation": `{"key":"run","value":"duel: open, 2 seats"}`,
	} {
		calls := f.Calls(route)
		if len(calls) != 1 || calls[0].Body != body {
			t.Errorf("%s: calls %+v, want one with body %s", route, calls, body)
		}
	}
}

// TestCountersAndLists: the beta calls keep the counter and the list, with
// 64-bit numbers as strings, and the SDK server's refusals come back as
// ErrNotFound, ErrAlreadyExists or an *Error.
func TestCountersAndLists(t *testing.T) {
	f := newFake(t)
	c, _ := newClient(t, f.Addr(), agones.Config{})
	ctx := ctxT(t)
	ct, err := c.SetCounter(ctx, "rooms", 4, 64)
	if err != nil || ct.Count != 4 || ct.Capacity != 64 || ct.Name != "rooms" {
		t.Fatalf("set counter: %+v %v", ct, err)
	}
	if calls := f.Calls("PATCH /v1beta1/counters/rooms"); len(calls) != 1 || calls[0].Body != `{"count":"4","capacity":"64"}` {
		t.Errorf("counter calls %+v", calls)
	}
	if ct, err := c.Counter(ctx, "rooms"); err != nil || ct.Count != 4 {
		t.Errorf("counter: %+v %v", ct, err)
	}
	if _, err := c.SetCounter(ctx, "rooms", 65, -1); err == nil || errors.Is(err, agones.ErrNotFound) {
		t.Errorf("a count past the capacity: %v", err)
	}
	if _, err := c.Counter(ctx, "sessions"); !errors.Is(err, agones.ErrNotFound) {
		t.Errorf("a counter the fleet lacks: %v, want ErrNotFound", err)
	}
	for _, v := range []string{"ada", "bo"} {
		if _, err := c.AddListValue(ctx, "players", v); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.AddListValue(ctx, "players", "ada"); !errors.Is(err, agones.ErrAlreadyExists) {
		t.Errorf("a value twice: %v, want ErrAlreadyExists", err)
	}
	if l, err := c.RemoveListValue(ctx, "players", "ada"); err != nil || len(l.Values) != 1 || l.Values[0] != "bo" || l.Capacity != 3 {
		t.Errorf("remove: %+v %v", l, err)
	}
	if _, err := c.RemoveListValue(ctx, "players", "ada"); !errors.Is(err, agones.ErrNotFound) {
		t.Errorf("a value not there: %v, want ErrNotFound", err)
	}
	if _, err := c.List(ctx, "rooms"); !errors.Is(err, agones.ErrNotFound) {
		t.Errorf("a list the fleet lacks: %v", err)
	}
	if _, err := c.AddListValue(ctx, "players", ""); !errors.Is(err, agones.ErrInvalid) {
		t.Errorf("an empty value: %v", err)
	}
	var e *agones.Error
	if _, err := c.AddListValue(ctx, "players", "cy"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddListValue(ctx, "players", "di"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddListValue(ctx, "players", "ed"); !errors.As(err, &e) || !strings.Contains(e.Message, "out of range") {
		t.Errorf("a list at capacity: %v", err)
	}
}

// TestBadAnswers: a hostile or broken sidecar's answers are refused with
// ErrBadAnswer (or an *Error for a status), never a panic, never more
// than MaxAnswer bytes read.
func TestBadAnswers(t *testing.T) {
	f := newFake(t)
	c, _ := newClient(t, f.Addr(), agones.Config{})
	ctx := ctxT(t)
	for _, tc := range []struct {
		name, body string
	}{
		{"not json", "<html>"},
		{"an array", "[]"},
		{"a string", `"ok"`},
		{"two objects", `{} {}`},
		{"a state of the wrong type", `{"status":{"state":5}}`},
		{"a number that is no number", `{"object_meta":{"generation":"seven"}}`},
		{"a number past 64 bits", `{"object_meta":{"generation":"99999999999999999999"}}`},
		{"labels not a map", `{"object_meta":{"labels":["a"]}}`},
		{"a body past MaxAnswer", `{"object_meta":{"name":"` + strings.Repeat("x", agones.MaxAnswer) + `"}}`},
	} {
		f.Garbage("GET /gameserver", tc.body)
		if gs, err := c.GameServer(ctx); !errors.Is(err, agones.ErrBadAnswer) {
			t.Errorf("%s: %+v, %v; want ErrBadAnswer", tc.name, gs, err)
		}
	}
	f.Garbage("POST /ready", "[1,2]")
	if err := c.Ready(ctx); !errors.Is(err, agones.ErrBadAnswer) {
		t.Errorf("ready answered with an array: %v", err)
	}
	f.Fail("POST /health", 503)
	var e *agones.Error
	if err := c.Health(ctx); !errors.As(err, &e) || e.Status != 503 || e.Code != 14 {
		t.Errorf("health refused: %v", err)
	}
	// An answer that only says ok in numbers the client reads.
	f.Garbage("GET /v1beta1/counters/rooms", `{"name":"rooms","count":7,"capacity":"9"}`)
	if ct, err := c.Counter(ctx, "rooms"); err != nil || ct.Count != 7 || ct.Capacity != 9 {
		t.Errorf("a bare number: %+v %v", ct, err)
	}
	f.Heal()
	if err := c.Ready(ctx); err != nil {
		t.Errorf("healed: %v", err)
	}
}

// TestUnreachable: with nothing listening each call fails with
// ErrUnreachable; however many fail, the client logs it once per
// LogEvery, then once more when the sidecar answers again; Retry gets
// through once it is up. A second spell within LogEvery is not logged.
func TestUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	c, logs := newClient(t, addr, agones.Config{Timeout: time.Second, MinBackoff: 10 * time.Millisecond, MaxBackoff: 40 * time.Millisecond, LogEvery: time.Hour})
	ctx := ctxT(t)
	for range 20 {
		if err := c.Health(ctx); !errors.Is(err, agones.ErrUnreachable) {
			t.Fatalf("health with nothing listening: %v", err)
		}
	}
	if c.Reachable() {
		t.Error("reachable with nothing listening")
	}
	if n := logs.count("agones: SDK server unreachable; retrying"); n != 1 {
		t.Errorf("%d records of the sidecar unreachable for 20 failed calls, want 1:\n%s", n, logs)
	}
	done := make(chan error, 1)
	go func() { done <- c.Retry(ctx, c.Ready) }()
	time.Sleep(100 * time.Millisecond)
	f, err := agonestest.NewAt(addr, agonestest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := <-done; err != nil || f.State() != "Ready" {
		t.Fatalf("retry: %v, state %s", err, f.State())
	}
	if n := logs.count("agones: SDK server reachable"); n != 1 || !c.Reachable() {
		t.Errorf("%d records of the sidecar back, want 1:\n%s", n, logs)
	}
	// Down again within LogEvery: not logged again, nor its end.
	f.Down()
	c.CloseIdleConnections()
	if err := c.Health(ctx); !errors.Is(err, agones.ErrUnreachable) {
		t.Fatalf("health, down again: %v", err)
	}
	if err := f.Up(); err != nil {
		t.Fatal(err)
	}
	if err := c.Health(ctx); err != nil {
		t.Fatal(err)
	}
	if n, m := logs.count("agones: SDK server unreachable; retrying"), logs.count("agones: SDK server reachable"); n != 1 || m != 1 {
		t.Errorf("%d and %d records of the sidecar down and back after two spells in a minute, want 1 and 1", n, m)
	}
}

// TestStall: a sidecar that takes the call and never answers costs a call
// its Timeout, then ErrUnreachable.
func TestStall(t *testing.T) {
	f := newFake(t)
	c, _ := newClient(t, f.Addr(), agones.Config{Timeout: 200 * time.Millisecond})
	f.Stall("POST /health")
	start := time.Now()
	err := c.Health(ctxT(t))
	if !errors.Is(err, agones.ErrUnreachable) {
		t.Errorf("a stalled health call: %v", err)
	}
	if d := time.Since(start); d < 150*time.Millisecond || d > 2*time.Second {
		t.Errorf("a stalled call took %v, want about its 200 ms timeout", d)
	}
	f.Unstall()
	if err := c.Health(ctxT(t)); err != nil {
		t.Errorf("unstalled: %v", err)
	}
}

// TestFollow: the watch gets the GameServer at once, then each change (an
// allocation with its annotations); a hostile line is logged and skipped,
// a line past MaxLine and the sidecar going down end the stream, and
// Follow watches again once it is back.
func TestFollow(t *testing.T) {
	f := newFake(t)
	c, logs := newClient(t, f.Addr(), agones.Config{MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan *agones.GameServer, 64)
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.Follow(ctx, func(gs *agones.GameServer) { got <- gs })
	}()
	next := func(what string) *agones.GameServer {
		t.Helper()
		select {
		case gs := <-got:
			return gs
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: no GameServer within 5 s", what)
			return nil
		}
	}
	if gs := next("first"); gs.Status.State != "Scheduled" || gs.ObjectMeta.Name != "gs-test" {
		t.Errorf("first: %+v", gs)
	}
	for _, line := range []string{
		"garbage", "[]", `{"result":{"status":{"state":["Allocated"]}}}`, `{"nothing":1}`, "",
	} {
		f.SendRaw(line)
	}
	f.Allocate(map[string]string{"fiveonit.dev/run-room": "duel"})
	gs := next("allocated")
	if gs.Status.State != "Allocated" || gs.ObjectMeta.Annotations["fiveonit.dev/run-room"] != "duel" || gs.ObjectMeta.Annotations[agonestest.LastAllocated] == "" {
		t.Errorf("allocated: %+v", gs)
	}
	if n := logs.count("agones: a watch line that does not decode; skipped"); n != 1 {
		t.Errorf("%d records of the bad lines, want 1 (held back past the first):\n%s", n, logs)
	}
	// A line past MaxLine ends the stream; a new one starts with the
	// GameServer.
	f.SendRaw(`{"result":{"object_meta":{"name":"` + strings.Repeat("y", agones.MaxLine) + `"}}}`)
	if gs := next("after a long line"); gs.Status.State != "Allocated" {
		t.Errorf("after a long line: %+v", gs)
	}
	if !agonestest.WaitFor(ctx, 5*time.Second, func() bool { return f.Count("GET /watch/gameserver") == 2 }) {
		t.Errorf("%d watches, want 2", f.Count("GET /watch/gameserver"))
	}
	f.Down()
	time.Sleep(100 * time.Millisecond)
	if err := f.Up(); err != nil {
		t.Fatal(err)
	}
	if gs := next("back up"); gs.Status.State != "Allocated" {
		t.Errorf("back up: %+v", gs)
	}
	cancel()
	<-done
}

// TestInt64: 64-bit integers are JSON strings both ways; a bare number
// and null are read too, anything else refused.
func TestInt64(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{`"5"`, 5, true}, {`"-9223372036854775808"`, -1 << 63, true}, {`17`, 17, true}, {`null`, 0, true},
		{`"9223372036854775808"`, 0, false}, {`"1.5"`, 0, false}, {`""`, 0, false}, {`true`, 0, false},
		{`"0x10"`, 0, false}, {`{}`, 0, false},
	} {
		var n agones.Int64
		err := json.Unmarshal([]byte(tc.in), &n)
		if (err == nil) != tc.ok || (tc.ok && int64(n) != tc.want) {
			t.Errorf("%s: %d %v", tc.in, n, err)
		}
	}
	if b, _ := json.Marshal(agones.Int64(-42)); string(b) != `"-42"` {
		t.Errorf("marshal: %s", b)
	}
}

// TestKeysAndValues: a label key or value Kubernetes refuses is refused
// before it is sent.
func TestKeysAndValues(t *testing.T) {
	f := newFake(t)
	c, _ := newClient(t, f.Addr(), agones.Config{})
	ctx := ctxT(t)
	for _, tc := range []struct{ key, value string }{
		{"", "1"}, {"has space", "1"}, {"ends-", "1"}, {strings.Repeat("k", 60), "1"}, {"slash/key", "1"},
		{"players", "-1"}, {"players", strings.Repeat("9", 64)}, {"players", "a b"},
	} {
		if err := c.SetLabel(ctx, tc.key, tc.value); !errors.Is(err, agones.ErrInvalid) {
			t.Errorf("label %q=%q: %v, want ErrInvalid", tc.key, tc.value, err)
		}
	}
	if n := f.Count("PUT /metadata/label"); n != 0 {
		t.Errorf("%d labels sent", n)
	}
	for _, ok := range []struct{ key, value string }{{"players", ""}, {"rooms", "64"}, {strings.Repeat("k", 59), "v.1_x-2"}} {
		if err := c.SetLabel(ctx, ok.key, ok.value); err != nil {
			t.Errorf("label %q=%q: %v", ok.key, ok.value, err)
		}
	}
}

// TestAddr: the address comes from AGONES_SDK_HTTP_PORT, 9358 without it;
// a value that is not a port is refused, naming the variable.
func TestAddr(t *testing.T) {
	for _, tc := range []struct{ env, want, err string }{
		{"", "localhost:9358", ""}, {"9999", "localhost:9999", ""},
		{"http", "", "AGONES_SDK_HTTP_PORT"}, {"70000", "", "AGONES_SDK_HTTP_PORT"}, {"0", "", "AGONES_SDK_HTTP_PORT"},
	} {
		t.Setenv(agones.PortEnv, tc.env)
		a, err := agones.Addr()
		if tc.err != "" {
			if _, nerr := agones.New(agones.Config{}); err == nil || nerr == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %v / %v, want an error naming %s", tc.env, err, nerr, tc.err)
			}
			continue
		}
		if err != nil || a != tc.want {
			t.Errorf("%q: %q %v, want %q", tc.env, a, err, tc.want)
		}
	}
}

// FuzzWatchLine: no line makes the decoder panic or take one past
// MaxLine, and a line it takes holds a GameServer that encodes again.
func FuzzWatchLine(f *testing.F) {
	f.Add([]byte(`{"result":{"object_meta":{"name":"gs","generation":"1","annotations":{"a":"b"}},"status":{"state":"Allocated","ports":[{"name":"default","port":7654}],"counters":{"rooms":{"count":"1","capacity":"9"}}}}}`))
	f.Add([]byte(`{"error":{"code":14,"message":"gone"}}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"result":null}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		gs, err := agones.DecodeWatchLine(line)
		if err != nil {
			if gs != nil {
				t.Fatal("an error and a GameServer")
			}
			return
		}
		if _, err := json.Marshal(gs); err != nil {
			t.Fatalf("a GameServer decoded does not encode: %v", err)
		}
	})
}

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/fiveonit/engine/bot"
	"github.com/fiveonit/engine/internal/pgtest"
	"github.com/fiveonit/engine/transport/websocket"
)

// asServer is the environment variable that makes the test binary run
// main instead of the tests: TestSIGTERM starts the server as a process
// that way, with no build step.
const asServer = "FOI_TEST_AS_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(asServer) == "1" {
		main() // os.Args[1:] are the server's flags; main exits 1 or 2 on an error
		os.Exit(0)
	}
	code := m.Run()
	stopPostgres()
	os.Exit(code)
}

// The PostgreSQL server of the tests that need one (TestStoreFleet),
// started by the first, stopped by TestMain.
var pg struct {
	once sync.Once
	srv  *pgtest.Server
	err  error
}

func stopPostgres() {
	if pg.srv != nil {
		pg.srv.Stop()
	}
}

// logBuf collects a server's log output; the server writes from many
// goroutines while the test reads.
type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// records decodes the JSON log records (-log-format json) with message msg.
func (l *logBuf) records(t *testing.T, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(l.String()))
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("log line %q is not JSON: %v", sc.Text(), err)
		}
		if rec["msg"] == msg {
			out = append(out, rec)
		}
	}
	return out
}

// startRun runs the server in-process, as main does, and returns its
// listeners' addresses and the channel run's result comes on.
func startRun(t *testing.T, ctx context.Context, c config) (addr, admin string, errc chan error) {
	t.Helper()
	addrs := make(chan [2]string, 1)
	errc = make(chan error, 1)
	go func() {
		errc <- run(ctx, c, func(addr, admin string) { addrs <- [2]string{addr, admin} })
	}()
	select {
	case a := <-addrs:
		return a[0], a[1], errc
	case err := <-errc:
		t.Fatal(err)
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not start")
	}
	return "", "", nil
}

// stopRun cancels run's context and wants run to return nil within the
// drain timeout.
func stopRun(t *testing.T, cancel context.CancelFunc, errc chan error, drain time.Duration) {
	t.Helper()
	cancel()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(drain + 5*time.Second):
		t.Fatal("run did not return")
	}
}

// metric returns the value of the sample named series (name and labels,
// as the exposition prints them) in body, or -1 when absent.
func metric(body, series string) float64 {
	for _, l := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(l, series+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err == nil {
				return f
			}
		}
	}
	return -1
}

// TestEightBotsThroughRun runs cmd/server's own run (its mux, its
// listeners, its logger) on loopback with 8 bots over WebSocket for 10 s
// (2 s with -short): each bot gets at least 80% of the snapshots it is
// owed (20 a second) and never refuses one, the room does not fall
// behind, and each join and leave is logged with its room, session and
// transport.
func TestEightBotsThroughRun(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	d := 10 * time.Second
	if testing.Short() {
		d = 2 * time.Second
	}
	var logs logBuf
	c := testConfig()
	c.rtc = false
	c.logLevel, c.logFormat, c.logTo = "info", "json", &logs
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr, admin, errc := startRun(t, ctx, c)

	const n = 8
	conns := make([]bot.Conn, n)
	for i := range conns {
		dctx, dcancel := context.WithTimeout(ctx, 10*time.Second)
		conn, err := websocket.Dial(dctx, "ws://"+addr+"/rooms/default")
		dcancel()
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = conn
	}
	res := bot.RunAll(ctx, conns, d)
	want := uint64(d.Seconds()*20) * 8 / 10
	for i, r := range res {
		if r.Err != nil || r.Stats.Resyncs != 0 || r.Desynced || r.Stats.Snapshots < want {
			t.Errorf("bot %d: err %v, %d snapshots (want >= %d), %d refused, desynced %v", i, r.Err, r.Stats.Snapshots, want, r.Stats.Resyncs, r.Desynced)
		}
	}
	// The room keeps its pace: at most a tenth of its ticks late (loose,
	// as the machine may be busy with other tests; a room that stalls is
	// far above it).
	_, body := get(t, "http://"+admin+"/metrics")
	if o, most := metric(body, `foi_tick_overruns_total{room="default"}`), d.Seconds()*60/10; o < 0 || o > most {
		t.Errorf("foi_tick_overruns_total %v, want 0..%v\n%s", o, most, grep(body, "foi_tick_overruns"))
	}
	if m := metric(body, `foi_check_mismatches_total{room="default"}`); m != 0 {
		t.Errorf("foi_check_mismatches_total %v, want 0", m)
	}
	stopRun(t, cancel, errc, c.drain)

	// The logs, once run has returned (a join is logged after the welcome
	// is sent, so not before then).
	joined := sessions(t, logs.records(t, "client joined"), "websocket")
	left := sessions(t, logs.records(t, "client left"), "websocket")
	if len(joined) != n || len(left) != n {
		t.Fatalf("%d joins and %d leaves logged with room, session and transport, want %d each:\n%s", len(joined), len(left), n, logs.String())
	}
	for s := range joined {
		if !left[s] {
			t.Errorf("session %v joined, never left", s)
		}
	}
	closed := logs.records(t, "room closed")
	if len(closed) != 1 || closed[0]["room"] != "default" || closed[0]["reason"] != "server shutting down" {
		t.Errorf("room closed records %v, want the default room's, reason server shutting down", closed)
	}
}

// sessions returns the distinct sessions of the records that carry room
// "default", transport and a session (and, on a join, the remote address).
func sessions(t *testing.T, recs []map[string]any, transport string) map[float64]bool {
	t.Helper()
	out := map[float64]bool{}
	for _, r := range recs {
		s, ok := r["session"].(float64)
		if !ok || r["room"] != "default" || r["transport"] != transport {
			t.Errorf("record %v: want room default, a session and transport %s", r, transport)
			continue
		}
		if _, hasAccount := r["account"]; !hasAccount {
			t.Errorf("record %v: no account", r)
		}
		if r["msg"] == "client joined" && r["remote"] == nil {
			t.Errorf("record %v: no remote", r)
		}
		out[s] = true
	}
	return out
}

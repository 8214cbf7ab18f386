package serve

import (
	"context"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/fiveonit/engine/bot"
	"github.com/fiveonit/engine/transport/websocket"
)

// TestEightBotsThroughRun runs the server's Run (its mux, its
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
	c.RTC = false
	c.LogLevel, c.LogFormat, c.LogTo = "info", "json", &logs
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
	stopRun(t, cancel, errc, c.Drain)

	// The logs, once Run has returned (a join is logged after the welcome
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

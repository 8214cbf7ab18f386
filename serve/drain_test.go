package serve

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/fiveonit/engine/systems/motion"
	"github.com/fiveonit/engine/transport/webrtc"
	"github.com/fiveonit/engine/transport/websocket"
)

// TestDrain starts the server on loopback ports with a WebSocket and a
// WebRTC client (and a join refused), checks the listeners serve what they
// should (the metrics, the refusal counted among them, and pprof on the
// admin listener only), then cancels Run's context (what SIGTERM does):
// both clients get the close reason, Run returns nil (the process exits 0)
// well within the drain timeout, no goroutine is left, and each join was
// logged with its room, session and transport. TestSIGTERM (e2e) sends
// the real signal to the built binary.
func TestDrain(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs logBuf
	c := testConfig()
	c.LogLevel, c.LogFormat, c.LogTo = "info", "json", &logs
	addr, admin, errc := startRun(t, ctx, c)

	dctx, dcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer dcancel()
	ws, err := websocket.Dial(dctx, "ws://"+addr+"/rooms/default")
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	rtc, err := webrtc.Dial(dctx, "ws://"+addr+"/rooms/default", webrtc.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer rtc.Close()
	welcome(t, "websocket", ws)
	welcome(t, "webrtc", rtc)
	bad, err := websocket.Dial(dctx, "ws://"+addr+"/rooms/BAD") // refused: counted by reason
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	closeReason(t, "BAD", bad)

	for _, path := range []string{"/metrics", "/debug/pprof/", "/debug/pprof/cmdline"} {
		if code, body := get(t, "http://"+addr+path); code == http.StatusOK || strings.Contains(body, "foi_") || strings.Contains(body, "goroutine") {
			t.Errorf("the public listener serves %s: %d %.80q", path, code, body)
		}
	}
	if code, _ := get(t, "http://"+admin+"/debug/pprof/"); code != http.StatusOK {
		t.Errorf("admin /debug/pprof/: %d", code)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		code, body := get(t, "http://"+admin+"/metrics")
		want := []string{
			`foi_clients{transport="websocket"} 1`, `foi_clients{transport="webrtc"} 1`, `foi_connections_pending{transport="webrtc"} 0`,
			`foi_tick_seconds_count{room="default"}`, `foi_system_seconds_bucket{room="default",system="` + motion.Name + `"`,
			`foi_entities{room="default"}`, `foi_players{room="default"} 2`, `foi_transport_bytes_total{direction="out",transport="webrtc"}`,
			`foi_joins_refused_total{reason="bad_request",transport="websocket"} 1`,
		}
		missing := ""
		for _, w := range want {
			if !strings.Contains(body, w) {
				missing = w
				break
			}
		}
		if code == http.StatusOK && missing == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("admin /metrics: %d, no %q in\n%s", code, missing, grep(body, "foi_"))
		}
		time.Sleep(100 * time.Millisecond)
	}

	start := time.Now()
	cancel()
	for name, c := range map[string]reader{"websocket": ws, "webrtc": rtc} {
		if r := closeReason(t, name, c); r != "server shutting down" {
			t.Errorf("%s: closed with %q", name, r)
		}
	}
	ws.Close()
	rtc.Close()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("run did not return")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the drain took %s", d)
	}
	for _, tr := range []string{"websocket", "webrtc"} {
		var joins []map[string]any
		for _, r := range logs.records(t, "client joined") {
			if r["transport"] == tr {
				joins = append(joins, r)
			}
		}
		if s := sessions(t, joins, tr); len(s) != 1 {
			t.Errorf("%s: %d joins logged with room, session and transport, want 1:\n%s", tr, len(s), logs.String())
		}
	}
}

package metrics

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/netsync/wire"
	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/server/servertest"
)

// room makes a game server on test-flat with one client joined.
func room(t testing.TB) (*server.GameServer, *server.Session) {
	t.Helper()
	l, err := levels.Load("test-flat")
	if err != nil {
		t.Fatal(err)
	}
	gs, err := server.New(server.Config{Room: "r", Level: l, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	conn := servertest.NewMemConn(true, 0)
	s, err := gs.Join(conn, server.Who{})
	if err != nil {
		t.Fatal(err)
	}
	gs.Tick()
	return gs, s
}

// TestObserve: the counters follow the game server's, the tick and
// system histograms get one sample a tick, and a room's series go with it.
func TestObserve(t *testing.T) {
	m := New()
	gs, sess := room(t)
	r := m.Room("r")
	// The first keyframe goes at tick 3; then one input frame that has
	// applied it and asks for a keyframe (a refusal), then ticks with no
	// input (each one a guess).
	const ticks = 30
	for i := 0; i < ticks; i++ {
		if i == 3 {
			f := wire.InputFrame{Ack: 3, Flags: wire.InputResync, FirstSeq: 1, Count: 1}
			if err := sess.Receive(wire.AppendInputFrame(nil, &f), false); err != nil {
				t.Fatal(err)
			}
		}
		gs.Tick()
		r.Observe(gs, 2*time.Millisecond, uint64(i/10))
	}
	st := gs.Stats()
	if st.Guesses == 0 {
		t.Fatal("no guesses to count")
	}
	counts := map[string]float64{
		"foi_input_guesses_total":    float64(st.Guesses),
		"foi_check_mismatches_total": 1,
		"foi_tick_overruns_total":    2,
		"foi_snapshot_bytes_total":   float64(st.SnapBytes),
		"foi_players":                1,
		"foi_entities":               float64(gs.World().IDs.InUse()),
	}
	body := gather(t, m)
	for name, want := range counts {
		if got := value(t, body, name+`{room="r"}`); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	for reason, want := range map[string]float64{"first": 1, "resync": 1, "switch": 0} {
		if got := value(t, body, `foi_keyframes_total{reason="`+reason+`",room="r"}`); got != want {
			t.Errorf("keyframes for %s: %v, want %v", reason, got, want)
		}
	}
	if got := value(t, body, `foi_tick_seconds_count{room="r"}`); got != ticks {
		t.Errorf("%v ticks in the histogram, want %d", got, ticks)
	}
	if got := value(t, body, `foi_tick_seconds_bucket{room="r",le="0.002"}`); got != ticks {
		t.Errorf("%v ticks of 2 ms or less, want %d", got, ticks)
	}
	systems := gs.World().Sched.Timings()
	if n := strings.Count(body, "foi_system_seconds_count{"); n != len(systems) {
		t.Errorf("%d system series, want %d", n, len(systems))
	}
	if got := value(t, body, `foi_system_seconds_count{room="r",system="`+systems[0].Name+`"}`); got != ticks {
		t.Errorf("%v samples of %s, want %d", got, systems[0].Name, ticks)
	}
	r.Close()
	if body := gather(t, m); strings.Contains(body, `room="r"`) {
		t.Errorf("series left after Close:\n%s", body)
	}
}

// TestObserveAllocates nothing per tick, once the room's sessions have been
// seen.
func TestObserveAllocatesNothing(t *testing.T) {
	m := New()
	gs, _ := room(t)
	r := m.Room("r")
	r.Observe(gs, time.Millisecond, 0)
	if a := testing.AllocsPerRun(200, func() { r.Observe(gs, time.Millisecond, 0) }); a != 0 {
		t.Errorf("Observe allocates %v times", a)
	}
}

func BenchmarkObserve(b *testing.B) {
	m := New()
	gs, _ := room(b)
	r := m.Room("r")
	b.ReportAllocs()
	for b.Loop() {
		r.Observe(gs, time.Millisecond, 0)
	}
}

// TestTrack: the clients per transport are the connections open, and their
// frames and bytes those of the open ones read at the scrape plus those of
// the ended ones.
func TestTrack(t *testing.T) {
	m := New()
	a := Counts{FramesIn: 1, BytesIn: 10, FramesOut: 2, BytesOut: 20}
	b := Counts{FramesIn: 3, BytesIn: 30, FramesOut: 4, BytesOut: 40}
	untrackA := m.Track("webrtc", func() Counts { return a })
	untrackB := m.Track("webrtc", func() Counts { return b })
	m.Track("websocket", func() Counts { return Counts{BytesOut: 7} })
	body := gather(t, m)
	for _, want := range []string{
		`foi_clients{transport="webrtc"} 2`, `foi_clients{transport="websocket"} 1`,
		`foi_transport_bytes_total{direction="out",transport="webrtc"} 60`,
		`foi_transport_frames_total{direction="in",transport="webrtc"} 4`,
		`foi_transport_bytes_total{direction="out",transport="websocket"} 7`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("no %q in\n%s", want, body)
		}
	}
	a.BytesOut = 25 // counted until it ends
	untrackA()
	untrackA() // once only
	a.BytesOut = 1000
	body = gather(t, m)
	for _, want := range []string{`foi_clients{transport="webrtc"} 1`, `foi_transport_bytes_total{direction="out",transport="webrtc"} 65`} {
		if !strings.Contains(body, want) {
			t.Errorf("after untrack: no %q in\n%s", want, body)
		}
	}
	untrackB()
	if body = gather(t, m); !strings.Contains(body, `foi_clients{transport="webrtc"} 0`) {
		t.Errorf("after both ended:\n%s", body)
	}
}

// value returns the value of series in a /metrics body.
func value(t *testing.T, body, series string) float64 {
	t.Helper()
	for _, l := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(l, series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s: %v", l, err)
			}
			return f
		}
	}
	t.Fatalf("no %s in\n%s", series, body)
	return 0
}

// gather returns the metrics as /metrics serves them.
func gather(t *testing.T, m *Metrics) string {
	t.Helper()
	w := httptest.NewRecorder()
	m.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	if w.Code != http.StatusOK {
		t.Fatalf("/metrics: %d", w.Code)
	}
	return w.Body.String()
}

// TestRefused: the joins refused are counted by transport and reason.
func TestRefused(t *testing.T) {
	m := New()
	m.Refused("websocket", "room_full")
	m.Refused("websocket", "room_full")
	m.Refused("webrtc", "players_from")
	body := gather(t, m)
	for _, want := range []string{
		`foi_joins_refused_total{reason="room_full",transport="websocket"} 2`,
		`foi_joins_refused_total{reason="players_from",transport="webrtc"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("no %q in\n%s", want, body)
		}
	}
}

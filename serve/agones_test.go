package serve

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fiveonit/engine/fleet/agones"
	"github.com/fiveonit/engine/fleet/agones/agonestest"
)

// newSidecar starts a fake Agones SDK server whose fleet declares the
// counter rooms and the list players, and points AGONES_SDK_HTTP_PORT at
// it for the test (which turns Agones on).
func newSidecar(t *testing.T) *agonestest.Server {
	t.Helper()
	f, err := agonestest.New(agonestest.Options{
		Counters: map[string]agonestest.Counter{"rooms": {Count: 0, Capacity: 10}},
		Lists:    map[string]agonestest.List{"players": {Capacity: 100}},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	t.Setenv(agones.PortEnv, f.Port())
	return f
}

// until polls cond for up to 5 s.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if !agonestest.WaitFor(context.Background(), 5*time.Second, cond) {
		t.Fatalf("%s: not within 5 s", what)
	}
}

// label is the GameServer's label key as the server set it.
func label(f *agonestest.Server, key string) string {
	v, _ := f.Label(agones.LabelPrefix + key)
	return v
}

// TestAgonesInProcess runs the server in-process against the fake SDK
// server: Ready once it serves; health pings while healthy, none while a
// room is stuck; the labels, the counter and the list follow the rooms
// and the players; an allocation that names a run makes its room once,
// whatever else the watch streams; a bad one is refused in the log and
// an annotation, and so is a hostile watch line, the server playing on;
// the drain ends with Shutdown.
func TestAgonesInProcess(t *testing.T) {
	withTestRun(t)
	f := newSidecar(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs logBuf
	c := testConfig()
	c.AgonesHealth = 100 * time.Millisecond
	c.LogLevel, c.LogFormat, c.LogTo = "info", "json", &logs
	addr, _, errc := startRun(t, ctx, c)

	until(t, "ready", func() bool { return f.State() == agones.StateReady })
	until(t, "health pings", func() bool { return f.Count("POST /health") >= 3 })
	until(t, "labels", func() bool { return label(f, "rooms") == "1" && label(f, "players") == "0" })
	until(t, "counter", func() bool { ct, _ := f.Counter("rooms"); return ct.Count == 1 && ct.Capacity == 64 })

	jctx, jcancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer jcancel()
	conn, _ := joinAs(t, jctx, addr, c.Secret, "default", "ada")
	until(t, "a player", func() bool {
		l, _ := f.List("players")
		return label(f, "players") == "1" && slices.Equal(l.Values, []string{"ada"})
	})

	// Hostile watch lines: logged, skipped.
	f.SendRaw(`{"result":{"status":{"state":7}}}`)
	f.SendRaw(strings.Repeat("[", 100))

	// A bad roster, then a good run, each allocated once, whatever the
	// watch sends again meanwhile.
	f.Allocate(map[string]string{AnnotationRunRoom: "alloc-bad", AnnotationRunMission: testRunName, AnnotationRunRoster: `{"seats":[{"account":"x","team":0}`})
	until(t, "the refusal's annotation", func() bool {
		v, _ := f.Annotation(agones.LabelPrefix + AnnotationRunError)
		return strings.Contains(v, "is not a roster")
	})
	f.Allocate(map[string]string{AnnotationRunRoom: "alloc-1", AnnotationRunMission: testRunName,
		AnnotationRunRoster: `{"seats":[{"account":"ann","team":0},{"account":"ben","team":1}]}`})
	until(t, "the run room", func() bool {
		v, _ := f.Annotation(agones.LabelPrefix + AnnotationRunMade)
		return v == "alloc-1" && label(f, "rooms") == "2"
	})
	f.SetState(agones.StateAllocated) // the same allocation streamed again
	time.Sleep(300 * time.Millisecond)
	if n := len(logs.records(t, "agones: allocation: run room made")); n != 1 {
		t.Errorf("%d run rooms made, want 1:\n%s", n, logs.String())
	}
	refused := logs.records(t, "agones: allocation: run refused")
	if len(refused) != 1 || refused[0]["room"] != "alloc-bad" {
		t.Errorf("refusals %v, want alloc-bad's", refused)
	}
	if n := len(logs.records(t, "agones: a watch line that does not decode; skipped")); n != 1 {
		t.Errorf("%d records of the bad lines, want 1 (once per minute)", n)
	}
	if code, body := get(t, "http://"+addr+"/rooms"); code != http.StatusOK || !strings.Contains(body, `"alloc-1"`) {
		t.Errorf("GET /rooms: %d %s", code, body)
	}

	// A stuck room: no health ping until it ticks again.
	release := stallRooms(t)
	time.Sleep(StallAfter + 200*time.Millisecond)
	n := f.Count("POST /health")
	time.Sleep(500 * time.Millisecond)
	if m := f.Count("POST /health"); m != n {
		t.Errorf("%d health pings while a room was stuck", m-n)
	}
	release()
	until(t, "pings again", func() bool { return f.Count("POST /health") > n })

	conn.Close()
	stopRun(t, cancel, errc, c.Drain)
	if f.State() != agones.StateShutdown || f.Count("POST /shutdown") != 1 {
		t.Errorf("after the drain: state %s, %d shutdowns", f.State(), f.Count("POST /shutdown"))
	}
	if n := f.Count("POST /ready"); n != 1 {
		t.Errorf("%d Ready calls, want 1", n)
	}
}

// TestBackToPool: once the run an allocation made is over and nobody
// plays for -grace, the server is Ready again; not before.
func TestBackToPool(t *testing.T) {
	f := newSidecar(t)
	c := testConfig()
	c.Grace, c.AgonesHealth = 300*time.Millisecond, time.Second
	s, err := Start(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := s.Shutdown(); err != nil {
			t.Error(err)
		}
	}()
	until(t, "ready", func() bool { return f.Count("POST /ready") == 1 })
	f.Allocate(nil) // an allocation that names no run: left to the matchmaker
	time.Sleep(3 * fleetSyncEvery / 2)
	if n := f.Count("POST /ready"); n != 1 || f.State() != agones.StateAllocated {
		t.Fatalf("an allocation with no run: %d Ready calls, state %s", n, f.State())
	}
	// As if an allocation had made a run room that is now closed.
	// (The run rooms' own close is tested in package rooms.)
	s.fleet.mu.Lock()
	s.fleet.runRooms = []string{"gone"}
	s.fleet.mu.Unlock()
	until(t, "back in the pool", func() bool { return f.Count("POST /ready") == 2 && f.State() == agones.StateReady })
}

// TestRunSpecOf: the run an allocation's annotations name, or why they
// name none.
func TestRunSpecOf(t *testing.T) {
	good := map[string]string{AnnotationRunRoom: "r1", AnnotationRunMission: "m", AnnotationRunGame: "g", AnnotationRunLevel: "l",
		AnnotationRunRoster: `{"seats":[{"account":"a","team":0},{"account":"b","team":1}]}`}
	spec, err := runSpecOf(good)
	if err != nil || spec.Room != "r1" || spec.Mission != "m" || spec.Game != "g" || spec.Level != "l" || len(spec.Roster.Seats) != 2 || spec.Roster.Seats[1].Account != "b" {
		t.Fatalf("%+v %v", spec, err)
	}
	for name, c := range map[string]struct{ key, value, want string }{
		"no room":         {AnnotationRunRoom, "", "run-room is missing"},
		"no mission":      {AnnotationRunMission, "", "run-mission is missing"},
		"no roster":       {AnnotationRunRoster, "", "run-roster is missing"},
		"not JSON":        {AnnotationRunRoster, "seats: a", "is not a roster"},
		"a list":          {AnnotationRunRoster, `[{"account":"a"}]`, "is not a roster"},
		"an unknown key":  {AnnotationRunRoster, `{"seats":[],"mode":"x"}`, "is not a roster"},
		"two values":      {AnnotationRunRoster, `{"seats":[{"account":"a"}]} {}`, "more than one JSON value"},
		"no seat":         {AnnotationRunRoster, `{"seats":[]}`, "has no seat"},
		"a team a string": {AnnotationRunRoster, `{"seats":[{"account":"a","team":"red"}]}`, "is not a roster"},
		"too long":        {AnnotationRunRoster, `{"seats":[` + strings.Repeat(`{"account":"a","team":0},`, 4000) + `]}`, "bytes, past"},
	} {
		ann := maps.Clone(good)
		ann[c.key] = c.value
		if _, err := runSpecOf(ann); err == nil || !errors.Is(err, errAllocation) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

// FuzzRunSpecOf: no roster annotation makes runSpecOf panic, and one it
// takes has a seat.
func FuzzRunSpecOf(f *testing.F) {
	f.Add(`{"seats":[{"account":"a","team":0}]}`)
	f.Add(`{"seats":null}`)
	f.Add(`{"seats":[{"team":-1}]}`)
	f.Fuzz(func(t *testing.T, roster string) {
		spec, err := runSpecOf(map[string]string{AnnotationRunRoom: "r", AnnotationRunMission: "m", AnnotationRunRoster: roster})
		if err == nil && len(spec.Roster.Seats) == 0 {
			t.Fatalf("%q: taken with no seat", roster)
		}
	})
}

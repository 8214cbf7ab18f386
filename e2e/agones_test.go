//go:build unix

package e2e

import (
	"context"
	"net"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fiveonit/engine/fleet/agones"
	"github.com/fiveonit/engine/fleet/agones/agonestest"
	"github.com/fiveonit/engine/games"
	"github.com/fiveonit/engine/serve"
	"github.com/fiveonit/engine/transport/websocket"
)

// The process tests of the server on Agones: command server, built, runs
// with AGONES_SDK_HTTP_PORT pointing at a fake SDK server
// (fleet/agones/agonestest, written from Agones' swagger files), as a
// GameServer pod runs it beside its sidecar.

// recordTime is a JSON log record's time.
func recordTime(t *testing.T, rec map[string]any) time.Time {
	t.Helper()
	s, _ := rec["time"].(string)
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("record %v: time %q: %v", rec, s, err)
	}
	return at
}

// eventually polls cond every 20 ms for up to d.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	if !agonestest.WaitFor(context.Background(), d, cond) {
		t.Fatalf("%s: not within %v", what, d)
	}
}

// sdkLabel is the GameServer's label key as the server set it.
func sdkLabel(f *agonestest.Server, key string) string {
	v, _ := f.Label(agones.LabelPrefix + key)
	return v
}

// sdkAnnotation is the GameServer's annotation key as the server set it.
func sdkAnnotation(f *agonestest.Server, key string) string {
	v, _ := f.Annotation(agones.LabelPrefix + key)
	return v
}

// dialDefault joins the process's default room anonymously and waits for
// the welcome.
func dialDefault(t *testing.T, p *proc) *websocket.ClientConn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, err := websocket.Dial(ctx, "ws://"+p.addr+"/rooms/default")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	welcome(t, "player", ws)
	return ws
}

// aRunMission returns a game of this build with a run mission, and the
// mission; "" when no game has one.
func aRunMission() (string, string, bool) {
	for _, name := range games.Names() {
		if g, err := games.Lookup(name); err == nil && len(g.Runs) > 0 {
			return name, g.Runs[0].Name, g.Runs[0].Coop
		}
	}
	return "", "", false
}

// TestAgonesProcess: the server calls Ready once it listens, pings Health
// at most 5 s apart (2 s by default), keeps its labels, counter and list
// as rooms and players come; an allocation whose annotations name a bad
// roster or an unknown mission is refused with a log line and the
// annotation run-error, and one that names a run of this build makes its
// room; it plays on throughout; on SIGTERM it drains, exits 0, and only
// then calls Shutdown.
func TestAgonesProcess(t *testing.T) {
	f, err := agonestest.New(agonestest.Options{
		Counters: map[string]agonestest.Counter{serve.CounterRooms: {Capacity: 10}},
		Lists:    map[string]agonestest.List{serve.ListPlayers: {Capacity: 100}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	t.Setenv(agones.PortEnv, f.Port())
	p := startBinary(t, "-level", "test-flat", "-store", "none", "-secret", "agones-test-secret-0123456789")
	servingAt := recordTime(t, p.logs.records(t, "serving")[0])

	eventually(t, 15*time.Second, "Ready", func() bool { return f.State() == agones.StateReady })
	ready := f.Calls("POST /ready")[0]
	if ready.At.Before(servingAt) {
		t.Errorf("Ready at %v, before the server listened (%v)", ready.At, servingAt)
	}
	eventually(t, 5*time.Second, "labels and counter", func() bool {
		ct, _ := f.Counter(serve.CounterRooms)
		return sdkLabel(f, serve.LabelRooms) == "1" && sdkLabel(f, serve.LabelPlayers) == "0" && ct.Count == 1 && ct.Capacity == 64
	})
	ws := dialDefault(t, p)
	eventually(t, 5*time.Second, "a player in the label and the list", func() bool {
		l, _ := f.List(serve.ListPlayers)
		return sdkLabel(f, serve.LabelPlayers) == "1" && slices.Equal(l.Values, []string{"default/1"})
	})

	for _, bad := range []struct {
		roster, mission, want string
	}{
		{`{"seats":[{"account":"a","team":0}`, "any", "is not a roster"},
		{`{"seats":[{"account":"a","team":0,"colour":"red"}]}`, "any", "is not a roster"},
		{`{"seats":[{"account":"a","team":0},{"account":"b","team":1}]}`, "no-such-mission", "no such run mission"},
	} {
		f.Allocate(map[string]string{serve.AnnotationRunRoom: "run-bad", serve.AnnotationRunMission: bad.mission, serve.AnnotationRunRoster: bad.roster})
		eventually(t, 5*time.Second, "the refusal of "+bad.roster, func() bool {
			return strings.Contains(sdkAnnotation(f, serve.AnnotationRunError), bad.want)
		})
	}
	if recs := p.logs.records(t, "agones: allocation: run refused"); len(recs) != 3 || recs[0]["room"] != "run-bad" {
		t.Errorf("refusals logged: %v, want 3 for run-bad", recs)
	}
	if game, mission, coop := aRunMission(); game == "" {
		t.Log("no game of this build has a run mission: an allocation that makes a run room is tested in-process (serve, TestAgonesInProcess)")
	} else {
		team := "1"
		if coop {
			team = "0"
		}
		f.Allocate(map[string]string{serve.AnnotationRunRoom: "run-1", serve.AnnotationRunGame: game, serve.AnnotationRunMission: mission,
			serve.AnnotationRunLevel: "main-city", serve.AnnotationRunRoster: `{"seats":[{"account":"r0","team":0},{"account":"r1","team":` + team + `}]}`})
		eventually(t, 20*time.Second, "the run room of "+game+"/"+mission, func() bool {
			return sdkAnnotation(f, serve.AnnotationRunMade) == "run-1" && sdkLabel(f, serve.LabelRooms) == "2"
		})
	}
	dialDefault(t, p) // it plays on

	// Health: from Ready on, never 5 s without a ping.
	time.Sleep(time.Until(ready.At.Add(5500 * time.Millisecond)))
	pings := f.Calls("POST /health")
	last := ready.At
	for _, c := range pings {
		if c.At.After(ready.At) {
			if gap := c.At.Sub(last); gap > 5*time.Second {
				t.Errorf("%v without a health ping", gap)
			}
			last = c.At
		}
	}
	if len(pings) < 2 || time.Since(last) > 5*time.Second {
		t.Errorf("%d health pings, the last %v ago", len(pings), time.Since(last))
	}

	ws.Close()
	p.stop(syscall.SIGTERM)
	var closedAt time.Time
	for _, r := range p.logs.records(t, "room closed") {
		if at := recordTime(t, r); at.After(closedAt) {
			closedAt = at
		}
	}
	sd := f.Calls("POST /shutdown")
	if len(sd) != 1 || !sd[0].At.After(closedAt) || f.State() != agones.StateShutdown {
		t.Errorf("Shutdown calls %v, the rooms closed at %v, state %s: want one after the drain", sd, closedAt, f.State())
	}
	if n := f.Count("POST /ready"); n != 1 {
		t.Errorf("%d Ready calls, want 1", n)
	}
}

// TestAgonesSidecarDown: with no sidecar listening, the server serves all
// the same, retries, and logs the sidecar unreachable once however often
// it fails; once the sidecar comes up it is Ready and says the sidecar is
// back. A sidecar that answers garbage, stalls or streams hostile lines
// costs a log line, never a player; one that stalls Shutdown costs the
// drain at most: the process exits 0.
func TestAgonesSidecarDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sidecar := ln.Addr().String()
	_, port, _ := net.SplitHostPort(sidecar)
	ln.Close()
	t.Setenv(agones.PortEnv, port)
	p := startBinary(t, "-level", "test-flat", "-store", "none", "-agones-health", "100ms", "-drain", "2s")
	dialDefault(t, p)
	time.Sleep(1500 * time.Millisecond) // 15 pings, Ready tried 4 times, the labels each second
	if n := len(p.logs.records(t, "agones: SDK server unreachable; retrying")); n != 1 {
		t.Errorf("%d records of the sidecar unreachable, want 1 per minute:\n%s", n, p.logs.String())
	}

	f, err := agonestest.NewAt(sidecar, agonestest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	eventually(t, 20*time.Second, "Ready once the sidecar is up", func() bool { return f.State() == agones.StateReady })
	eventually(t, 5*time.Second, "the record of the sidecar back", func() bool {
		return len(p.logs.records(t, "agones: SDK server reachable")) == 1
	})

	eventually(t, 20*time.Second, "the watch", func() bool { return f.Watchers() == 1 })
	f.Garbage("POST /health", "<html>")
	f.Stall("PUT /metadata/label")
	f.SendRaw("{{{")
	f.SendRaw(`{"result":{"object_meta":{"annotations":{"fiveonit.dev/run-room":5}}}}`)
	time.Sleep(time.Second)
	dialDefault(t, p)
	admin := p.logs.records(t, "serving")[0]["admin"].(string)
	eventually(t, 5*time.Second, "/healthz ok with a hostile sidecar", func() bool {
		code, body := fetch(t, "http://"+admin+"/healthz")
		return code == 200 && body == "ok"
	})
	for msg, want := range map[string]int{"agones: health ping refused": 1, "agones: a watch line that does not decode; skipped": 1} {
		if n := len(p.logs.records(t, msg)); n != want {
			t.Errorf("%d records %q, want %d (once per minute)", n, msg, want)
		}
	}

	f.Stall("POST /shutdown")
	start := time.Now()
	p.stop(syscall.SIGTERM)
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("the drain with Shutdown stalled took %v, want at most -drain and a little", d)
	}
	if n := len(p.logs.records(t, "agones: Shutdown not taken: Agones will see the process end")); n != 1 {
		t.Errorf("%d records of Shutdown not taken:\n%s", n, p.logs.String())
	}
}

package serve

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fiveonit/engine/games"
	"github.com/fiveonit/engine/internal/pgtest"
	"github.com/fiveonit/engine/jointoken"
	"github.com/fiveonit/engine/missions"
	"github.com/fiveonit/engine/rooms"
	"github.com/fiveonit/engine/transport/websocket"
)

// sitStill is a run mission that never ends by itself.
type sitStill struct{}

func (sitStill) Start(missions.RunHost) error { return nil }
func (sitStill) Step(missions.RunHost)        {}
func (sitStill) Phone(missions.RunHost, missions.Player, missions.Command) error {
	return os.ErrInvalid
}
func (sitStill) Leave(missions.RunHost, missions.Player) {}

// testRunName is the run mission withTestRun gives the default game.
const testRunName = "fleet-test"

// withTestRun gives the default game the run mission testRunName for the
// test (the built-in games register none of their own here), two teams
// with no places of their own.
func withTestRun(t *testing.T) {
	t.Helper()
	g, err := games.Lookup(games.Default)
	if err != nil {
		t.Fatal(err)
	}
	old := g.Runs
	g.Runs = append(slices.Clip(old), missions.RunDef{Name: testRunName, Title: "Fleet test",
		Teams: []missions.RunTeam{{Name: "Red"}, {Name: "Blue"}}, New: func() missions.RunMission { return sitStill{} }})
	t.Cleanup(func() { g.Runs = old })
}

// joinAs joins room as account with a token signed with secret, and
// reads its text frames into a channel.
func joinAs(t *testing.T, ctx context.Context, addr, secret, room, account string) (*websocket.ClientConn, chan map[string]any) {
	t.Helper()
	tok, err := jointoken.Sign([]byte(secret), jointoken.Claims{Account: account, Name: account, Expires: time.Now().Add(time.Hour).Unix()})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := websocket.Dial(ctx, "ws://"+addr+"/rooms/"+room+"?token="+tok)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	in := textsAndClose(ctx, conn)
	await(t, in, "welcome")
	return conn, in
}

// textsAndClose is texts, and a last {"type":"closed","reason":...} when
// the connection closes with a reason.
func textsAndClose(ctx context.Context, conn *websocket.ClientConn) chan map[string]any {
	out := make(chan map[string]any, 256)
	go func() {
		defer close(out)
		for {
			data, text, err := conn.Read(ctx)
			if err != nil {
				var ce *websocket.CloseError
				if errors.As(err, &ce) {
					out <- map[string]any{"type": "closed", "reason": ce.Reason}
				}
				return
			}
			var m map[string]any
			if text && json.Unmarshal(data, &m) == nil {
				out <- m
			}
		}
	}()
	return out
}

// TestDrainTimeout runs the server with -drain-timeout 3s, a player in
// the default room and two seated in a run room, and cancels Run's
// context (what SIGTERM does): /readyz fails at once, saying draining,
// while /healthz passes; a new player is refused with the reason and
// the time left; every player gets a notice with the time left; the run
// ends with a result before the room closes; the rooms close with
// "server shutting down" at the end, and Run returns nil within the
// drain timeout and -drain.
func TestDrainTimeout(t *testing.T) {
	withTestRun(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs logBuf
	c := testConfig()
	c.AdminToken, c.DrainTimeout, c.Drain = "drain-token", 3*time.Second, 5*time.Second
	c.LogLevel, c.LogFormat, c.LogTo = "info", "json", &logs
	addr, admin, errc := startRun(t, ctx, c)
	for _, p := range []string{"/healthz", "/readyz"} {
		waitProbe(t, admin, p, http.StatusOK, "ok")
	}
	if code, body := get(t, "http://"+admin+"/readyz?verbose"); code != http.StatusOK || !strings.Contains(body, "[+]store ok") || !strings.Contains(body, "readyz check passed") {
		t.Errorf("/readyz?verbose: %d %q", code, body)
	}
	req, _ := http.NewRequest(http.MethodPost, "http://"+admin+"/runs", strings.NewReader(`{"room":"duel","mission":"`+testRunName+`","roster":{"seats":[{"account":"ann","team":0},{"account":"ben","team":1}]}}`))
	req.Header.Set("Authorization", "Bearer drain-token")
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusCreated {
		t.Fatalf("POST /runs: %v %v", res, err)
	}
	jctx, jcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer jcancel()
	players := map[string]chan map[string]any{}
	for _, p := range [][2]string{{"default", "pat"}, {"duel", "ann"}, {"duel", "ben"}} {
		_, players[p[1]] = joinAs(t, jctx, addr, c.Secret, p[0], p[1])
	}

	start := time.Now()
	cancel()
	deadline := time.Now().Add(2 * time.Second)
	for {
		code, body := get(t, "http://"+admin+"/readyz")
		if code == http.StatusServiceUnavailable && strings.Contains(body, "[-]draining failed") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz while draining: %d %q", code, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	waitProbe(t, admin, "/healthz", http.StatusOK, "ok")
	late, err := websocket.Dial(jctx, "ws://"+addr+"/rooms/default")
	if err != nil {
		t.Fatal(err)
	}
	defer late.Close()
	if r := closeReason(t, "late", late); !strings.Contains(r, "the server is draining: it stops in ") || !strings.Contains(r, "join another server") {
		t.Errorf("a join while draining: closed with %q", r)
	}
	var wg sync.WaitGroup
	for name, in := range players {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var notice, result, closed string
			for m := range in {
				switch m["type"] {
				case "notice":
					if notice == "" {
						notice, _ = m["text"].(string)
					}
				case "run":
					if res, ok := m["result"].(map[string]any); ok && result == "" {
						result, _ = res["text"].(string)
					}
				case "closed":
					closed, _ = m["reason"].(string)
				}
			}
			if !strings.Contains(notice, "This server shuts down in 3 s") {
				t.Errorf("%s: first notice %q, want the time left", name, notice)
			}
			if name != "pat" && result != "The server is shutting down: the run ends here." {
				t.Errorf("%s: run result %q", name, result)
			}
			if closed != "server shutting down" {
				t.Errorf("%s: closed with %q", name, closed)
			}
		}()
	}
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(c.DrainTimeout + c.Drain + 5*time.Second):
		t.Fatal("run did not return")
	}
	if d := time.Since(start); d < c.DrainTimeout-500*time.Millisecond || d > c.DrainTimeout+c.Drain {
		t.Errorf("the drain took %v, want about the drain timeout %v", d, c.DrainTimeout)
	}
	wg.Wait()
	if len(logs.records(t, "draining")) != 1 || len(logs.records(t, "drain timeout: closing the rooms")) != 1 {
		t.Errorf("no draining and drain timeout records:\n%s", logs.String())
	}
}

// TestDrainEndsWhenNobodyPlays: a drain with nobody playing ends at once,
// whatever -drain-timeout says.
func TestDrainEndsWhenNobodyPlays(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	c := testConfig()
	c.DrainTimeout = time.Minute
	_, _, errc := startRun(t, ctx, c)
	start := time.Now()
	stopRun(t, cancel, errc, 5*time.Second)
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("an empty server took %v to drain", d)
	}
}

// TestHealthzStuckRoom: a room stuck in its tick makes /healthz and
// /readyz fail, naming it; once it ticks again both pass.
func TestHealthzStuckRoom(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	c := testConfig()
	_, admin, errc := startRun(t, ctx, c)
	defer stopRun(t, cancel, errc, c.Drain)
	release := stallRooms(t)
	waitProbe(t, admin, "/healthz", http.StatusServiceUnavailable, "[-]rooms failed: room default has not ticked for")
	waitProbe(t, admin, "/readyz", http.StatusServiceUnavailable, "[-]rooms failed: room default")
	release()
	waitProbe(t, admin, "/healthz", http.StatusOK, "ok")
}

// stallRooms makes every room's tick wait until the func it returns is
// called (or the test ends).
func stallRooms(t *testing.T) func() {
	t.Helper()
	var mu sync.Mutex
	stuck := make(chan struct{})
	hook := func(*rooms.Room) {
		mu.Lock()
		ch := stuck
		mu.Unlock()
		<-ch
	}
	tickHook.Store(&hook)
	var once sync.Once
	release := func() { once.Do(func() { close(stuck) }) }
	t.Cleanup(func() { release(); tickHook.Store(nil) })
	return release
}

// waitProbe polls path on the admin listener for up to 5 s until it
// answers code with a body holding want.
func waitProbe(t *testing.T, admin, path string, code int, want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, body := get(t, "http://"+admin+path)
		if got == code && strings.Contains(body, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d %q, want %d with %q", path, got, body, code, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestReadyzStore: with the accounts in PostgreSQL, /readyz fails while
// the database does not answer, naming the store; /healthz does not (the
// rooms play on).
func TestReadyzStore(t *testing.T) {
	if _, err := pgtest.Find(); err != nil && os.Getenv("FOI_TEST_POSTGRES") == "" {
		t.Skipf("no PostgreSQL: %v", err)
	}
	srv, err := pgtest.Start()
	if err != nil {
		t.Skipf("PostgreSQL did not start: %v", err)
	}
	defer srv.Stop()
	dctx, dcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer dcancel()
	url, err := srv.NewDatabase(dctx)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := testConfig()
	c.Store = url
	_, admin, errc := startRun(t, ctx, c)
	waitProbe(t, admin, "/readyz", http.StatusOK, "ok")
	srv.Stop()
	waitProbe(t, admin, "/readyz", http.StatusServiceUnavailable, "[-]store failed: the account store does not answer")
	waitProbe(t, admin, "/healthz", http.StatusOK, "ok")
	cancel()
	select {
	case <-errc: // the drain may fail to release: the store is gone
	case <-time.After(c.Drain + 10*time.Second):
		t.Fatal("run did not return")
	}
}

// TestReadyzWhileStarting: until the start is done, /readyz fails with
// "the server is starting" and /healthz passes (a starting process is
// not a stuck one); then both pass.
func TestReadyzWhileStarting(t *testing.T) {
	m, err := rooms.NewManager(rooms.Config{DefaultLevel: "test-flat"})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Shutdown(context.Background(), "test over")
	s := &Server{rooms: m}
	get := func(what string, checks func() []check) (int, string) {
		rec := httptest.NewRecorder()
		probe(what, checks).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/"+what, nil))
		return rec.Code, rec.Body.String()
	}
	if code, body := get("readyz", s.readiness); code != http.StatusServiceUnavailable || !strings.Contains(body, "[-]started failed: the server is starting") {
		t.Errorf("readyz while starting: %d %q", code, body)
	}
	if code, body := get("healthz", s.liveness); code != http.StatusOK {
		t.Errorf("healthz while starting: %d %q", code, body)
	}
	s.started.Store(true)
	if code, body := get("readyz", s.readiness); code != http.StatusOK || body != "ok" {
		t.Errorf("readyz once started: %d %q", code, body)
	}
}

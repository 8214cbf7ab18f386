//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	cws "github.com/coder/websocket"

	"github.com/fiveonit/engine/internal/pgtest"
	"github.com/fiveonit/engine/jointoken"
	"github.com/fiveonit/engine/rooms"
	"github.com/fiveonit/engine/textframe"
	"github.com/fiveonit/engine/transport/websocket"
)

// pgDatabase returns a new database's postgres:// URL on the tests'
// PostgreSQL server (started by the first test that wants one), or skips
// the test where PostgreSQL is missing.
func pgDatabase(t *testing.T) string {
	t.Helper()
	pg.once.Do(func() { pg.srv, pg.err = pgtest.Start() })
	if errors.Is(pg.err, pgtest.ErrMissing) {
		t.Skip("no PostgreSQL to test against:", pg.err)
	}
	if pg.err != nil {
		t.Fatal(pg.err)
	}
	url, err := pg.srv.NewDatabase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(url, "postgres://") {
		t.Skipf("%s is not a postgres:// URL, which -store takes", pgtest.EnvURL)
	}
	return url
}

// fleetPlayer is a player in a room of a fleet: its frames are read in
// the background and counted, and the end of its connection kept.
type fleetPlayer struct {
	ws      *websocket.ClientConn
	welcome textframe.Welcome
	frames  atomic.Int64 // binary frames (snapshots) read
	mu      sync.Mutex
	err     error // what ended the reading, nil while it goes on
}

// joinRoom joins account to room through the process at addr (a join the
// Go dial follows to the process that holds the room), and reads its
// frames until the test ends.
func joinRoom(t *testing.T, addr, room, account string) *fleetPlayer {
	t.Helper()
	tok, err := jointoken.Sign([]byte(storeSecret), jointoken.Claims{Account: account, Name: account, Expires: time.Now().Add(time.Hour).Unix()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, err := websocket.Dial(ctx, "ws://"+addr+"/rooms/"+room+"?level=test-flat&token="+tok)
	if err != nil {
		t.Fatalf("join %s through %s: %v", room, addr, err)
	}
	p := &fleetPlayer{ws: ws}
	for {
		f, text, err := ws.Read(ctx)
		if err != nil {
			t.Fatalf("join %s through %s: %v", room, addr, err)
		}
		if text && textframe.Type(f) == "welcome" {
			json.Unmarshal(f, &p.welcome)
			break
		}
	}
	go func() {
		for {
			_, text, err := ws.Read(context.Background())
			if err != nil {
				p.mu.Lock()
				p.err = err
				p.mu.Unlock()
				return
			}
			if !text {
				p.frames.Add(1)
			}
		}
	}()
	t.Cleanup(func() { ws.Close() })
	return p
}

func (p *fleetPlayer) ended() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// lobby is GET /rooms of the process at addr, by name.
func lobby(t *testing.T, addr string) map[string]rooms.RoomInfo {
	t.Helper()
	res, err := http.Get("http://" + addr + "/rooms")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var list []rooms.RoomInfo
	if err := json.NewDecoder(res.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	out := map[string]rooms.RoomInfo{}
	for _, r := range list {
		out[r.Name] = r
	}
	return out
}

// TestDirectoryFleet runs two server processes on one PostgreSQL
// database with a 1.5 s directory TTL: the lobby of each lists both
// processes' rooms, the other's with its address; a join through one for
// the other's room lands there (the Go dial follows the 307), a browser's
// gets the close that names the room's URL there; two joins making one
// name on both processes at once end in one room; after kill -9 of one,
// its rooms leave the other's lobby within the TTL, and the other's
// players notice nothing.
func TestDirectoryFleet(t *testing.T) {
	url := pgDatabase(t)
	const ttl = 1500 * time.Millisecond
	a := startProcessOn(t, url, "test-flat", "-directory-ttl", ttl.String())
	b := startProcessOn(t, url, "test-flat", "-directory-ttl", ttl.String())
	alice := joinRoom(t, a.addr, "on-a", "alice")
	joinRoom(t, b.addr, "on-b", "bob")

	for _, c := range []struct {
		p     *proc
		other *proc
		own   string
		far   string
	}{{a, b, "on-a", "on-b"}, {b, a, "on-b", "on-a"}} {
		l := lobby(t, c.p.addr)
		if r, ok := l[c.own]; !ok || r.Addr != "" || r.Players != 1 || r.Capacity != 64 {
			t.Errorf("%s lists its own room %s as %+v, want it with 1 player and no addr", c.p.addr, c.own, r)
		}
		if r, ok := l[c.far]; !ok || r.Addr != "http://"+c.other.addr || r.Players != 0 && r.Players != 1 || r.Level != "test-flat" {
			t.Errorf("%s lists the other's room %s as %+v, want it at http://%s", c.p.addr, c.far, r, c.other.addr)
		}
		if _, ok := l["default"]; !ok || l["default"].Addr != "" {
			t.Errorf("%s lists its default room as %+v, want its own", c.p.addr, l["default"])
		}
	}

	// Carol joins b's room through a: she lands on b, with bob.
	carol := joinRoom(t, a.addr, "on-b", "carol")
	if carol.welcome.Room != "on-b" {
		t.Fatalf("carol's welcome names room %q", carol.welcome.Room)
	}
	waitFor(t, "b's on-b with 2 players", func() bool { return lobby(t, b.addr)["on-b"].Players == 2 })
	if _, ok := lobby(t, a.addr)["on-b"]; !ok || len(a.logs.records(t, "join sent to another server")) == 0 {
		t.Fatalf("a logged no join sent to b:\n%s", a.logs.String())
	}

	// A browser's join (it sends an Origin) through a: closed with the
	// room's URL on b, which it joins itself.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	bws, _, err := cws.Dial(ctx, "ws://"+a.addr+"/rooms/on-b", &cws.DialOptions{HTTPHeader: http.Header{"Origin": {"http://" + a.addr}}})
	if err != nil {
		t.Fatalf("a browser's join: %v", err)
	}
	_, _, err = bws.Read(ctx)
	if ce := (cws.CloseError{}); !errors.As(err, &ce) || int(ce.Code) != rooms.MovedCode || ce.Reason != "ws://"+b.addr+"/rooms/on-b" {
		t.Fatalf("a browser's join of b's room through a: %v, want close %d with ws://%s/rooms/on-b", err, rooms.MovedCode, b.addr)
	}

	// Two joins make one name at once, one through each process: both
	// play in one room, on one of them.
	var wg sync.WaitGroup
	racers := make([]*fleetPlayer, 2)
	for i, p := range []*proc{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			racers[i] = joinRoom(t, p.addr, "race", fmt.Sprintf("racer-%d", i))
		}()
	}
	wg.Wait()
	owner, other := a, b
	if r, ok := lobby(t, a.addr)["race"]; !ok || r.Addr != "" { // a lists its own rooms as they are
		owner, other = b, a
	}
	if r := lobby(t, owner.addr)["race"]; r.Addr != "" || r.Players != 2 {
		t.Fatalf("race on its process %s: %+v, want both players", owner.addr, r)
	}
	waitFor(t, "the other process lists race at its owner's", func() bool {
		return lobby(t, other.addr)["race"].Addr == "http://"+owner.addr
	})

	// kill -9 of b: its rooms leave a's lobby within the TTL (and a
	// heartbeat's third of it), and alice, on a, notices nothing.
	before := alice.frames.Load()
	b.stop(syscall.SIGKILL)
	killed := time.Now()
	for {
		l := lobby(t, a.addr)
		if _, ok := l["on-b"]; !ok {
			break
		}
		if time.Since(killed) > ttl+ttl/3+time.Second {
			t.Fatalf("%s after the kill, a still lists b's room: %+v", time.Since(killed), l["on-b"])
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("b's rooms left a's lobby %s after kill -9 (TTL %s)", time.Since(killed).Round(10*time.Millisecond), ttl)
	time.Sleep(200 * time.Millisecond)
	if err := alice.ended(); err != nil {
		t.Fatalf("alice, on a, lost her connection: %v", err)
	}
	// 20 snapshots a second while b died and left: none missed.
	if got, want := alice.frames.Load()-before, int64(time.Since(killed).Seconds()*20*0.8); got < want {
		t.Fatalf("alice got %d snapshots in the %s since the kill, want %d or more", got, time.Since(killed).Round(time.Millisecond), want)
	}
	// b's room name is free: a join through a makes it there.
	joinRoom(t, a.addr, "on-b", "dave")
	if r := lobby(t, a.addr)["on-b"]; r.Addr != "" || r.Players != 1 {
		t.Fatalf("on-b after b died: %+v, want a's own with dave", r)
	}
	a.stop(syscall.SIGTERM)
	if strings.Contains(a.logs.String(), `"level":"ERROR"`) {
		t.Errorf("a logged errors:\n%s", a.logs.String())
	}
}

// waitFor polls ok for up to 5 s.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !ok(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("not so within 5 s: %s", what)
		}
	}
}

package rooms

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fiveonit/engine/clock/clocktest"
	"github.com/fiveonit/engine/games"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/server/servertest"
	"github.com/fiveonit/engine/systems/ai"
	"github.com/fiveonit/engine/transport/websocket"
)

// TestLobbyRoutes: GET /rooms lists the rooms with their level, game,
// players and options (what the page's lobby shows), GET /games the games
// a room may play, and GET /levels/{name} gives a level's JSON (what the
// page draws), 404 for a level that is not there.
func TestLobbyRoutes(t *testing.T) {
	_, wsURL, watch := newHTTP(t)
	base := "http" + strings.TrimPrefix(wsURL, "ws")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := websocket.Dial(ctx, wsURL+"/rooms/lobby-test?level=test-flat&game=city-jobs&traffic=0&pedestrians=7")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go func() { // keep reading, as a client does
		for {
			if _, _, err := c.Read(ctx); err != nil {
				return
			}
		}
	}()

	// The join is the handler's, after the dial: the room is listed with
	// its player once it has ticked with them.
	watch.until("lobby-test", 5*time.Second, func(r *Room) bool { return r.Server().Players() == 1 })
	var got RoomInfo
	var list []RoomInfo
	getJSON(t, base+"/rooms", &list)
	for _, r := range list {
		if r.Name == "lobby-test" {
			got = r
		}
	}
	want := RoomInfo{Name: "lobby-test", Level: "test-flat", Game: "city-jobs", Players: 1, Capacity: 64, Traffic: 0, Pedestrians: 7}
	got.Ticks, got.Overruns = 0, 0
	if got != want {
		t.Fatalf("GET /rooms lists %+v, want %+v", got, want)
	}

	var gl []GameInfo
	getJSON(t, base+"/games", &gl)
	if len(gl) != 2 || gl[0].Name != "city-jobs" || gl[1].Name != "free-roam" || gl[1].Label == "" || gl[1].Description == "" {
		t.Fatalf("GET /games lists %+v", gl)
	}

	resp, err := http.Get(base + "/levels/test-flat")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET /levels/test-flat: %s %q", resp.Status, resp.Header.Get("Content-Type"))
	}
	l, err := levels.Parse("test-flat.json", body)
	if err != nil || l.Name != "test-flat" {
		t.Fatalf("GET /levels/test-flat is not the level: %v", err)
	}
	resp, err = http.Get(base + "/levels/no-such-level")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("GET /levels/no-such-level: %s, want 404", resp.Status)
	}
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

// TestRoomInfoCounts: the room list gives the ambient cars and pedestrians a
// room keeps, its options resolved against its level (an option left out is
// the level's default, not -1).
func TestRoomInfoCounts(t *testing.T) {
	m := newManager(t, Config{DefaultLevel: "test-flat"})
	cases := []struct {
		name, level           string
		traffic, pedestrians  int // the options; -1 for none
		wantTraffic, wantPeds int
	}{
		{"city-defaults", "main-city", -1, -1, ai.DefaultTrafficMain, ai.DefaultPedestriansMain}, // main-city's rules name no counts
		{"city-options", "main-city", 3, 0, 3, 0},
		{"flat-defaults", "test-flat", -1, -1, 0, 0},
	}
	for _, c := range cases {
		if err := m.make(c.name, Options{Level: c.level, Traffic: c.traffic, Pedestrians: c.pedestrians}); err != nil {
			t.Fatal(err)
		}
		m.mu.Lock()
		got := m.rooms[c.name].Info()
		m.mu.Unlock()
		if got.Traffic != c.wantTraffic || got.Pedestrians != c.wantPeds {
			t.Errorf("%s: lists traffic %d and pedestrians %d, want %d and %d", c.name, got.Traffic, got.Pedestrians, c.wantTraffic, c.wantPeds)
		}
	}
}

// TestCanJoin: CanJoin gives the error Join would, without joining or
// making a room.
func TestCanJoin(t *testing.T) {
	m, err := NewManager(Config{DefaultLevel: "test-flat", MaxRooms: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		m.Shutdown(ctx, "test over")
	}()
	o := Options{Level: "test-flat", Traffic: -1, Pedestrians: -1}
	check := func(when, name string, want error, wantText string) {
		t.Helper()
		err := m.CanJoin(name, o, server.Who{})
		switch {
		case want != nil && !errors.Is(err, want), wantText != "" && (err == nil || !strings.Contains(err.Error(), wantText)):
			t.Errorf("%s: CanJoin(%q) = %v, want %v %q", when, name, err, want, wantText)
		case want == nil && wantText == "" && err != nil:
			t.Errorf("%s: CanJoin(%q) = %v, want nil", when, name, err)
		}
	}
	check("open room", "default", nil, "")
	check("a room to make", "second", nil, "")
	check("bad name", "BAD NAME", ErrBadRoomName, "")
	if n := len(m.List()); n != 1 {
		t.Errorf("%d rooms after CanJoin, want 1 (it makes none)", n)
	}
	for {
		if _, _, err := m.Join("default", o, servertest.NewMemConn(false, 0), server.Who{}); err != nil {
			break
		}
	}
	check("full room", "default", server.ErrRoomFull, "")
	if _, _, err := m.Join("second", o, servertest.NewMemConn(false, 0), server.Who{}); err != nil {
		t.Fatal(err)
	}
	check("MaxRooms open", "third", nil, "this server runs at most 2")
	check("MaxRooms open, an open room", "second", nil, "")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	m.Shutdown(ctx, "test over")
	check("shut down", "third", nil, "shutting down")
}

// TestMakingBlocksNoOne: while a room is being made (a city room takes ~20
// ms), the other rooms' joins and the room list go on; a second join to the
// room being made waits for it and lands in the same room; and the room
// being made counts against MaxRooms.
func TestMakingBlocksNoOne(t *testing.T) {
	m := newManager(t, Config{DefaultLevel: "test-flat", MaxRooms: 2})
	building, release := make(chan struct{}), make(chan struct{})
	buildHook = func(name string) {
		if name == "slow" {
			close(building)
			<-release
		}
	}
	t.Cleanup(func() { buildHook = nil })
	o := Options{Level: "test-flat", Traffic: -1, Pedestrians: -1}
	joined := make(chan error, 2)
	join := func() {
		_, _, err := m.Join("slow", o, servertest.NewMemConn(false, 0), server.Who{})
		joined <- err
	}
	go join()
	<-building
	go join()

	// The room "slow" is being made, its joins waiting: the rest goes on.
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, _, err := m.Join("default", o, servertest.NewMemConn(false, 0), server.Who{}); err != nil {
			t.Errorf("join of another room while one is made: %v", err)
		}
		if n := len(m.List()); n != 1 {
			t.Errorf("the list has %d rooms while one is made, want 1 (the room made is not open yet)", n)
		}
		if err := m.CanJoin("slow", o, server.Who{}); err != nil {
			t.Errorf("CanJoin of the room being made: %v", err)
		}
		if err := m.CanJoin("third", o, server.Who{}); err == nil || !strings.Contains(err.Error(), "this server runs at most 2") {
			t.Errorf("CanJoin of a third room with MaxRooms 2, one being made: %v, want this server runs at most 2", err)
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the other rooms waited for the room being made")
	}
	select {
	case err := <-joined:
		t.Fatalf("a join of the room being made returned before it was made: %v", err)
	default:
	}
	close(release)
	for range 2 {
		if err := <-joined; err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range m.List() {
		if r.Name == "slow" && r.Players != 2 {
			t.Errorf("room slow has %d players, want both joins", r.Players)
		}
	}
	if n := len(m.List()); n != 2 {
		t.Errorf("%d rooms, want 2 (default and slow, made once)", n)
	}
}

// TestRoomsFrom: joins from one address make at most MaxRoomsFrom rooms
// that are open at once (ErrRoomsFrom for one more); they still join open
// rooms, and joins from another address, or without one, still make rooms.
func TestRoomsFrom(t *testing.T) {
	m := newManager(t, Config{DefaultLevel: "test-flat", MaxRoomsFrom: 2})
	join := func(room, from string) error {
		_, _, err := m.Join(room, Options{Level: "test-flat", Traffic: -1, Pedestrians: -1, From: from}, servertest.NewMemConn(false, 0), server.Who{})
		return err
	}
	for _, room := range []string{"a1", "a2"} {
		if err := join(room, "10.0.0.1"); err != nil {
			t.Fatalf("join making room %s: %v", room, err)
		}
	}
	o := Options{Level: "test-flat", Traffic: -1, Pedestrians: -1, From: "10.0.0.1"}
	if err := m.CanJoin("a3", o, server.Who{}); !errors.Is(err, ErrRoomsFrom) {
		t.Errorf("CanJoin of a third room from the same address: %v, want ErrRoomsFrom", err)
	}
	if err := join("a3", "10.0.0.1"); !errors.Is(err, ErrRoomsFrom) {
		t.Errorf("a third room from the same address: %v, want ErrRoomsFrom", err)
	}
	for _, c := range []struct{ room, from string }{
		{"a1", "10.0.0.1"},      // an open room
		{"default", "10.0.0.1"}, // the default room
		{"b1", "10.0.0.2"},      // another address
		{"c1", ""},              // no address
	} {
		if err := join(c.room, c.from); err != nil {
			t.Errorf("join of %s from %q: %v", c.room, c.from, err)
		}
	}
	if n := len(m.List()); n != 5 {
		t.Errorf("%d rooms, want 5 (default, a1, a2, b1, c1)", n)
	}
}

// newManager returns a manager of cfg, shut down when the test ends.
func newManager(t *testing.T, cfg Config) *Manager {
	t.Helper()
	m, err := NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		m.Shutdown(ctx, "test over")
	})
	return m
}

// TestConcurrentJoins: joins of a dozen rooms at once, from three
// addresses (each bounded to 2 rooms), then without an address (bounded by
// MaxRooms alone), their clients leaving meanwhile: never more rooms open
// or being made than MaxRooms, nor from one address than MaxRoomsFrom, and
// every join either lands or fails with one of the two limits.
func TestConcurrentJoins(t *testing.T) {
	m := newManager(t, Config{DefaultLevel: "test-flat", MaxRooms: 8, MaxRoomsFrom: 2})
	rounds := 30
	if testing.Short() {
		rounds = 10
	}
	var joined, fromRefused, maxRefused atomic.Int32
	// The invariants, checked as each room is made, after it is built and
	// before it opens: the rooms open or being made only grow while the
	// joins run (an empty room stays open for the 30 s grace), so each
	// count is at its highest when a room is being made.
	var broken atomic.Bool
	check := func() {
		m.mu.Lock()
		n, from := len(m.rooms)+len(m.making), map[string]int{}
		for _, r := range m.rooms {
			from[r.Options.From]++
		}
		for _, mk := range m.making {
			from[mk.from]++
		}
		m.mu.Unlock()
		if n > 8 && !broken.Swap(true) {
			t.Errorf("%d rooms open or being made, MaxRooms 8", n)
		}
		for addr, k := range from {
			if addr != "" && k > 2 && !broken.Swap(true) {
				t.Errorf("%d rooms from %s, MaxRoomsFrom 2", k, addr)
			}
		}
	}
	buildHook = func(string) { check() }
	t.Cleanup(func() { buildHook = nil })
	joins := func(from func(g int) string) {
		var wg sync.WaitGroup
		for g := range 12 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// Each player leaves as the goroutine's next one joins:
				// the leaves run among the joins.
				var last *servertest.MemConn
				defer func() {
					if last != nil {
						last.Close("bye")
					}
				}()
				for i := range rounds {
					room := fmt.Sprintf("r%d", (g*5+i)%12)
					o := Options{Level: "test-flat", Traffic: -1, Pedestrians: -1, From: from(g)}
					conn := servertest.NewMemConn(false, 0)
					_, _, err := m.Join(room, o, conn, server.Who{})
					switch {
					case err == nil:
						joined.Add(1)
						if last != nil {
							last.Close("bye")
						}
						last = conn
					case errors.Is(err, ErrRoomsFrom):
						fromRefused.Add(1)
					case strings.Contains(err.Error(), "this server runs at most"):
						maxRefused.Add(1)
					default:
						t.Errorf("join of %s: %v", room, err)
					}
				}
			}()
		}
		wg.Wait()
	}
	// Three addresses make at most 6 rooms of the 7 MaxRooms leaves: only
	// their own bound refuses them. Then joins without an address fill
	// the last and meet MaxRooms.
	joins(func(g int) string { return fmt.Sprintf("10.0.0.%d", g%3) })
	if fromRefused.Load() == 0 || maxRefused.Load() != 0 {
		t.Errorf("from three addresses: %d refused for their address's rooms, %d for the server's; want some and none", fromRefused.Load(), maxRefused.Load())
	}
	joins(func(int) string { return "" })
	if maxRefused.Load() == 0 {
		t.Error("without an address: none refused for the server's rooms")
	}
	check()
	t.Logf("%d joined, %d refused for their address's rooms, %d for the server's", joined.Load(), fromRefused.Load(), maxRefused.Load())
}

// TestPlayersFrom: the players joined from one address, in all the rooms
// together, are bounded by MaxPlayersFrom: a join past it is refused,
// to an open room or to one it would make (which is then not made), by
// Join and CanJoin; other addresses and joins without one are not; a
// full room is "room full" whatever the address holds; a player that
// leaves, and every player at a shutdown, no longer counts.
func TestPlayersFrom(t *testing.T) {
	clk := clocktest.New()
	m := newManager(t, Config{DefaultLevel: "test-flat", MaxPlayersFrom: 2, Clock: clk})
	o := func(from string) Options {
		return Options{Level: "test-flat", Traffic: -1, Pedestrians: -1, From: from}
	}
	join := func(room, from string) (*server.Session, error) {
		_, s, err := m.Join(room, o(from), servertest.NewMemConn(false, 0), server.Who{})
		return s, err
	}
	var mine []*server.Session
	for _, room := range []string{"default", "second"} {
		s, err := join(room, "10.0.0.1")
		if err != nil {
			t.Fatalf("join %d from 10.0.0.1: %v", len(mine)+1, err)
		}
		mine = append(mine, s)
	}
	for _, room := range []string{"default", "third"} {
		if _, err := join(room, "10.0.0.1"); !errors.Is(err, ErrPlayersFrom) {
			t.Errorf("a third player from 10.0.0.1, to %s: %v, want ErrPlayersFrom", room, err)
		}
		if err := m.CanJoin(room, o("10.0.0.1"), server.Who{}); !errors.Is(err, ErrPlayersFrom) {
			t.Errorf("CanJoin(%s) from 10.0.0.1: %v, want ErrPlayersFrom", room, err)
		}
	}
	if n := len(m.List()); n != 2 {
		t.Errorf("%d rooms open, want 2: a refused player makes no room", n)
	}
	if _, err := join("default", "10.0.0.2"); err != nil {
		t.Errorf("a player from another address: %v", err)
	}
	// Fill the default room without an address (not counted): full
	// comes before the address's bound.
	for {
		if _, err := join("default", ""); err != nil {
			if !errors.Is(err, server.ErrRoomFull) {
				t.Fatalf("filling the room without an address: %v", err)
			}
			break
		}
	}
	if err := m.CanJoin("default", o("10.0.0.1"), server.Who{}); !errors.Is(err, server.ErrRoomFull) {
		t.Errorf("CanJoin of the full room from 10.0.0.1: %v, want ErrRoomFull", err)
	}
	// One leaves: its place is the address's again once the room has
	// taken it out (at its next tick).
	mine[1].Leave()
	clk.Step(t, TickPeriod)
	if err := m.CanJoin("third", o("10.0.0.1"), server.Who{}); err != nil {
		t.Fatalf("a player left, and CanJoin from 10.0.0.1 still says %v after the room's next tick", err)
	}
	if _, err := join("third", "10.0.0.1"); err != nil {
		t.Errorf("a player from 10.0.0.1 after one left: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := m.Shutdown(ctx, "test over"); err != nil {
		t.Fatal(err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.players) != 0 {
		t.Errorf("after the shutdown, players still counted: %v", m.players)
	}
}

// TestDefaultGameMustExist: a manager whose default game is unknown is not
// made, and says which games there are.
func TestDefaultGameMustExist(t *testing.T) {
	_, err := NewManager(Config{DefaultLevel: "test-flat", DefaultGame: "deathmatch"})
	if !errors.Is(err, games.ErrUnknownGame) || !strings.Contains(err.Error(), "free-roam") {
		t.Fatalf("got %v, want games.ErrUnknownGame with the names", err)
	}
}

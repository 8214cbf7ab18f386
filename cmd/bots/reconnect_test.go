package main

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fiveonit/engine/bot"
	"github.com/fiveonit/engine/client"
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/netsync/wire"
	"github.com/fiveonit/engine/rooms"
	"github.com/fiveonit/engine/server"
)

// serveRooms serves a manager of cfg over HTTP and returns it and its
// ws:// base URL.
func serveRooms(t *testing.T, cfg rooms.Config) (*rooms.Manager, string) {
	t.Helper()
	m, err := rooms.NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler(rooms.HTTPConfig{Secret: []byte("bots-test-secret-0123456789")}))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		m.Shutdown(ctx, "test over")
		srv.Close()
	})
	return m, "ws" + strings.TrimPrefix(srv.URL, "http")
}

// players returns the players of room name, 0 when it is not open.
func players(m *rooms.Manager, name string) int {
	for _, r := range m.List() {
		if r.Name == name {
			return r.Players
		}
	}
	return 0
}

// carSample is where a bot's client held its car, and under which
// reconnect token.
type carSample struct {
	token string
	pos   wire.Vec3
}

// TestReconnectAfterDrop: a bot whose WebSocket drops mid-run (no close
// frame) comes back by itself to the same session, character and car,
// and drives on: its car moves after. The room holds one player all along
// (the place, not a second player), and none once the bot has ended its
// run with the leave command.
func TestReconnectAfterDrop(t *testing.T) {
	m, base := serveRooms(t, rooms.Config{DefaultLevel: "test-flat", Grace: 200 * time.Millisecond, RejoinWindow: 30 * time.Second})
	c := config{url: base + "/rooms/rejoin", n: 1, duration: 6 * time.Second, transport: "ws", seed: 1, reconnect: true}
	o := options(c, 0)
	o.DropAt = 2 * time.Second
	o.Controls = func(uint32) components.Drive { return components.Drive{Throttle: 0.6} }
	var mu sync.Mutex
	var cars []carSample
	most := 0
	o.Observe = func(cl *client.Client) {
		w, ok := cl.Welcome()
		if !ok {
			return
		}
		h := cl.Decoder().Store().Get(w.Car)
		if h == nil {
			return
		}
		var e wire.Entity
		h.Rec.Decode(&e, h.PoseFull)
		mu.Lock()
		cars = append(cars, carSample{w.Rejoin, e.Pos})
		most = max(most, players(m, "rejoin"))
		mu.Unlock()
	}
	conn, err := dial(context.Background(), c, 0)
	if err != nil {
		t.Fatal(err)
	}
	res := bot.RunWith(context.Background(), conn, 1, c.duration, o)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if res.Drops != 1 || res.Reconnects != 1 || res.ReconnectFailed || len(res.Welcomes) != 2 {
		t.Fatalf("%d drops, %d reconnects (failed %v), %d welcomes", res.Drops, res.Reconnects, res.ReconnectFailed, len(res.Welcomes))
	}
	w1, w2 := res.Welcomes[0], res.Welcomes[1]
	if w2.Character != w1.Character || w2.Car != w1.Car || w2.Session != w1.Session {
		t.Fatalf("back as session %d character %d car %d, want %d, %d and %d", w2.Session, w2.Character, w2.Car, w1.Session, w1.Character, w1.Car)
	}
	if w1.Rejoin == "" || w2.Rejoin == w1.Rejoin {
		t.Fatalf("tokens %q then %q: want one, then a new one", w1.Rejoin, w2.Rejoin)
	}
	if s := res.Stats; s.Resyncs != 0 || res.Desynced {
		t.Fatalf("%d frames refused (desynced %v)", s.Resyncs, res.Desynced)
	}
	var after []wire.Vec3
	for _, s := range cars {
		if s.token == w2.Rejoin {
			after = append(after, s.pos)
		}
	}
	if len(after) < 60 {
		t.Fatalf("%d rounds after the reconnection", len(after))
	}
	a, z := after[0], after[len(after)-1]
	if dx, dy := z.X-a.X, z.Y-a.Y; dx*dx+dy*dy < 4 {
		t.Fatalf("the car moved %.2f m, %.2f m after the reconnection", dx, dy)
	}
	if most != 1 {
		t.Fatalf("the room held up to %d players, want 1", most)
	}
	deadline := time.Now().Add(3 * time.Second)
	for players(m, "rejoin") != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the room still holds %d players after the bot left", players(m, "rejoin"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("back in %v; the car drove %.1f m after", res.ReconnectTimes[0], z.X-a.X)
}

// TestReconnectRefused: a bot whose place is gone by the time it dials
// again (the room holds places for a tick) is refused with the server's
// reason and stops after that try.
func TestReconnectRefused(t *testing.T) {
	_, base := serveRooms(t, rooms.Config{DefaultLevel: "test-flat", Grace: 200 * time.Millisecond, RejoinWindow: 20 * time.Millisecond})
	c := config{url: base + "/rooms/short", n: 1, duration: 10 * time.Second, transport: "ws", seed: 1, reconnect: true}
	o := options(c, 0)
	o.DropAt = time.Second
	o.Backoff = bot.Backoff{Tries: 3, Min: 500 * time.Millisecond, Max: 500 * time.Millisecond}
	conn, err := dial(context.Background(), c, 0)
	if err != nil {
		t.Fatal(err)
	}
	res := bot.RunWith(context.Background(), conn, 1, c.duration, o)
	reason, ok := bot.ServerClosed(res.Err)
	if !ok || reason != server.ErrRejoinUnknown.Error() || !res.ReconnectFailed || res.Dials != 1 || res.Reconnects != 0 {
		t.Fatalf("err %v (reason %q), failed %v, %d dials, %d reconnects", res.Err, reason, res.ReconnectFailed, res.Dials, res.Reconnects)
	}
	if res.Seconds > 5 {
		t.Fatalf("the bot went on %.1f s", res.Seconds)
	}
}

// TestNoPlaceHeld: in a room that holds no places the welcome has no
// token, and a drop ends the bot's run with no dial.
func TestNoPlaceHeld(t *testing.T) {
	_, base := serveRooms(t, rooms.Config{DefaultLevel: "test-flat", Grace: 200 * time.Millisecond})
	c := config{url: base + "/rooms/none", n: 1, duration: 10 * time.Second, transport: "ws", seed: 1, reconnect: true}
	o := options(c, 0)
	o.DropAt = time.Second
	conn, err := dial(context.Background(), c, 0)
	if err != nil {
		t.Fatal(err)
	}
	res := bot.RunWith(context.Background(), conn, 1, c.duration, o)
	if res.Err == nil || !strings.Contains(res.Err.Error(), "no reconnect token") || res.Dials != 0 || len(res.Welcomes) != 1 || res.Welcomes[0].Rejoin != "" {
		t.Fatalf("err %v, %d dials, welcomes %d", res.Err, res.Dials, len(res.Welcomes))
	}
}

// TestRoomShutdownEndsTheRun: the server's close with a reason (it shuts
// down) ends a bot's run with the reason: it does not dial again.
func TestRoomShutdownEndsTheRun(t *testing.T) {
	m, base := serveRooms(t, rooms.Config{DefaultLevel: "test-flat", Grace: 200 * time.Millisecond, RejoinWindow: 30 * time.Second})
	c := config{url: base + "/rooms/closing", n: 1, duration: 10 * time.Second, transport: "ws", seed: 1, reconnect: true}
	conn, err := dial(context.Background(), c, 0)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(time.Second)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		m.Shutdown(ctx, "server shutting down")
	}()
	res := bot.RunWith(context.Background(), conn, 1, c.duration, options(c, 0))
	if reason, ok := bot.ServerClosed(res.Err); !ok || reason != "server shutting down" || res.Dials != 0 || res.ReconnectFailed {
		t.Fatalf("err %v, %d dials, failed %v", res.Err, res.Dials, res.ReconnectFailed)
	}
}

// TestDropEvery: with -drop-every, each bot drops once per interval, at a
// time of its own in the second half of the first, and comes back each
// time: the summary counts the drops and the reconnections.
func TestDropEvery(t *testing.T) {
	_, base := serveRooms(t, rooms.Config{DefaultLevel: "test-flat", Grace: 200 * time.Millisecond, RejoinWindow: 30 * time.Second})
	c := config{url: base + "/rooms/drops", n: 2, duration: 5 * time.Second, transport: "ws", seed: 4, reconnect: true, dropEvery: 2 * time.Second}
	for i := range c.n {
		o := options(c, i)
		if o.DropAt < time.Second || o.DropAt > 2*time.Second || o.DropEvery != 2*time.Second || o.Redial == nil {
			t.Fatalf("bot %d: first drop at %v, every %v", i, o.DropAt, o.DropEvery)
		}
	}
	if options(c, 0).DropAt == options(c, 1).DropAt {
		t.Fatal("two bots drop at the same time")
	}
	res, failed := run(context.Background(), c)
	if failed != 0 || len(res) != c.n {
		t.Fatalf("%d failed, %d results", failed, len(res))
	}
	for i, r := range res {
		// Dropped at 1 to 2 s and 3 to 4 s.
		if r.Err != nil || r.Drops != 2 || r.Reconnects != 2 || r.ReconnectFailed {
			t.Errorf("bot %d: err %v, %d drops, %d reconnects", i, r.Err, r.Drops, r.Reconnects)
		}
	}
	line := summary(res, failed)
	if !strings.Contains(line, " drops=4 reconnects=4 reconnects-failed=0 reconnect-p50=") {
		t.Fatalf("summary %q", line)
	}
	t.Log(line)
}

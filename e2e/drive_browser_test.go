package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/fiveonit/engine/bot"
	"github.com/fiveonit/engine/transport/websocket"
)

// The drive tests join the default room (test-flat here, for speed), hold
// W for two seconds, and check the car moved: on the page (its own
// predicted car, read from the wasm client) and on the server (a spectator
// Go client watching the page's player).

// driveInBrowser is the whole browser test over one transport.
func driveInBrowser(t *testing.T, addr string, webrtc bool) {
	p := browser(t, 45*time.Second)
	start := time.Now()
	name := "websocket"
	if webrtc {
		name = "webrtc"
	}
	p.open(addr)
	t.Logf("page loaded, wasm client ready in %s", time.Since(start).Round(time.Millisecond))
	if webrtc {
		p.click("webrtc")
	}
	p.click("join")
	ps := p.waitState("joined, driving a predicted car", 15*time.Second, func(ps pageState) bool {
		return ps.State != nil && ps.State.Joined && ps.State.Own != nil && ps.State.Own.Car && ps.State.Snapshots > 5
	})
	if ps.State.Lossy != webrtc {
		t.Errorf("page's client lossy = %v, want %v", ps.State.Lossy, webrtc)
	}
	player := ps.State.Welcome.Player
	t.Logf("joined %s as player %d over %s in %s", ps.State.Welcome.Room, player, name, time.Since(start).Round(time.Millisecond))

	wctx, wcancel := context.WithCancel(context.Background())
	defer wcancel()
	w := watch(t, wctx, addr, "default", player)
	deadline := time.Now().Add(5 * time.Second)
	before, ok := w.at()
	for ; !ok && time.Now().Before(deadline); before, ok = w.at() {
		time.Sleep(20 * time.Millisecond)
	}
	if !ok {
		t.Fatalf("the spectator never saw player %d", player)
	}
	x0, y0 := ps.State.Own.X, ps.State.Own.Y

	p.holdKey("w", "KeyW", 87, 2*time.Second)
	time.Sleep(300 * time.Millisecond) // the last snapshots
	after, _ := w.at()
	ps, err := p.state()
	if err != nil || ps.State == nil || ps.State.Own == nil {
		t.Fatalf("page after driving: %+v %v", ps, err)
	}
	server := dist(before.X, before.Y, after.X, after.Y)
	page := dist(x0, y0, ps.State.Own.X, ps.State.Own.Y)
	t.Logf("after 2 s of throttle: the server moved the car %.1f m (%.1f,%.1f -> %.1f,%.1f); the page's prediction %.1f m; ping %.1f ms",
		server, before.X, before.Y, after.X, after.Y, page, ps.State.PingMs)
	// Full throttle from rest for 2 s moves any car model more than 5 m.
	if server < 5 {
		t.Errorf("the server moved the car %.2f m, want more than 5", server)
	}
	if page < 5 {
		t.Errorf("the page's car moved %.2f m, want more than 5", page)
	}
	if ps.Status != "connected" {
		t.Errorf("HUD status %q, want connected", ps.Status)
	}
	// The network panel opens with the backquote key.
	p.holdKey("`", "Backquote", 192, 50*time.Millisecond)
	want := map[bool]string{false: "WebSocket", true: "WebRTC (lossy)"}[webrtc]
	if tr, err := chromedp.Run(p.ctx, chromedp.Text(chromedp.ID("transport"))); err != nil || tr != want {
		t.Errorf("HUD transport %q (%v), want %q", tr, err, want)
	}
	if pingText, err := chromedp.Run(p.ctx, chromedp.Text(chromedp.ID("ping"))); err != nil || !strings.HasSuffix(pingText, "ms") {
		t.Errorf("HUD ping %q (%v), want a round trip in ms", pingText, err)
	}
	p.screenshot("foi-web-" + name)
	t.Logf("%s test took %s", name, time.Since(start).Round(time.Millisecond))
}

func TestBrowserDriveWebSocket(t *testing.T) {
	addr := startServer(t, "test-flat")
	driveInBrowser(t, addr, false)
}

// TestBrowserDriveWebRTC drives over WebRTC. The server has the route
// for its offers: a 404 or 405 there fails the test at once.
func TestBrowserDriveWebRTC(t *testing.T) {
	addr := startServer(t, "test-flat")
	res, err := http.Post("http://"+addr+"/rooms/default/rtc", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode == http.StatusNotFound || res.StatusCode == http.StatusMethodNotAllowed {
		t.Fatalf("POST /rooms/default/rtc: %s, want the WebRTC transport's route", res.Status)
	}
	driveInBrowser(t, addr, true)
}

// TestBrowserSpectateCity watches a bot drive on main-city from the page,
// without joining: spectate=1&watch=1.
func TestBrowserSpectateCity(t *testing.T) {
	skipShort(t)
	addr := startServer(t, "main-city")
	bctx, bcancel := context.WithCancel(context.Background())
	botDone := make(chan bot.Result, 1)
	t.Cleanup(func() { bcancel(); <-botDone })
	conn, err := websocket.Dial(bctx, "ws://"+addr+"/rooms/default")
	if err != nil {
		t.Fatalf("bot: %v", err)
	}
	go func() { botDone <- bot.Run(bctx, conn, 1, time.Minute) }()

	p := browser(t, 45*time.Second)
	start := time.Now()
	p.open(addr)
	if err := chromedp.Do(p.ctx, chromedp.SetValue(chromedp.ID("watchN"), "1")); err != nil {
		t.Fatalf("name the player to watch: %v", err)
	}
	p.click("spectate")
	ps := p.waitState("spectating player 1, its car in view", 15*time.Second, func(ps pageState) bool {
		return ps.State != nil && ps.State.Joined && ps.State.Watched != nil && ps.State.Watched.Car && ps.State.Snapshots > 5
	})
	if w := ps.State.Welcome; !w.Spectate || w.Watch != 1 || w.Player != 0 {
		t.Errorf("welcome: spectate %v watch %d player %d, want a spectator of player 1", w.Spectate, w.Watch, w.Player)
	}
	if ps.State.Own != nil {
		t.Errorf("a spectator predicts a body of its own: %+v", ps.State.Own)
	}
	if len(ps.State.Players) != 1 || ps.State.Players[0].Player != 1 {
		t.Errorf("players held %+v, want player 1 alone", ps.State.Players)
	}
	t.Logf("spectating in %s: %d entities %v", time.Since(start).Round(time.Millisecond), ps.State.Entities, ps.State.Kinds)
	from := *ps.State.Watched
	time.Sleep(2 * time.Second)
	ps, err = p.state()
	if err != nil || ps.State == nil || ps.State.Watched == nil {
		t.Fatalf("page after 2 s: %+v %v", ps, err)
	}
	moved := dist(from.X, from.Y, ps.State.Watched.X, ps.State.Watched.Y)
	t.Logf("the watched bot's car moved %.1f m in 2 s on the page", moved)
	// The bot drives off at once and cruises at 11 m/s for 20 s and more.
	if moved < 3 {
		t.Errorf("the watched car moved %.2f m in 2 s, want more than 3", moved)
	}
	if ps.State.Kinds["car"] < 2 {
		t.Errorf("the page holds %d cars, want the bot's and the city's traffic", ps.State.Kinds["car"])
	}
	if ps.Status != "connected" {
		t.Errorf("HUD status %q, want connected", ps.Status)
	}
	p.screenshot("foi-web-spectate-city")
}

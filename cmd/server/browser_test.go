package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/fiveonit/engine/bot"
	"github.com/fiveonit/engine/client"
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/netsync/wire"
	"github.com/fiveonit/engine/transport/websocket"
)

// The browser tests open the page in headless Chromium (Debian's chromium;
// .ci/run installs it), join the default room (test-flat here, for speed),
// hold W for two seconds, and check the car moved: on the page (its own
// predicted car, read from the wasm client) and on the server (a spectator
// Go client watching the page's player). They skip only where no Chromium
// can be found: set FOI_CHROMIUM to a browser's path to use another.
// Screenshots go to $FOI_ARTIFACTS (default: the system's temp directory).

// chromium returns the path of a Chromium, or skips the test.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("FOI_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium found (apt-get install -y chromium, as .ci/run does; or set FOI_CHROMIUM): the browser tests need one")
	return ""
}

// skipShort skips a browser test of one feature of the page under -short:
// that is the race pass, where the two drive tests still take the page
// through the real transports; every feature's test runs in the full pass.
func skipShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("a page feature's browser test: it runs without -short")
	}
}

// page evaluates JavaScript in a browser test's tab.
type page struct {
	t    *testing.T
	ctx  context.Context
	name string // the screenshot's name when a wait fails
	more string // JavaScript whose string result a failed wait logs too; "" for none
}

// eval returns the string js evaluates to, failing the test on an error.
func (p page) eval(js string) string {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](js))
	if err != nil {
		p.t.Fatalf("%s: %v", js, err)
	}
	return v
}

// waitFor evaluates js every 100 ms until it gives a string that is not
// empty, and returns it; after d it takes a screenshot and fails the test.
func (p page) waitFor(what, js string, d time.Duration) string {
	p.t.Helper()
	deadline := time.Now().Add(d)
	var v string
	for time.Now().Before(deadline) {
		if v = p.eval(js); v != "" {
			return v
		}
		time.Sleep(100 * time.Millisecond)
	}
	screenshot(p.t, p.ctx, p.name)
	if p.more != "" {
		p.t.Fatalf("%s: not within %s (%s)", what, d, p.eval(p.more))
	}
	p.t.Fatalf("%s: not within %s", what, d)
	return ""
}

// startServer runs the server in-process on loopback with level as the
// default room's level, and the flags of more, and returns its address.
func startServer(t *testing.T, level string, more ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	done := make(chan error, 1)
	c, err := parseFlags(append([]string{"-addr", "127.0.0.1:0", "-admin-addr", "127.0.0.1:0", "-level", level,
		"-drain", "3s", "-log-level", "warn", "-rtc=true", "-rtc-ips", "127.0.0.1", "-data", t.TempDir()}, more...))
	if err != nil {
		t.Fatal(err)
	}
	go func() { done <- run(ctx, c, func(addr, _ string) { addrc <- addr }) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server: %v", err)
		}
	})
	select {
	case addr := <-addrc:
		return addr
	case err := <-done:
		t.Fatalf("server did not start: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("server did not start in 10 s")
	}
	return ""
}

// browser starts a headless Chromium with a fresh profile and returns a
// tab's context. The browser's console and exceptions go to the test log.
func browser(t *testing.T, timeout time.Duration) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.WindowSize(1280, 800),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("allow-loopback-in-peer-connection", true),
		chromedp.Flag("disable-features", "Translate,BlinkGenPropertyTrees,WebRtcHideLocalIpsWithMdns"),
	)
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithErrorf(t.Logf))
	tctx, tcancel := context.WithTimeout(ctx, timeout)
	t.Cleanup(func() { tcancel(); cancel(); acancel() })
	if err := chromedp.Do(tctx); err != nil { // starts the browser
		t.Fatalf("start chromium: %v", err)
	}
	go func() {
		for m, err := range chromedp.Console(tctx) {
			if err != nil {
				return
			}
			t.Logf("browser %s", m)
		}
	}()
	return tctx
}

// pageState is what the test reads of the page: the wasm client's state
// joinPage opens the page in the tab ctx and joins the default room.
func joinPage(t *testing.T, ctx context.Context, addr string) {
	t.Helper()
	err := chromedp.Do(ctx,
		chromedp.Navigate("http://"+addr+"/"),
		chromedp.WaitEnabled(chromedp.ID("join")),
		chromedp.SetValue(chromedp.ID("room"), "default"),
		chromedp.Click(chromedp.ID("join")),
	)
	if err != nil {
		t.Fatalf("open the page and join: %v", err)
	}
	waitPage(t, ctx, "joined", 15*time.Second, func(ps pageState) bool {
		return ps.State != nil && ps.State.Joined && ps.Status == "connected"
	})
}

// (web/wasm State) and the HUD's status line.
type pageState struct {
	Status string `json:"status"`
	State  *struct {
		Joined  bool `json:"joined"`
		Welcome *struct {
			Player   uint8  `json:"player"`
			Room     string `json:"room"`
			Spectate bool   `json:"spectate"`
			Watch    uint8  `json:"watch"`
		} `json:"welcome"`
		Entities int            `json:"entities"`
		Kinds    map[string]int `json:"kinds"`
		Players  []struct {
			Player uint8 `json:"player"`
		} `json:"players"`
		Snapshots uint64  `json:"snapshots"`
		Lossy     bool    `json:"lossy"`
		PingMs    float64 `json:"pingMs"`
		Own       *body   `json:"own"`
		Watched   *body   `json:"watched"`
	} `json:"state"`
}

type body struct {
	Car bool    `json:"car"`
	X   float32 `json:"x"`
	Y   float32 `json:"y"`
}

func readPage(ctx context.Context) (pageState, error) {
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](
		`JSON.stringify({status: document.getElementById("status").textContent, state: window.foi && foi.state ? JSON.parse(foi.state()) : null})`))
	var ps pageState
	if err == nil {
		err = json.Unmarshal([]byte(raw), &ps)
	}
	return ps, err
}

// waitPage polls the page until ok or the deadline.
func waitPage(t *testing.T, ctx context.Context, what string, d time.Duration, ok func(pageState) bool) pageState {
	t.Helper()
	deadline := time.Now().Add(d)
	var ps pageState
	var err error
	for time.Now().Before(deadline) {
		if ps, err = readPage(ctx); err == nil && ok(ps) {
			return ps
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("page: %s: not within %s (last status %q, err %v)", what, d, ps.Status, err)
	return ps
}

// watcher is a spectator Go client watching one player: it reports where
// that player's car (or body) is, as the server sends it.
type watcher struct {
	mu  sync.Mutex
	pos wire.Vec3
	ok  bool
}

func (w *watcher) at() (wire.Vec3, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.pos, w.ok
}

func watch(t *testing.T, ctx context.Context, addr, room string, player uint8) *watcher {
	t.Helper()
	conn, err := websocket.Dial(ctx, fmt.Sprintf("ws://%s/rooms/%s?spectate=1&watch=%d", addr, room, player))
	if err != nil {
		t.Fatalf("spectator: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	w := &watcher{}
	c := client.New(client.Config{Send: func(b []byte, text bool) error {
		sctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		return conn.Send(sctx, b, text)
	}})
	go func() {
		var e wire.Entity
		for {
			data, text, err := conn.Read(ctx)
			if err != nil {
				return
			}
			c.HandleFrame(data, text)
			if text {
				continue
			}
			st := c.Decoder().Store()
			for i := 0; i < st.Slots(); i++ {
				if st.Owner(i) == 0 {
					continue
				}
				h := st.At(i)
				h.Rec.Decode(&e, h.PoseFull)
				if e.Kind != wire.KindCharacter || e.Player != player {
					continue
				}
				pos := e.Pos
				if e.Act == wire.ActDriving {
					if v := st.Get(e.Vehicle); v != nil {
						var ve wire.Entity
						v.Rec.Decode(&ve, v.PoseFull)
						pos = ve.Pos
					}
				}
				w.mu.Lock()
				w.pos, w.ok = pos, true
				w.mu.Unlock()
			}
			c.Tick(components.Drive{}) // a spectator's inputs move nothing; they ack
		}
	}()
	return w
}

// screenshot saves the page's screenshot as a test artefact and logs its
// path.
func screenshot(t *testing.T, ctx context.Context, name string) string {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Errorf("screenshot: %v", err)
		return ""
	}
	dir := os.Getenv("FOI_ARTIFACTS")
	if dir == "" {
		dir = os.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Errorf("screenshot: %v", err)
		return ""
	}
	p := filepath.Join(dir, name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Errorf("screenshot: %v", err)
		return ""
	}
	t.Logf("screenshot: %s", p)
	return p
}

// holdKey presses a key, holds it for d, and lets go.
func holdKey(ctx context.Context, key, code string, vk int64, d time.Duration) error {
	p := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeRawKeyDown, Key: key, Code: code, WindowsVirtualKeyCode: vk}
	if _, err := chromedp.Call(ctx, input.DispatchKeyEvent, p); err != nil {
		return err
	}
	if err := chromedp.Do(ctx, chromedp.Sleep(d)); err != nil {
		return err
	}
	p.Type = input.DispatchKeyEventTypeKeyUp
	_, err := chromedp.Call(ctx, input.DispatchKeyEvent, p)
	return err
}

// driveInBrowser is the whole browser test over one transport.
func driveInBrowser(t *testing.T, addr string, webrtc bool) {
	ctx := browser(t, 45*time.Second)
	start := time.Now()
	name := "websocket"
	if webrtc {
		name = "webrtc"
	}
	err := chromedp.Do(ctx,
		chromedp.Navigate("http://"+addr+"/"),
		chromedp.WaitEnabled(chromedp.ID("join")),
		chromedp.SetValue(chromedp.ID("room"), "default"),
	)
	if err != nil {
		t.Fatalf("open the page: %v", err)
	}
	t.Logf("page loaded, wasm client ready in %s", time.Since(start).Round(time.Millisecond))
	if webrtc {
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("webrtc"))); err != nil {
			t.Fatal(err)
		}
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("join"))); err != nil {
		t.Fatalf("join: %v", err)
	}
	ps := waitPage(t, ctx, "joined, driving a predicted car", 15*time.Second, func(ps pageState) bool {
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

	if err := holdKey(ctx, "w", "KeyW", 87, 2*time.Second); err != nil {
		t.Fatalf("hold W: %v", err)
	}
	time.Sleep(300 * time.Millisecond) // the last snapshots
	after, _ := w.at()
	ps, err = readPage(ctx)
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
	want := map[bool]string{false: "WebSocket", true: "WebRTC (lossy)"}[webrtc]
	if tr, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("transport"))); err != nil || tr != want {
		t.Errorf("HUD transport %q (%v), want %q", tr, err, want)
	}
	if pingText, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("ping"))); err != nil || !strings.HasSuffix(pingText, "ms") {
		t.Errorf("HUD ping %q (%v), want a round trip in ms", pingText, err)
	}
	screenshot(t, ctx, "foi-web-"+name)
	t.Logf("%s test took %s", name, time.Since(start).Round(time.Millisecond))
}

func dist(x0, y0, x1, y1 float32) float64 {
	return math.Hypot(float64(x1-x0), float64(y1-y0))
}

func TestBrowserDriveWebSocket(t *testing.T) {
	addr := startServer(t, "test-flat")
	driveInBrowser(t, addr, false)
}

func TestBrowserDriveWebRTC(t *testing.T) {
	addr := startServer(t, "test-flat")
	// The route comes with the WebRTC transport; probe it rather than
	// assume it.
	res, err := http.Post("http://"+addr+"/rooms/default/rtc", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode == http.StatusNotFound || res.StatusCode == http.StatusMethodNotAllowed {
		t.Skipf("the server has no POST /rooms/{name}/rtc yet (%s): the WebRTC transport is not in this build", res.Status)
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

	ctx := browser(t, 45*time.Second)
	start := time.Now()
	err = chromedp.Do(ctx,
		chromedp.Navigate("http://"+addr+"/"),
		chromedp.WaitEnabled(chromedp.ID("spectate")),
		chromedp.SetValue(chromedp.ID("room"), "default"),
		chromedp.SetValue(chromedp.ID("watchN"), "1"),
		chromedp.Click(chromedp.ID("spectate")),
	)
	if err != nil {
		t.Fatalf("open the page and spectate: %v", err)
	}
	ps := waitPage(t, ctx, "spectating player 1, its car in view", 15*time.Second, func(ps pageState) bool {
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
	ps, err = readPage(ctx)
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
	screenshot(t, ctx, "foi-web-spectate-city")
}

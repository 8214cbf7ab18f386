package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/fiveonit/engine/client"
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/netsync/wire"
	"github.com/fiveonit/engine/transport/websocket"
)

// The browser tests open the page in headless Chromium (Debian's chromium;
// .ci/run installs it) against a server run in-process (startServer), join
// a room and play it, reading what the page shows and what its wasm client
// holds. They skip only where no Chromium can be found: set FOI_CHROMIUM to
// a browser's path to use another. Screenshots go to $FOI_ARTIFACTS
// (default: the system's temp directory).
//
// This file is their one kit: a tab of the browser, driven by its methods
// (open, openURL, join, click, eval, waitFor, waitState, holdKey,
// screenshot), and
// a spectator Go client (watch) for what the server sends.

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

// tab is a browser tab a test drives. A failed wait takes its screenshot
// and fails the test.
type tab struct {
	t    *testing.T
	ctx  context.Context
	shot string // the screenshot's name when a wait fails; "" for the test's name
	more string // JavaScript whose string result a failed wait logs too; "" for none
}

// browser starts a headless Chromium with a fresh profile and returns its
// tab; everything the test does in it must end within timeout. The
// browser's console and exceptions go to the test log.
func browser(t *testing.T, timeout time.Duration) *tab {
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
	return &tab{t: t, ctx: tctx}
}

// newTab opens a second tab in p's browser, closed when the test ends.
func (p *tab) newTab() *tab {
	ctx, cancel := chromedp.NewContext(p.ctx)
	p.t.Cleanup(cancel)
	return &tab{t: p.t, ctx: ctx}
}

// open loads the page of the server at addr, waits for its wasm client
// (the join button is enabled then) and names the default room in the
// lobby.
func (p *tab) open(addr string) {
	p.t.Helper()
	err := chromedp.Do(p.ctx,
		chromedp.Navigate("http://"+addr+"/"),
		chromedp.WaitEnabled(chromedp.ID("join")),
		chromedp.SetValue(chromedp.ID("room"), "default"),
	)
	if err != nil {
		p.t.Fatalf("open the page: %v", err)
	}
}

// openURL loads the page at url, as a platform links a player to a room
// (a join token in the query, the room in the hash), and waits for its
// wasm client.
func (p *tab) openURL(url string) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, chromedp.Navigate(url), chromedp.WaitEnabled(chromedp.ID("join"))); err != nil {
		p.t.Fatalf("open %s: %v", url, err)
	}
}

// click clicks the element with the id.
func (p *tab) click(id string) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, chromedp.Click(chromedp.ID(id))); err != nil {
		p.t.Fatalf("click #%s: %v", id, err)
	}
}

// join opens the page, joins the default room and waits until the page
// has joined and says it is connected.
func (p *tab) join(addr string) {
	p.t.Helper()
	p.open(addr)
	p.click("join")
	p.waitState("joined", 15*time.Second, func(ps pageState) bool {
		return ps.State != nil && ps.State.Joined && ps.Status == "connected"
	})
}

// eval returns the string js evaluates to, failing the test on an error.
func (p *tab) eval(js string) string {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](js))
	if err != nil {
		p.t.Fatalf("%s: %v", js, err)
	}
	return v
}

// run evaluates js for what it does, failing the test on an error.
func (p *tab) run(js string) {
	p.t.Helper()
	if _, err := chromedp.Run(p.ctx, chromedp.Evaluate[any](js)); err != nil {
		p.t.Fatalf("%s: %v", js, err)
	}
}

// readJSON evaluates js, which gives a JSON string, into v.
func (p *tab) readJSON(js string, v any) error {
	raw, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](js))
	if err != nil {
		return err
	}
	return json.Unmarshal([]byte(raw), v)
}

// poll calls try every 100 ms until it is done, for up to d; past d it
// takes a screenshot and fails the test, saying what it waited for and
// what try last saw.
func (p *tab) poll(what string, d time.Duration, try func() (done bool, last string)) {
	p.t.Helper()
	deadline := time.Now().Add(d)
	var last string
	for time.Now().Before(deadline) {
		var done bool
		if done, last = try(); done {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	shot := p.shot
	if shot == "" {
		shot = "foi-web-" + strings.ReplaceAll(p.t.Name(), "/", "-") + "-failed"
	}
	p.screenshot(shot)
	if p.more != "" {
		if more, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](p.more)); err == nil {
			last += "; " + more
		}
	}
	p.t.Fatalf("%s: not within %s (last %s)", what, d, last)
}

// waitFor evaluates js until it gives a string that is not empty, and
// returns it; an error counts as not yet.
func (p *tab) waitFor(what, js string, d time.Duration) string {
	p.t.Helper()
	var v string
	p.poll(what, d, func() (bool, string) {
		var err error
		v, err = chromedp.Run(p.ctx, chromedp.Evaluate[string](js))
		return err == nil && v != "", fmt.Sprintf("%q, err %v", v, err)
	})
	return v
}

// waitJSON evaluates js, which gives a JSON string, until what it decodes
// to is ok, and returns that.
func waitJSON[T any](p *tab, what, js string, d time.Duration, ok func(T) bool) T {
	p.t.Helper()
	var v T
	p.poll(what, d, func() (bool, string) {
		var next T
		err := p.readJSON(js, &next)
		if err == nil {
			v = next
		}
		return err == nil && ok(v), fmt.Sprintf("%+v, err %v", v, err)
	})
	return v
}

// pageState is what the test reads of the page: the wasm client's state
// (web/wasm State) and the HUD's status line.
type pageState struct {
	Status string `json:"status"`
	State  *struct {
		Joined  bool `json:"joined"`
		Welcome *struct {
			Player   uint16 `json:"player"`
			Room     string `json:"room"`
			Spectate bool   `json:"spectate"`
			Watch    uint16 `json:"watch"`
		} `json:"welcome"`
		Entities int            `json:"entities"`
		Kinds    map[string]int `json:"kinds"`
		Players  []struct {
			Player uint16 `json:"player"`
		} `json:"players"`
		Snapshots uint64  `json:"snapshots"`
		Lossy     bool    `json:"lossy"`
		PingMs    float64 `json:"pingMs"`
		Own       *body   `json:"own"`
		Watched   *body   `json:"watched"`
	} `json:"state"`
}

// body is where a player's car, or the player on foot, is.
type body struct {
	Car bool    `json:"car"`
	X   float32 `json:"x"`
	Y   float32 `json:"y"`
}

// readState is the JavaScript that gives the pageState as JSON.
const readState = `JSON.stringify({status: document.getElementById("status").textContent, state: window.foi && foi.state ? JSON.parse(foi.state()) : null})`

// state reads the page's state.
func (p *tab) state() (pageState, error) {
	var ps pageState
	err := p.readJSON(readState, &ps)
	return ps, err
}

// waitState reads the page's state until ok, and returns it.
func (p *tab) waitState(what string, d time.Duration, ok func(pageState) bool) pageState {
	p.t.Helper()
	return waitJSON(p, "page: "+what, readState, d, ok)
}

// holdKey presses a key, holds it for d, and lets go.
func (p *tab) holdKey(key, code string, vk int64, d time.Duration) {
	p.t.Helper()
	ev := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeRawKeyDown, Key: key, Code: code, WindowsVirtualKeyCode: vk}
	_, err := chromedp.Call(p.ctx, input.DispatchKeyEvent, ev)
	if err == nil {
		err = chromedp.Do(p.ctx, chromedp.Sleep(d))
	}
	if err == nil {
		ev.Type = input.DispatchKeyEventTypeKeyUp
		_, err = chromedp.Call(p.ctx, input.DispatchKeyEvent, ev)
	}
	if err != nil {
		p.t.Fatalf("hold %s: %v", key, err)
	}
}

// screenshot saves the page's screenshot as a test artefact and logs its
// path.
func (p *tab) screenshot(name string) {
	t := p.t
	t.Helper()
	png, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Errorf("screenshot: %v", err)
		return
	}
	dir := os.Getenv("FOI_ARTIFACTS")
	if dir == "" {
		dir = os.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Errorf("screenshot: %v", err)
		return
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Errorf("screenshot: %v", err)
		return
	}
	t.Logf("screenshot: %s", path)
}

// watcher is a spectator Go client watching one player: it reports where
// that player's car (or body) is, as the server sends it.
type watcher struct {
	mu  sync.Mutex
	pos wire.Vec3
	ok  bool
}

// at returns where the watched player is, and whether it has been seen.
func (w *watcher) at() (wire.Vec3, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.pos, w.ok
}

// watch joins room on the server at addr as a spectator of player, until
// ctx ends.
func watch(t *testing.T, ctx context.Context, addr, room string, player uint16) *watcher {
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

// dist is the distance from (x0, y0) to (x1, y1).
func dist(x0, y0, x1, y1 float32) float64 {
	return math.Hypot(float64(x1-x0), float64(y1-y0))
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

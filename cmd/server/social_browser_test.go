package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// evalUntil polls the JavaScript expression js in ctx until it is true.
func evalUntil(t *testing.T, ctx context.Context, what, js string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js)); err == nil && ok {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("page: %s: not within %s (%s)", what, d, js)
}

// TestBrowserChat: two pages in one room; the first opens the chat box
// (T), writes a message with markup in it and sends it (Enter); the second
// shows it in its chat box, as text: no element is made of it. The second
// lists both players on Tab.
func TestBrowserChat(t *testing.T) {
	skipShort(t)
	addr := startServer(t, "test-flat")
	a := browser(t, 60*time.Second)
	b, cancel := chromedp.NewContext(a) // a second tab of the same browser
	defer cancel()
	joinPage(t, a, addr)
	joinPage(t, b, addr)
	evalUntil(t, b, "both players in the roster", `foiSocial.state.roster.size === 2`, 10*time.Second)

	const msg = `hello from A <b id="x">bold</b> & <img src=x onerror="window.pwned=1">`
	if err := holdKey(a, "t", "KeyT", 84, 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(a, chromedp.WaitVisible(chromedp.ID("chatInput")), chromedp.SendKeys(chromedp.ID("chatInput"), msg+kb.Enter)); err != nil {
		t.Fatalf("write in the chat box: %v", err)
	}
	evalUntil(t, b, "the message in the second page's chat box",
		`[...document.querySelectorAll("#chatLog .line")].some(l => l.textContent === "player 1: " + `+jsString(msg)+`)`, 10*time.Second)
	for _, check := range []string{
		`document.querySelector("#chatLog b, #chatLog img") === null`,
		`window.pwned === undefined`,
		`document.getElementById("chatInput").hidden`, // the first page's box closed again
	} {
		tab := b
		if strings.Contains(check, "chatInput") {
			tab = a
		}
		if ok, err := chromedp.Run(tab, chromedp.Evaluate[bool](check)); err != nil || !ok {
			t.Errorf("%s: %v %v", check, ok, err)
		}
	}
	// Tab shows the roster: both players.
	if err := holdKey(b, "Tab", "Tab", 9, 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	evalUntil(t, b, "the roster open with two players",
		`!document.getElementById("roster").hidden && document.querySelectorAll("#rosterTable tbody tr").length === 2`, 5*time.Second)
	screenshot(t, b, "foi-web-chat")
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestBrowserChat: two pages in one room; the first opens the chat box
// (T), writes a message with markup in it and sends it (Enter); the second
// shows it in its chat box, as text: no element is made of it. The second
// lists both players on Tab.
func TestBrowserChat(t *testing.T) {
	skipShort(t)
	addr := startServer(t, "test-flat")
	a := browser(t, 60*time.Second)
	b := a.newTab() // a second tab of the same browser
	a.join(addr)
	b.join(addr)
	b.waitFor("both players in the roster", `foiSocial.state.roster.size === 2 ? "yes" : ""`, 10*time.Second)

	const msg = `hello from A <b id="x">bold</b> & <img src=x onerror="window.pwned=1">`
	a.holdKey("t", "KeyT", 84, 50*time.Millisecond)
	if err := chromedp.Do(a.ctx, chromedp.WaitVisible(chromedp.ID("chatInput")), chromedp.SendKeys(chromedp.ID("chatInput"), msg+kb.Enter)); err != nil {
		t.Fatalf("write in the chat box: %v", err)
	}
	b.waitFor("the message in the second page's chat box",
		`[...document.querySelectorAll("#chatLog .line")].some(l => l.textContent === "player 1: " + `+jsString(msg)+`) ? "yes" : ""`, 10*time.Second)
	for _, check := range []string{
		`document.querySelector("#chatLog b, #chatLog img") === null`,
		`window.pwned === undefined`,
		`document.getElementById("chatInput").hidden`, // the first page's box closed again
	} {
		p := b
		if strings.Contains(check, "chatInput") {
			p = a
		}
		if ok, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](check)); err != nil || !ok {
			t.Errorf("%s: %v %v", check, ok, err)
		}
	}
	// Tab shows the roster: both players.
	b.holdKey("Tab", "Tab", 9, 50*time.Millisecond)
	b.waitFor("the roster open with two players",
		`!document.getElementById("roster").hidden && document.querySelectorAll("#rosterTable tbody tr").length === 2 ? "yes" : ""`, 5*time.Second)
	b.screenshot("foi-web-chat")
}

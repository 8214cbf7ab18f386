package e2e

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/fiveonit/engine/serve"
)

// TestBrowserReconnectWebRTC: a page that plays over WebRTC in a room that
// holds places loses its peer connection without a word (foiNet.drop: the
// browser's side of a network that fails, which a test cannot cut from
// outside over UDP) and comes back through a new offer with its
// reconnect token: the same session, character and car, on a new token.
// Then Esc takes it back to the lobby: it says it leaves, so the room
// holds no place and counts no player at once (a drop would be held for
// the rejoin window, 30 s).
func TestBrowserReconnectWebRTC(t *testing.T) {
	skipShort(t)
	addr := startServer(t, "test-flat")
	p := browser(t, 60*time.Second)
	p.open(addr)
	p.click("webrtc")
	p.click("join")
	p.waitState("joined over WebRTC", 15*time.Second, func(ps pageState) bool {
		return ps.Status == "connected" && ps.State != nil && ps.State.Lossy && ps.State.Own != nil
	})
	before := p.welcomeOf()
	if before.Rejoin == "" || before.RejoinSeconds != 30 {
		t.Fatalf("welcome's reconnect token %q for %v s, want one for the default 30 s", before.Rejoin, before.RejoinSeconds)
	}
	if players := roomPlayers(t, addr, "default"); players != 1 {
		t.Fatalf("%d players in the room, want the page's", players)
	}
	cut := time.Now()
	p.run(`foiNet.drop()`)
	ps := p.waitState("back over WebRTC", 15*time.Second, func(ps pageState) bool {
		return ps.Status == "connected" && ps.State != nil && ps.State.Lossy && ps.State.Own != nil &&
			ps.State.Welcome != nil && ps.State.Snapshots > 0
	})
	after := p.welcomeOf()
	if after.Rejoin == before.Rejoin {
		t.Fatalf("the same reconnect token after the drop: the page did not come back through a new welcome")
	}
	if after.Session != before.Session || after.Character != before.Character || after.Car != before.Car {
		t.Errorf("back as session %d character %d car %d, want %d %d %d", after.Session, after.Character, after.Car,
			before.Session, before.Character, before.Car)
	}
	if tr := p.eval(`document.getElementById("transport").textContent + "|" + document.getElementById("reconnect").hidden`); tr != "WebRTC (lossy)|true" {
		t.Errorf("transport and dialog hidden %q once back", tr)
	}
	t.Logf("back over WebRTC %v after the drop, %d snapshots since", time.Since(cut).Round(time.Millisecond), ps.State.Snapshots)

	// Esc: the player leaves for good.
	p.holdKey("Escape", "Escape", 27, 20*time.Millisecond)
	deadline := time.Now().Add(5 * time.Second)
	for roomPlayers(t, addr, "default") != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the room still counts the player 5 s after Esc: its place is held, as after a drop")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if stored := p.eval(`String(sessionStorage.getItem("foi.place"))`); stored != "null" {
		t.Errorf("the tab keeps the place %s after leaving", stored)
	}
}

// roomPlayers returns the players room counts (GET /rooms), places held
// among them.
func roomPlayers(t *testing.T, addr, room string) int {
	t.Helper()
	res, err := http.Get("http://" + addr + "/rooms")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var list []struct {
		Name    string `json:"name"`
		Players int    `json:"players"`
	}
	if err := json.NewDecoder(res.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	for _, r := range list {
		if r.Name == room {
			return r.Players
		}
	}
	t.Fatalf("no room %s in GET /rooms", room)
	return 0
}

// TestBrowserReconnectRefused: a page whose network is down for longer
// than the room holds places (a rejoin window of a second here) tries
// again and again, then is refused once the network is back, and says
// why; Join again joins the room anew, as a new character.
func TestBrowserReconnectRefused(t *testing.T) {
	skipShort(t)
	s := startServe(t, "test-flat", func(c *serve.Config) { c.RejoinWindow = time.Second })
	px := newProxy(t, s.Addr())
	p := browser(t, 60*time.Second)
	p.open(px.addr())
	p.click("join")
	p.waitState("joined", 15*time.Second, func(ps pageState) bool {
		return ps.Status == "connected" && ps.State != nil && ps.State.Own != nil
	})
	before := p.welcomeOf()
	px.cut()
	p.waitFor("reconnecting", `document.getElementById("reconnect").hidden ? "" : document.getElementById("reconnectTitle").textContent`, 5*time.Second)
	deadline := time.Now().Add(5 * time.Second)
	for roomPlayers(t, s.Addr(), "default") != 0 { // the window ran out: the place is gone
		if time.Now().After(deadline) {
			t.Fatal("the room still holds the place 5 s after the drop, with a window of 1 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	px.restore()
	why := p.waitFor("the refusal", `document.getElementById("reconnectTitle").textContent === "Could not reconnect" ? document.getElementById("reconnectWhy").textContent : ""`, 15*time.Second)
	if why != "your place in this room is gone: join again" {
		t.Errorf("the dialog says %q, want the server's reason", why)
	}
	if st := p.eval(`document.getElementById("status").textContent + "|" + document.getElementById("reconnectAgain").hidden`); st != "closed: "+why+"|false" {
		t.Errorf("status and Join again hidden: %q", st)
	}
	p.click("reconnectAgain")
	p.waitState("joined anew", 15*time.Second, func(ps pageState) bool {
		return ps.Status == "connected" && ps.State != nil && ps.State.Own != nil
	})
	if after := p.welcomeOf(); after.Session == before.Session {
		t.Errorf("joined again as the same session %d: want a new one", after.Session)
	}
}

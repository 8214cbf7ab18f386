package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/fiveonit/engine/jointoken"
)

// TestBrowserFleetJoins: two processes on one PostgreSQL directory, each
// letting the other's pages join (-origins). A page served by a joins b's
// room over a WebSocket (a closes it with 4307 and the room's URL on b,
// which the page joins) and over WebRTC (a answers the offer with a 307 to
// b, which the page's fetch follows and b answers with CORS): both land in
// b's room.
func TestBrowserFleetJoins(t *testing.T) {
	skipShort(t)
	url := pgDatabase(t)
	fleet := []string{"-directory-ttl", "1500ms", "-rtc=true", "-rtc-ips", "127.0.0.1", "-origins", "127.0.0.1:*"}
	a := startProcessOn(t, url, "test-flat", fleet...)
	b := startProcessOn(t, url, "test-flat", fleet...)
	joinRoom(t, b.addr, "on-b", "bob") // keeps the room open on b
	for i, webrtc := range []bool{false, true} {
		name := map[bool]string{false: "websocket", true: "webrtc"}[webrtc]
		t.Run(name, func(t *testing.T) {
			tok, err := jointoken.Sign([]byte(storeSecret), jointoken.Claims{Account: fmt.Sprint("page-", i), Name: name, Expires: time.Now().Add(time.Hour).Unix()})
			if err != nil {
				t.Fatal(err)
			}
			before := lobby(t, b.addr)["on-b"].Players
			p := browser(t, 45*time.Second).in(t)
			p.shot = "foi-web-fleet-" + name + "-failed"
			p.openURL("http://" + a.addr + "/?token=" + tok + "#on-b")
			if webrtc {
				p.click("webrtc")
			}
			p.click("join")
			ps := p.waitState("joined b's room through a", 15*time.Second, func(ps pageState) bool {
				return ps.State != nil && ps.State.Joined && ps.Status == "connected"
			})
			if ps.State.Lossy != webrtc {
				t.Errorf("the page's client lossy = %v, want %v", ps.State.Lossy, webrtc)
			}
			if room := p.eval(`JSON.parse(foi.state()).welcome.room`); room != "on-b" {
				t.Errorf("the page joined room %q, want on-b", room)
			}
			// One player more on b: the page's (an earlier page's place
			// is held through its rejoin window).
			waitFor(t, "b's on-b with the page's player", func() bool { return lobby(t, b.addr)["on-b"].Players == before+1 })
		})
	}
}

package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/fiveonit/engine/games"
)

// TestBrowserDelivery plays the delivery on the page, in city-jobs on
// main-city: P opens the phone, which lists the contacts' offers; Accept on
// Marlo's shows the tracker (the objective, the time left counting down,
// the marker on the map and the minimap); out of the car at the parcel, R
// picks it up and the objective turns to the hospital; at the hospital the
// success notice shows and the tracker goes. The walks are debug teleports
// (the server runs -debug).
func TestBrowserDelivery(t *testing.T) {
	skipShort(t)
	addr := startServer(t, "main-city", withDebug, withGame("city-jobs"))
	p := browser(t, 60*time.Second)
	p.shot, p.more = "foi-web-missions-failed", "foiMissions.info()"
	p.join(addr)
	p.waitState("joined, at the wheel", 20*time.Second, func(ps pageState) bool {
		return ps.State != nil && ps.State.Joined && ps.State.Own != nil && ps.State.Own.Car && ps.State.Snapshots > 5
	})
	eval, waitFor := p.eval, p.waitFor
	type info struct {
		Tracker *struct {
			Objective string     `json:"objective"`
			Marker    [2]float64 `json:"marker"`
		} `json:"tracker"`
		SecondsLeft *float64 `json:"secondsLeft"`
		Notices     []string `json:"notices"`
	}
	state := func() info {
		var i info
		if err := json.Unmarshal([]byte(eval(`foiMissions.info()`)), &i); err != nil {
			t.Fatal(err)
		}
		return i
	}
	teleport := func(x, y float64) {
		eval(fmt.Sprintf(`foi.command('{"type":"debug","cmd":"teleport","x":%g,"y":%g}') || ""`, x, y))
	}

	p.holdKey("p", "KeyP", 80, 50*time.Millisecond)
	waitFor("the phone with Marlo's offer", `document.getElementById("phone").hidden ? "" : (document.querySelector('#phone .message.offer[data-mission="delivery"] button.accept') ? "yes" : "")`, 10*time.Second)
	game, err := games.Lookup("city-jobs")
	if err != nil {
		t.Fatal(err)
	}
	if n, want := eval(`String(document.querySelectorAll("#phone .message.offer").length)`), fmt.Sprint(len(game.Missions)); n != want {
		t.Errorf("%s offers on the phone, want the game's %s", n, want)
	}
	p.screenshot("foi-web-missions-phone")
	if err := chromedp.Do(p.ctx, chromedp.Click(chromedp.CSS(`#phone .message.offer[data-mission="delivery"] button.accept`))); err != nil {
		t.Fatalf("accept: %v", err)
	}
	obj := waitFor("the tracker", `(() => { const b = document.getElementById("tracker"); return b.hidden ? "" : b.textContent; })()`, 10*time.Second)
	if !strings.Contains(obj, "Pick up the parcel") {
		t.Fatalf("tracker %q", obj)
	}
	s0 := state()
	time.Sleep(1500 * time.Millisecond)
	s1 := state()
	if s0.SecondsLeft == nil || s1.SecondsLeft == nil || *s1.SecondsLeft >= *s0.SecondsLeft || *s0.SecondsLeft > 90 {
		t.Fatalf("the timer does not count down: %v then %v", s0.SecondsLeft, s1.SecondsLeft)
	}
	if timer := eval(`document.getElementById("trackerTimer").textContent`); !strings.Contains(timer, ":") {
		t.Errorf("timer shown %q", timer)
	}
	if eval(`foiMissions.marker() ? "yes" : ""`) == "" {
		t.Fatal("no marker")
	}
	// The minimap rings the marker in its own purple.
	if got := eval(`(() => {
		const c = document.getElementById("minimap"); if (!c) return "";
		const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
		let n = 0;
		for (let i = 0; i < d.length; i += 4) if (d[i] > 200 && d[i+1] < 100 && d[i+2] > 230) n++;
		return n > 0 ? String(n) : "";
	})()`); got == "" {
		t.Error("no marker on the minimap")
	}
	p.screenshot("foi-web-missions-tracker")

	// Out of the car, at the parcel: R picks it up.
	p.holdKey("e", "KeyE", 69, 100*time.Millisecond)
	p.waitState("out of the car", 10*time.Second, func(ps pageState) bool {
		return ps.State != nil && ps.State.Own != nil && !ps.State.Own.Car
	})
	m := s1.Tracker.Marker
	teleport(m[0]+1, m[1])
	waitFor("the parcel's prompt", `(() => { const p = document.getElementById("itemPrompt"); return !p.hidden && p.textContent.includes("pick up") ? p.textContent : ""; })()`, 10*time.Second)
	p.holdKey("r", "KeyR", 82, 50*time.Millisecond)
	waitFor("the hospital objective", `(() => { const b = document.getElementById("tracker"); return !b.hidden && b.textContent.includes("hospital") ? "yes" : ""; })()`, 10*time.Second)
	h := state().Tracker.Marker
	teleport(h[0], h[1])
	note := waitFor("the success notice", `(() => { const n = document.querySelector("#notices .notice.success"); return n ? n.textContent : ""; })()`, 10*time.Second)
	if !strings.Contains(note, "Delivered") {
		t.Errorf("notice %q", note)
	}
	waitFor("the tracker gone", `document.getElementById("tracker").hidden ? "gone" : ""`, 5*time.Second)
	p.screenshot("foi-web-missions-delivered")
}

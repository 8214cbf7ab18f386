package e2e

import (
	"strings"
	"testing"
	"time"
)

// stealthPage is what the stealth test reads of the page.
type stealthPage struct {
	Seen     bool           `json:"seen"`     // the last stealth frame's
	HUD      string         `json:"hud"`      // the indicator's text
	Hidden   bool           `json:"hidden"`   // the indicator is hidden
	Sentries int            `json:"sentries"` // sentries of the debug readout
	Marked   int            `json:"marked"`   // guards drawn with a "?" or "!"
	Cameras  int            `json:"cameras"`  // cameras in the draw list
	Kinds    map[string]int `json:"kinds"`
}

const readStealth = `JSON.stringify((() => {
  const n = foi.view();
  const f = new Float32Array(foi.drawBuf.buffer, 0, n * D_STRIDE);
  let marked = 0, cameras = 0;
  for (let i = 0; i < n; i++) {
    const b = i * D_STRIDE;
    if (f[b + D_KIND] === K_GUARD && stealthLabel(f, b)) marked++;
    if (f[b + D_KIND] === K_CAMERA) cameras++;
  }
  const el = document.getElementById("seen");
  return {seen: !!(stealth.frame && stealth.frame.seen), hud: el.textContent, hidden: el.hidden,
    sentries: stealth.sentries.size, marked, cameras, kinds: JSON.parse(foi.state()).kinds};
})())`

// TestBrowserStealth plays on main-city with debug commands on: the page's
// player gets out of their car and steps into the yard by day. The HUD's
// indicator comes up "SEEN" (or "CHASED"), guards are drawn with a "?" or
// "!", the yard's cameras are in the draw list, and the debug readout's
// sentries are there for the view cones.
func TestBrowserStealth(t *testing.T) {
	skipShort(t)
	addr := startServer(t, "main-city", withDebug)
	p := browser(t, 45*time.Second)
	p.open(addr)
	p.click("join")
	p.waitState("joined, in a car", 15*time.Second, func(ps pageState) bool {
		return ps.State != nil && ps.State.Joined && ps.State.Own != nil && ps.State.Own.Car && ps.State.Snapshots > 5
	})
	p.holdKey("e", "KeyE", 69, 100*time.Millisecond)
	p.waitState("out of the car", 5*time.Second, func(ps pageState) bool {
		return ps.State != nil && ps.State.Own != nil && !ps.State.Own.Car
	})
	p.run(`foi.command('{"type":"debug","cmd":"teleport","x":240,"y":228}')`)
	var sp stealthPage
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if p.readJSON(readStealth, &sp) == nil && sp.Seen && sp.Marked > 0 && sp.Sentries > 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("page: %+v", sp)
	if !sp.Seen || sp.Hidden || !(strings.Contains(sp.HUD, "SEEN") || strings.Contains(sp.HUD, "CHASED")) {
		t.Errorf("the indicator: seen %v, hidden %v, %q", sp.Seen, sp.Hidden, sp.HUD)
	}
	if sp.Marked == 0 {
		t.Error("no guard drawn with a ? or a !")
	}
	if sp.Sentries != 3 {
		t.Errorf("%d sentries in the readout, want the yard's 3", sp.Sentries)
	}
	if sp.Cameras == 0 || sp.Kinds["camera"] == 0 {
		t.Errorf("no camera in the draw list (%d) or the client (%v)", sp.Cameras, sp.Kinds)
	}
	p.screenshot("foi-web-stealth")
}

package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/fiveonit/engine/systems/seats"
)

// carPromptJS reads the car prompt, and how far the player's body (the
// page's prediction) is from the side of the car the prompt could be
// about: the start car, which faces east on test-flat, the player north
// of it.
const carPromptJS = `JSON.stringify((() => {
  const p = document.getElementById("carPrompt"), s = JSON.parse(foi.state()), car = s.welcome.car;
  const d = foi.constants.draw, n = foi.view(), f = new Float32Array(foi.drawBuf.buffer, 0, n * d.stride);
  let gap = -1;
  for (let i = 0; i < n; i++) {
    const b = i * d.stride;
    if (f[b + d.eid] === car && s.own) gap = Math.abs(s.own.y - f[b + d.y]) - f[b + d.halfY];
  }
  return {prompt: p.hidden ? "" : p.textContent, gap, car: !!(s.own && s.own.car)};
})())`

// TestBrowserCarPrompt: the car prompt names E only where E works. On
// foot 4 m from the side of the start car the prompt offers no E, and E
// there leaves the player on foot; walking toward the car (S: south, the
// car is south of the player), "E: get in" shows as the player comes
// within seats.Reach of the car's body, no farther, and E there gets the
// player in.
func TestBrowserCarPrompt(t *testing.T) {
	skipShort(t)
	addr := startServer(t, "test-flat")
	p := browser(t, 45*time.Second)
	p.shot, p.more = "foi-web-prompt-failed", carPromptJS
	p.join(addr)
	p.waitState("at the wheel", 10*time.Second, func(ps pageState) bool {
		return ps.State != nil && ps.State.Own != nil && ps.State.Own.Car && ps.State.Snapshots > 5
	})
	p.holdKey("e", "KeyE", 69, 100*time.Millisecond)
	p.waitState("out of the car", 10*time.Second, func(ps pageState) bool {
		return ps.State != nil && ps.State.Own != nil && !ps.State.Own.Car
	})
	type promptPage struct {
		Prompt string  `json:"prompt"`
		Gap    float64 `json:"gap"`
		Car    bool    `json:"car"`
	}
	// 4 m north of the car's side: the start car stands at (0, 0) facing
	// east.
	p.run(`foi.command('{"type":"debug","cmd":"teleport","x":0,"y":4.9}')`)
	at4 := func(c promptPage) bool { return c.Gap > 3.8 && c.Gap < 4.2 }
	waitJSON(p, "4 m from the car", carPromptJS, 5*time.Second, at4)
	// The gap is read from the state now, the prompt as the last draw
	// left it, which may be from before the teleport: read again after a
	// few draws.
	time.Sleep(250 * time.Millisecond)
	far := waitJSON(p, "4 m from the car, drawn", carPromptJS, 5*time.Second, at4)
	if strings.Contains(far.Prompt, "E:") {
		t.Fatalf("%.1f m from the car the prompt offers E: %q", far.Gap, far.Prompt)
	}
	p.holdKey("e", "KeyE", 69, 100*time.Millisecond)
	time.Sleep(time.Second)
	if c := waitJSON(p, "the page", carPromptJS, time.Second, func(promptPage) bool { return true }); c.Car {
		t.Fatalf("E %.1f m from the car got the player in, where the prompt offered no E", far.Gap)
	}
	// Walk south until the prompt offers E.
	p.key(true, "s", "KeyS", 83)
	near := waitJSON(p, "the prompt offering E", carPromptJS, 10*time.Second, func(c promptPage) bool { return strings.Contains(c.Prompt, "E: get in") })
	p.key(false, "s", "KeyS", 83)
	t.Logf("the prompt offers E at %.2f m from the car's side: %q", near.Gap, near.Prompt)
	if near.Gap > seats.Reach+0.05 || near.Gap < seats.Reach-0.6 {
		t.Errorf("the prompt offered E %.2f m from the car's body, want it as the player comes within seats.Reach (%g m)", near.Gap, float32(seats.Reach))
	}
	p.screenshot("foi-web-car-prompt")
	p.holdKey("e", "KeyE", 69, 100*time.Millisecond)
	p.waitState("in the car, by E where the prompt offered it", 5*time.Second, func(ps pageState) bool {
		return ps.State != nil && ps.State.Own != nil && ps.State.Own.Car
	})
}

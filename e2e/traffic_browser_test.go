package e2e

import (
	"fmt"
	"testing"
	"time"
)

// trafficJS counts the traffic a page draws within 150 m of its player:
// the cars driven by no player, moving.
const trafficJS = `JSON.stringify((() => {
  const s = JSON.parse(foi.state()), d = foi.constants.draw, k = foi.constants.kind;
  const n = foi.view(), f = new Float32Array(foi.drawBuf.buffer, 0, n * d.stride);
  let cars = 0;
  for (let i = 0; s.own && i < n; i++) {
    const b = i * d.stride;
    if (f[b + d.kind] !== k.car || f[b + d.player] || f[b + d.speed] < 1) continue;
    if (Math.hypot(f[b + d.x] - s.own.x, f[b + d.y] - s.own.y) < 150) cars++;
  }
  return {cars, x: s.own ? s.own.x : 0, y: s.own ? s.own.y : 0};
})())`

// TestBrowserTrafficApart: two players on main-city, 450 m apart (the
// second drives off by a debug teleport as soon as it joins): each page
// sees traffic moving near its player within 10 s.
func TestBrowserTrafficApart(t *testing.T) {
	skipShort(t)
	addr := startServer(t, "main-city", withDebug)
	a := browser(t, 60*time.Second)
	b := a.newTab()
	a.join(addr)
	b.join(addr)
	type traffic struct {
		Cars int     `json:"cars"`
		X    float32 `json:"x"`
		Y    float32 `json:"y"`
	}
	at := waitJSON(a, "the first player placed", trafficJS, 10*time.Second, func(t traffic) bool { return t.X != 0 || t.Y != 0 })
	// 450 m east along the same street, or west when that is off the city.
	x := at.X + 450
	if x > 360 {
		x = at.X - 450
	}
	b.run(fmt.Sprintf(`foi.command('{"type":"debug","cmd":"teleport","x":%g,"y":%g}')`, x, at.Y))
	b.waitState("the second player 450 m away", 5*time.Second, func(ps pageState) bool {
		return ps.State != nil && ps.State.Own != nil && dist(ps.State.Own.X, ps.State.Own.Y, at.X, at.Y) > 440
	})
	start := time.Now()
	for i, p := range []*tab{a, b} {
		got := waitJSON(p, fmt.Sprintf("traffic near player %d", i+1), trafficJS, 10*time.Second-time.Since(start), func(t traffic) bool { return t.Cars > 0 })
		t.Logf("player %d at (%.0f, %.0f): %d cars of traffic within 150 m after %v", i+1, got.X, got.Y, got.Cars, time.Since(start).Round(100*time.Millisecond))
	}
}

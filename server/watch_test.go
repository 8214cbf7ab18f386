package server

import (
	"testing"
)

// TestWatchedFrame: a spectator watching player 2 gets that player's
// health, Cash and stars in the watched frame as it starts watching and
// again when their Cash changes; not again while nothing does. A player
// gets none.
func TestWatchedFrame(t *testing.T) {
	g := newServer(t)
	a := join(t, g, Who{})
	b := join(t, g, Who{})
	spec := join(t, g, Who{Spectate: true, Watch: 2})
	ticks(g, spec, 3)
	a.read()
	b.read()
	count := func(p *probe) int {
		n := 0
		for _, m := range p.texts {
			if m["type"] == "watched" {
				n++
			}
		}
		return n
	}
	w := spec.lastText("watched")
	if w == nil || w["player"] != float64(2) || w["maxHp"] == float64(0) || w["hp"] != w["maxHp"] {
		t.Fatalf("first watched frame %v, want player 2 at full health", w)
	}
	if count(a) != 0 || count(b) != 0 {
		t.Fatal("a player got a watched frame")
	}
	n := count(spec)
	ticks(g, spec, 6)
	if count(spec) != n {
		t.Fatal("a watched frame with nothing changed")
	}
	if r := reply(t, g, b, `{"type":"debug","cmd":"cash","value":"4321"}`); !r.OK {
		t.Fatalf("cash: %+v", r)
	}
	ticks(g, spec, 2)
	if w := spec.lastText("watched"); w["cash"] != float64(4321) || count(spec) != n+1 {
		t.Fatalf("after the cash changed: %v (%d frames, want %d)", w, count(spec), n+1)
	}
}

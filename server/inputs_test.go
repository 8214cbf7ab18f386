package server

import (
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
)

// TestInputsFrame: the inputs frame tells a client what the server did
// with its inputs: nothing while nothing but ticks taken changed, then the
// presses run and the ticks guessed while it sent nothing, at most once a
// second.
func TestInputsFrame(t *testing.T) {
	g := newServer(t)
	p := join(t, g, Who{})
	tick := func(n int, send bool, d components.Drive) {
		for range n {
			if send {
				p.send(d)
			}
			g.Tick()
		}
		p.read()
	}
	tick(1, false, components.Drive{})
	tick(60, true, components.Drive{})
	if f := p.lastText("inputs"); f != nil {
		t.Fatalf("an inputs frame with nothing to tell: %v", f)
	}
	tick(1, true, components.Drive{Pressed: components.BtnHorn | components.BtnJump})
	tick(30, false, components.Drive{}) // 30 ticks guessed
	tick(1, true, components.Drive{})
	f := p.lastText("inputs")
	if f == nil || f["presses"].(float64) != 2 {
		t.Fatalf("after two presses: %v", f)
	}
	tick(2*ecs.TickRate, true, components.Drive{})
	f = p.lastText("inputs")
	if f["guessed"].(float64) < 30 || f["seq"].(float64) == 0 { // the probe never skips: its inputs stay late
		t.Fatalf("after 30 ticks with no input: %v", f)
	}
	n := 0
	for _, m := range p.texts {
		if m["type"] == "inputs" {
			n++
		}
	}
	if n < 2 || n > 3 { // the totals change every tick: a frame a second
		t.Fatalf("%d inputs frames in 2.5 s, want 2 or 3, a second apart", n)
	}
}

package nav

import (
	"testing"

	phys "github.com/fiveonit/engine/physics"
)

func TestPoints(t *testing.T) {
	var p Points
	if !p.Stale(7) {
		t.Fatal("a new set is stale")
	}
	p.Add(phys.Vec{X: 10})
	if p.Stale(7) {
		t.Fatal("gathered for tick 7 already")
	}
	cases := []struct {
		c    phys.Vec
		r    float32
		want bool
	}{{phys.Vec{X: 12}, 3, true}, {phys.Vec{X: 13}, 3, false}, {phys.Vec{Y: 10}, 5, false}}
	for _, c := range cases {
		if got := p.Near(c.c, c.r); got != c.want {
			t.Errorf("Near(%v, %v) = %v", c.c, c.r, got)
		}
	}
	p.Invalidate()
	if !p.Stale(7) || p.Near(phys.Vec{X: 10}, 1) {
		t.Fatal("an invalidated set is gathered again, empty")
	}
	if !p.Stale(8) {
		t.Fatal("a new tick needs a new gathering")
	}
}

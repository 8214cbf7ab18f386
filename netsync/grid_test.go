package netsync

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/fiveonit/engine/netsync/wire"
)

// TestGridCells: the buckets of a query hold every entity within r of the
// centre, and, with a ring, every one farther than inner: on both sides of
// 0, near cell edges, with cells of several sizes.
func TestGridCells(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, cell := range []float32{1, 7, 32} {
		a := NewArena()
		a.grid.setCell(cell)
		a.Begin(1)
		for wid := uint16(1); wid <= 3000; wid++ {
			e := wire.Entity{Kind: wire.KindCar, Pos: wire.Vec3{X: rng.Float32()*800 - 400, Y: rng.Float32()*800 - 400}}
			if wid%10 == 0 { // on a cell edge
				e.Pos.X = float32(int(e.Pos.X/cell)) * cell
			}
			a.Put(wid, &e, false)
		}
		a.End()
		var buckets []uint16
		for range 50 {
			cx, cy := rng.Float32()*400-200, rng.Float32()*400-200
			r := 50 + rng.Float32()*150
			inner := float32(0)
			if rng.IntN(2) == 0 {
				inner = r - rng.Float32()*20
			}
			buckets = a.grid.cells(cx, cy, r, inner, buckets)
			for _, wid := range a.Live() {
				x, y := a.Ground(wid)
				d2 := (x-cx)*(x-cx) + (y-cy)*(y-cy)
				if d2 > r*r || d2 <= inner*inner*0.999 {
					continue
				}
				b := uint16(bucketOf(a.grid.cellOf(x), a.grid.cellOf(y)))
				if !slices.Contains(buckets, b) {
					t.Fatalf("cell %g: entity %d at (%g, %g), %g m from (%g, %g), r %g inner %g: its bucket is not in the query",
						cell, wid, x, y, d2, cx, cy, r, inner)
				}
			}
		}
	}
	var g grid
	g.setCell(32)
	if n := len(g.cells(float32(math.Inf(1)), 0, 100, 0, nil)); n != 0 {
		t.Fatalf("an infinite centre gives %d cells", n)
	}
}

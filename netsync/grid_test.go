package netsync

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/fiveonit/engine/netsync/wire"
)

// TestGridCells: the runs of buckets of a query hold every entity within r
// of the centre, and, with a ring, every one farther than inner: on both
// sides of 0, near cell edges, with cells of several sizes (at 1 m, a query
// spans more than gridSide cells, and its rows wrap about the torus).
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
		var spans []span
		for range 50 {
			cx, cy := rng.Float32()*400-200, rng.Float32()*400-200
			r := 50 + rng.Float32()*150
			inner := float32(0)
			if rng.IntN(2) == 0 {
				inner = r - rng.Float32()*20
			}
			spans = a.grid.cells(cx, cy, r, inner, spans)
			if cell == 32 { // a query narrower than gridSide cells reads each bucket once
				seen := make(map[uint16]bool)
				for _, sp := range spans {
					for b := sp.lo; b <= sp.hi; b++ {
						if seen[b] {
							t.Fatalf("r %g inner %g: bucket %d read twice", r, inner, b)
						}
						seen[b] = true
					}
				}
			}
			for _, wid := range a.live {
				x, y := a.ground(wid)
				d2 := (x-cx)*(x-cx) + (y-cy)*(y-cy)
				if d2 > r*r || d2 <= inner*inner*0.999 {
					continue
				}
				b := uint16(bucketOf(a.grid.cellOf(x), a.grid.cellOf(y)))
				if !slices.ContainsFunc(spans, func(sp span) bool { return sp.lo <= b && b <= sp.hi }) {
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

// TestGridCellsAllocatesNothing: once it has made its list, a query makes
// none, whatever runs it takes: rows that do not wrap about the torus, rows
// that do (about x = 0, where cell -1 is bucket 63), a ring (two ranges a
// row, each wrapping), a query taller than the torus (every bucket, one run).
func TestGridCellsAllocatesNothing(t *testing.T) {
	var g grid
	g.setCell(32)
	spans := g.cells(1000, 1000, 100, 0, nil)
	queries := []struct {
		cx, cy, r, inner float32
		want             int // runs, or -1 for any
	}{
		{1000, 1000, 100, 0, -1},
		{0, 0, 228, 0, -1},
		{0, 0, 228, 199, -1},
		{0, 0, 1e30, 0, 1},
		{0, 0, float32(math.Inf(1)), 0, 1},
	}
	// The list is the one the first query made, whatever runs a query
	// takes: a query that grew it would hand back another array. (Not
	// counted by the process's mallocs: a goroutine another test left
	// running may allocate meanwhile, and AllocsPerRun's first run, not
	// counted, would grow the list to its largest.)
	first := &spans[:1][0]
	for _, q := range queries {
		spans = g.cells(q.cx, q.cy, q.r, q.inner, spans)
		if q.want >= 0 && len(spans) != q.want {
			t.Fatalf("query %+v: %d runs, want %d", q, len(spans), q.want)
		}
		if &spans[:1][0] != first {
			t.Fatalf("query %+v grew the list (%d runs, cap %d)", q, len(spans), cap(spans))
		}
	}
	if n := testing.AllocsPerRun(10, func() {
		for _, q := range queries {
			spans = g.cells(q.cx, q.cy, q.r, q.inner, spans)
		}
	}); n != 0 {
		t.Fatalf("the queries allocated %v times a run", n)
	}
	if got := g.cells(0, 0, 1e30, 0, spans); got[0] != (span{0, gridBuckets - 1}) {
		t.Fatalf("a query taller than the torus reads %v, want every bucket", got)
	}
}

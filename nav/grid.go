package nav

import (
	phys "github.com/fiveonit/engine/physics"
)

// MaxCells caps the cells of one grid (4 bytes a cell): a level so large
// that its grid would have more gets larger cells instead.
const MaxCells = 1 << 20

// cells is a uniform grid over a rectangle: the cell of a point, the cells a
// box touches. Points off the rectangle fall in its edge cells.
type cells struct {
	min    Vec
	inv    float32
	nx, ny int32
}

func (c *cells) init(b phys.Rect, size float32) {
	w, h := b.Max.X-b.Min.X, b.Max.Y-b.Min.Y
	for float64(w/size+1)*float64(h/size+1) > MaxCells {
		size *= 2
	}
	c.min, c.inv = b.Min, 1/size
	c.nx, c.ny = int32(w/size)+1, int32(h/size)+1
}

func (c *cells) clamp(f float32, n int32) int32 {
	switch {
	case f >= float32(n): // also +Inf
		return n - 1
	case f > 0:
		return int32(f)
	}
	return 0 // negative, -Inf or NaN
}

// cellOf returns the cell holding p.
func (c *cells) cellOf(p Vec) (x, y int32) {
	return c.clamp((p.X-c.min.X)*c.inv, c.nx), c.clamp((p.Y-c.min.Y)*c.inv, c.ny)
}

// rangeOf returns the cells the box lo..hi touches.
func (c *cells) rangeOf(lo, hi Vec) (x0, y0, x1, y1 int32) {
	x0, y0 = c.cellOf(lo)
	x1, y1 = c.cellOf(hi)
	return
}

// itemBox is an item and the box it covers.
type itemBox struct {
	lo, hi Vec
	item   int32
}

// segBox returns the box of the segment a-b widened by r.
func segBox(a, b Vec, r float32, item int32) itemBox {
	return itemBox{
		lo:   Vec{X: min(a.X, b.X) - r, Y: min(a.Y, b.Y) - r},
		hi:   Vec{X: max(a.X, b.X) + r, Y: max(a.Y, b.Y) + r},
		item: item,
	}
}

// cellIndex files items that never move under every cell their box
// touches, in compressed rows: the items of cell c are items[start[c]:start[c+1]],
// ascending.
type cellIndex struct {
	cells
	start []int32
	items []int32
}

func (x *cellIndex) cell(cx, cy int32) []int32 {
	c := cy*x.nx + cx
	return x.items[x.start[c]:x.start[c+1]]
}

// build files boxes (in ascending item order) by a counting sort.
func (x *cellIndex) build(boxes []itemBox) {
	n := int(x.nx) * int(x.ny)
	x.start = make([]int32, n+1)
	for pass := 0; pass < 2; pass++ {
		if pass == 1 {
			var sum int32
			for i := 0; i <= n; i++ {
				c := x.start[i]
				x.start[i] = sum
				sum += c
			}
			x.items = make([]int32, sum)
		}
		for _, b := range boxes {
			x0, y0, x1, y1 := x.rangeOf(b.lo, b.hi)
			for cy := y0; cy <= y1; cy++ {
				for cx := x0; cx <= x1; cx++ {
					c := cy*x.nx + cx
					if pass == 0 {
						x.start[c]++
						continue
					}
					x.items[x.start[c]] = b.item
					x.start[c]++
				}
			}
		}
	}
	copy(x.start[1:], x.start[:n])
	x.start[0] = 0
}

// Grid files moving points (the bodies of one tick) under the cell holding
// each, for neighbour queries: build it once a tick from the points, then
// ask for the cells round a place. It allocates nothing once it has grown
// to the largest number of points.
type Grid struct {
	cells
	start []int32 // per cell its first entry, and the end; nx*ny+1
	items []int32 // point indices, cell after cell, ascending within a cell
	key   []int32 // each point's cell
}

// NewGrid returns a grid over bounds with cells of side size metres.
func NewGrid(bounds phys.Rect, size float32) *Grid {
	g := &Grid{}
	g.init(bounds, size)
	g.start = make([]int32, int(g.nx)*int(g.ny)+1)
	return g
}

// Build files pts: point i under the cell holding pts[i].
func (g *Grid) Build(pts []Vec) {
	clear(g.start)
	if cap(g.key) < len(pts) {
		g.key = make([]int32, len(pts), 2*len(pts))
		g.items = make([]int32, len(pts), 2*len(pts))
	}
	g.key, g.items = g.key[:len(pts)], g.items[:len(pts)]
	for i, p := range pts {
		x, y := g.cellOf(p)
		c := y*g.nx + x
		g.key[i] = c
		g.start[c+1]++
	}
	for c := 1; c < len(g.start); c++ {
		g.start[c] += g.start[c-1]
	}
	for i, c := range g.key {
		g.items[g.start[c]] = int32(i)
		g.start[c]++
	}
	copy(g.start[1:], g.start[:len(g.start)-1])
	g.start[0] = 0
}

// Range returns the cells the box lo..hi touches: ask Cell for each.
func (g *Grid) Range(lo, hi Vec) (x0, y0, x1, y1 int32) { return g.rangeOf(lo, hi) }

// Cell returns the points filed under cell (x, y), ascending. The slice is
// the grid's: read it before the next Build.
func (g *Grid) Cell(x, y int32) []int32 {
	c := y*g.nx + x
	return g.items[g.start[c]:g.start[c+1]]
}

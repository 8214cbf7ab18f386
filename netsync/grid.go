package netsync

import (
	"math"

	"github.com/fiveonit/engine/internal/headroom"
)

// GridCell is the edge of a cell of the arena's grid, in metres. An encoder
// looks for newcomers in the cells of a thin ring at the edge of its area of
// interest (the centre and the entities moved a few metres since its last
// frame): small cells make the ring hold few entities that are not
// newcomers, large ones make fewer cells to walk. 32 m measured best on the
// peer trace (16 m and 64 m were 10-20 % slower).
const GridCell float32 = 32

// GridBuckets is the number of buckets the cells hash into: a power of two,
// about 14 times the cells of a whole area of interest (a 275 m circle spans
// some 300 cells of 32 m), so two cells of one query seldom share a bucket.
// The grid needs no bounds: any cell hashes.
const GridBuckets = 4096

// grid is a spatial hash of the arena's present entities that do not go to
// everyone, rebuilt at each End by a counting sort: start[b]..start[b+1] are
// the entries of bucket b. An entry carries the entity's position, so a
// query rejects the entities out of reach reading one array in order.
type grid struct {
	cell    float32 // GridCell; the tests make it small, to test the rings
	inv     float32 // 1 / cell: every cell is computed alike, by a product
	start   [GridBuckets + 1]int32
	entries []gridEntry
	bucket  []uint16 // scratch: each live entity's bucket, in live order
}

type gridEntry struct {
	x, y float32
	wid  uint16
}

// cellLimit bounds the coordinates the grid places, in cells: beyond it (or
// NaN) an entity lands in the edge cell, which is only a slower query, and
// the floors below stay exact.
const cellLimit = 1 << 24

func (g *grid) setCell(cell float32) { g.cell, g.inv = cell, 1/cell }

func (g *grid) cellOf(v float32) int32 { return floorCell(v * g.inv) }

// floorCell is floor(c) for a coordinate in cells, clamped to ±cellLimit
// (NaN to -cellLimit). Truncation corrected for negatives is exact within
// the limit and cheaper than math.Floor.
func floorCell(c float32) int32 {
	if !(c > -cellLimit) {
		return -cellLimit
	}
	if c > cellLimit {
		return cellLimit
	}
	i := int32(c)
	if float32(i) > c {
		i--
	}
	return i
}

// ceilCell is -floorCell(-c).
func ceilCell(c float32) int32 { return -floorCell(-c) }

func bucketOf(cx, cy int32) uint32 {
	return (uint32(cx)*73856093 ^ uint32(cy)*19349663) & (GridBuckets - 1)
}

func (g *grid) build(a *Arena) {
	clear(g.start[:])
	g.bucket = g.bucket[:0]
	n := 0
	for _, wid := range a.live {
		h := &a.hot[wid]
		if h.state&stAlways != 0 {
			g.bucket = append(headroom.Ahead(g.bucket, 1), 0)
			continue
		}
		b := bucketOf(g.cellOf(h.x), g.cellOf(h.y))
		g.bucket = append(headroom.Ahead(g.bucket, 1), uint16(b))
		g.start[b+1]++
		n++
	}
	for b := 1; b <= GridBuckets; b++ {
		g.start[b] += g.start[b-1]
	}
	if cap(g.entries) < n {
		g.entries = make([]gridEntry, n, 2*n)
	}
	g.entries = g.entries[:n]
	// Fill each bucket in live order: start[b] walks forward, and is set
	// back after.
	for i, wid := range a.live {
		h := &a.hot[wid]
		if h.state&stAlways != 0 {
			continue
		}
		b := g.bucket[i]
		g.entries[g.start[b]] = gridEntry{h.x, h.y, wid}
		g.start[b]++
	}
	for b := GridBuckets; b > 0; b-- {
		g.start[b] = g.start[b-1]
	}
	g.start[0] = 0
}

// cells appends to buckets[:0] the bucket of every cell within r of
// (cx, cy), leaving out the cells wholly within inner (0 for none), row by
// row, and returns it. A bucket may hold ids of other cells (a hash
// collision) and two cells may share one: the caller checks each id's
// distance and whether it has it already.
func (g *grid) cells(cx, cy, r, inner float32, buckets []uint16) []uint16 {
	buckets = buckets[:0]
	if !(cx-cx == 0 && cy-cy == 0) { // NaN or infinite: no cell
		return buckets
	}
	inv := g.inv
	y0, y1 := floorCell((cy-r)*inv), floorCell((cy+r)*inv)
	for row := y0; row <= y1; row++ {
		lo, hi := float32(row)*g.cell, float32(row+1)*g.cell
		var dy float32 // nearest distance to the row
		if cy < lo {
			dy = lo - cy
		} else if cy > hi {
			dy = cy - hi
		}
		if dy > r {
			continue
		}
		hw := float32(math.Sqrt(float64(r*r - dy*dy)))
		// The cells wholly within inner: their farthest point in y is
		// fy away, and in x within hwIn.
		inLo, inHi := int32(1), int32(0)
		if fy := max(cy-lo, hi-cy); inner > 0 && fy < inner {
			hwIn := float32(math.Sqrt(float64(inner*inner - fy*fy)))
			inLo = ceilCell((cx - hwIn) * inv)
			inHi = floorCell((cx+hwIn)*inv) - 1
		}
		for col, last := floorCell((cx-hw)*inv), floorCell((cx+hw)*inv); col <= last; col++ {
			if col >= inLo && col <= inHi {
				col = inHi
				continue
			}
			buckets = append(headroom.Ahead(buckets, 1), uint16(bucketOf(col, row)))
		}
	}
	return buckets
}

// bucketEntries returns the entries of bucket b.
func (g *grid) bucketEntries(b uint16) []gridEntry {
	return g.entries[g.start[b]:g.start[b+1]]
}

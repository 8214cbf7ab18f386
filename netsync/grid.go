package netsync

import (
	"math"

	"github.com/fiveonit/engine/internal/headroom"
)

// gridCell is the edge of a cell of the arena's grid, in metres. An encoder
// looks for newcomers in the cells of a thin ring at the edge of its area of
// interest (the centre and the entities moved a few metres since its last
// frame): small cells make the ring hold few entities that are not
// newcomers, large ones make fewer cells to walk. 32 m measured best on the
// peer trace (16 m and 64 m were 10-20 % slower with hashed buckets; with
// the torus, 16 m and 24 m were within the noise of 32 m).
const gridCell float32 = 32

// gridSide is the side of the grid's buckets, in cells: the plane is
// folded onto a torus of gridSide × gridSide buckets, cell x, y in bucket
// y mod gridSide, x mod gridSide. So the cells of a row of a query lie in
// consecutive buckets, whose entries are consecutive too: a query reads
// one run of entries per row, or two where the ring leaves out the middle,
// not one bucket per cell. Two cells of one query share a bucket only when
// the query spans more than gridSide cells (2 km at 32 m), beyond any area
// of interest. A bucket also holds entities of cells gridSide cells away,
// which only makes a query slower, as any hash collision would. The grid
// needs no bounds: any cell has a bucket.
const gridSide = 64

// gridBuckets is the number of buckets: gridSide × gridSide.
const gridBuckets = gridSide * gridSide

// gridSide is a power of two: a negative cell's bucket (bucketOf) wraps as
// a positive one's, and the buckets' numbers fit a uint16.
var _ = [1]struct{}{}[gridSide&(gridSide-1)+gridBuckets>>16]

// grid is a spatial index of the arena's present entities that do not go to
// everyone, rebuilt at each End by a counting sort: start[b]..start[b+1] are
// the entries of bucket b. An entry carries the entity's position, so a
// query rejects the entities out of reach reading one array in order.
type grid struct {
	cell    float32 // gridCell; the tests make it small, to test the rings
	inv     float32 // 1 / cell: every cell is computed alike, by a product
	start   [gridBuckets + 1]int32
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

// bucketOf returns the bucket of cell (cx, cy): (cy mod gridSide, cx mod
// gridSide), row by row. A negative cell wraps as a positive one would (2^32
// is a multiple of gridSide).
func bucketOf(cx, cy int32) uint32 {
	return uint32(cy)%gridSide*gridSide + uint32(cx)%gridSide
}

// gridRoom is the fewest entities the grid makes room for.
const gridRoom = 1024

func (g *grid) build(a *Arena) {
	clear(g.start[:])
	if cap(g.bucket) < len(a.live) {
		// Twice the room at once, as for the entries below: a city's
		// count of entities swings, and each new high would allocate.
		g.bucket = make([]uint16, 0, max(2*len(a.live), gridRoom))
	}
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
	for b := 1; b <= gridBuckets; b++ {
		g.start[b] += g.start[b-1]
	}
	if cap(g.entries) < n {
		g.entries = make([]gridEntry, n, max(2*n, gridRoom))
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
	for b := gridBuckets; b > 0; b-- {
		g.start[b] = g.start[b-1]
	}
	g.start[0] = 0
}

// span is a run of consecutive buckets, lo to hi (both in): their entries
// are entries[start[lo]:start[hi+1]].
type span struct{ lo, hi uint16 }

// cells appends to spans[:0] the runs of buckets of the cells within r of
// (cx, cy), leaving out the cells wholly within inner (0 for none), row by
// row, and returns it. A bucket may hold entities of other cells (beyond
// gridSide cells away), and a query wider than gridSide cells reads some
// buckets twice: the caller checks each entity's distance and whether it
// has it already.
func (g *grid) cells(cx, cy, r, inner float32, spans []span) []span {
	if cap(spans) < maxSpans {
		spans = make([]span, 0, maxSpans)
	}
	spans = spans[:0]
	if !(cx-cx == 0 && cy-cy == 0) { // NaN or infinite: no cell
		return spans
	}
	inv := g.inv
	y0, y1 := floorCell((cy-r)*inv), floorCell((cy+r)*inv)
	if int64(y1)-int64(y0) >= gridSide-1 {
		// As many rows as the torus has, or more: every bucket.
		return append(spans, span{0, gridBuckets - 1})
	}
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
		first, last := floorCell((cx-hw)*inv), floorCell((cx+hw)*inv)
		// The cells wholly within inner: their farthest point in y is
		// fy away, and in x within hwIn.
		if fy := max(cy-lo, hi-cy); inner > 0 && fy < inner {
			hwIn := float32(math.Sqrt(float64(inner*inner - fy*fy)))
			inLo, inHi := ceilCell((cx-hwIn)*inv), floorCell((cx+hwIn)*inv)-1
			if inLo <= inHi {
				spans = rowSpans(spans, row, first, inLo-1)
				first = inHi + 1
			}
		}
		spans = rowSpans(spans, row, first, last)
	}
	return spans
}

// maxSpans bounds the runs of one query: fewer than gridSide rows (else one
// run holds every bucket), each at most two ranges of cells about the ring's
// middle, each at most two runs where it wraps about the torus. The scratch
// list has room for them from its first query: it never grows mid-game.
const maxSpans = 4 * gridSide

// rowSpans appends the runs of buckets of the cells first to last (both in;
// none if last < first) of row: one run, two where it wraps about the
// torus, the whole row of buckets when it is gridSide cells or more.
func rowSpans(spans []span, row, first, last int32) []span {
	if last < first {
		return spans
	}
	base := uint32(row) % gridSide * gridSide
	if int64(last)-int64(first) >= gridSide-1 {
		return append(spans, span{uint16(base), uint16(base + gridSide - 1)})
	}
	lo, hi := uint32(first)%gridSide, uint32(last)%gridSide
	if lo <= hi {
		return append(spans, span{uint16(base + lo), uint16(base + hi)})
	}
	spans = append(spans, span{uint16(base + lo), uint16(base + gridSide - 1)})
	return append(spans, span{uint16(base), uint16(base + hi)})
}

// spanEntries returns the entries of the buckets of sp.
func (g *grid) spanEntries(sp span) []gridEntry {
	return g.entries[g.start[sp.lo]:g.start[int(sp.hi)+1]]
}

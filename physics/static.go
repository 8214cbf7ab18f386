package physics

import (
	"errors"
	"fmt"

	"github.com/chewxy/math32"
)

// MaxPolygonPoints caps the corners of one static polygon. A building's
// footprint has a handful; 32 leaves room for rounded corners while keeping
// the narrow phase's work per polygon bounded.
const MaxPolygonPoints = 32

// MaxStaticCells caps the static grid (4 bytes and a bit per cell). Its cells
// have the dynamic grid's side (BroadCell), on the same lines; a level so
// large that it would pass the cap gets cells of BroadCell times a power of
// two. 4 Mi cells is a 12 km square level at 6 m.
const MaxStaticCells = 1 << 22

// The wall surface of the static world, used for every building and for the
// level's edge: concrete is rough and dead.
const (
	WallFriction    = 0.5
	WallRestitution = 0.1
)

// Errors of NewStatic.
var (
	ErrBounds        = errors.New("physics: bounds empty or not finite")
	ErrPolygon       = errors.New("physics: polygon has fewer than 3 distinct points or no area")
	ErrNotConvex     = errors.New("physics: polygon not convex")
	ErrTooManyPoints = errors.New("physics: polygon has more than MaxPolygonPoints points")
	ErrNotFinite     = errors.New("physics: polygon point not finite")
)

// Polygon is a static building's footprint: a convex outline in either
// winding, and its height above the ground. Concave buildings are given as
// several convex polygons (a level's rectangles are convex already).
type Polygon struct {
	Points []Vec
	Height float32
}

// Rect is an axis-aligned rectangle from Min to Max.
type Rect struct{ Min, Max Vec }

// BoxPolygon returns the rectangle centred at c with half extents hx along
// the heading yaw and hy across it, height h tall.
func BoxPolygon(c Vec, hx, hy, yaw, h float32) Polygon {
	s, co := math32.Sincos(yaw)
	ax, ay := Vec{co * hx, s * hx}, Vec{-s * hy, co * hy}
	return Polygon{Points: []Vec{
		c.Sub(ax).Sub(ay), c.Add(ax).Sub(ay), c.Add(ax).Add(ay), c.Sub(ax).Add(ay),
	}, Height: h}
}

// Static is the level's immovable geometry, baked once: convex building
// polygons, the walls at the edge of Bounds, the ground height, and a
// uniform grid to find them. Nothing writes it after NewStatic (Step and the
// queries only read it), so one Static may serve many rooms at once and
// every query is safe for concurrent use; its exported fields are for
// reading (Friction and Restitution may be tuned before first use).
type Static struct {
	// Bounds is the playable ground; bodies are walled in at its edge.
	Bounds Rect
	// GroundZ is the ground plane's height: every body's Pos.Z.
	GroundZ float32
	// Friction and Restitution of every wall (WallFriction, WallRestitution).
	Friction, Restitution float32

	shift          int32      // a static cell is BroadCell<<shift metres
	x0, y0, nx, ny int32      // the first cell (static cell units) and the grid's size
	cellStart      []int32    // per cell, its first item; nx*ny+1 entries
	cellItems      []cellItem // polygons, cell after cell
	occupied       []uint64   // a bit per cell with any polygon: most cells have none
	fine           fineGrid   // which FineCell squares any polygon touches
	boxes          fineGrid   // which FineCell squares any polygon's bounding box touches
	inner          Rect       // Bounds shrunk by a metre: a body inside it is nowhere near a wall
	polys          []poly
	verts, norms   []Vec // all polygons' corners (counter-clockwise) and outward edge normals
}

// cellItem is a polygon filed under a cell, with its bounding box inline
// so that most lookups reject it without reading the polygon.
type cellItem struct {
	min, max Vec
	poly     int32
}

// poly is one baked polygon: its corners are verts[first:first+n], the edge
// from corner i to i+1 has outward normal norms[first+i].
type poly struct {
	first, n int32
	min, max Vec
	height   float32
}

// NewStatic bakes the static world: the polygons (each checked convex and
// wound counter-clockwise), the walls at the edge of bounds and the ground
// height groundZ.
func NewStatic(polygons []Polygon, bounds Rect, groundZ float32) (*Static, error) {
	if !(bounds.Max.X > bounds.Min.X && bounds.Max.Y > bounds.Min.Y) ||
		!finite(bounds.Min.X+bounds.Min.Y+bounds.Max.X+bounds.Max.Y+groundZ) {
		return nil, ErrBounds
	}
	st := &Static{Bounds: bounds, GroundZ: groundZ, Friction: WallFriction, Restitution: WallRestitution}
	for i, pg := range polygons {
		if err := st.addPolygon(pg); err != nil {
			return nil, fmt.Errorf("static polygon %d: %w", i, err)
		}
	}
	st.bakeGrid()
	return st, nil
}

func (st *Static) addPolygon(pg Polygon) error {
	if len(pg.Points) > MaxPolygonPoints {
		return ErrTooManyPoints
	}
	var pts [MaxPolygonPoints]Vec
	n := 0
	for _, p := range pg.Points {
		if !finite(p.X) || !finite(p.Y) {
			return ErrNotFinite
		}
		// Drop a point repeating the previous one (or the first).
		if n > 0 && p.Sub(pts[n-1]).Dot(p.Sub(pts[n-1])) < 1e-8 {
			continue
		}
		pts[n] = p
		n++
	}
	if n > 1 && pts[0].Sub(pts[n-1]).Dot(pts[0].Sub(pts[n-1])) < 1e-8 {
		n--
	}
	if n < 3 {
		return ErrPolygon
	}
	var area float32
	for i := 0; i < n; i++ {
		area += pts[i].Cross(pts[(i+1)%n])
	}
	if area < 0 {
		for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
			pts[i], pts[j] = pts[j], pts[i]
		}
		area = -area
	}
	if !(area > 1e-6) {
		return ErrPolygon
	}
	// Convex and counter-clockwise: every turn is to the left. A straight
	// run (a point on an edge) is dropped; it would only add an edge.
	var kept [MaxPolygonPoints]Vec
	out := kept[:0]
	for i := 0; i < n; i++ {
		prev, cur, next := pts[(i+n-1)%n], pts[i], pts[(i+1)%n]
		e1, e2 := cur.Sub(prev), next.Sub(cur)
		cr := e1.Cross(e2)
		tol := 1e-6 * e1.Len() * e2.Len()
		if cr < -tol {
			return ErrNotConvex
		}
		if cr <= tol {
			if e1.Dot(e2) < 0 { // doubles back on itself
				return ErrNotConvex
			}
			continue
		}
		out = append(out, cur)
	}
	if len(out) < 3 {
		return ErrPolygon
	}
	pl := poly{first: int32(len(st.verts)), n: int32(len(out)), min: out[0], max: out[0], height: pg.Height}
	for i, p := range out {
		q := out[(i+1)%len(out)]
		e := q.Sub(p)
		l := e.Len()
		st.verts = append(st.verts, p)
		st.norms = append(st.norms, Vec{e.Y / l, -e.X / l})
		pl.min = Vec{min32(pl.min.X, p.X), min32(pl.min.Y, p.Y)}
		pl.max = Vec{max32(pl.max.X, p.X), max32(pl.max.Y, p.Y)}
	}
	st.polys = append(st.polys, pl)
	return nil
}

// bakeGrid files every polygon under each cell its bounding box (padded
// by a centimetre, so that rounding at a cell's edge cannot lose it)
// touches, in compressed rows (a counting sort: no maps).
func (st *Static) bakeGrid() {
	b := st.Bounds
	for {
		st.x0, st.y0 = cellOf(b.Min.X)>>st.shift, cellOf(b.Min.Y)>>st.shift
		st.nx = cellOf(b.Max.X)>>st.shift - st.x0 + 1
		st.ny = cellOf(b.Max.Y)>>st.shift - st.y0 + 1
		if int64(st.nx)*int64(st.ny) <= MaxStaticCells {
			break
		}
		st.shift++
	}
	cells := int(st.nx) * int(st.ny)
	st.cellStart = make([]int32, cells+1)
	pad := Vec{0.01, 0.01}
	for pass := 0; pass < 2; pass++ {
		if pass == 1 {
			var sum int32
			for i := 0; i <= cells; i++ {
				c := st.cellStart[i]
				st.cellStart[i] = sum
				sum += c
			}
			st.cellItems = make([]cellItem, sum)
		}
		for pi := range st.polys {
			p := &st.polys[pi]
			x0, y0, x1, y1 := st.cellRange(p.min.Sub(pad), p.max.Add(pad))
			for y := y0; y <= y1; y++ {
				for x := x0; x <= x1; x++ {
					c := y*st.nx + x
					if pass == 0 {
						st.cellStart[c]++
						continue
					}
					st.cellItems[st.cellStart[c]] = cellItem{min: p.min, max: p.max, poly: int32(pi)}
					st.cellStart[c]++
				}
			}
		}
	}
	// The fill advanced each start to the next cell's; shift back.
	copy(st.cellStart[1:], st.cellStart[:cells])
	st.cellStart[0] = 0
	st.occupied = make([]uint64, (cells+63)/64)
	for c := 0; c < cells; c++ {
		if st.cellStart[c+1] > st.cellStart[c] {
			st.occupied[c>>6] |= 1 << (c & 63)
		}
	}
	st.bakeFine()
	st.bakeBoxes()
	st.inner = Rect{Min: b.Min.Add(Vec{1, 1}), Max: b.Max.Sub(Vec{1, 1})}
}

// FineCell (m) is the side of the static world's fine occupancy squares:
// a body whose bounds touch none of them is nowhere near a building and
// skips the lookup. Pavements run a metre or two from the walls; 2 m
// squares tell them apart where the grid's 6 m cells cannot (measured in
// the city benchmark: two thirds of the bodies flagged near a building at
// 6 m, a fifth at 2 m).
const FineCell = 2

// maxFineBits caps the fine grid: 64 Mi bits (8 MB), a 16 km square level
// at FineCell; a larger level gets larger squares.
const maxFineBits = 1 << 26

// fineGrid is a bitmap of squares, row after row, each row a whole number
// of 64-bit words.
type fineGrid struct {
	inv            float32 // 1/side
	x0, y0, nx, ny int32   // first square and size
	stride         int32   // words a row
	bits           []uint64
}

func (f *fineGrid) cell(v float32) int32 {
	g := v * f.inv
	c := int32(g)
	if float32(c) > g {
		c--
	}
	return c
}

// bakeFine marks every square that a polygon overlaps (a separating axis
// test of the square, padded by a centimetre, against the polygon).
func (st *Static) bakeFine() {
	f := &st.fine
	side := float32(FineCell)
	b := st.Bounds
	for {
		f.inv = 1 / side
		f.x0, f.y0 = f.cell(b.Min.X), f.cell(b.Min.Y)
		f.nx, f.ny = f.cell(b.Max.X)-f.x0+1, f.cell(b.Max.Y)-f.y0+1
		f.stride = (f.nx + 63) / 64
		if int64(f.stride)*64*int64(f.ny) <= maxFineBits {
			break
		}
		side *= 2
	}
	f.bits = make([]uint64, int(f.stride)*int(f.ny))
	for pi := range st.polys {
		p := &st.polys[pi]
		v, n := st.polyVerts(int32(pi))
		x0, x1 := max(f.cell(p.min.X)-f.x0, 0), min(f.cell(p.max.X)-f.x0, f.nx-1)
		y0, y1 := max(f.cell(p.min.Y)-f.y0, 0), min(f.cell(p.max.Y)-f.y0, f.ny-1)
		for y := y0; y <= y1; y++ {
			for x := x0; x <= x1; x++ {
				lo := Vec{float32(x+f.x0)*side - 0.01, float32(y+f.y0)*side - 0.01}
				hi := Vec{float32(x+f.x0+1)*side + 0.01, float32(y+f.y0+1)*side + 0.01}
				if rectMeetsPolygon(lo, hi, v, n) {
					f.bits[y*f.stride+x>>6] |= 1 << (x & 63)
				}
			}
		}
	}
}

// bakeBoxes marks, on the fine grid, the squares of every polygon's
// bounding box. They run from the cell of its low corner to the cell of its
// high corner, or the cell left of it when the corner lies on a cell's edge.
// A box that meets the bounding box touches one of them, by the cells that
// touches looks at. So a box touching none meets no bounding box.
func (st *Static) bakeBoxes() {
	f := &st.boxes
	*f = st.fine
	f.bits = make([]uint64, len(st.fine.bits))
	for pi := range st.polys {
		p := &st.polys[pi]
		x0, x1 := max(f.cell(p.min.X)-f.x0, 0), min(f.cellBelow(p.max.X)-f.x0, f.nx-1)
		y0, y1 := max(f.cell(p.min.Y)-f.y0, 0), min(f.cellBelow(p.max.Y)-f.y0, f.ny-1)
		for y := y0; y <= y1; y++ {
			for x := x0; x <= x1; x++ {
				f.bits[y*f.stride+x>>6] |= 1 << (x & 63)
			}
		}
	}
}

// rectMeetsPolygon reports whether the box lo..hi overlaps the convex
// polygon: no separating axis among the box's and the polygon's.
func rectMeetsPolygon(lo, hi Vec, verts, norms []Vec) bool {
	pmin, pmax := verts[0], verts[0]
	for _, v := range verts {
		pmin = Vec{min32(pmin.X, v.X), min32(pmin.Y, v.Y)}
		pmax = Vec{max32(pmax.X, v.X), max32(pmax.Y, v.Y)}
	}
	if pmin.X > hi.X || pmax.X < lo.X || pmin.Y > hi.Y || pmax.Y < lo.Y {
		return false
	}
	for i, n := range norms {
		// The box's corner deepest behind this edge.
		c := Vec{hi.X, hi.Y}
		if n.X > 0 {
			c.X = lo.X
		}
		if n.Y > 0 {
			c.Y = lo.Y
		}
		if n.Dot(c.Sub(verts[i])) > 0 {
			return false
		}
	}
	return true
}

// nearBuilding reports whether the box lo..hi touches a marked square; off
// the fine grid counts as near (the edge is there).
func (f *fineGrid) nearBuilding(lo, hi Vec) bool {
	x0, x1 := f.cell(lo.X)-f.x0, f.cell(hi.X)-f.x0
	y0, y1 := f.cell(lo.Y)-f.y0, f.cell(hi.Y)-f.y0
	if x0 < 0 || y0 < 0 || x1 >= f.nx || y1 >= f.ny {
		return true
	}
	w0, w1 := x0>>6, x1>>6
	m0 := ^uint64(0) << (x0 & 63)    // bits from x0 on in word w0
	m1 := ^uint64(0) >> (63 - x1&63) // bits up to x1 in word w1
	bits, stride := f.bits, f.stride
	end := y1*stride + w0
	if w0 == w1 && y1-y0 < 4 {
		return f.anyIn(x0, y0, x1, y1)
	}
	// (Where the columns share a word this takes the whole word's
	// rows: more than the box, never less.)
	for k := y0*stride + w0; k <= end; k += stride {
		if bits[k]&m0 != 0 || bits[k+w1-w0]&m1 != 0 {
			return true
		}
		for w := k + 1; w < k+w1-w0; w++ {
			if bits[w] != 0 {
				return true
			}
		}
	}
	return false
}

// anyIn reports whether a square of columns x0..x1 and rows y0..y1 (on the
// grid) is marked.
func (f *fineGrid) anyIn(x0, y0, x1, y1 int32) bool {
	w0, w1 := x0>>6, x1>>6
	m := ^uint64(0) << (x0 & 63) & (^uint64(0) >> (63 - x1&63))
	bits, stride := f.bits, f.stride
	if d := y1 - y0; w0 == w1 && d < 4 {
		// A body's few squares almost always share a word and span at
		// most four rows: test four rows (the last repeated as needed)
		// without a branch on how many: rows y0 + min(d, 1), + min(d, 2)
		// and + d.
		k0 := y0*stride + w0
		k1 := k0 + stride*((d+3)>>2)
		k2 := k0 + stride*(d-(d>>1&d&1))
		k3 := k0 + stride*d
		return (bits[k0]|bits[k1]|bits[k2]|bits[k3])&m != 0
	}
	for y := y0; y <= y1; y++ {
		for w := y*stride + w0; w <= y*stride+w1; w++ {
			mw := ^uint64(0)
			if w == y*stride+w0 {
				mw &= ^uint64(0) << (x0 & 63)
			}
			if w == y*stride+w1 {
				mw &= ^uint64(0) >> (63 - x1&63)
			}
			if bits[w]&mw != 0 {
				return true
			}
		}
	}
	return false
}

// cellBelow is the cell of v, or the one below when v lies on a cell's
// edge: ceil(v/side) - 1. Like cell it is monotonic.
func (f *fineGrid) cellBelow(v float32) int32 {
	return -f.cell(-v) - 1
}

// touches reports whether the box lo..hi may meet a marked bounding box:
// whether a square from cellBelow(lo) to cell(hi) is marked (off the grid
// counts as touching). A box meets a bounding box min..max where lo <= max
// and min <= hi on each axis; then cellBelow(lo) <= cellBelow(max) and
// cell(min) <= cell(hi), so their squares meet: exact arithmetic is not
// needed, only that both cells are monotonic.
func (f *fineGrid) touches(lo, hi Vec) bool {
	x0, x1 := f.cellBelow(lo.X)-f.x0, f.cell(hi.X)-f.x0
	y0, y1 := f.cellBelow(lo.Y)-f.y0, f.cell(hi.Y)-f.y0
	if x0 < 0 || y0 < 0 || x1 >= f.nx || y1 >= f.ny {
		return true
	}
	return f.anyIn(x0, y0, x1, y1)
}

// cellRange returns the grid cells touched by the box lo..hi, clamped to the
// grid (so a body off the edge still looks at the edge's cells).
func (st *Static) cellRange(lo, hi Vec) (x0, y0, x1, y1 int32) {
	x0 = clampCell(cellOf(lo.X)>>st.shift-st.x0, st.nx)
	x1 = clampCell(cellOf(hi.X)>>st.shift-st.x0, st.nx)
	y0 = clampCell(cellOf(lo.Y)>>st.shift-st.y0, st.ny)
	y1 = clampCell(cellOf(hi.Y)>>st.shift-st.y0, st.ny)
	return
}

func clampCell(c, n int32) int32 {
	return max(0, min(c, n-1))
}

// cellSize returns the side of a static cell in metres.
func (st *Static) cellSize() float32 { return float32(int32(BroadCell) << st.shift) }

// items returns the items filed under cell ci.
func (st *Static) items(ci int32) []cellItem {
	if st.occupied[ci>>6]&(1<<(ci&63)) == 0 {
		return nil
	}
	return st.cellItems[st.cellStart[ci]:st.cellStart[ci+1]]
}

// Polygons returns the number of baked polygons.
func (st *Static) Polygons() int { return len(st.polys) }

func (st *Static) polyVerts(pi int32) (verts, norms []Vec) {
	p := &st.polys[pi]
	return st.verts[p.first : p.first+p.n], st.norms[p.first : p.first+p.n]
}

// Overlaps reports whether a circle of radius r at c overlaps a building or
// crosses the edge of the level: whether the spot is taken. Touching is
// free.
func (st *Static) Overlaps(c Vec, r float32) bool {
	b := st.Bounds
	if !(c.X-r >= b.Min.X && c.X+r <= b.Max.X && c.Y-r >= b.Min.Y && c.Y+r <= b.Max.Y) {
		return true // outside, or NaN
	}
	x0, y0, x1, y1 := st.cellRange(Vec{c.X - r, c.Y - r}, Vec{c.X + r, c.Y + r})
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			for _, it := range st.items(y*st.nx + x) {
				if c.X+r <= it.min.X || c.X-r >= it.max.X || c.Y+r <= it.min.Y || c.Y-r >= it.max.Y {
					continue
				}
				v, n := st.polyVerts(it.poly)
				if m, ok := collidePolygonCircle(v, n, c, r, 0); ok && m.sep[0] < 0 {
					return true
				}
			}
		}
	}
	return false
}

// SegmentClear reports whether the segment from a to b crosses no building:
// a line of sight along the ground. The level's edge does not block it; a
// segment with a non-finite end is not clear.
func (st *Static) SegmentClear(a, b Vec) bool {
	return st.segmentClear(a, b, -math32.MaxFloat32)
}

// SegmentClearAbove reports whether the segment from a to b, at height z
// above the ground, crosses no building at least as tall: a line of sight at
// eye height sees over a low wall.
func (st *Static) SegmentClearAbove(a, b Vec, z float32) bool {
	return st.segmentClear(a, b, z)
}

func (st *Static) segmentClear(a, b Vec, z float32) bool {
	if !finite(a.X + a.Y + b.X + b.Y) {
		return false
	}
	// Clip the segment to the grid (Liang-Barsky); what lies off it meets
	// no cell.
	cs := st.cellSize()
	lo := Vec{float32(st.x0) * cs, float32(st.y0) * cs}
	hi := Vec{float32(st.x0+st.nx) * cs, float32(st.y0+st.ny) * cs}
	d := b.Sub(a)
	t0, t1 := float32(0), float32(1)
	if !clip1(a.X, d.X, lo.X, hi.X, &t0, &t1) || !clip1(a.Y, d.Y, lo.Y, hi.Y, &t0, &t1) {
		return true
	}
	p := a.Add(d.Scale(t0))
	q := a.Add(d.Scale(t1))

	// Walk the cells along p..q (Amanatides-Woo), at most as many steps as
	// the cells between the ends, so rounding cannot run it away. The cells
	// are found by cellOf like the filing's; the polygons' centimetre pad
	// covers any rounding between the two at a cell's edge.
	inv := 1 / cs
	gx, gy := (p.X-lo.X)*inv, (p.Y-lo.Y)*inv
	cx, cy, _, _ := st.cellRange(p, p)
	ex, ey, _, _ := st.cellRange(q, q)
	gdx, gdy := (q.X-p.X)*inv, (q.Y-p.Y)*inv
	stepX, stepY := int32(1), int32(1)
	tMaxX, tMaxY := float32(math32.MaxFloat32), float32(math32.MaxFloat32)
	tDX, tDY := float32(math32.MaxFloat32), float32(math32.MaxFloat32)
	if gdx > 0 {
		tDX = 1 / gdx
		tMaxX = (float32(cx+1) - gx) * tDX
	} else if gdx < 0 {
		stepX = -1
		tDX = -1 / gdx
		tMaxX = (gx - float32(cx)) * tDX
	}
	if gdy > 0 {
		tDY = 1 / gdy
		tMaxY = (float32(cy+1) - gy) * tDY
	} else if gdy < 0 {
		stepY = -1
		tDY = -1 / gdy
		tMaxY = (gy - float32(cy)) * tDY
	}
	steps := iabs(ex-cx) + iabs(ey-cy)
	for i := int32(0); ; i++ {
		for _, it := range st.items(cy*st.nx + cx) {
			if st.polys[it.poly].height < z {
				continue
			}
			v, n := st.polyVerts(it.poly)
			if segmentHitsPolygon(a, d, v, n) {
				return false
			}
		}
		if i >= steps {
			return true
		}
		if tMaxX < tMaxY {
			if nx := cx + stepX; nx >= 0 && nx < st.nx {
				cx = nx
			}
			tMaxX += tDX
		} else {
			if ny := cy + stepY; ny >= 0 && ny < st.ny {
				cy = ny
			}
			tMaxY += tDY
		}
	}
}

func iabs(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

// clip1 narrows [t0, t1] to where a+t*d lies within [lo, hi]; false when
// nothing is left.
func clip1(a, d, lo, hi float32, t0, t1 *float32) bool {
	if d == 0 {
		return a >= lo && a <= hi
	}
	ta, tb := (lo-a)/d, (hi-a)/d
	if ta > tb {
		ta, tb = tb, ta
	}
	*t0 = max32(*t0, ta)
	*t1 = min32(*t1, tb)
	return *t0 <= *t1
}

// segmentHitsPolygon reports whether a+t*d, t in [0,1], meets the convex
// polygon (Cyrus-Beck clipping against each edge's half-plane).
func segmentHitsPolygon(a, d Vec, verts, norms []Vec) bool {
	tIn, tOut := float32(0), float32(1)
	for i := range verts {
		n := norms[i]
		num := n.Dot(verts[i].Sub(a))
		den := n.Dot(d)
		switch {
		case den == 0:
			if num < 0 {
				return false // parallel to and outside this edge
			}
		case den < 0:
			tIn = max32(tIn, num/den)
		default:
			tOut = min32(tOut, num/den)
		}
		if tIn > tOut {
			return false
		}
	}
	return true
}

// ClosestFree returns the free spot for a circle of radius r nearest to c
// (Overlaps false), searching rings around c out to maxDist, and whether it
// found one. c itself is returned when it is free. The search is a fixed
// sequence, so the same question gives the same answer.
func (st *Static) ClosestFree(c Vec, r, maxDist float32) (Vec, bool) {
	if !st.Overlaps(c, r) {
		return c, true
	}
	step := max32(r*0.5, 0.25)
	for k := 1; k <= 256; k++ {
		d := float32(k) * step
		if d > maxDist {
			break
		}
		n := int(math32.Ceil(2 * math32.Pi * d / step))
		s, co := math32.Sincos(2 * math32.Pi / float32(n))
		dir := Vec{1, 0}
		for i := 0; i < n; i++ {
			if p := c.Add(dir.Scale(d)); !st.Overlaps(p, r) {
				return p, true
			}
			dir = Vec{dir.X*co - dir.Y*s, dir.X*s + dir.Y*co}
		}
	}
	return c, false
}

package ai

import (
	"math"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/nav"
	phys "github.com/fiveonit/engine/physics"
)

// The nearest-player queries (nearest, nearestPlayer, seen) run for each
// ambient car, each pedestrian and each traffic spawn point every tick.
// A loop over every player would make the tick grow with the NPCs times
// the players. So gather files the players on a grid once a tick, and a
// query reads only the cells round its point. Under fewPlayers the plain
// loop is faster, and the queries keep it.
//
// The grid gives the loop's answers bit for bit. It measures each player
// with the loop's own arithmetic, and it breaks a tie for the lower index
// as the loop does. A query reads the cells of a box p±r, with the box's
// edges rounded as float32 rounds them. The cells of a point only grow
// with its coordinates, so every player within the rounded edges is read.
// A player left out lies past an edge: its exact offset from p along x
// or y exceeds r, so the rounded offset is r at least, and its measured
// distance too (sqrt32 of a rounded square gives the number back). So a
// search that stops when its best is strictly under r misses no player
// who could beat or tie it, and seen's box reaches a float32 step past
// its range.

// PlayerCell is the side (m) of the smallest cells the players are filed
// under, for a crowd of players. Fewer players spread over the same
// ground go under larger cells (twice, four times as large, and so on),
// about one player per cell: a query then reads a few cells, not a wide
// ring of empty ones.
const PlayerCell = 64

// fewPlayers is the number of players from which the queries read the
// grid: under it, a loop over the players is faster. With players spread
// at random over main-city, the two take about as long at 24 players
// (BenchmarkNearest). System.few holds it, for a test to make the queries
// loop.
const fewPlayers = 24

// playerGrid is the players of one tick, filed for the nearest-player
// queries: player i of System.players is point i.
type playerGrid struct {
	sizes  []gridSize // PlayerCell, twice that, and so on to one cell
	cur    *gridSize  // the size the tick's players are filed under
	area   float32    // the bounds' (m²)
	pts    []nav.Vec
	finite bool // whether every player stands at finite coordinates
}

// gridSize is a grid of one cell size over the bounds.
type gridSize struct {
	grid   *nav.Grid
	cell   float32
	hx, hy int32 // the grid's last cell along x and y
}

func newPlayerGrid(bounds phys.Rect) playerGrid {
	w, h := bounds.Max.X-bounds.Min.X, bounds.Max.Y-bounds.Min.Y
	g := playerGrid{area: w * h}
	inf := float32(math.Inf(1))
	for cell := float32(PlayerCell); ; cell *= 2 {
		sz := gridSize{grid: nav.NewGrid(bounds, cell), cell: cell}
		_, _, sz.hx, sz.hy = sz.grid.Range(nav.Vec{}, nav.Vec{X: inf, Y: inf})
		g.sizes = append(g.sizes, sz)
		if sz.hx == 0 && sz.hy == 0 {
			break
		}
	}
	g.cur = &g.sizes[0]
	return g
}

// file files the players of the tick under the smallest cells that hold
// about one player each. The grids keep their room: a steady number of
// players allocates nothing.
func (g *playerGrid) file(players []player) {
	n := float32(len(players))
	k := 0
	for k < len(g.sizes)-1 && g.sizes[k].cell*g.sizes[k].cell*n < g.area {
		k++
	}
	g.fileUnder(players, k)
}

// fileUnder files the players under g.sizes[k].
func (g *playerGrid) fileUnder(players []player, k int) {
	g.pts = g.pts[:0]
	g.finite = true
	for i := range players {
		p := players[i].pos
		g.pts = append(g.pts, p)
		g.finite = g.finite && finite(p)
	}
	g.cur = &g.sizes[k]
	g.cur.grid.Build(g.pts)
}

// byGrid reports whether a query from p reads the grid: there are players
// enough for it to pay, and p and every player stand at finite
// coordinates. A point at infinity has no box round it, and a NaN
// distance breaks the tie rule, so those go to the loop.
func (s *System) byGrid(p nav.Vec) bool {
	return len(s.players) >= s.few && s.pgrid.finite && finite(p)
}

// finite reports whether both of p's coordinates are finite.
func finite(p nav.Vec) bool { return p.X-p.X == 0 && p.Y-p.Y == 0 }

// nearest returns the index in s.players of the player nearest to p and
// the distance; -1 when there are no players. The lower wire id wins a
// tie.
func (s *System) nearest(p nav.Vec) (int, float32) {
	if !s.byGrid(p) {
		return s.nearestLoop(p)
	}
	return s.nearestGrid(p)
}

// nearestGrid is nearest by the grid, for a finite p.
func (s *System) nearestGrid(p nav.Vec) (int, float32) {
	i, d2 := s.searchPlayers(p, false)
	if i < 0 {
		return -1, 0
	}
	return i, math32.Sqrt(d2)
}

// nearestLoop is nearest by a loop over the players.
func (s *System) nearestLoop(p nav.Vec) (int, float32) {
	best, bestD := -1, float32(0)
	for i := range s.players {
		d := s.players[i].pos.Sub(p)
		if d2 := d.Dot(d); best < 0 || d2 < bestD {
			best, bestD = i, d2
		}
	}
	if best < 0 {
		return -1, 0
	}
	return best, math32.Sqrt(bestD)
}

// nearestPlayer returns the distance from p to the nearest player, and
// false when there are no players.
func (s *System) nearestPlayer(p nav.Vec) (float32, bool) {
	if !s.byGrid(p) {
		return s.nearestPlayerLoop(p)
	}
	return s.nearestPlayerGrid(p)
}

// nearestPlayerGrid is nearestPlayer by the grid, for a finite p.
func (s *System) nearestPlayerGrid(p nav.Vec) (float32, bool) {
	i, d := s.searchPlayers(p, true)
	if i < 0 {
		return 0, false
	}
	// The loop starts from MaxFloat32: a distance that overflows to
	// infinity comes out as that.
	return min(math32.MaxFloat32, d), true
}

// nearestPlayerLoop is nearestPlayer by a loop over the players.
func (s *System) nearestPlayerLoop(p nav.Vec) (float32, bool) {
	if len(s.players) == 0 {
		return 0, false
	}
	best := float32(math32.MaxFloat32)
	for i := range s.players {
		best = min(best, s.players[i].pos.Sub(p).Len())
	}
	return best, true
}

// seen reports whether a player within rng of p has a clear line of sight
// to it.
func (s *System) seen(p nav.Vec, rng float32) bool {
	if !s.byGrid(p) {
		return s.seenLoop(p, rng)
	}
	return s.seenGrid(p, rng)
}

// seenGrid is seen by the grid, for a finite p.
func (s *System) seenGrid(p nav.Vec, rng float32) bool {
	// A player measured at rng is in range: the box reaches a step past
	// it. Its least half side keeps a left-out player's square off the
	// subnormals, where the measure would round below the offset. A NaN
	// rng, which no distance exceeds, takes every player.
	r := max(math.Nextafter32(rng, float32(math.Inf(1))), 0x1p-60)
	if rng != rng {
		r = float32(math.Inf(1))
	}
	g := s.pgrid.cur.grid
	x0, y0, x1, y1 := g.Range(nav.Vec{X: p.X - r, Y: p.Y - r}, nav.Vec{X: p.X + r, Y: p.Y + r})
	// The line of sight is a pure test, so the order the players in
	// range are tried in changes nothing but the time. The cells go in
	// rings out from p's: the nearer players are the likelier to see p.
	cx, cy, _, _ := g.Range(p, p)
	// The ring k cells from p's, within the box, and the cells read.
	vx0, vy0, vx1, vy1 := int32(1), int32(1), int32(0), int32(0)
	for k := int32(0); ; k++ {
		rx0, ry0, rx1, ry1 := max(cx-k, x0), max(cy-k, y0), min(cx+k, x1), min(cy+k, y1)
		for y := ry0; y <= ry1; y++ {
			for x := rx0; x <= rx1; x++ {
				if y >= vy0 && y <= vy1 && x >= vx0 && x <= vx1 {
					x = vx1 // read already: on to the row's cells past them
					continue
				}
				if s.seenIn(g.Cell(x, y), p, rng) {
					return true
				}
			}
		}
		if rx0 == x0 && ry0 == y0 && rx1 == x1 && ry1 == y1 {
			return false
		}
		vx0, vy0, vx1, vy1 = rx0, ry0, rx1, ry1
	}
}

// seenIn reports whether one of the players of cell is within rng of p
// and has a clear line of sight to it.
func (s *System) seenIn(cell []int32, p nav.Vec, rng float32) bool {
	for _, i := range cell {
		if s.sees(s.players[i].pos, p, rng) {
			return true
		}
	}
	return false
}

// seenLoop is seen by a loop over the players.
func (s *System) seenLoop(p nav.Vec, rng float32) bool {
	for i := range s.players {
		if s.sees(s.players[i].pos, p, rng) {
			return true
		}
	}
	return false
}

// sees reports whether a player at q is within rng of p and has a clear
// line of sight to it. A NaN rng, which no distance exceeds, is no bound.
func (s *System) sees(q, p nav.Vec, rng float32) bool {
	return !(q.Sub(p).Len() > rng) && (s.static == nil || s.static.SegmentClear(q, p))
}

// searchPlayers returns the index of the player nearest to p, the lower
// index on a tie, and its measure: the squared distance (Vec.Dot) as
// nearestLoop has it, or with byLen the distance (Vec.Len) as
// nearestPlayerLoop has it; -1 when there are no players. It reads the
// cells of a box round p, and grows the box until the best player found
// is nearer than any player outside it. p must be finite: then the box
// grows to the whole grid at the latest.
func (s *System) searchPlayers(p nav.Vec, byLen bool) (int, float32) {
	g := s.pgrid.cur
	best, bestM := -1, float32(0)
	// The cells read so far: none at first. A box holds the smaller
	// ones before it.
	vx0, vy0, vx1, vy1 := int32(1), int32(1), int32(0), int32(0)
	r := g.cell / 2
	for {
		x0, y0, x1, y1 := g.grid.Range(nav.Vec{X: p.X - r, Y: p.Y - r}, nav.Vec{X: p.X + r, Y: p.Y + r})
		for y := y0; y <= y1; y++ {
			for x := x0; x <= x1; x++ {
				if y >= vy0 && y <= vy1 && x >= vx0 && x <= vx1 {
					x = vx1 // read already: on to the row's cells past them
					continue
				}
				for _, i := range g.grid.Cell(x, y) {
					d := s.players[i].pos.Sub(p)
					var m float32
					if byLen {
						m = d.Len()
					} else {
						m = d.Dot(d)
					}
					if best < 0 || m < bestM || m == bestM && int(i) < best {
						best, bestM = int(i), m
					}
				}
			}
		}
		if x0 == 0 && y0 == 0 && x1 == g.hx && y1 == g.hy {
			return best, bestM // every player read
		}
		vx0, vy0, vx1, vy1 = x0, y0, x1, y1
		if best < 0 {
			r *= 2
			continue
		}
		// A player outside the box measures r at least (the note at the
		// top of this file).
		l, bound := bestM, r
		if !byLen {
			l, bound = float32(math.Sqrt(float64(bestM))), r*r
		}
		if bestM < bound {
			return best, bestM
		}
		// A box a little wider than the best found ends the search.
		if need := l + l*0x1p-20; need > r {
			r = need
		} else {
			r *= 2
		}
	}
}

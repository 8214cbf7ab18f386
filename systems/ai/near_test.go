package ai

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fiveonit/engine/nav"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems/motion"
	"github.com/fiveonit/engine/systems/systemstest"
)

// nearCase draws players and query points for the nearest-player
// queries: spread over the bounds, on a lattice and at the middle of two
// players (ties), on the same spot (ties), on the cells' edges and a
// float32 step off them, and far outside the bounds, out to where a
// squared distance overflows.
type nearCase struct {
	r      *rand.Rand
	bounds phys.Rect
	pts    []nav.Vec // the players so far
}

func (c *nearCase) coord(lo, hi float32) float32 {
	switch c.r.IntN(8) {
	case 0: // a lattice, 4 m apart
		return float32(c.r.IntN(40)-20) * 4
	case 1: // a cell's edge, or a float32 step off it
		x := lo + float32(c.r.IntN(int((hi-lo)/PlayerCell)+2))*PlayerCell
		switch c.r.IntN(3) {
		case 0:
			return math.Nextafter32(x, float32(math.Inf(-1)))
		case 1:
			return math.Nextafter32(x, float32(math.Inf(1)))
		}
		return x
	case 2: // far outside
		far := []float32{1e3, 4e3, 1e5, 1e7, 1e19, 1e30, 3e38}
		x := far[c.r.IntN(len(far))] * (0.5 + c.r.Float32())
		if c.r.IntN(2) == 0 {
			x = -x
		}
		return x
	}
	return lo + c.r.Float32()*(hi-lo)
}

func (c *nearCase) point() nav.Vec {
	b := c.bounds
	if n := len(c.pts); n > 0 {
		switch c.r.IntN(6) {
		case 0: // on a player
			return c.pts[c.r.IntN(n)]
		case 1: // between two players
			a, b := c.pts[c.r.IntN(n)], c.pts[c.r.IntN(n)]
			return nav.Vec{X: a.X/2 + b.X/2, Y: a.Y/2 + b.Y/2}
		case 2: // a few metres from a player
			a := c.pts[c.r.IntN(n)]
			return nav.Vec{X: a.X + float32(c.r.IntN(9)-4), Y: a.Y + float32(c.r.IntN(9)-4)}
		}
	}
	return nav.Vec{X: c.coord(b.Min.X, b.Max.X), Y: c.coord(b.Min.Y, b.Max.Y)}
}

// nearSystem returns a System with the players at pts, filed in a grid
// over bounds (under cell size k, or as the tick files them for k -1) and
// read whatever their number, and static as its geometry.
func nearSystem(bounds phys.Rect, pts []nav.Vec, static *phys.Static, k int) *System {
	s := &System{pgrid: newPlayerGrid(bounds), static: static, few: 0}
	for i, p := range pts {
		s.players = append(s.players, player{wid: uint16(i + 1), pos: p})
	}
	if k < 0 {
		s.pgrid.file(s.players)
	} else {
		s.pgrid.fileUnder(s.players, k)
	}
	return s
}

// TestNearestGridMatchesLoop: for random players and points, the grid's
// answers to nearest, nearestPlayer and seen are the loop's, bit for bit,
// ties and overflowing distances included; seen with no geometry and with
// main-city's; under each cell size. A coordinate past float32's range
// becomes infinite: the queries then loop, with the same answers.
func TestNearestGridMatchesLoop(t *testing.T) {
	city, err := motion.BakeLevel(systemstest.Load(t, "main-city"))
	if err != nil {
		t.Fatal(err)
	}
	inf := float32(math.Inf(1))
	ranges := []float32{-1, 0, 1, 35, 160, 275, 1000, 1e6, math.MaxFloat32, inf, float32(math.NaN())}
	type grounds struct {
		name   string
		bounds phys.Rect
		static *phys.Static
	}
	for _, g := range []grounds{
		{"main-city", phys.Rect{Min: nav.Vec{X: -480, Y: -480}, Max: nav.Vec{X: 480, Y: 480}}, nil},
		{"main-city-static", phys.Rect{Min: nav.Vec{X: -480, Y: -480}, Max: nav.Vec{X: 480, Y: 480}}, city},
		{"no-level", phys.Rect{Min: nav.Vec{X: -1, Y: -1}, Max: nav.Vec{X: 1, Y: 1}}, nil},
		{"off-origin", phys.Rect{Min: nav.Vec{X: 1000, Y: -3000}, Max: nav.Vec{X: 1500, Y: -2900}}, nil},
	} {
		for _, n := range []int{0, 1, 2, 3, 7, 8, 9, 16, 64, 200, 512} {
			t.Run(fmt.Sprintf("%s/players=%d", g.name, n), func(t *testing.T) {
				c := &nearCase{r: rand.New(rand.NewPCG(uint64(n), 35)), bounds: g.bounds}
				for range n {
					p := c.point()
					if len(c.pts) > 0 && c.r.IntN(8) == 0 {
						p = c.pts[c.r.IntN(len(c.pts))] // two players on one spot
					}
					c.pts = append(c.pts, p)
				}
				s := nearSystem(g.bounds, c.pts, g.static, -1)
				queries := 100
				if g.static != nil {
					queries = 25
				}
				for q := range queries * len(s.pgrid.sizes) {
					if q%queries == 0 {
						s.pgrid.fileUnder(s.players, q/queries)
					}
					p := c.point()
					gi, gd := s.nearest(p)
					li, ld := s.nearestLoop(p)
					if gi != li || math.Float32bits(gd) != math.Float32bits(ld) {
						t.Fatalf("nearest(%v): grid %d %v, loop %d %v", p, gi, gd, li, ld)
					}
					gd, gok := s.nearestPlayer(p)
					ld, lok := s.nearestPlayerLoop(p)
					if gok != lok || math.Float32bits(gd) != math.Float32bits(ld) {
						t.Fatalf("nearestPlayer(%v): grid %v %v, loop %v %v", p, gd, gok, ld, lok)
					}
					for _, rng := range ranges {
						if gs, ls := s.seen(p, rng), s.seenLoop(p, rng); gs != ls {
							t.Fatalf("seen(%v, %v): grid %v, loop %v", p, rng, gs, ls)
						}
					}
				}
			})
		}
	}
}

// TestNearestGridTies: players in a ring round a point, all at one
// distance, and their copies: every query picks the lowest index, as the
// loop does, by the grid too.
func TestNearestGridTies(t *testing.T) {
	bounds := phys.Rect{Min: nav.Vec{X: -480, Y: -480}, Max: nav.Vec{X: 480, Y: 480}}
	var pts []nav.Vec
	for _, d := range []nav.Vec{{X: 100, Y: 0}, {X: 0, Y: 100}, {X: -100, Y: 0}, {X: 0, Y: -100}, {X: 60, Y: 80}, {X: -80, Y: 60}} {
		pts = append(pts, nav.Vec{X: 3 + d.X, Y: 5 + d.Y})
	}
	pts = append(pts, pts...)
	// The lowest index at that distance comes last in the grid's reading
	// order, so that the tie rule decides.
	pts[0], pts[len(pts)-1] = pts[len(pts)-1], pts[0]
	s := nearSystem(bounds, pts, nil, 0)
	i, d := s.nearestGrid(nav.Vec{X: 3, Y: 5})
	li, ld := s.nearestLoop(nav.Vec{X: 3, Y: 5})
	if i != li || d != ld || i != 0 || d != 100 {
		t.Fatalf("grid %d %v, loop %d %v; want 0 100", i, d, li, ld)
	}
}

// TestNearestGridRounding: a player just past a box's edge whose offset
// from p rounds onto the edge. p.X-160 and p.X-128 round to an edge of a
// cell (a tie, to even), and the player a float32 step below that edge is
// filed in the cell before it but measured at 160 and 128 exactly, as the
// loop measures it: seen must count them, and nearest must still give the
// lower index on the tie.
func TestNearestGridRounding(t *testing.T) {
	far := []nav.Vec{{X: 200, Y: 200}, {X: -200, Y: 200}, {X: 200, Y: -200}}
	p := nav.Vec{X: -0x1p-17}
	// seen: a cell's edge at -160.
	s := nearSystem(phys.Rect{Min: nav.Vec{X: -224, Y: -224}, Max: nav.Vec{X: 224, Y: 224}},
		append([]nav.Vec{{X: -160 - 0x1p-16}}, far...), nil, 0)
	if !s.seenLoop(p, 160) || !s.seen(p, 160) {
		t.Fatalf("seen: loop %v, grid %v; want true", s.seenLoop(p, 160), s.seen(p, 160))
	}
	// nearest: a cell's edge at -128, where the search's third box ends.
	s = nearSystem(phys.Rect{Min: nav.Vec{X: -192, Y: -192}, Max: nav.Vec{X: 192, Y: 192}},
		append([]nav.Vec{{X: -128 - 0x1p-16}, {X: 128 - 0x1p-17}}, far...), nil, 0)
	li, ld := s.nearestLoop(p)
	gi, gd := s.nearest(p)
	if li != 0 || ld != 128 || gi != li || gd != ld {
		t.Fatalf("nearest: loop %d %v, grid %d %v; want 0 128", li, ld, gi, gd)
	}
}

// The benchmark's answers go to these, so that the compiler keeps the
// queries.
var (
	sinkI int
	sinkF float32
	sinkB bool
)

// BenchmarkNearest times the nearest-player queries by the loop and by
// the grid, at 8 to 512 players spread over main-city's ground, from
// points spread over it.
func BenchmarkNearest(b *testing.B) {
	bounds := phys.Rect{Min: nav.Vec{X: -480, Y: -480}, Max: nav.Vec{X: 480, Y: 480}}
	for _, n := range []int{8, 24, 64, 512} {
		r := rand.New(rand.NewPCG(uint64(n), 9))
		at := func() nav.Vec {
			return nav.Vec{X: -480 + 960*r.Float32(), Y: -480 + 960*r.Float32()}
		}
		pts := make([]nav.Vec, n)
		for i := range pts {
			pts[i] = at()
		}
		qs := make([]nav.Vec, 1024)
		for i := range qs {
			qs[i] = at()
		}
		s := nearSystem(bounds, pts, nil, -1)
		for _, q := range []struct {
			name       string
			loop, grid func(p nav.Vec)
		}{
			{"nearest", func(p nav.Vec) { sinkI, sinkF = s.nearestLoop(p) }, func(p nav.Vec) { sinkI, sinkF = s.nearestGrid(p) }},
			{"nearestPlayer", func(p nav.Vec) { sinkF, sinkB = s.nearestPlayerLoop(p) }, func(p nav.Vec) { sinkF, sinkB = s.nearestPlayerGrid(p) }},
			// The crowd's sight, and a short one that most points are
			// out of: the query's dearest case.
			{"seen160", func(p nav.Vec) { sinkB = s.seenLoop(p, 160) }, func(p nav.Vec) { sinkB = s.seenGrid(p, 160) }},
			{"seen20", func(p nav.Vec) { sinkB = s.seenLoop(p, 20) }, func(p nav.Vec) { sinkB = s.seenGrid(p, 20) }},
		} {
			for _, way := range []struct {
				name string
				f    func(nav.Vec)
			}{{"loop", q.loop}, {"grid", q.grid}} {
				b.Run(fmt.Sprintf("players=%d/%s/%s", n, q.name, way.name), func(b *testing.B) {
					b.ReportAllocs()
					for i := 0; b.Loop(); i++ {
						way.f(qs[i%len(qs)])
					}
				})
			}
		}
	}
}

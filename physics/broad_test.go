package physics

import (
	"math/rand/v2"
	"testing"

	"github.com/fiveonit/engine/components"
)

// bruteForcePairs lists every pair whose swept bounds overlap and whose
// layers collide, grouped by lower index, ascending.
func bruteForcePairs(s *Scratch, list []Body) [][2]int32 {
	var out [][2]int32
	for i := range list {
		t := &s.bnd[i]
		if !s.tmp[i].ok {
			continue
		}
		for j := i + 1; j < len(list); j++ {
			u := &s.bnd[j]
			if !s.tmp[j].ok || u.lo.X > t.hi.X || u.hi.X < t.lo.X || u.lo.Y > t.hi.Y || u.hi.Y < t.lo.Y {
				continue
			}
			if bodiesCollide(&list[i], &list[j], int32(i), int32(j)) {
				out = append(out, [2]int32{int32(i), int32(j)})
			}
		}
	}
	return out
}

// bodiesCollide is the pair filter written out from the Bodies: layers,
// a hitch, one of them movable.
func bodiesCollide(a, b *Body, i, j int32) bool {
	return a.Mask&b.Layer != 0 && b.Mask&a.Layer != 0 &&
		a.NoCollide != j+1 && b.NoCollide != i+1 &&
		(a.InvMass != 0 || b.InvMass != 0)
}

func gridPairs(s *Scratch) [][2]int32 {
	var out [][2]int32
	for _, p := range s.pairs {
		out = append(out, [2]int32{int32(p >> 32), int32(uint32(p))})
	}
	return out
}

func TestBroadPhaseMatchesBruteForce(t *testing.T) {
	c := newCity(1500, 8)
	var s Scratch
	for k := 0; k < 240; k++ {
		c.tick(&s)
	}
	// A pile too: many bodies per cell, some covering many cells, one
	// with a NaN, and layers that do not meet.
	var pile Bodies
	rng := rand.New(rand.NewPCG(8, 8))
	for i := 0; i < 400; i++ {
		p := Vec{rng.Float32()*30 - 15, rng.Float32()*30 - 15}
		if i%4 == 0 {
			addCar(&pile, uint8(rng.IntN(int(ModelCount))), p, rng.Float32()*6, rng.Float32()*60)
		} else {
			addPerson(&pile, p)
		}
		if i%7 == 0 {
			pile.List[i].Layer = components.LayerGhost
			pile.List[i].Mask = components.LayerVehicle
		}
	}
	pile.List[17].Pose.Pos.X = nan32()
	pile.List[40].HalfX = 40 // a long barrier across many cells
	pileStatic, err := NewStatic([]Polygon{BoxPolygon(Vec{3, 3}, 4, 2, 0.5, 5), octagon(Vec{-8, 6}, 3, 5)},
		Rect{Min: Vec{-14, -14}, Max: Vec{14, 14}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct {
		b  *Bodies
		st *Static
	}{{&c.b, c.st}, {&pile, pileStatic}} {
		n := len(w.b.List)
		s.reserve(n)
		s.prepare(w.st, w.b.List, Dt)
		s.broadPhase(w.st)
		got, want := gridPairs(&s), bruteForcePairs(&s, w.b.List)
		if len(got) != len(want) {
			t.Errorf("%d bodies: grid found %d pairs, brute force %d", n, len(got), len(want))
		}
		for k := range got {
			if got[k] != want[k] {
				t.Fatalf("%d bodies: pair %d is %v, brute force %v", n, k, got[k], want[k])
			}
		}
		if len(want) == 0 {
			t.Fatalf("%d bodies: no pairs to compare", n)
		}
		t.Logf("%d bodies: %d pairs agree, %d buckets", n, len(got), len(s.head))

		// Every movable body whose bounds meet a polygon is flagged for
		// the static lookup.
		flagged := 0
		for i := range w.b.List {
			u := &s.tmp[i]
			ub := &s.bnd[i]
			if !u.ok || w.b.List[i].InvMass == 0 {
				continue
			}
			for pi := range w.st.polys {
				v, nr := w.st.polyVerts(int32(pi))
				if !rectMeetsPolygon(ub.lo, ub.hi, v, nr) {
					continue
				}
				if !u.static {
					t.Fatalf("%d bodies: body %d meets polygon %d, not flagged", n, i, pi)
				}
				flagged++
			}
		}
		if flagged == 0 {
			t.Fatalf("%d bodies: no body near a polygon to check", n)
		}
	}
}

package physics

import (
	"errors"
	"math/rand/v2"
	"testing"
)

func testStatic(t *testing.T) *Static {
	t.Helper()
	st, err := NewStatic([]Polygon{
		BoxPolygon(Vec{20, 20}, 5, 5, 0, 10),                    // 15..25 square
		BoxPolygon(Vec{50, 20}, 8, 2, 0.7, 4),                   // rotated slab
		{Points: []Vec{{30, 50}, {40, 50}, {35, 58}}},           // triangle, counter-clockwise
		{Points: []Vec{{70, 70}, {70, 80}, {80, 80}, {80, 70}}}, // clockwise square
	}, Rect{Min: Vec{0, 0}, Max: Vec{100, 100}}, 1.5)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestNewStaticRejectsBadLevels(t *testing.T) {
	good := Rect{Max: Vec{10, 10}}
	for _, tc := range []struct {
		name   string
		polys  []Polygon
		bounds Rect
		want   error
	}{
		{"concave", []Polygon{{Points: []Vec{{0, 0}, {4, 0}, {2, 1}, {4, 4}, {0, 4}}}}, good, ErrNotConvex},
		{"bow tie", []Polygon{{Points: []Vec{{0, 0}, {4, 4}, {4, 0}, {0, 6}}}}, good, ErrNotConvex},
		{"two points", []Polygon{{Points: []Vec{{0, 0}, {4, 4}}}}, good, ErrPolygon},
		{"repeated points", []Polygon{{Points: []Vec{{0, 0}, {0, 0}, {4, 4}, {4, 4}}}}, good, ErrPolygon},
		{"flat", []Polygon{{Points: []Vec{{0, 0}, {2, 2}, {4, 4}}}}, good, ErrPolygon},
		{"NaN", []Polygon{{Points: []Vec{{0, 0}, {4, 0}, {4, nan32()}}}}, good, ErrNotFinite},
		{"too many", []Polygon{{Points: make([]Vec, MaxPolygonPoints+1)}}, good, ErrTooManyPoints},
		{"empty bounds", nil, Rect{Min: Vec{5, 5}, Max: Vec{5, 9}}, ErrBounds},
		{"NaN bounds", nil, Rect{Max: Vec{nan32(), 9}}, ErrBounds},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewStatic(tc.polys, tc.bounds, 0)
			if !errors.Is(err, tc.want) {
				t.Errorf("err %v, want %v", err, tc.want)
			}
		})
	}
	// Collinear points and a closing repeat are fine and dropped.
	st, err := NewStatic([]Polygon{{Points: []Vec{{0, 0}, {2, 0}, {4, 0}, {4, 4}, {0, 4}, {0, 0}}}}, good, 0)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := st.polyVerts(0); len(v) != 4 {
		t.Errorf("kept %d corners, want 4", len(v))
	}
}

func nan32() float32 { var z float32; return z / z }

func TestStaticOverlaps(t *testing.T) {
	st := testStatic(t)
	for _, tc := range []struct {
		name string
		c    Vec
		r    float32
		want bool
	}{
		{"inside square", Vec{20, 20}, 0.3, true},
		{"touching square edge", Vec{25.5, 20}, 0.5, false},
		{"overlapping square edge", Vec{25.4, 20}, 0.5, true},
		{"near square corner, clear", Vec{25.4, 25.4}, 0.5, false},
		{"at square corner", Vec{25.3, 25.3}, 0.5, true},
		{"open ground", Vec{10, 60}, 2, false},
		{"inside clockwise square", Vec{75, 75}, 0.1, true},
		{"inside triangle", Vec{35, 52}, 0.1, true},
		{"beside triangle", Vec{30, 55}, 0.5, false},
		{"inside rotated slab", Vec{50, 20}, 0.1, true},
		{"crossing the level edge", Vec{0.2, 50}, 0.5, true},
		{"outside the level", Vec{-5, 50}, 0.5, true},
		{"NaN", Vec{nan32(), 5}, 0.5, true},
	} {
		if got := st.Overlaps(tc.c, tc.r); got != tc.want {
			t.Errorf("%s: Overlaps(%v, %v) = %v, want %v", tc.name, tc.c, tc.r, got, tc.want)
		}
	}
}

func TestStaticSegmentClear(t *testing.T) {
	st := testStatic(t)
	for _, tc := range []struct {
		name string
		a, b Vec
		want bool
	}{
		{"through square", Vec{10, 20}, Vec{30, 20}, false},
		{"past square", Vec{10, 26}, Vec{30, 26}, true},
		{"ends inside", Vec{10, 20}, Vec{16, 20}, false},
		{"stops short", Vec{10, 20}, Vec{14, 20}, true},
		{"long diagonal through the city", Vec{1, 1}, Vec{99, 99}, false},
		{"down the open side", Vec{90, 1}, Vec{90, 99}, true},
		{"a point", Vec{5, 5}, Vec{5, 5}, true},
		{"from outside the level", Vec{-50, 20}, Vec{30, 20}, false},
		{"entirely outside", Vec{-50, -20}, Vec{150, -20}, true},
		{"NaN end", Vec{nan32(), 20}, Vec{30, 20}, false},
	} {
		if got := st.SegmentClear(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: SegmentClear(%v, %v) = %v, want %v", tc.name, tc.a, tc.b, got, tc.want)
		}
	}
}

func TestStaticSegmentClearAbove(t *testing.T) {
	st := testStatic(t) // the square is 10 m tall, the slab 4 m, the triangle 0
	for _, tc := range []struct {
		name string
		a, b Vec
		z    float32
		want bool
	}{
		{"over the triangle at eye height", Vec{30, 53}, Vec{40, 53}, 1.7, true},
		{"into the triangle at its foot", Vec{30, 53}, Vec{40, 53}, 0, false},
		{"into the slab at eye height", Vec{40, 20}, Vec{60, 20}, 1.7, false},
		{"over the slab from a roof", Vec{40, 20}, Vec{60, 20}, 5, true},
		{"into the square from the same roof", Vec{10, 20}, Vec{30, 20}, 5, false},
	} {
		if got := st.SegmentClearAbove(tc.a, tc.b, tc.z); got != tc.want {
			t.Errorf("%s: SegmentClearAbove(%v, %v, %v) = %v, want %v", tc.name, tc.a, tc.b, tc.z, got, tc.want)
		}
	}
}

// The grid walk and the cell filing must agree with testing every polygon.
func TestStaticQueriesMatchBruteForce(t *testing.T) {
	c := newCity(2000, 3)
	st := c.st
	rng := rand.New(rand.NewPCG(1, 2))
	size := st.Bounds.Max.X
	pt := func() Vec { return Vec{rng.Float32()*(size+40) - 20, rng.Float32()*(size+40) - 20} }
	for k := 0; k < 20000; k++ {
		a, b := pt(), pt()
		if k%2 == 0 { // short sight lines as often as long ones
			b = a.Add(Vec{rng.Float32()*60 - 30, rng.Float32()*60 - 30})
		}
		want := true
		for pi := range st.polys {
			v, n := st.polyVerts(int32(pi))
			if segmentHitsPolygon(a, b.Sub(a), v, n) {
				want = false
				break
			}
		}
		if got := st.SegmentClear(a, b); got != want {
			t.Fatalf("SegmentClear(%v, %v) = %v, brute force %v", a, b, got, want)
		}
		r := rng.Float32() * 3
		in := st.Bounds
		want = !(a.X-r >= in.Min.X && a.X+r <= in.Max.X && a.Y-r >= in.Min.Y && a.Y+r <= in.Max.Y)
		for pi := range st.polys {
			v, n := st.polyVerts(int32(pi))
			if m, ok := collidePolygonCircle(v, n, a, r, 0); ok && m.sep[0] < 0 {
				want = true
			}
		}
		if got := st.Overlaps(a, r); got != want {
			t.Fatalf("Overlaps(%v, %v) = %v, brute force %v", a, r, got, want)
		}
	}
}

func TestStaticClosestFree(t *testing.T) {
	st := testStatic(t)
	for _, tc := range []struct {
		name    string
		c       Vec
		maxMove float32
	}{
		{"free already", Vec{10, 10}, 0},
		{"just inside the square", Vec{24.8, 20}, 0.35 + 0.2 + 0.2},
		{"deep in the square", Vec{20, 21}, 5 + 0.35 + 0.2},
		{"at the level edge", Vec{0.1, 50}, 0.3 + 0.2},
	} {
		p, ok := st.ClosestFree(tc.c, 0.35, 20)
		if !ok {
			t.Errorf("%s: no free spot", tc.name)
			continue
		}
		if st.Overlaps(p, 0.35) {
			t.Errorf("%s: %v is not free", tc.name, p)
		}
		if d := p.Sub(tc.c).Len(); d > tc.maxMove {
			t.Errorf("%s: moved %v, want at most %v", tc.name, d, tc.maxMove)
		}
	}
	if _, ok := st.ClosestFree(Vec{20, 20}, 0.35, 2); ok {
		t.Error("found a free spot within 2 m of the middle of a 10 m building")
	}
}

func TestRectMeetsPolygon(t *testing.T) {
	tri := Polygon{Points: []Vec{{0, 0}, {4, 0}, {0, 4}}}
	st, err := NewStatic([]Polygon{tri}, Rect{Min: Vec{-10, -10}, Max: Vec{10, 10}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	v, n := st.polyVerts(0)
	for _, tc := range []struct {
		lo, hi Vec
		want   bool
	}{
		{Vec{1, 1}, Vec{1.5, 1.5}, true},   // inside
		{Vec{-1, -1}, Vec{0.1, 0.1}, true}, // over a corner
		{Vec{2.5, 2.5}, Vec{3, 3}, false},  // in the box, beyond the slant
		{Vec{1.9, 1.9}, Vec{3, 3}, true},   // across the slant
		{Vec{5, 0}, Vec{6, 1}, false},      // beside
		{Vec{-3, -3}, Vec{8, 8}, true},     // around it
	} {
		if got := rectMeetsPolygon(tc.lo, tc.hi, v, n); got != tc.want {
			t.Errorf("box %v..%v: %v, want %v", tc.lo, tc.hi, got, tc.want)
		}
		// The fine grid agrees, to its squares: a box it calls clear is.
		if !st.fine.nearBuilding(tc.lo, tc.hi) && tc.want {
			t.Errorf("box %v..%v meets the polygon, the fine grid says clear", tc.lo, tc.hi)
		}
	}
}

package physics

import (
	"testing"

	"github.com/chewxy/math32"
)

// box returns the hull of a box centred on c and turned by yaw: hx along
// its length either side of c, 1 across.
func box(c Vec, yaw, hx float32) (v, n [4]Vec) {
	s, co := math32.Sincos(yaw)
	boxHull(c, co, s, hx, 1, &v, &n)
	return
}

// near reports whether a and b are within 1e-5 of each other.
func near(a, b Vec) bool { return a.Sub(b).Len() <= 1e-5 }

func TestCollideBoxes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cb       Vec
		yawB     float32
		margin   float32
		ok       bool
		n        Vec
		count    int32
		sep      float32
		pointsOn float32 // the points' x (for a face contact along x)
	}{
		{"overlap along x", Vec{3.8, 0.5}, 0, 0, true, Vec{1, 0}, 2, -0.2, 1.9},
		{"overlap along y", Vec{0.3, 1.8}, 0, 0, true, Vec{0, 1}, 2, -0.2, 0},
		{"apart", Vec{4.5, 0}, 0, 0.1, false, Vec{}, 0, 0, 0},
		{"apart within margin", Vec{4.05, 0}, 0, 0.1, true, Vec{1, 0}, 2, 0.05, 2.025},
		{"square's corner into face", Vec{2 + math32.Sqrt2 - 0.1, 0}, math32.Pi / 4, 0, true, Vec{1, 0}, 1, -0.1, 1.95},
	} {
		t.Run(tc.name, func(t *testing.T) {
			va, na := box(Vec{}, 0, 2)
			hx := float32(2)
			if tc.yawB != 0 {
				hx = 1 // a square on its corner
			}
			vb, nb := box(tc.cb, tc.yawB, hx)
			m, ok := collidePolygons(va[:], na[:], vb[:], nb[:], tc.margin)
			if ok != tc.ok {
				t.Fatalf("ok %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			if !near(m.n, tc.n) || m.count != tc.count {
				t.Fatalf("normal %v count %d, want %v %d", m.n, m.count, tc.n, tc.count)
			}
			for k := int32(0); k < m.count; k++ {
				if abs32(m.sep[k]-tc.sep) > 1e-4 {
					t.Errorf("point %d separation %v, want %v", k, m.sep[k], tc.sep)
				}
				if tc.n.X != 0 && abs32(m.p[k].X-tc.pointsOn) > 1e-4 {
					t.Errorf("point %d at %v, want x %v", k, m.p[k], tc.pointsOn)
				}
			}
			// Swapping the boxes flips the normal and keeps the depth.
			m2, ok2 := collidePolygons(vb[:], nb[:], va[:], na[:], tc.margin)
			if !ok2 || !near(m2.n, m.n.Scale(-1)) || abs32(m2.sep[0]-m.sep[0]) > 1e-4 {
				t.Errorf("swapped: %+v, want the normal flipped", m2)
			}
		})
	}
}

func TestCollideCircles(t *testing.T) {
	va, na := box(Vec{}, 0, 2)
	for _, tc := range []struct {
		name string
		c    Vec
		ok   bool
		n    Vec
		sep  float32
	}{
		{"on the long face", Vec{0.5, 1.3}, true, Vec{0, 1}, -0.2},
		{"on the end", Vec{-2.3, 0}, true, Vec{-1, 0}, -0.2},
		{"at a corner", Vec{2 + 0.3, 1 + 0.3}, true, Vec{math32.Sqrt2 / 2, math32.Sqrt2 / 2}, 0.3*math32.Sqrt2 - 0.5},
		{"clear of a corner", Vec{2.4, 1.4}, false, Vec{}, 0},
		{"centre inside", Vec{1.5, 0.2}, true, Vec{1, 0}, -1},
	} {
		m, ok := collidePolygonCircle(va[:], na[:], tc.c, 0.5, 0)
		if ok != tc.ok {
			t.Errorf("%s: ok %v, want %v", tc.name, ok, tc.ok)
			continue
		}
		if ok && (!near(m.n, tc.n) || abs32(m.sep[0]-tc.sep) > 1e-4) {
			t.Errorf("%s: normal %v sep %v, want %v %v", tc.name, m.n, m.sep[0], tc.n, tc.sep)
		}
	}
	m, ok := collideCircles(Vec{1, 1}, 0.5, Vec{1.6, 1.8}, 0.5, 0)
	if !ok || !near(m.n, Vec{0.6, 0.8}) || abs32(m.sep[0]-0) > 1e-5 || !near(m.p[0], Vec{1.3, 1.4}) {
		t.Errorf("circles: %+v %v", m, ok)
	}
	if _, ok := collideCircles(Vec{}, 0.5, Vec{1.2, 0}, 0.5, 0.1); ok {
		t.Error("circles 0.2 apart collide with a margin of 0.1")
	}
	if m, ok := collideCircles(Vec{3, 3}, 0.5, Vec{3, 3}, 0.5, 0); !ok || m.n.Len() < 0.999 {
		t.Errorf("coincident circles: %+v %v, want a unit normal", m, ok)
	}
}

func TestCollideWall(t *testing.T) {
	v, _ := box(Vec{9, 5}, 0.3, 2)
	m, ok := collideWall(Vec{1, 0}, 10, false, Vec{}, 0, &v, 0)
	if !ok || m.count != 2 {
		t.Fatalf("box against x=10: %+v %v", m, ok)
	}
	for k := int32(0); k < 2; k++ {
		if m.sep[k] >= 0 {
			t.Errorf("point %d separation %v, want the two corners past the wall", k, m.sep[k])
		}
	}
	if m.sep[0] == m.sep[1] {
		t.Errorf("kept equal depths %v, want the two deepest corners", m.sep)
	}
	if _, ok := collideWall(Vec{0, -1}, 0, true, Vec{5, 0.6}, 0.5, nil, 0.05); ok {
		t.Error("a circle 0.1 clear of y=0 touches it")
	}
}

func TestBranchFreeMath(t *testing.T) {
	vals := []float32{0, -0.0, 1, -1, 1e8, -1e8, 1e-30, -1e-30, 3.5, -2.25, math32.MaxFloat32, -math32.MaxFloat32}
	for _, a := range vals {
		if got, want := abs32(a), math32.Abs(a); math32.Float32bits(got) != math32.Float32bits(want) {
			t.Errorf("abs32(%v) = %v", a, got)
		}
		if got := neg0(a); got != math32.Min(a, 0) {
			t.Errorf("neg0(%v) = %v", a, got)
		}
		if got := pos0(a); got != math32.Max(a, 0) {
			t.Errorf("pos0(%v) = %v", a, got)
		}
		for _, b := range vals {
			if got := min32(a, b); got != math32.Min(a, b) {
				t.Errorf("min32(%v, %v) = %v", a, b, got)
			}
			if got := max32(a, b); got != math32.Max(a, b) {
				t.Errorf("max32(%v, %v) = %v", a, b, got)
			}
		}
	}
}

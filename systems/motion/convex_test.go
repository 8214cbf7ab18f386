package motion

import (
	"testing"

	"github.com/fiveonit/engine/levels"
	phys "github.com/fiveonit/engine/physics"
)

func TestConvexParts(t *testing.T) {
	v := func(xy ...float32) []phys.Vec {
		var out []phys.Vec
		for i := 0; i < len(xy); i += 2 {
			out = append(out, phys.Vec{X: xy[i], Y: xy[i+1]})
		}
		return out
	}
	cases := []struct {
		name  string
		poly  []phys.Vec
		parts int
		area  float32
	}{
		{"square", v(0, 0, 2, 0, 2, 2, 0, 2), 1, 4},
		{"square clockwise", v(0, 0, 0, 2, 2, 2, 2, 0), 1, 4},
		{"L", v(0, 0, 4, 0, 4, 2, 2, 2, 2, 4, 0, 4), 2, 12},
		{"U", v(0, 0, 6, 0, 6, 4, 4, 4, 4, 2, 2, 2, 2, 4, 0, 4), 3, 20},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			parts := convexParts(c.poly)
			var area float32
			for _, p := range parts {
				if !convex(p) || area2(p) <= 0 {
					t.Fatalf("part %v is not convex counter-clockwise", p)
				}
				area += area2(p) / 2
			}
			if len(parts) > c.parts || area != c.area {
				t.Fatalf("%d parts of area %v, want at most %d of %v", len(parts), area, c.parts, c.area)
			}
		})
	}
}

func TestBakeEveryLevel(t *testing.T) {
	for _, name := range levels.Names() {
		l, err := levels.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		st, err := BakeLevel(l)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// Every building's inside is taken.
		for _, b := range l.Buildings {
			var c levels.Vec2
			for _, p := range b.Footprint {
				c = c.Add(p)
			}
			c = c.Scale(1 / float32(len(b.Footprint)))
			if levels.PointInPolygon(c, b.Footprint) && !st.Overlaps(phys.Vec{X: c.X, Y: c.Y}, 0.1) {
				t.Fatalf("%s: building %s's inside is free", name, b.ID)
			}
		}
	}
}

package motion

import phys "github.com/fiveonit/engine/physics"

// convexParts cuts a simple polygon (either winding) into convex pieces,
// counter-clockwise: ear clipping into triangles, then Hertel-Mehlhorn,
// which removes each diagonal whose two sides stay convex together. A
// convex polygon comes back whole. It is for baking a level, once: it
// allocates freely.
func convexParts(pts []phys.Vec) [][]phys.Vec {
	n := len(pts)
	if n < 3 {
		return nil
	}
	p := append([]phys.Vec(nil), pts...)
	if area2(p) < 0 {
		for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
			p[i], p[j] = p[j], p[i]
		}
	}
	if convex(p) {
		return [][]phys.Vec{p}
	}
	parts := triangulate(p)
	for merged := true; merged; {
		merged = false
		for i := 0; i < len(parts) && !merged; i++ {
			for j := i + 1; j < len(parts) && !merged; j++ {
				if m, ok := join(parts[i], parts[j]); ok && convex(m) {
					parts[i] = m
					parts = append(parts[:j], parts[j+1:]...)
					merged = true
				}
			}
		}
	}
	return parts
}

func area2(p []phys.Vec) float32 {
	var a float32
	for i := range p {
		q := p[(i+1)%len(p)]
		a += p[i].X*q.Y - q.X*p[i].Y
	}
	return a
}

func cross(o, a, b phys.Vec) float32 { return a.Sub(o).Cross(b.Sub(o)) }

// convex reports whether counter-clockwise p turns left (or goes straight)
// at every corner.
func convex(p []phys.Vec) bool {
	n := len(p)
	for i := range p {
		if cross(p[i], p[(i+1)%n], p[(i+2)%n]) < 0 {
			return false
		}
	}
	return true
}

// triangulate clips ears off counter-clockwise p.
func triangulate(p []phys.Vec) [][]phys.Vec {
	idx := make([]int, len(p))
	for i := range idx {
		idx[i] = i
	}
	var tris [][]phys.Vec
	for guard := 0; len(idx) > 3 && guard < len(p)*len(p); guard++ {
		for k := range idx {
			a, b, c := p[idx[(k+len(idx)-1)%len(idx)]], p[idx[k]], p[idx[(k+1)%len(idx)]]
			if cross(a, b, c) <= 0 || anyInside(p, idx, a, b, c) {
				continue
			}
			tris = append(tris, []phys.Vec{a, b, c})
			idx = append(idx[:k], idx[k+1:]...)
			break
		}
	}
	if len(idx) == 3 {
		tris = append(tris, []phys.Vec{p[idx[0]], p[idx[1]], p[idx[2]]})
	}
	return tris
}

func anyInside(p []phys.Vec, idx []int, a, b, c phys.Vec) bool {
	for _, i := range idx {
		q := p[i]
		if q == a || q == b || q == c {
			continue
		}
		if cross(a, b, q) >= 0 && cross(b, c, q) >= 0 && cross(c, a, q) >= 0 {
			return true
		}
	}
	return false
}

// join merges two counter-clockwise polygons that share an edge (a to b in
// one, b to a in the other) into one, and reports whether they did.
func join(s, t []phys.Vec) ([]phys.Vec, bool) {
	for i := range s {
		a, b := s[i], s[(i+1)%len(s)]
		for j := range t {
			if t[j] != b || t[(j+1)%len(t)] != a {
				continue
			}
			// s from b round to a, then t from a round to b (exclusive).
			out := make([]phys.Vec, 0, len(s)+len(t)-2)
			for k := 1; k <= len(s); k++ {
				out = append(out, s[(i+k)%len(s)])
			}
			for k := 2; k < len(t); k++ {
				out = append(out, t[(j+k)%len(t)])
			}
			return out, true
		}
	}
	return nil, false
}

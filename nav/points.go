package nav

import phys "github.com/fiveonit/engine/physics"

// Points is a set of ground points gathered at most once a tick (where the
// bodies are, where the players are), to ask whether a spot has one near
// it. The zero value is empty and stale. It keeps its buffer: a steady
// state allocates nothing.
type Points struct {
	pts []phys.Vec
	at  uint64 // the tick gathered, +1; 0 when stale
}

// Stale reports whether the set must be gathered for tick. If so it empties
// the set and counts it gathered: the caller then Adds every point.
func (p *Points) Stale(tick uint64) bool {
	if p.at == tick+1 {
		return false
	}
	p.at = tick + 1
	p.pts = p.pts[:0]
	return true
}

// Invalidate makes the set stale: something moved since it was gathered.
func (p *Points) Invalidate() { p.at = 0 }

// Add adds a point.
func (p *Points) Add(v phys.Vec) { p.pts = append(p.pts, v) }

// Near reports whether a point lies closer than r to c.
func (p *Points) Near(c phys.Vec, r float32) bool {
	for _, v := range p.pts {
		d := v.Sub(c)
		if d.Dot(d) < r*r {
			return true
		}
	}
	return false
}

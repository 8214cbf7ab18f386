package levels

import (
	"fmt"
	"math"
)

// MinRaceGates is the fewest gates a race has: a start and a finish.
const MinRaceGates = 2

// Race is a named route through race gates (checkpoints), driven in the
// order of Gates. A mission runs the race: who takes part, the laps, the
// time.
type Race struct {
	// ID names the race among all of the level's string ids.
	ID string `json:"id"`
	// Loop makes the route a circuit: the last gate leads back to the
	// first, for races of more than one lap.
	Loop bool `json:"loop,omitempty"`
	// Gates are the race's gates in the order they are driven: the first
	// is the start, the last the finish (of a lap, on a Loop).
	Gates []RaceGate `json:"gates"`
}

// RaceGate is a checkpoint: a line across the road, Width wide, centred on
// Pos, that a car drives through heading Yaw.
type RaceGate struct {
	// ID names the gate among all of the level's string ids.
	ID string `json:"id"`
	// Pos is the centre of the gate's line, in metres; never inside a
	// building.
	Pos Vec2 `json:"pos"`
	// Yaw is the heading of a car driving through it, in radians; the
	// line spans Width across that heading.
	Yaw float32 `json:"yaw"`
	// Width is the line's length across the road, in metres, > 0.
	Width float32 `json:"width"`
}

// Ends returns the ends of g's line: the left one, seen driving through it,
// then the right one.
func (g *RaceGate) Ends() (left, right Vec2) {
	fwd := Vec2{cos32(g.Yaw), sin32(g.Yaw)}
	half := fwd.Right().Scale(g.Width / 2)
	return g.Pos.Sub(half), g.Pos.Add(half)
}

// Crossed reports whether something that moved from a to b in one step went
// through g: across its line, between its ends, the way it faces. Coming
// back through it the wrong way does not count, nor does touching the line
// without going over.
func (g *RaceGate) Crossed(a, b Vec2) bool {
	fwd := Vec2{cos32(g.Yaw), sin32(g.Yaw)}
	da, db := a.Sub(g.Pos).Dot(fwd), b.Sub(g.Pos).Dot(fwd)
	if !(da < 0 && db >= 0) {
		return false
	}
	// Where the step meets the line, across the heading.
	t := da / (da - db)
	p := a.Add(b.Sub(a).Scale(t))
	side := p.Sub(g.Pos).Dot(fwd.Right())
	return side >= -g.Width/2 && side <= g.Width/2
}

// Race returns the race with the given id.
func (l *Level) Race(id string) (*Race, bool) {
	for i := range l.Races {
		if l.Races[i].ID == id {
			return &l.Races[i], true
		}
	}
	return nil, false
}

// races checks the races and their gates.
func (v *validator) races() {
	for i := range v.l.Races {
		r := &v.l.Races[i]
		p := fmt.Sprintf("races[%d]", i)
		v.id(p+".id", r.ID)
		if len(r.Gates) < MinRaceGates {
			v.fail(p+".gates", "must have at least %d gates, got %d", MinRaceGates, len(r.Gates))
		}
		for k := range r.Gates {
			g := &r.Gates[k]
			gp := fmt.Sprintf("%s.gates[%d]", p, k)
			v.id(gp+".id", g.ID)
			v.clearPoint(gp+".pos", g.Pos)
			v.yaw(gp+".yaw", g.Yaw)
			v.positive(gp+".width", g.Width, MaxGateWidth, "m")
			if v.err == nil && k > 0 && g.Pos == r.Gates[k-1].Pos {
				v.fail(gp+".pos", "lies where the gate before it does")
			}
			if v.err != nil {
				return
			}
		}
		if v.err != nil {
			return
		}
	}
}

// cos32 and sin32 are math's, which are Go code on every machine (no
// assembly), so they give the same float32 everywhere.
func cos32(x float32) float32 { return float32(math.Cos(float64(x))) }
func sin32(x float32) float32 { return float32(math.Sin(float64(x))) }

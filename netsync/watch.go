package netsync

import (
	"math"

	"github.com/fiveonit/engine/internal/headroom"
)

// watchMargin is how far inside and outside the edge of its area of
// interest an encoder takes the entities it watches for newcomers
// (newcomers). Any other entity not held is farther out than that, so only
// a watched one can come in until the centre's travel and the entities'
// steps add up to the margin. Then the watch is taken again from the cells
// of the grid about the edge. A wider margin gives each frame more
// entities to look at, a narrower one more retakes. 8 m measured best on
// the peer trace, where the centre moves about 0.4 m per frame and the
// fastest entity 0.7 m per tick.
const watchMargin float32 = 8

// watchEnt is an entity watched for newcomers. It cannot be within
// in.Enter before watchUsed reaches need: its distance beyond in.Enter
// when it was watched, plus watchUsed then.
type watchEnt struct {
	need float32
	wid  uint16
}

// newcomers adds the entities that came within in.Enter by a step, theirs
// or the centre's. On a frame that looks at everything they come from
// every cell of the area. Otherwise they come from the watch, which is
// taken again from a ring of cells about the edge once the steps since it
// was taken have used its margin up. reach is this frame's part of those
// steps: the centre's step and the entities' longest steps since the last
// frame.
//
// Why the watch holds every newcomer: when it is taken, every entity not
// held stands farther than in.Enter from the centre, and those not farther
// than in.Enter + watchMargin are watched. While the centre's travel and
// the longest steps add up to less than watchMargin, one that stood farther
// cannot have come within in.Enter. An entity held then stays held, leaves
// beyond in.Leave and is watched from then on (watchLeft), or goes and
// comes back as a new life, which the log lists. An entity the log lists
// for a jump, a new life or a switch of Always is watched from then on,
// unless it stands farther still.
func (s *clientState) newcomers(all bool, reach float64) {
	a := s.arena
	g := &a.grid
	enter := s.in.Enter
	if all {
		s.watch, s.watchUsed = s.watch[:0], math.Inf(1) // the next frame takes it
		s.spans = g.cells(s.cx, s.cy, enter, 0, s.spans)
		for _, sp := range s.spans {
			for _, ge := range g.spanEntries(sp) {
				dx, dy := ge.x-s.cx, ge.y-s.cy
				if d2 := dx*dx + dy*dy; d2 <= s.enter2 && !s.held(ge.wid) {
					s.whole(ge.wid, false, d2)
				}
			}
		}
		return
	}
	s.watchUsed += reach
	if s.watchUsed < float64(watchMargin-slackEpsilon) {
		// The entities that may have come in by now.
		used := float32(s.watchUsed)
		hot := a.hot
		for i := range s.watch {
			w := &s.watch[i]
			if used < w.need || s.held(w.wid) {
				continue
			}
			h := &hot[w.wid]
			if h.state&hfState != stPresent {
				continue // gone, or sent to everyone
			}
			dx, dy := h.x-s.cx, h.y-s.cy
			if d2 := dx*dx + dy*dy; d2 <= s.enter2 {
				s.whole(w.wid, false, d2)
			}
		}
		return
	}
	// Take the watch again, from reach inside the edge, where this frame's
	// newcomers stand, to watchMargin outside it. Every entity farther in
	// was held already.
	inner := max(enter-float32(reach)-slackEpsilon, 0)
	outer := enter + watchMargin + slackEpsilon
	in2, out2 := inner*inner, outer*outer
	s.watch, s.watchUsed = s.watch[:0], 0
	s.spans = g.cells(s.cx, s.cy, outer, inner, s.spans)
	for _, sp := range s.spans {
		for _, ge := range g.spanEntries(sp) {
			dx, dy := ge.x-s.cx, ge.y-s.cy
			d2 := dx*dx + dy*dy
			switch {
			case d2 < in2 || d2 > out2:
			case d2 > s.enter2:
				s.watch = append(headroom.Ahead(s.watch, 1), watchEnt{need: float32(math.Sqrt(float64(d2))) - enter - slackEpsilon, wid: ge.wid})
			case !s.held(ge.wid):
				s.whole(ge.wid, false, d2)
			}
		}
	}
}

// watchLeft watches wid, which stands at squared distance d2 beyond
// in.Enter, watchable, and is not held: it left the area of interest, or
// the log lists it. It may come in while the watch holds.
func (s *clientState) watchLeft(wid uint16, d2 float32) {
	need := float32(math.Sqrt(float64(d2))) - s.in.Enter + float32(s.watchUsed) - slackEpsilon
	s.watch = append(headroom.Ahead(s.watch, 1), watchEnt{need: need, wid: wid})
}

// watchable reports whether an entity not held at squared distance d2 could
// come within in.Enter before the watch is taken again: whether its need
// (watchLeft) is below watchMargin, all the watch can use up. One farther
// is no newcomer until then, as the retake finds it if it comes near, and
// watching it would only lengthen every frame's look at the watch.
func (s *clientState) watchable(d2 float32) bool {
	r := s.in.Enter + watchMargin + slackEpsilon - float32(s.watchUsed) // a hair generous
	return r > 0 && d2 < r*r
}

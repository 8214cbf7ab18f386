package client

import (
	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/netsync/wire"
)

// sample is one measured pose of a remote entity.
type sample struct {
	tick uint32
	pos  wire.Vec3
	rot  wire.Quat
}

// track is an entity's last few measured poses, newest last.
type track struct {
	s [4]sample
	n int
}

func (t *track) push(s sample) {
	if t.n > 0 && t.s[t.n-1].tick >= s.tick {
		t.s[t.n-1] = s // the same tick again (or older): keep the newest
		return
	}
	if t.n == len(t.s) {
		copy(t.s[:], t.s[1:])
		t.n--
	}
	t.s[t.n] = s
	t.n++
}

// remotes keeps the tracks of every entity held, for interpolation.
type remotes struct {
	tracks map[uint16]*track
	latest uint32
	ent    wire.Entity
}

func (r *remotes) record(st *wire.Store, df *wire.DecodedFrame) {
	if r.tracks == nil {
		r.tracks = map[uint16]*track{}
	}
	r.latest = df.Tick
	if isKeyframe(df) {
		clear(r.tracks)
	}
	for _, rm := range df.Removed {
		delete(r.tracks, rm.EID)
	}
	for _, m := range df.Measured {
		h := st.Get(m.EID)
		if h == nil {
			continue
		}
		h.Rec.Decode(&r.ent, h.PoseFull)
		t := r.tracks[m.EID]
		if t == nil {
			t = &track{}
			r.tracks[m.EID] = t
		}
		t.push(sample{m.Tick, r.ent.Pos, r.ent.Rot})
	}
}

// at returns the pose of eid at tick (fractional), interpolated between
// the two samples around it; before the first, the first; after the last,
// the last (an entity at rest holds its pose exactly).
func (r *remotes) at(eid uint16, tick float64) (wire.Vec3, wire.Quat, bool) {
	t := r.tracks[eid]
	if t == nil || t.n == 0 {
		return wire.Vec3{}, wire.Quat{}, false
	}
	if tick <= float64(t.s[0].tick) {
		return t.s[0].pos, t.s[0].rot, true
	}
	for i := 1; i < t.n; i++ {
		a, b := &t.s[i-1], &t.s[i]
		if tick <= float64(b.tick) {
			f := float32((tick - float64(a.tick)) / float64(b.tick-a.tick))
			return lerp3(a.pos, b.pos, f), nlerp(a.rot, b.rot, f), true
		}
	}
	last := &t.s[t.n-1]
	return last.pos, last.rot, true
}

func lerp3(a, b wire.Vec3, f float32) wire.Vec3 {
	return wire.Vec3{X: a.X + (b.X-a.X)*f, Y: a.Y + (b.Y-a.Y)*f, Z: a.Z + (b.Z-a.Z)*f}
}

// nlerp blends two rotations along the shorter way and renormalizes.
func nlerp(a, b wire.Quat, f float32) wire.Quat {
	if a.X*b.X+a.Y*b.Y+a.Z*b.Z+a.W*b.W < 0 {
		b = wire.Quat{X: -b.X, Y: -b.Y, Z: -b.Z, W: -b.W}
	}
	q := wire.Quat{X: a.X + (b.X-a.X)*f, Y: a.Y + (b.Y-a.Y)*f, Z: a.Z + (b.Z-a.Z)*f, W: a.W + (b.W-a.W)*f}
	n := math32.Sqrt(q.X*q.X + q.Y*q.Y + q.Z*q.Z + q.W*q.W)
	if n == 0 {
		return a
	}
	return wire.Quat{X: q.X / n, Y: q.Y / n, Z: q.Z / n, W: q.W / n}
}

// Visible is one entity as the client draws it.
type Visible struct {
	EID uint16
	wire.Entity
	// Predicted is set for the own body (its pose is the prediction).
	Predicted bool
}

// View appends every entity the client holds to out, as drawn at client
// time: remote entities InterpDelayTicks behind the newest snapshot,
// interpolated; the own body predicted, as Drawn.
func (c *Client) View(out []Visible) []Visible {
	st := c.dec.Store()
	render := float64(c.remote.latest) - InterpDelayTicks
	for i := 0; i < st.Slots(); i++ {
		eid := st.Owner(i)
		if eid == 0 {
			continue
		}
		h := st.At(i)
		v := Visible{EID: eid}
		h.Rec.Decode(&v.Entity, h.PoseFull)
		switch {
		case eid == c.pred.wid:
			_, drawn, _ := c.Drawn()
			v.Pos, v.Rot = wire.Vec3(drawn.Pos), wire.Quat(drawn.Rot)
			v.Lin = wire.Vec3(c.pred.vel.Lin)
			v.Predicted = true
		default:
			if p, q, ok := c.remote.at(eid, render); ok {
				v.Pos, v.Rot = p, q
			}
		}
		out = append(out, v)
	}
	return out
}

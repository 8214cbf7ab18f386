package client

import (
	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/netsync/wire"
	phys "github.com/fiveonit/engine/physics"
)

// Remote entities are drawn on a render clock InterpDelayTicks behind the
// newest snapshot, which the client ticks on: interpolated between the
// two poses measured around it. A far entity's pose comes every 2, 4 or 8
// snapshots (its tier: wire.TierEvery), so the render clock runs past its
// newest pose between two; it is then drawn on from that pose at the
// velocity measured with it, for up to MaxExtrapolate ticks. When the next
// pose comes and the entity is not where it was drawn (it turned, it
// braked), the drawn pose eases to the new one as the own body's does
// (SmoothKeep a tick, at most MaxDrawnStep), unless the error is over
// TeleportDist. At rest a pose is exact until the next: the entity stands.

// MaxExtrapolate is how far past its newest pose (ticks) an entity is
// drawn on at its velocity: 30 ticks, longer than the farthest tier's
// interval (24) and a lost snapshot.
const MaxExtrapolate = 30

// ClockSteer is the part of the render clock's error made up at each
// snapshot: a snapshot late or early by jitter moves the clock a little,
// so that it never jumps; a clock over RenderSnap ticks off snaps.
const (
	ClockSteer = 0.1
	RenderSnap = 30
)

// sample is one measured pose of a remote entity.
type sample struct {
	tick uint32
	pos  wire.Vec3
	rot  wire.Quat
	lin  wire.Vec3
	spin float32 // rad/s about Z
}

// track is an entity's last few measured poses, newest last, and the
// error of its drawn pose easing out.
type track struct {
	s     [4]sample
	n     int
	off   wire.Vec3
	turn  float32 // the drawn heading less the track's, radians
	eased uint64  // the render tick it was last eased at
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

// remotes keeps the tracks of every entity held, and the render clock.
// The tracks are dense, as many as the entities held; slot finds an id's.
// A server gives ids round its whole space, so a table by id would grow
// as long as a world churns: this one grows only with what is held.
type remotes struct {
	slot   []uint16 // by wire id: its track's index in tracks, 0 for none
	tracks []track  // tracks[0] is unused
	free   []uint16 // indexes of tracks let go, to reuse
	easing []uint16 // the ids whose drawn error is easing out
	latest uint32
	render float64 // the render clock, in server ticks
	clock  bool    // the render clock has started
	ticks  uint64  // client ticks the clock ran
	ent    wire.Entity
}

// get returns eid's track, taking one for it when it has none.
func (r *remotes) get(eid uint16) *track {
	if r.slot == nil {
		r.slot = make([]uint16, 1<<16)
		r.tracks = make([]track, 1, 256)
		r.free = make([]uint16, 0, 256)
	}
	i := r.slot[eid]
	if i == 0 {
		if n := len(r.free); n > 0 {
			i, r.free = r.free[n-1], r.free[:n-1]
		} else {
			i = uint16(len(r.tracks))
			r.tracks = append(r.tracks, track{})
		}
		r.slot[eid] = i
		r.tracks[i] = track{}
	}
	return &r.tracks[i]
}

// forget lets every track go; the tables keep their room.
func (r *remotes) forget() {
	clear(r.slot)
	if len(r.tracks) > 0 {
		r.tracks = r.tracks[:1]
	}
	r.free = r.free[:0]
	r.easing = r.easing[:0]
}

// drop lets eid's track go.
func (r *remotes) drop(eid uint16) {
	if r.slot == nil || r.slot[eid] == 0 {
		return
	}
	r.free = append(r.free, r.slot[eid])
	r.slot[eid] = 0
}

// track returns eid's track, nil when it has none.
func (r *remotes) track(eid uint16) *track {
	if r.slot == nil || r.slot[eid] == 0 {
		return nil
	}
	return &r.tracks[r.slot[eid]]
}

func (r *remotes) record(st *wire.Store, df *wire.DecodedFrame) {
	r.latest = df.Tick
	if target := float64(df.Tick) - InterpDelayTicks; !r.clock || math32.Abs(float32(target-r.render)) > RenderSnap {
		r.render, r.clock = target, true
	} else {
		r.render += (target - r.render) * ClockSteer
	}
	if isKeyframe(df) {
		r.forget()
	}
	for _, rm := range df.Removed {
		r.drop(rm.EID)
	}
	for _, m := range df.Measured {
		h := st.Get(m.EID)
		if h == nil {
			continue
		}
		h.Rec.Decode(&r.ent, h.PoseFull)
		t := r.get(m.EID)
		before, brot, drawn := t.at(r.render)
		t.push(sample{m.Tick, r.ent.Pos, r.ent.Rot, r.ent.Lin, r.ent.Ang.Z})
		if !drawn {
			continue
		}
		// Where it was drawn stays drawn: the error eases out.
		after, arot, _ := t.at(r.render)
		off := add3w(t.off, sub3w(before, after))
		if lenw(off) > TeleportDist {
			t.off, t.turn = wire.Vec3{}, 0
			continue
		}
		wasEasing := t.off != (wire.Vec3{}) || t.turn != 0
		t.off = off
		t.turn = wrapAngle(t.turn + yawOfQ(brot) - yawOfQ(arot))
		if !wasEasing && (t.off != (wire.Vec3{}) || t.turn != 0) {
			r.easing = append(r.easing, m.EID)
		}
	}
}

// viewTick returns the server tick the render clock shows, to the
// nearest: the world drawn, whose tick an input carries for the lag
// compensation of its shots. It is 0 before the clock has started.
func (r *remotes) viewTick() uint32 {
	if !r.clock || r.render < 1 {
		return 0
	}
	return uint32(r.render + 0.5)
}

// tick moves the render clock on a tick and eases the tracks' errors.
func (r *remotes) tick() {
	if !r.clock {
		return
	}
	r.render++
	r.ticks++
	k := 0
	for _, eid := range r.easing {
		t := r.track(eid)
		if t == nil || t.off == (wire.Vec3{}) && t.turn == 0 || t.eased == r.ticks {
			continue // gone, reset, or listed twice
		}
		t.eased = r.ticks
		t.off = scalew(t.off, eased(lenw(t.off), MaxDrawnStep))
		t.turn *= eased(math32.Abs(t.turn), MaxDrawnTurn)
		if t.off != (wire.Vec3{}) || t.turn != 0 {
			r.easing[k] = eid
			k++
		}
	}
	r.easing = r.easing[:k]
}

// at returns the track's pose at tick (fractional): interpolated between
// the two samples around it; before the first, the first; after the last,
// on from it at its velocity for up to MaxExtrapolate ticks. ok is false
// for a track with no sample. The drawn error is not in it.
func (t *track) at(tick float64) (wire.Vec3, wire.Quat, bool) {
	if t.n == 0 {
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
	dt := float32(min(tick-float64(last.tick), MaxExtrapolate)) * phys.Dt
	pos := wire.Vec3{X: last.pos.X + last.lin.X*dt, Y: last.pos.Y + last.lin.Y*dt, Z: last.pos.Z}
	rot := last.rot
	if last.spin != 0 {
		rot = turnQ(rot, last.spin*dt)
	}
	return pos, rot, true
}

// drawnAt returns the track's pose as drawn at tick: at, with the error
// easing out.
func (t *track) drawnAt(tick float64) (wire.Vec3, wire.Quat, bool) {
	p, q, ok := t.at(tick)
	if !ok {
		return p, q, false
	}
	if t.turn != 0 {
		q = turnQ(q, t.turn)
	}
	return add3w(p, t.off), q, true
}

// at returns the pose of eid drawn at tick, and false when the client
// holds no measured pose of it.
func (r *remotes) at(eid uint16, tick float64) (wire.Vec3, wire.Quat, bool) {
	t := r.track(eid)
	if t == nil {
		return wire.Vec3{}, wire.Quat{}, false
	}
	return t.drawnAt(tick)
}

func lerp3(a, b wire.Vec3, f float32) wire.Vec3 {
	return wire.Vec3{X: a.X + (b.X-a.X)*f, Y: a.Y + (b.Y-a.Y)*f, Z: a.Z + (b.Z-a.Z)*f}
}

func add3w(a, b wire.Vec3) wire.Vec3 { return wire.Vec3{X: a.X + b.X, Y: a.Y + b.Y, Z: a.Z + b.Z} }
func sub3w(a, b wire.Vec3) wire.Vec3 { return wire.Vec3{X: a.X - b.X, Y: a.Y - b.Y, Z: a.Z - b.Z} }
func scalew(a wire.Vec3, f float32) wire.Vec3 {
	return wire.Vec3{X: a.X * f, Y: a.Y * f, Z: a.Z * f}
}
func lenw(a wire.Vec3) float32 { return math32.Sqrt(a.X*a.X + a.Y*a.Y + a.Z*a.Z) }

// turnQ turns q by a radians about Z.
func turnQ(q wire.Quat, a float32) wire.Quat {
	s, c := math32.Sincos(a / 2)
	return wire.Quat{X: c*q.X - s*q.Y, Y: c*q.Y + s*q.X, Z: c*q.Z + s*q.W, W: c*q.W - s*q.Z}
}

// yawOfQ returns the heading of a rotation about Z.
func yawOfQ(q wire.Quat) float32 { return 2 * math32.Atan2(q.Z, q.W) }

// wrapAngle brings a into (-π, π].
func wrapAngle(a float32) float32 { return math32.Remainder(a, 2*math32.Pi) }

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
// time: remote entities on the render clock, InterpDelayTicks behind the
// newest snapshot, interpolated (or drawn on at their velocity past their
// newest pose); the own body predicted, as Drawn.
func (c *Client) View(out []Visible) []Visible {
	st := c.dec.Store()
	render := c.remote.render
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
		case eid == c.pred.tow.wid:
			// The own trailer, predicted with its car and drawn with
			// the car's error easing, so that the two stay hitched.
			t := &c.pred.tow
			v.Pos, v.Rot = wire.Vec3(add3(t.pose.Pos, c.smooth.off)), wire.Quat(t.pose.Rot)
			v.Lin = wire.Vec3(t.vel.Lin)
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

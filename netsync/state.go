package netsync

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/fiveonit/engine/netsync/wire"
)

// Interest says which entities a client gets and how often their poses come.
type Interest struct {
	// Enter is the radius within which an entity comes into the client's
	// snapshots, Leave the one beyond which it leaves them (Leave >= Enter:
	// hysteresis).
	Enter, Leave float32
	// TierRadius are the distances where tiers 0, 1 and 2 end.
	TierRadius [wire.TierCount - 1]float32
	// TierHysteresis is how far past a tier's edge an entity goes before
	// its tier changes.
	TierHysteresis float32

	enter2, leave2 float32
	r2, out2, in2  [wire.TierCount - 1]float32 // squared edges; to go farther, nearer
}

// DefaultInterest returns the game's interest: wire.AOIRadius,
// wire.AOILeaveRadius, wire.TierRadius and wire.TierHysteresis.
func DefaultInterest() Interest {
	return Interest{Enter: wire.AOIRadius, Leave: wire.AOILeaveRadius, TierRadius: wire.TierRadius, TierHysteresis: wire.TierHysteresis}
}

// InterestFor returns an interest of radius r with the game's proportions:
// leave at 1.1 r, tiers ending at 0.2 r, 0.4 r and 0.7 r.
func InterestFor(r float32) Interest {
	k := r / wire.AOIRadius
	return Interest{
		Enter: r, Leave: wire.AOILeaveRadius * k,
		TierRadius:     [3]float32{wire.TierRadius[0] * k, wire.TierRadius[1] * k, wire.TierRadius[2] * k},
		TierHysteresis: wire.TierHysteresis * k,
	}
}

func (in *Interest) prepare() {
	in.enter2 = in.Enter * in.Enter
	in.leave2 = max(in.Leave, in.Enter) * max(in.Leave, in.Enter)
	for i, r := range in.TierRadius {
		in.r2[i] = r * r
		in.out2[i] = (r + in.TierHysteresis) * (r + in.TierHysteresis)
		lo := max(r-in.TierHysteresis, 0)
		in.in2[i] = lo * lo
	}
}

// tier returns the tier at squared distance d2 for an entity now in tier
// held (held > 3: none yet, no hysteresis).
func (in *Interest) tier(d2 float32, held uint8) uint8 {
	// Without branches: the tiers of the entities a client holds are
	// mixed, so a branch on each edge is a guess often wrong.
	t := b2u(d2 > in.r2[0]) + b2u(d2 > in.r2[1]) + b2u(d2 > in.r2[2])
	switch {
	case t == held || held >= wire.TierCount:
	case t > held && d2 <= in.out2[held]:
		t = held // not far enough past held's outer edge
	case t < held && d2 >= in.in2[held-1]:
		t = held // not far enough inside held's inner edge
	}
	return t
}

func b2u(b bool) uint8 {
	var u uint8
	if b {
		u = 1
	}
	return u
}

// View is one client's side of a frame: where its area of interest is
// centred and which entities are its own.
type View struct {
	// Center is the client's character position (or any point, for a
	// spectator); only X and Y count.
	Center wire.Vec3
	// Own are the client's character, car and trailer (0 for none): they
	// come with their full pose, every frame they change, to any
	// distance.
	Own [3]uint16
	// LastSeq is the last input of the client the server ran;
	// InputBuffer the inputs waiting in its queue.
	LastSeq     uint32
	InputBuffer uint8
}

func (v *View) owns(wid uint16) bool {
	return wid != 0 && (wid == v.Own[0] || wid == v.Own[1] || wid == v.Own[2])
}

// Change is one entity's change in a Delta.
type Change struct {
	EID uint16
	// Mask has the groups that changed in what the client holds, the
	// tier and PoseFull (never SmallSteps or PoseAge: those are the
	// serializer's).
	Mask uint16
	// New is set for an entity the client did not hold (or a new life):
	// it comes whole, onto zeros.
	New bool
	// From is the position the client held before (zeros for a new one):
	// the base of SmallSteps.
	From [3]int32
}

// Delta is what turned S(N-1) into S(N): the entities removed (gone, out of
// the area of interest, or a new life), then the changes.
type Delta struct {
	Removed []uint16
	Changes []Change
}

func (d *Delta) reset() {
	d.Removed = d.Removed[:0]
	d.Changes = d.Changes[:0]
}

// ClientState is what one client holds after frame N (S(N)): a wire.Store
// updated exactly as the client's decoder updates its own, with what the
// server alone needs per entity. Advance computes S(N) from S(N-1) and the
// arena; it is the same for the ordered and the acked snapshots, which only
// serialize it against different bases.
type ClientState struct {
	store wire.Store
	srv   []serverHeld // by store slot
	has   []uint64     // by wire id, a bit: held
	stamp uint32       // numbers the Advances

	// What the last Advance saw.
	started    bool
	lastTick   uint32
	lastCenter wire.Vec3
	lastOwn    [3]uint16
	lastIn     Interest
	moved      float64 // the distance the centre travelled, all Advances together

	// Set for the length of an Advance.
	arena          *Arena
	in             *Interest
	view           *View
	delta          *Delta
	frame, tick    uint32
	cx, cy         float32
	enter2, leave2 float32
	buckets        []uint16

	// The cells of the last ring looked at for newcomers, kept while the
	// ring a frame needs lies within it: around ringX, ringY, from ringIn
	// to ringOut.
	ring                          []uint16
	ringX, ringY, ringIn, ringOut float32
}

// RingMargin is how much wider than a frame needs an encoder takes the ring
// of cells it looks for newcomers in, on each side: the next frames reuse
// the cells until the centre has moved RingMargin, so the row by row walk
// of the grid is done every few frames, not every frame. A wider ring holds
// more cells to walk each frame: 2 m measured better than 6 m on the peer
// trace (where the centre moves about 0.4 m a frame).
const RingMargin float32 = 2

// serverHeld is what the server alone keeps of an entity a client holds, in
// slot order, so that a frame walks it in sequence. The tier and the pose
// mode are copies of the store's.
type serverHeld struct {
	wid  uint16 // 0 for a free slot
	tier uint8
	full bool // pose mode: the full pose
	rest bool // the held quantized velocity and spin are zero
	// waiting: a pose changed that waits for its tier's turn.
	waiting bool
	state   uint8  // the arena's stPresent and stAlways when last looked at
	life    uint32 // the arena's life of the entity held
	// The ticks at which the held pose groups (of its pose mode), and the
	// other groups, were last all the arena's: a group changed in the
	// arena since may differ.
	poseSynced, stateSynced uint32
	stamp                   uint32 // the Advance that last looked at it
	// When last looked at, the entity's distance was measured and the
	// nearest edge that counts (a tier's, the leave radius) was slack
	// away. It may have crossed an edge once the centre's travel and its
	// own since add up to slack: the centre's odometer reaching limit
	// (its reading then, plus slack) less the entity's travel. odo is the
	// entity's odometer then, travel what it went since (as of the last
	// frame it changed).
	limit, odo, travel float64
	// pose is a copy of the held quantized pose (the record's bytes from
	// wire.PositionAt): update compares a moving entity's pose with it
	// here, in memory walked in sequence, rather than in the store's
	// record, a cache miss away.
	pose [wire.QuantPoseBytes]byte
}

// Store returns what the client holds. It must not be changed.
func (s *ClientState) Store() *wire.Store { return &s.store }

func (s *ClientState) held(wid uint16) bool {
	return int(wid>>6) < len(s.has) && s.has[wid>>6]&(1<<(wid&63)) != 0
}

// Reset forgets everything the client held (a keyframe follows).
func (s *ClientState) Reset() {
	clear(s.has)
	s.store.Reset()
	s.srv = s.srv[:0]
	s.started = false
}

func (s *ClientState) remove(wid uint16, slot int) {
	s.delta.Removed = append(s.delta.Removed, wid)
	s.store.Remove(wid)
	s.srv[slot].wid = 0
	s.has[wid>>6] &^= 1 << (wid & 63)
}

// Advance computes what the client holds after frame (numbered frame, of the
// arena's tick) and writes into d what changed: the entities of its area of
// interest (every one within in.Enter, or held and within in.Leave, every
// one the arena marks always, and the client's own), each with the groups
// whose bytes differ from what the client holds. A pose (the quantized
// groups, or the full pose of the client's own) goes on its tier's turn
// (wire.Due), at once for tier 0 and the client's own, at once when its rest
// differs from the pose held, and at once when its pose mode changes. The
// tier and the pose mode (PoseFull) changed alone make a change with no
// group.
//
// It walks what the client holds in slot order, reading the arena's shared
// facts (which groups changed when, life, presence) and looking closer only
// at what may have changed: entities changed since the client last held all
// of them, far poses whose turn came, the client's own (before and now), and
// entities near enough an edge (a tier's, the leave radius) that the
// centre's travel and theirs may have crossed it. Newcomers come from the
// arena's log (new lives, jumps) and from the cells of a thin ring at the
// edge of the area. On its first frame, after a keyframe, when the interest
// changed, or when the arena's log no longer reaches back to its last
// frame, it looks at everything.
func (s *ClientState) Advance(a *Arena, in *Interest, v *View, frame uint32, d *Delta) {
	in.prepare()
	d.reset()
	s.arena, s.in, s.view, s.delta, s.frame, s.tick = a, in, v, d, frame, a.tick
	s.cx, s.cy, s.enter2, s.leave2 = v.Center.X, v.Center.Y, in.enter2, in.leave2
	if n := (len(a.recs) + 63) / 64; len(s.has) < n {
		s.has = append(s.has, make([]uint64, n-len(s.has))...)
	}
	s.stamp++
	if s.stamp == 0 {
		for i := range s.srv {
			s.srv[i].stamp = 0
		}
		s.stamp = 1
	}
	dx, dy := float64(v.Center.X-s.lastCenter.X), float64(v.Center.Y-s.lastCenter.Y)
	step := math.Sqrt(dx*dx + dy*dy)
	s.moved += step
	all := !s.started || !a.logReaches(s.lastTick) || *in != s.lastIn

	// The client's own, before and now: their pose mode may change.
	for _, own := range [2]*[3]uint16{&s.lastOwn, &v.Own} {
		for _, wid := range own {
			if wid != 0 && s.held(wid) {
				if slot := s.store.SlotOf(wid); s.srv[slot].stamp != s.stamp {
					s.keep(wid, slot)
				}
			}
		}
	}
	// What the client holds, walked in sequence. The arena's log says
	// which entities changed since the last frame; the others are passed
	// reading only their srv, unless the centre's travel reaches an edge
	// or a far pose's turn came. The arena's side (hot) is read for the
	// changed ones only.
	var changed []uint64
	if !all {
		changed = a.changedSince(s.lastTick)
	}
	hot := a.hot
	for i := 0; i < len(s.srv); i++ {
		sv := &s.srv[i]
		wid := sv.wid
		if wid == 0 || sv.stamp == s.stamp {
			continue
		}
		if !all && (int(wid>>6) >= len(changed) || changed[wid>>6]&(1<<(wid&63)) == 0) {
			switch {
			case s.moved+sv.travel >= sv.limit:
				s.keep(wid, i)
			case sv.waiting && wire.Due(sv.tier, frame, wid):
				s.update(wid, i, sv.full, sv.tier)
			}
			continue
		}
		h := &hot[wid]
		sv.travel = h.odo - sv.odo
		switch {
		case all || h.life != sv.life || h.state&(stPresent|stAlways) != sv.state || s.moved+sv.travel >= sv.limit:
			// Gone, a new life, or near enough an edge that the centre's
			// travel and its own may have crossed it: look again.
			s.keep(wid, i)
		case h.stateAt > sv.stateSynced:
			s.update(wid, i, sv.full, sv.tier)
		case h.poseAt > sv.poseSynced:
			if sv.full || sv.tier == 0 || wire.Due(sv.tier, frame, wid) || (h.state&stRest != 0) != sv.rest {
				s.update(wid, i, sv.full, sv.tier)
			} else {
				sv.waiting = true // a far pose, not its turn, and no stop or start
			}
		}
	}
	// Newcomers: those the log lists (new lives, jumps), the client's own,
	// those sent to everyone, and those the centre came near. Any other
	// entity not held stood beyond in.Enter of the last centre, and the
	// centre and it moved by steps since: it can be within in.Enter now
	// only within their steps of the edge, so only the cells of that ring
	// are looked at (the whole disc on a first frame).
	reach := step
	if !all {
		for t := s.lastTick + 1; t != a.tick+1; t++ {
			wids, maxStep := a.logged(t)
			reach += float64(maxStep)
			for _, wid := range wids {
				if !s.held(wid) && a.Present(wid) {
					if d2 := s.dist2(wid); d2 <= s.enter2 {
						s.whole(wid, v.owns(wid), d2)
					}
				}
			}
		}
	}
	for _, wid := range v.Own {
		if wid != 0 && a.Present(wid) && !s.held(wid) {
			s.whole(wid, true, s.dist2(wid))
		}
	}
	for _, wid := range a.always {
		if !s.held(wid) {
			s.whole(wid, v.owns(wid), s.dist2(wid))
		}
	}
	buckets := s.ringCells(all, in.Enter-float32(reach)-slackEpsilon)
	for _, b := range buckets {
		for _, ge := range a.grid.bucketEntries(b) {
			dx, dy := ge.x-s.cx, ge.y-s.cy
			if d2 := dx*dx + dy*dy; d2 <= s.enter2 && !s.held(ge.wid) {
				s.whole(ge.wid, false, d2)
			}
		}
	}
	s.started, s.lastTick, s.lastCenter, s.lastOwn, s.lastIn = true, a.tick, v.Center, v.Own, *in
	s.arena, s.in, s.view, s.delta = nil, nil, nil, nil
}

// ringCells returns the buckets of the cells to look for newcomers in: the
// whole disc of in.Enter when all, else a ring from inner (or wider) to
// in.Enter (or wider), reused from an earlier frame while it holds this
// one's.
func (s *ClientState) ringCells(all bool, inner float32) []uint16 {
	g := &s.arena.grid
	enter := s.in.Enter
	if all {
		s.ring = s.ring[:0]
		s.ringIn, s.ringOut = 1, 0 // nothing: the next frame makes a ring
		s.buckets = g.cells(s.cx, s.cy, enter, 0, s.buckets)
		return s.buckets
	}
	dx, dy := s.cx-s.ringX, s.cy-s.ringY
	e := float32(math.Sqrt(float64(dx*dx + dy*dy)))
	if !(s.ringIn <= inner-e && enter+e <= s.ringOut) {
		s.ringX, s.ringY = s.cx, s.cy
		s.ringIn, s.ringOut = max(inner-RingMargin, 0), enter+RingMargin
		s.ring = g.cells(s.cx, s.cy, s.ringOut, s.ringIn, s.ring)
	}
	return s.ring
}

func (s *ClientState) dist2(wid uint16) float32 {
	h := &s.arena.hot[wid]
	dx, dy := h.x-s.cx, h.y-s.cy
	return dx*dx + dy*dy
}

// slackEpsilon is taken off every slack: the distances are float32, and an
// edge must be looked at a little early rather than a little late.
const slackEpsilon = 0.01

// slack returns how far the centre may travel before an entity at squared
// distance d2, in tier, could leave (when bound) or change tier (unless own).
func (s *ClientState) slack(d2 float32, tier uint8, own, bound bool) float32 {
	if own {
		return math.MaxFloat32
	}
	in := s.in
	d := float32(math.Sqrt(float64(d2)))
	sl := float32(math.MaxFloat32)
	if bound {
		sl = max(in.Leave, in.Enter) - d
	}
	if tier < wire.TierCount-1 {
		sl = min(sl, in.TierRadius[tier]+in.TierHysteresis-d)
	}
	if tier > 0 {
		sl = min(sl, d-(in.TierRadius[tier-1]-in.TierHysteresis))
	}
	return sl - slackEpsilon
}

// keep brings wid, held in slot, to S(N), or removes it: gone, or beyond the
// leave radius and neither always nor the client's own.
func (s *ClientState) keep(wid uint16, slot int) {
	h := &s.arena.hot[wid]
	sv := &s.srv[slot]
	sv.stamp = s.stamp
	if h.state&stPresent == 0 {
		s.remove(wid, slot)
		return
	}
	own := s.view.owns(wid)
	bound := !own && h.state&stAlways == 0
	dx, dy := h.x-s.cx, h.y-s.cy
	d2 := dx*dx + dy*dy
	if bound && !(d2 <= s.leave2) {
		s.remove(wid, slot)
		return
	}
	if sv.life != h.life {
		// A new life under the id: removed, and whole again.
		s.remove(wid, slot)
		s.whole(wid, own, d2)
		return
	}
	var tier uint8
	if !own {
		tier = s.in.tier(d2, sv.tier)
	}
	sv.limit, sv.odo, sv.travel = s.moved+float64(s.slack(d2, tier, own, bound)), h.odo, 0
	if sv.limit != sv.limit { // a NaN position: look at it every frame
		sv.limit = math.Inf(-1)
	}
	sv.state = h.state & (stPresent | stAlways)
	if h.stateAt <= sv.stateSynced && tier == sv.tier && own == sv.full {
		if h.poseAt <= sv.poseSynced {
			sv.waiting = false
			return // nothing new since the client last held all of it
		}
		if !own && s.poseWaits(wid, tier, sv) {
			sv.waiting = true
			return // only a far pose changed, and it is not its turn
		}
	}
	s.update(wid, slot, own, tier)
}

// modeMask returns the groups an entity gets in its pose mode.
func modeMask(full bool) uint16 {
	if full {
		return wire.MaskState | wire.MaskFullPose
	}
	return wire.MaskState | wire.MaskQuantPose
}

func isZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// whole adds wid to S(N): every group of its pose mode that is not zeros.
func (s *ClientState) whole(wid uint16, own bool, d2 float32) {
	a := s.arena
	slot := s.store.Add(wid)
	if slot >= len(s.srv) {
		s.srv = append(s.srv, serverHeld{})
	}
	held := s.store.At(slot)
	s.has[wid>>6] |= 1 << (wid & 63)
	rec := &a.recs[wid]
	var groups uint16
	for m := modeMask(own); m != 0; m &= m - 1 {
		g := lowBit(m)
		if src := rec.Group(g); !isZero(src) {
			copy(held.Rec.Group(g), src)
			groups |= 1 << g
		}
	}
	var tier uint8
	if !own {
		tier = s.in.tier(d2, wire.TierCount)
	}
	held.Tier, held.PoseFull = tier, own
	if groups&wire.MaskPose != 0 {
		held.PoseTick = s.tick
	}
	h := &a.hot[wid]
	s.srv[slot] = serverHeld{
		wid: wid, tier: tier, full: own, rest: held.Rec.AtRest(), life: h.life, pose: quantPose(&held.Rec),
		poseSynced: s.tick, stateSynced: s.tick, stamp: s.stamp,
		limit: s.moved + float64(s.slack(d2, tier, own, !own && h.state&stAlways == 0)), odo: h.odo,
		state: h.state & (stPresent | stAlways),
	}
	if sv := &s.srv[slot]; sv.limit != sv.limit { // a NaN position: look at it every frame
		sv.limit = math.Inf(-1)
	}
	mask := groups | wire.MaskTierOf(tier)
	if own {
		mask |= wire.PoseFull
	}
	s.delta.Changes = append(s.delta.Changes, Change{EID: wid, Mask: mask, New: true})
}

// poseWaits reports whether the quantized pose of wid, in tier, waits for
// its turn: its tier is not 0, the frame is not its turn, and its rest is
// the one the client holds (a stop and a start are news at once).
func (s *ClientState) poseWaits(wid uint16, tier uint8, srv *serverHeld) bool {
	return tier > 0 && !wire.Due(tier, s.frame, wid) && (s.arena.hot[wid].state&stRest != 0) == srv.rest
}

// update brings wid, held in slot, to S(N) at tier.
func (s *ClientState) update(wid uint16, slot int, own bool, tier uint8) {
	a := s.arena
	held := s.store.At(slot)
	srv := &s.srv[slot]
	cand := modeMask(own)
	waits := false
	if own == srv.full {
		// The groups that may differ: the pose's if it changed since the
		// client last held all of it, the others' likewise. Comparing a
		// few words of each is cheaper than reading which group changed.
		h := &a.hot[wid]
		var maybe uint16
		if h.poseAt > srv.poseSynced {
			maybe |= wire.MaskPose
		}
		if h.stateAt > srv.stateSynced {
			maybe |= wire.MaskState
		}
		cand &= maybe
		if !own && cand&wire.MaskQuantPose != 0 && s.poseWaits(wid, tier, srv) {
			cand &^= wire.MaskQuantPose
			waits = true
		}
	}
	rec := &a.recs[wid]
	from := posePosition(&srv.pose)
	var diff uint16
	for m := cand & wire.MaskQuantPose; m != 0; m &= m - 1 {
		g := lowBit(m)
		at, n := wire.GroupAt(g), wire.GroupBytes(g)
		src, dst := rec[at:at+n], srv.pose[at-wire.PositionAt:at-wire.PositionAt+n]
		if string(src) != string(dst) {
			copy(dst, src)
			copy(held.Rec[at:at+n], src)
			diff |= 1 << g
		}
	}
	for m := cand &^ wire.MaskQuantPose; m != 0; m &= m - 1 {
		if g := lowBit(m); wire.CopyGroup(&held.Rec, rec, g) {
			diff |= 1 << g
		}
	}
	srv.stateSynced = s.tick
	srv.waiting = waits
	if !waits {
		srv.poseSynced = s.tick
	}
	if diff == 0 && tier == srv.tier && own == srv.full {
		return
	}
	held.Tier, held.PoseFull = tier, own
	srv.tier, srv.full = tier, own
	if diff&(1<<wire.GroupVelocity|1<<wire.GroupSpin) != 0 {
		srv.rest = poseAtRest(&srv.pose)
	}
	if diff&wire.MaskPose != 0 {
		held.PoseTick = s.tick
	}
	mask := diff | wire.MaskTierOf(tier)
	if own {
		mask |= wire.PoseFull
	}
	s.delta.Changes = append(s.delta.Changes, Change{EID: wid, Mask: mask, From: from})
}

// quantPose returns the quantized pose of rec.
func quantPose(rec *wire.Record) (p [wire.QuantPoseBytes]byte) {
	copy(p[:], rec[wire.PositionAt:])
	return p
}

// posePosition returns the position of a quantized pose.
func posePosition(p *[wire.QuantPoseBytes]byte) [3]int32 {
	return [3]int32{int32(le.Uint32(p[0:])), int32(le.Uint32(p[4:])), int32(le.Uint32(p[8:]))}
}

// poseAtRest reports whether a quantized pose's velocity and spin (its
// last 12 bytes) are zero.
func poseAtRest(p *[wire.QuantPoseBytes]byte) bool {
	const vel = wire.VelocityAt - wire.PositionAt
	return le.Uint64(p[vel:]) == 0 && le.Uint32(p[vel+8:]) == 0
}

var le = binary.LittleEndian

// lowBit returns the number of the lowest bit set in m (m != 0).
func lowBit(m uint16) int { return bits.TrailingZeros16(m) }

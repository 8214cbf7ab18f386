package netsync

import (
	"slices"

	"github.com/fiveonit/engine/internal/headroom"
	"github.com/fiveonit/engine/netsync/wire"
)

// entWalk is the rest of what the server keeps of each entity a client
// holds: what a frame reads of the entities it looks closer at. The tier
// and the pose mode are copies of the store's.
//
// Only the pose needs a tick of its own, entPick.sent, to tell whether the
// client holds the arena's. After each frame the client holds every other
// group as the arena had it, so those differ only when the arena changed
// them after the last frame.
type entWalk struct {
	pose  poseWords // the held quantized pose, and the store's PoseTick
	life  uint16    // the arena's life of the entity held
	stamp uint16    // the call to advance that last looked at it
	tier  uint8
	flags uint8 // hfState | hfFull
	// waited counts the frames its pose waited because the frame's
	// budget was spent (budget.go): its priority grows with each.
	waited uint8
	_      [25]byte // pads it to 64 bytes, one cache line
}

// The flags of an entWalk.
const (
	// hfState are the arena's stPresent and stAlways when last looked at.
	hfState = stPresent | stAlways
	// hfFull is set when the pose mode is the full pose.
	hfFull uint8 = 1 << 5
	// hfDrive is set when the drive group the client holds may be older
	// than the arena's: its change waited (a far entity's, budget.go).
	hfDrive uint8 = 1 << 6
)

// walk looks at the entities held that may have changed, in slot order,
// leaving out those advance looked at already; pick finds them. An entity
// goes the general way, by keep, when something other than its pose
// changed, it stopped or started, an edge may be crossed, or its pose is
// the full one. Otherwise only its pose can have changed, and the change
// goes as sendPose would send it: writePose writes it.
func (s *clientState) walk() {
	if cap(s.cands) < len(s.picks) {
		// As many as the picks have room for: the two grow together.
		s.cands = make([]int32, len(s.picks), max(2*len(s.picks), cap(s.picks)))
	}
	mk := thrKey(s.moved)
	moves := s.arena.moves
	cands := s.cands[:len(s.picks)]
	n := pick(s.picks, moves, cands, mk, s.frame)
	picks, walks, qpose, tick := s.picks, s.walks, s.arena.qpose, s.tick
	if s.budget > 0 {
		s.byPriority(cands[:n]) // the frame's budget goes to the first
	}
	// Room for every candidate's pose change, and the window past the
	// last one (writePose).
	room := n*maxPoseChange + poseWindow
	out := headroom.Ahead(s.out, room)
	for _, i32 := range cands[:n] {
		i := int(i32)
		p := &picks[i]
		wid := p.wid
		if wid == 0 || slices.Contains(s.owned, i32) {
			continue // removed, or looked at already
		}
		w := &walks[i]
		if p.edge-moves[wid].odo <= mk || w.flags&hfFull != 0 {
			s.out = out
			s.keep(wid, i)
			out = headroom.Ahead(s.out, room)
			continue
		}
		// What sendPose does, in short: most changes of most frames.
		if s.budget > 0 && s.arena.hot[wid].state&stRest == p.rest {
			if s.arena.rides(wid) || reckoned(&qpose[wid], &w.pose, tick, w.tier) {
				continue // the client draws it close enough: it waits
			}
			if len(out)-s.head >= s.budget {
				w.wait() // spent: the pose waits, its priority grows
				continue
			}
		}
		w.waited = 0
		p.sent = tick
		l := len(out)
		if k := writePose((*[poseWindow]byte)(out[l:l+poseWindow]), wid, w, p, &qpose[wid], tick); k > 0 {
			out = out[:l+k]
			s.outN++
			s.stale = true
		}
	}
	s.out = out
}

// keep brings wid, held in slot, to S(N). It removes the entity when it is
// gone, or when it is beyond the leave radius and is neither sent to every
// client nor the client's own.
func (s *clientState) keep(wid uint16, slot int) {
	h := &s.arena.hot[wid]
	w := &s.walks[slot]
	w.stamp = s.stamp
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
		if s.watchable(d2) {
			s.watchLeft(wid, d2)
		}
		return
	}
	if w.life != h.life {
		// A new life under the id: removed, and whole again.
		s.remove(wid, slot)
		s.whole(wid, own, d2)
		return
	}
	var tier uint8
	if !own {
		tier = s.in.tier(d2, w.tier)
	}
	m := &s.arena.moves[wid]
	s.setThr(slot, s.threshold(d2, tier, own, bound), m.odo)
	w.flags = w.flags&^hfState | h.state&hfState
	stateNew := h.stateAt > s.lastTick
	if stateNew && s.budget > 0 && !own && tier > 0 && tier == w.tier && w.flags&hfFull == 0 && s.controlsOnly(wid) {
		w.flags |= hfDrive // its throttle and steering wait (budget.go)
		stateNew = false
	}
	if !stateNew && tier == w.tier && own == (w.flags&hfFull != 0) {
		switch {
		case m.poseAt <= s.picks[slot].sent, !own && s.poseWaits(wid, tier, slot):
			return // nothing new since the client last held all of it, or only a far pose not its turn
		case !own:
			s.sendPose(wid, slot) // its quantized pose alone
			return
		}
	}
	s.update(wid, slot, own, tier)
}

// poseWaits reports whether the quantized pose of wid, held in slot at
// tier, waits for its turn: its tier is not 0, the frame is not its turn,
// and its rest is the one the client holds. A stop or a start goes at
// once.
func (s *clientState) poseWaits(wid uint16, tier uint8, slot int) bool {
	if s.arena.hot[wid].state&stRest != s.picks[slot].rest {
		return false // a stop or a start goes at once
	}
	if tier > 0 && !wire.Due(tier, s.frame, wid) {
		return true
	}
	if s.budget > 0 && (s.arena.rides(wid) || reckoned(&s.arena.qpose[wid], &s.walks[slot].pose, s.tick, tier)) {
		return true // the client draws it close enough, or at its vehicle
	}
	if s.overBudget() {
		s.walks[slot].wait()
		return true
	}
	s.walks[slot].waited = 0
	return false
}

// sendPose brings the quantized pose of wid, held in slot, to the arena's.
// It does what update does for an entity whose pose goes now (tier 0, its
// turn, a stop or a start) while its pose mode, its tier and its other
// groups stay as the client holds them. Most changes of most frames are
// such, so it compares and writes the pose a machine word at a time. It
// writes the change as writePose does, and the store's record later
// (flush).
func (s *clientState) sendPose(wid uint16, slot int) {
	w := &s.walks[slot]
	if w.flags&hfFull != 0 {
		s.update(wid, slot, true, w.tier) // not here: the client's own are looked at before
		return
	}
	pk := &s.picks[slot]
	pk.sent = s.tick
	q := &s.arena.qpose[wid]
	s.out = headroom.Ahead(s.out, poseWindow)
	l := len(s.out)
	if k := writePose((*[poseWindow]byte)(s.out[l:l+poseWindow]), wid, w, pk, q, s.tick); k > 0 {
		s.out = s.out[:l+k]
		s.outN++
		s.stale = true
	}
}

// update brings wid, held in slot, to S(N) at tier.
func (s *clientState) update(wid uint16, slot int, own bool, tier uint8) {
	a := s.arena
	w := &s.walks[slot]
	pk := &s.picks[slot]
	full := w.flags&hfFull != 0
	cand := modeMask(own)
	waits := false
	if own == full {
		// The groups that may differ: the pose's if the arena changed it
		// since the client last held all of it, the others' if the arena
		// changed them since the last frame. The arena keeps the tick of
		// each change.
		h := &a.hot[wid]
		var maybe uint16
		if a.moves[wid].poseAt > pk.sent {
			maybe |= wire.MaskPose
		}
		if h.stateAt > s.lastTick {
			maybe |= wire.MaskState
		}
		if w.flags&hfDrive != 0 {
			maybe |= 1 << wire.GroupDrive // a change that waited
		}
		cand &= maybe
		if !own && cand&wire.MaskQuantPose != 0 && s.poseWaits(wid, tier, slot) {
			cand &^= wire.MaskQuantPose
			waits = true
		}
	}
	rec := &a.recs[wid]
	pose := &w.pose
	from := posePosition(pose)
	var diff uint16
	var held *wire.Held
	if cand&wire.MaskQuantPose != 0 {
		// The four groups of the quantized pose are candidates together,
		// compared with the copy in w.
		if diff = poseDiff(&a.qpose[wid], pose); diff != 0 {
			q := &a.qpose[wid]
			pose.a, pose.b, pose.c, pose.d = q.a, q.b, q.c, q.d
			held = s.store.At(slot)
			putPose(&held.Rec, pose)
		}
	}
	if m := cand &^ wire.MaskQuantPose; m != 0 {
		held = s.store.At(slot)
		at := &a.groupAt[wid]
		for ; m != 0; m &= m - 1 {
			g := lowBit(m)
			if g == wire.GroupDrive && !own && s.budget > 0 {
				// A far entity's throttle, brake, steer and buttons wait
				// (a client uses them to predict only what is near), its
				// health does not. The client holds the health as of its
				// last frame, the rest maybe older (hfDrive).
				switch {
				case tier > 0 && at[healthAt] <= s.lastTick:
					if at[0] > s.lastTick {
						w.flags |= hfDrive
					}
				case w.flags&hfDrive != 0:
					w.flags &^= hfDrive
					if wire.CopyGroup(&held.Rec, rec, g) {
						diff |= 1 << g
					}
				case at[0] > s.lastTick:
					copy(held.Rec.Group(g), rec.Group(g))
					diff |= 1 << g
				}
				continue
			}
			if own == full && wire.MaskState&(1<<g) != 0 {
				// The client holds the arena's group as of its last
				// frame, so it goes when it changed since. It is
				// written without reading what the client holds: that
				// read is a cache miss the frame would wait on.
				if at[g-wire.GroupDrive] > s.lastTick {
					copy(held.Rec.Group(g), rec.Group(g))
					diff |= 1 << g
				}
				continue
			}
			if wire.CopyGroup(&held.Rec, rec, g) {
				diff |= 1 << g
			}
		}
		if diff&(1<<wire.GroupIdentity) != 0 {
			s.kinds[wid] = held.Rec[wire.KindAt]
		}
	}
	if !waits {
		pk.sent = s.tick
	}
	if diff == 0 && tier == w.tier && own == full {
		return
	}
	if held == nil {
		held = s.store.At(slot)
	}
	held.Tier, held.PoseFull = tier, own
	s.setTier(slot, tier)
	w.flags &^= hfFull
	if own {
		w.flags |= hfFull
	}
	if diff&(1<<wire.GroupVelocity|1<<wire.GroupSpin) != 0 {
		pk.rest = restOf(pose)
	}
	if diff&wire.MaskPose != 0 {
		held.PoseTick, pose.tick = s.tick, s.tick
	}
	mask := diff | wire.MaskTierOf(tier)
	if own {
		mask |= wire.PoseFull
	}
	s.change(wid, mask, rec, &from)
}

// whole adds wid to S(N): every group of its pose mode that is not zeros.
func (s *clientState) whole(wid uint16, own bool, d2 float32) {
	a := s.arena
	slot := s.store.Add(wid)
	if slot >= len(s.picks) {
		s.picks = append(headroom.Ahead(s.picks, 1), entPick{})
		s.walks = append(headroom.Ahead(s.walks, 1), entWalk{})
	}
	held := s.store.At(slot)
	s.has[wid>>6] |= 1 << (wid & 63)
	rec := &a.recs[wid]
	groups := wire.NonZeroGroups(rec) & modeMask(own)
	for m := groups; m != 0; m &= m - 1 {
		g := lowBit(m)
		copy(held.Rec.Group(g), rec.Group(g))
	}
	s.kinds[wid] = held.Rec[wire.KindAt]
	var tier uint8
	if !own {
		tier = s.in.tier(d2, wire.TierCount)
	}
	held.Tier, held.PoseFull = tier, own
	if groups&wire.MaskPose != 0 {
		held.PoseTick = s.tick
	}
	h := &a.hot[wid]
	flags := h.state & hfState
	if own {
		flags |= hfFull
	}
	pose := poseOf(&held.Rec)
	pose.tick = held.PoseTick
	s.picks[slot] = entPick{sent: s.tick, wid: wid, rest: restOf(&pose)}
	s.walks[slot] = entWalk{pose: pose, life: h.life, stamp: s.stamp, flags: flags}
	s.setTier(slot, tier)
	s.setThr(slot, s.threshold(d2, tier, own, !own && h.state&stAlways == 0), a.moves[wid].odo)
	mask := groups | wire.MaskTierOf(tier)
	if own {
		mask |= wire.PoseFull
	}
	var zero [3]int32
	s.change(wid, mask, rec, &zero)
}

// modeMask returns the groups an entity gets in its pose mode.
func modeMask(full bool) uint16 {
	if full {
		return wire.MaskState | wire.MaskFullPose
	}
	return wire.MaskState | wire.MaskQuantPose
}

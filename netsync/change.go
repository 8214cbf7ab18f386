package netsync

import (
	"github.com/fiveonit/engine/internal/headroom"
	"github.com/fiveonit/engine/netsync/wire"
)

// change adds a change of wid to the frame, serialized into out. mask has
// its groups, tier and PoseFull; the groups' bytes are rec's. Its position
// goes as small steps from from when they fit.
func (s *clientState) change(wid, mask uint16, rec *wire.Record, from *[3]int32) {
	s.out = appendChange(s.out, wid, mask, rec, from)
	s.outN++
}

// maxChangeBytes bounds a change without an age: its id, its mask and at
// most every group of a record.
const maxChangeBytes = 4 + wire.RecordBytes

// appendChange appends a change of eid as wire.AppendChange does: mask has
// its groups, tier and PoseFull, never an age; the groups' bytes are rec's;
// the position goes as small steps from from when they fit. Every client's
// frame carries its changes, most of them a pose alone, so it makes room
// once and copies a few words at a time.
func appendChange(b []byte, eid, mask uint16, rec *wire.Record, from *[3]int32) []byte {
	n := len(b)
	if cap(b)-n < maxChangeBytes {
		b = headroom.Ahead(b, maxChangeBytes)
	}
	o := b[n : n+maxChangeBytes]
	k := 4
	if mask&(1<<wire.GroupPosition) != 0 {
		p := rec[wire.PositionAt:]
		dx := int64(int32(le.Uint32(p))) - int64(from[0])
		dy := int64(int32(le.Uint32(p[4:]))) - int64(from[1])
		dz := int64(int32(le.Uint32(p[8:]))) - int64(from[2])
		if fitsStep(dx) && fitsStep(dy) && fitsStep(dz) {
			mask |= wire.SmallSteps
			le.PutUint16(o[4:], uint16(dx))
			le.PutUint16(o[6:], uint16(dy))
			le.PutUint16(o[8:], uint16(dz))
			k += wire.SmallStepBytes
		} else {
			copy(o[4:16], p[:wire.PositionBytes])
			k += wire.PositionBytes
		}
	}
	le.PutUint16(o, eid)
	le.PutUint16(o[2:], mask)
	return b[:n+writeGroups(o, k, mask, rec)]
}

// appendChangeAged is appendChange with the age byte, when mask has
// PoseAge: as wire.AppendChange, for the acked frames. Its head is a copy
// of appendChange's: the ordered frames' appendChange writes the position
// at fixed places, and an offset for the age slowed it.
func appendChangeAged(b []byte, eid, mask uint16, age uint8, rec *wire.Record, from *[3]int32) []byte {
	n := len(b)
	if cap(b)-n < maxChangeBytes+1 {
		b = headroom.Ahead(b, maxChangeBytes+1)
	}
	o := b[n : n+maxChangeBytes+1]
	k := 4
	if mask&wire.PoseAge != 0 {
		o[4] = age
		k = 5
	}
	if mask&(1<<wire.GroupPosition) != 0 {
		p := rec[wire.PositionAt:]
		dx := int64(int32(le.Uint32(p))) - int64(from[0])
		dy := int64(int32(le.Uint32(p[4:]))) - int64(from[1])
		dz := int64(int32(le.Uint32(p[8:]))) - int64(from[2])
		if fitsStep(dx) && fitsStep(dy) && fitsStep(dz) {
			mask |= wire.SmallSteps
			le.PutUint16(o[k:], uint16(dx))
			le.PutUint16(o[k+2:], uint16(dy))
			le.PutUint16(o[k+4:], uint16(dz))
			k += wire.SmallStepBytes
		} else {
			copy(o[k:k+wire.PositionBytes], p[:wire.PositionBytes])
			k += wire.PositionBytes
		}
	}
	le.PutUint16(o, eid)
	le.PutUint16(o[2:], mask)
	return b[:n+writeGroups(o, k, mask, rec)]
}

// writeGroups writes into o from k on the groups of mask after the
// position, as a change carries them, from rec, and returns where they
// end.
func writeGroups(o []byte, k int, mask uint16, rec *wire.Record) int {
	if mask&(1<<wire.GroupRotation) != 0 {
		le.PutUint32(o[k:], le.Uint32(rec[wire.RotationAt:]))
		k += wire.RotationBytes
	}
	if mask&(1<<wire.GroupVelocity) != 0 {
		le.PutUint32(o[k:], le.Uint32(rec[wire.VelocityAt:]))
		le.PutUint16(o[k+4:], le.Uint16(rec[wire.VelocityAt+4:]))
		k += wire.VelocityBytes
	}
	for m := mask & wire.MaskGroups &^ (wire.MaskQuantPose); m != 0; m &= m - 1 {
		g := lowBit(m)
		k += copy(o[k:], rec.Group(g))
	}
	if mask&(1<<wire.GroupSpin) != 0 {
		le.PutUint16(o[k:], le.Uint16(rec[wire.SpinAt:]))
		le.PutUint32(o[k+2:], le.Uint32(rec[wire.SpinAt+2:]))
		k += wire.SpinBytes
	}
	return k
}

// fitsStep reports whether d, a step in 1/PositionScale m, goes as a small
// step.
func fitsStep(d int64) bool { return d >= -wire.SmallStepMax && d <= wire.SmallStepMax }

// writePose is how sendPose writes, for an entity held quantized
// whose other groups the client holds already: most changes of most
// frames. It brings the quantized pose held in w to q's and writes the
// change, if any, at the start of o as appendChange would, the position as
// small steps when every axis fits. It returns the change's length, 0 for
// none. It reads only its arguments, not the clientState, and its caller
// manages the slice, so that its values stay in registers.
func writePose(o *[poseWindow]byte, wid uint16, w *entWalk, pk *entPick, q *poseWords, tick uint32) int {
	// The groups that differ, as poseDiff finds them, worked out here:
	// poseDiff is a call, too large to inline, and this is the hot path.
	p := &w.pose
	q0, q1, q2, q3 := q.a, q.b, q.c, q.d
	p0, p1 := p.a, p.b
	xb, xc := q1^p1, q2^p.c
	posD := q0^p0|xb<<32 != 0
	rotD := xb>>32 != 0
	velD := xc<<16 != 0
	spinD := xc>>48|uint64(q3^p.d) != 0
	if !(posD || rotD || velD || spinD) {
		return 0
	}
	p.a, p.b, p.c, p.d, p.tick = q0, q1, q2, q3, tick
	pk.rest = restOf(q)
	mask := wire.MaskTierOf(w.tier)
	k := 4
	if posD {
		mask |= 1 << wire.GroupPosition
		dx := int64(int32(q0)) - int64(int32(p0))
		dy := int64(int32(q0>>32)) - int64(int32(p0>>32))
		dz := int64(int32(q1)) - int64(int32(p1))
		if fitsStep(dx) && fitsStep(dy) && fitsStep(dz) {
			mask |= wire.SmallSteps
			le.PutUint16(o[4:6], uint16(dx))
			le.PutUint16(o[6:8], uint16(dy))
			le.PutUint16(o[8:10], uint16(dz))
			k = 4 + wire.SmallStepBytes
		} else {
			le.PutUint64(o[4:12], q0)
			le.PutUint32(o[12:16], uint32(q1))
			k = 4 + wire.PositionBytes
		}
	}
	// The other groups: each is written whole, and counted only when it
	// goes. Which ones go is a coin toss for the processor, so there is no
	// branch. k stays below 32 and the window is 64 bytes, so no bounds
	// need checking.
	le.PutUint32(o[k:k+4], uint32(q1>>32))
	if rotD {
		mask |= 1 << wire.GroupRotation
		k += wire.RotationBytes
	}
	k &= 31
	le.PutUint32(o[k:k+4], uint32(q2))
	le.PutUint16(o[k+4:k+6], uint16(q2>>32))
	if velD {
		mask |= 1 << wire.GroupVelocity
		k += wire.VelocityBytes
	}
	k &= 31
	le.PutUint16(o[k:k+2], uint16(q2>>48))
	le.PutUint32(o[k+2:k+6], q3)
	if spinD {
		mask |= 1 << wire.GroupSpin
		k += wire.SpinBytes
	}
	le.PutUint16(o[0:2], wid)
	le.PutUint16(o[2:4], mask)
	return k
}

// poseWindow is the room writePose writes a change into. A change is at
// most maxPoseChange bytes, but writePose writes each group whole before
// it counts the group or not, so the window leaves room past the change.
const poseWindow = 64

// maxPoseChange bounds a change of the quantized pose alone: the id, the
// mask and the four groups whole.
const maxPoseChange = 4 + wire.QuantPoseBytes

// poseDiff returns the quantized pose groups whose bytes differ between q
// and p.
func poseDiff(q, p *poseWords) uint16 {
	xb, xc := q.b^p.b, q.c^p.c
	return uint16(b2i(q.a^p.a|xb<<32 != 0)<<wire.GroupPosition |
		b2i(xb>>32 != 0)<<wire.GroupRotation |
		b2i(xc<<16 != 0)<<wire.GroupVelocity |
		b2i(xc>>48|uint64(q.d^p.d) != 0)<<wire.GroupSpin)
}

// putPose writes the quantized pose p into rec.
func putPose(rec *wire.Record, p *poseWords) {
	r := rec[wire.PositionAt:]
	le.PutUint64(r, p.a)
	le.PutUint64(r[8:], p.b)
	le.PutUint64(r[16:], p.c)
	le.PutUint32(r[24:], p.d)
}

// posePosition returns the position of a quantized pose.
func posePosition(p *poseWords) [3]int32 {
	return [3]int32{int32(p.a), int32(p.a >> 32), int32(p.b)}
}

// restOf returns stRest when the velocity and spin of the quantized pose p
// are zero, else 0: an entPick's rest.
func restOf(p *poseWords) uint8 { return uint8(b2i(p.c|uint64(p.d) == 0)) * stRest }

//go:build amd64 && !purego

package netsync

import (
	"unsafe"

	"github.com/fiveonit/engine/internal/headroom"
	"github.com/fiveonit/engine/netsync/wire"
)

// useWalkPoses says whether walk writes its poses by walkPoses (a
// variable, so that TestWalkPosesIsWalk can take the portable loop too).
var useWalkPoses = true

// poseRun is what walkPoses reads and writes: the walk's candidates, from
// j on, and the frame's changes (out[:len], with room past them).
type poseRun struct {
	cands  *int32
	n, j   int
	picks  *entPick
	walks  *entWalk
	qpose  *poseWords
	moves  *[1 << 16]moveEnt
	owned  *int32
	nOwned int
	mk     int64
	out    *byte
	len    int
	outN   int
	tick   uint32
}

// walkPoses is the walk's loop for the changes it writes straight into
// the frame: from run.j on, each candidate not removed and not among the
// client's own looked at already gets writePose's change (or none), until
// one that needs keep (an edge may be crossed, or something other than its
// pose changed, or its pose is the full one): it returns with run.j at that
// candidate, or at run.n when none is left. In walk_amd64.s.
//
// Why by hand: most changes of most frames are written here, and the Go
// loop, which calls keep and writePose, kept none of its values in
// registers across the calls (~50 instructions a candidate before
// writePose's ~70); TestWalkPosesIsWalk holds its frames to the Go loop's,
// byte for byte.
//
//go:noescape
func walkPoses(run *poseRun)

// walkFast is walk's loop over cands by walkPoses, keep called in
// between, in the same order as the Go loop: it returns false, having done
// nothing, when walkPoses is not to be used.
func (s *ClientState) walkFast(cands []int32, mk int64, room int) bool {
	if !useWalkPoses || !s.emit || len(cands) == 0 {
		return false
	}
	out := headroom.Ahead(s.out, room)
	run := poseRun{
		cands: &cands[0], n: len(cands),
		picks: &s.picks[0], walks: &s.walks[0], qpose: &s.arena.qpose[0], moves: s.arena.moves,
		mk: mk, out: unsafe.SliceData(out), len: len(out), outN: s.outN, tick: s.tick,
	}
	if len(s.owned) > 0 {
		run.owned, run.nOwned = &s.owned[0], len(s.owned)
	}
	for {
		wrote := run.outN
		walkPoses(&run)
		if run.outN != wrote {
			s.stale = true // poses in the entWalks alone (flush)
		}
		if run.j >= run.n {
			break
		}
		i := int(cands[run.j])
		s.out, s.outN = out[:run.len], run.outN
		s.keep(s.picks[i].wid, i)
		out = headroom.Ahead(s.out, room)
		run.out, run.len, run.outN = unsafe.SliceData(out), len(out), s.outN
		run.j++
	}
	s.out, s.outN = out[:run.len], run.outN
	return true
}

// Constants of package wire that walk_amd64.s reads (go_asm.h has this
// package's only).
const (
	asmPositionBit = 1 << wire.GroupPosition
	asmRotationBit = 1 << wire.GroupRotation
	asmVelocityBit = 1 << wire.GroupVelocity
	asmSpinBit     = 1 << wire.GroupSpin
	asmSmallSteps  = wire.SmallSteps
	asmStepMax     = wire.SmallStepMax
	asmTierShift   = wire.TierShift
	asmStepsEnd    = 4 + wire.SmallStepBytes // a change's length after its position as steps
	asmWholeEnd    = 4 + wire.PositionBytes  // and as a whole position
)

// walk_amd64.s writes stRest as a shift by 2, and steps through entPicks,
// entWalks, moveEnts and poseWords by shifts (their sizes: pick_amd64.go).
var _ = [1]struct{}{}[stRest-4]

package netsync

import (
	"math/bits"
)

// entPick is what every frame reads of an entity held, in slot order (16
// bytes), with the arena's moveEnt of the entity, to pick those to look
// closer at: its pose changed and has its turn, an edge (a tier's, the
// leave radius) may be crossed, or something other than its pose changed
// (or it stopped or started).
type entPick struct {
	// When last looked at, the entity's distance was measured and the
	// nearest edge that counts was slack away. It may have crossed an edge
	// once the centre's travel and its own since add up to slack: once the
	// centre's odometer (moved) reaches edge (its reading then, plus
	// slack, plus the entity's odometer then, in thrKey steps as the
	// arena's odometer) less the entity's odometer. A free slot's is the
	// largest key.
	edge int64
	// sent is the tick at which the held pose was last the arena's: a
	// pose the arena changed after it waits for its turn.
	sent uint32
	wid  uint16 // 0 for a free slot
	// turns has bit f set when a pose that waits has its turn in the
	// frames numbered f modulo 8 (wire.Due: every frame at tier 0, and for the
	// client's own, whose tier is 0).
	turns uint8
	rest  uint8 // stRest when the held quantized velocity and spin are zero
}

// pick writes into cands the slots of picks to look closer at, and returns
// how many: the entity's thr reached mk (an edge may be crossed, or
// something other than the pose changed, or it stopped or started: the
// arena's eventOdo), or its pose changed and has its turn in frame. Each
// block of 64 is picked by pickSet: pickBlock, or on amd64 with AVX2 the
// same test two entries at a time (pick_amd64.s), a fifth of a frame's
// time before it.
func pick(picks []entPick, moves *[1 << 16]moveEnt, cands []int32, mk int64, frame uint32) int {
	n := 0
	for base := 0; base < len(picks); base += 64 {
		blk := picks[base:min(base+64, len(picks))]
		for set := pickSet(blk, moves, mk, frame); set != 0; set &= set - 1 {
			cands[n] = int32(base + bits.TrailingZeros64(set))
			n++
		}
	}
	return n
}

// pickBlock returns the picks of up to 64 entries as a bit each (bit j for
// blk[j]), in frame: a function of its own, with few variables, so that
// they all stay in registers, and shifts only by constants (a shift by a
// variable takes the one register CL). Each condition is the sign bit of a
// difference (ticks are compared within 2^31 of each other: beyond, a
// needless look), so that they combine as words.
func pickBlock(blk []entPick, moves *[1 << 16]moveEnt, mk int64, frame uint32) uint64 {
	const top = 1 << 63
	mk1 := mk + 1
	fb := uint8(1) << (frame & 7) // the frame's bit in turns
	var set uint64
	for j := range blk {
		p := &blk[j]
		m := &moves[p.wid]
		// Look the general way: p.edge - m.odo <= mk.
		look := uint64(p.edge - m.odo - mk1)
		// The pose changed (m.poseAt > p.sent) and has its turn.
		moved := uint64(int64(int32(p.sent - m.poseAt)))
		var due uint64
		if p.turns&fb != 0 {
			due = top
		}
		set = set>>1 | (look|moved&due)&top
	}
	return set >> (64 - len(blk))
}

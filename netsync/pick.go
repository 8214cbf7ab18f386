package netsync

import (
	"math/bits"
)

// entPick is what every frame reads of each entity held, in slot order,
// with the arena's moveEnt of the entity. From these 16 bytes the pick
// finds the entities to look closer at: those whose pose changed and has
// its turn, those that may have crossed an edge (a tier's edge or the
// leave radius), and those with news other than their pose, such as a stop
// or a start.
type entPick struct {
	// edge says when the entity may have crossed an edge. When the frame
	// last looked at it, the nearest edge that counts was slack metres
	// away. Neither the centre nor the entity can have reached that edge
	// before their travels since add up to slack. So setThr stored here
	// thrKey(moved+slack), the centre's odometer plus the slack, plus the
	// entity's own odometer then. The pick looks at the entity once
	// thrKey(moved) reaches edge less the entity's odometer now: the two
	// odometers' steps since then add up to slack. An event adds eventOdo
	// to the entity's odometer, which passes any edge at once. A free
	// slot's edge is thrMax, which is never reached.
	edge int64
	// sent is the tick at which the held pose was last the arena's: a
	// pose the arena changed after it waits for its turn.
	sent uint32
	wid  uint16 // 0 for a free slot
	// turns has bit f set when a pose that waits has its turn in the
	// frames whose number is f modulo 8 (turnBits). A tier 0 pose has its
	// turn every frame; the client's own are tier 0.
	turns uint8
	rest  uint8 // stRest when the held quantized velocity and spin are zero
}

// pick writes into cands the slots of picks to look closer at, and returns
// how many. An entity is picked when mk, the centre's odometer as a
// thrKey, reaches its edge, or when its pose changed and has its turn in
// frame. Reaching the edge means it may have crossed an edge, or that it
// has news other than its pose (eventOdo). pickSet picks each block of 64:
// it is pickBlock, or on amd64 with AVX2 the same test two entries at a
// time (pick_amd64.s).
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

// pickBlock returns the picks of up to 64 entries in frame, bit j for
// blk[j]. It is a function of its own with few variables, so that they all
// stay in registers, and it shifts only by constants: on amd64 a shift by
// a variable needs the one register CL. Each condition is the sign bit of
// a difference, so that the conditions combine as whole words. Ticks are
// compared as differences within 2^31 of each other; two ticks farther
// apart only cost a needless look.
func pickBlock(blk []entPick, moves *[1 << 16]moveEnt, mk int64, frame uint32) uint64 {
	const top = 1 << 63
	mk1 := mk + 1
	fb := uint8(1) << (frame & 7) // the frame's bit in turns
	var set uint64
	for j := range blk {
		p := &blk[j]
		m := &moves[p.wid]
		// An edge may be crossed, or news: p.edge - m.odo <= mk.
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

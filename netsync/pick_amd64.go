//go:build amd64 && !purego

package netsync

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// useAVX2 says whether pickSet takes the vector path: the processor and
// the operating system support AVX2.
var useAVX2 = cpu.X86.HasAVX2

// pickSet returns the picks of up to 64 entries as pickBlock does, bit j
// for blk[j]. With AVX2 it takes two entries at a time (pickPairsAVX2),
// and the last one of an odd count by pickBlock.
//
// Why by hand: the pick reads every entity a client holds on every frame,
// its entPick and the arena's moveEnt. The compiler's loop takes 24
// instructions per entry, the vector loop 12; TestPickSetIsPickBlock holds
// the vector loop to pickBlock's bits. Without it, the peer replay's
// encode took 1.14 times the CPU time, in alternating runs on a shared
// machine.
func pickSet(blk []entPick, moves *[1 << 16]moveEnt, mk int64, frame uint32) uint64 {
	n := len(blk)
	if !useAVX2 || n == 0 {
		return pickBlock(blk, moves, mk, frame)
	}
	set := pickPairsAVX2(&blk[0], n/2, moves, mk+1, uint64(15-frame&7))
	if n&1 != 0 {
		set |= pickBlock(blk[n-1:], moves, mk, frame) << (n - 1)
	}
	return set
}

// pickPairsAVX2 returns pickBlock's bits of the 2*pairs entries from blk,
// bit j for the j-th; pairs is at most 32. mk1 is mk+1. fshift is 15 less
// the frame's turn, frame&7: a left shift by it brings the turn's bit of
// entPick.turns to the sign of its word. It is in pick_amd64.s.
//
//go:noescape
func pickPairsAVX2(blk *entPick, pairs int, moves *[1 << 16]moveEnt, mk1 int64, fshift uint64) uint64

// The layouts pick_amd64.s reads: each line fails to compile when its
// offset or size is not the one written there.
var (
	_ = [1]struct{}{}[unsafe.Sizeof(entPick{})-16]
	_ = [1]struct{}{}[unsafe.Offsetof(entPick{}.edge)]
	_ = [1]struct{}{}[unsafe.Offsetof(entPick{}.sent)-8]
	_ = [1]struct{}{}[unsafe.Offsetof(entPick{}.wid)-12]
	_ = [1]struct{}{}[unsafe.Offsetof(entPick{}.turns)-14]
	_ = [1]struct{}{}[unsafe.Sizeof(moveEnt{})-16]
	_ = [1]struct{}{}[unsafe.Offsetof(moveEnt{}.odo)]
	_ = [1]struct{}{}[unsafe.Offsetof(moveEnt{}.poseAt)-8]
)

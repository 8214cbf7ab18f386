//go:build !amd64 || purego

package netsync

// useAVX2 is false: pickSet has no vector path here.
const useAVX2 = false

// pickSet returns the picks of up to 64 entries as a bit each (bit j for
// blk[j]): pickBlock's (see pick_amd64.go for the vector one).
func pickSet(blk []entPick, moves *[1 << 16]moveEnt, mk int64, frame uint32) uint64 {
	return pickBlock(blk, moves, mk, frame)
}

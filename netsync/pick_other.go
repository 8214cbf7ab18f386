//go:build !amd64 || purego

package netsync

// useAVX2 is false: pickSet has no vector path here.
const useAVX2 = false

// pickSet returns the picks of up to 64 entries as a bit each (bit j for
// blk[j]): pickBlock's (see pick_amd64.go for the vector one).
func pickSet(blk []entPick, moves *[1 << 16]moveEnt, mk int64, frame uint32) uint64 {
	return pickBlock(blk, moves, mk, frame)
}

// touch reads a word of the entWalk of each slot of cands, and of the
// arena's pose of its entity: those reads do not wait for one another, so
// the cache misses that the frame would take one after another, entity by
// entity, overlap here (on amd64, prefetches instead: pick_amd64.go).
func (s *clientState) touch(cands []int32) {
	walks, picks, qpose := s.walks, s.picks, s.arena.qpose
	var acc uint32
	for _, i := range cands {
		acc += uint32(walks[i].life) + qpose[picks[i].wid].d
	}
	s.sink += acc
}

// prefetchLists does nothing here (see pick_amd64.go).
func (s *clientState) prefetchLists() {}

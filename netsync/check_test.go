package netsync

import (
	"math/rand/v2"
	"testing"

	"github.com/fiveonit/engine/netsync/wire"
)

// TestCheckIsTheStores: the server's check of what a client holds is the
// very value the client computes (wire.Store.Check), for stores of every
// size, with free slots among the held ones, and records of every byte.
func TestCheckIsTheStores(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 2, 3, 7, 114, 500} {
		var s ClientState
		for i := 0; i < n; i++ {
			eid := uint16(1 + rng.IntN(4000))
			if s.store.Get(eid) != nil {
				continue
			}
			h := s.store.At(s.store.Add(eid))
			for j := range h.Rec {
				h.Rec[j] = byte(rng.Uint32())
			}
			h.Rec[wire.KindAt] = byte(rng.IntN(4))
			if rng.IntN(5) == 0 {
				s.store.Remove(eid) // a free slot
			}
		}
		if got, want := s.check(), s.store.Check(); got != want {
			t.Fatalf("%d entities: check %#x, the store's %#x", s.store.Len(), got, want)
		}
	}
}

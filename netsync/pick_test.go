package netsync

import (
	"math/rand"
	"testing"
)

// pickWorld returns n picks of random entities among 1,000 (a tenth free
// slots, as a frame after removals has) and the arena's moves for them,
// with every condition of the pick near its edge: odometers and edges
// about mk, ticks about sent, every turn.
func pickWorld(r *rand.Rand, moves *[1 << 16]moveEnt, n int, mk int64) []entPick {
	for i := range 1000 {
		moves[i] = moveEnt{odo: r.Int63n(1 << 20), poseAt: uint32(r.Intn(8)) - 4 + 1<<31*uint32(r.Intn(2)), evAt: r.Uint32()}
	}
	picks := make([]entPick, n)
	for i := range picks {
		wid := uint16(1 + r.Intn(999))
		if r.Intn(10) == 0 {
			picks[i] = entPick{edge: thrMax} // free
			continue
		}
		picks[i] = entPick{
			edge:  mk + moves[wid].odo + r.Int63n(5) - 2,
			sent:  moves[wid].poseAt + uint32(r.Intn(5)) - 2,
			wid:   wid,
			turns: uint8(r.Intn(256)),
			rest:  uint8(r.Intn(2)),
		}
	}
	return picks
}

// TestPickSetIsPickBlock holds the vector pick (pickSet with AVX2) to
// pickBlock's bits: every block length, every frame's turn, and edges,
// odometers and ticks on both sides of each test. Without AVX2, pickSet is
// pickBlock and the test is skipped.
func TestPickSetIsPickBlock(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 here (or built with purego): pickSet is pickBlock, so there is nothing to compare")
	}
	r := rand.New(rand.NewSource(1))
	moves := new([1 << 16]moveEnt)
	for n := 0; n <= 64; n++ {
		for k := range 40 {
			mk := r.Int63n(1<<40) - 1<<39
			picks := pickWorld(r, moves, n, mk)
			frame := uint32(k)
			want := pickBlock(picks, moves, mk, frame)
			if got := pickSet(picks, moves, mk, frame); got != want {
				t.Fatalf("%d entries, frame %d: pickSet %064b, pickBlock %064b", n, frame, got, want)
			}
		}
	}
}

// BenchmarkPick: a frame's pick over 120 entities held (the peer trace's
// clients hold 114), about 6 of them picked.
func BenchmarkPick(b *testing.B) {
	r := rand.New(rand.NewSource(2))
	const mk = 1 << 30
	moves := new([1 << 16]moveEnt)
	picks := pickWorld(r, moves, 120, mk)
	for i := range picks {
		picks[i].edge += 8 // most look no closer
		picks[i].turns &= 0x11
	}
	cands := make([]int32, len(picks))
	b.ReportAllocs()
	n := 0
	for i := 0; i < b.N; i++ {
		n += pick(picks, moves, cands, mk, uint32(i))
	}
	b.ReportMetric(float64(n)/float64(b.N), "picked/frame")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(picks)), "ns/entity")
}

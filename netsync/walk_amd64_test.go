//go:build amd64 && !purego

package netsync

import (
	"bytes"
	"fmt"
	"testing"
	"unsafe"

	"github.com/fiveonit/engine/netsync/wire"
)

// TestWalkPosesIsWalk runs the property test's random world (spawns,
// despawns, ids reused, near and far moves, stops and starts, tier
// changes, own entities that come and go) through two encoders for each
// of 6 views: one walks by walkPoses, the other by the Go loop. Every
// frame of the two is the same, byte for byte, and both wrote some of
// every kind of pose change (small steps and whole positions, each group).
func TestWalkPosesIsWalk(t *testing.T) {
	ticks := 1500
	if testing.Short() {
		ticks = 600
	}
	w := newSimWorld(11, 400, 1200)
	for range 150 {
		w.spawn()
	}
	a := NewArena()
	type pair struct {
		c          simClient
		fast, slow *Encoder
	}
	pairs := make([]pair, 6)
	for i := range pairs {
		pairs[i].fast, pairs[i].slow = NewEncoder(a), NewEncoder(a)
		pairs[i].c.view.Center = wire.Vec3{X: w.f(0, w.size), Y: w.f(0, w.size)}
	}
	defer func() { useWalkPoses = true }()
	var seen uint16
	var frames int
	for tick := 0; tick < ticks; tick++ {
		w.step()
		w.fill(a)
		if w.tick%wire.SnapshotEvery != 0 {
			continue
		}
		for i := range pairs {
			p := &pairs[i]
			moveView(w, &p.c)
			useWalkPoses = true
			fast := bytes.Clone(p.fast.Encode(&p.c.view))
			useWalkPoses = false
			slow := p.slow.Encode(&p.c.view)
			if !bytes.Equal(fast, slow) {
				t.Fatalf("tick %d view %d: walkPoses wrote\n%x\nthe Go loop\n%x", w.tick, i, fast, slow)
			}
			frames++
			seen |= changeMasks(t, fast)
		}
	}
	const want = 1<<wire.GroupPosition | 1<<wire.GroupRotation | 1<<wire.GroupVelocity | 1<<wire.GroupSpin | wire.SmallSteps
	if seen&want != want {
		t.Fatalf("the frames' changes had masks %016b among them: not every pose change was tried", seen)
	}
	t.Logf("%d frames the same", frames)
}

// changeMasks returns the masks of a frame's changes, ORed.
func changeMasks(t *testing.T, frame []byte) uint16 {
	t.Helper()
	h, n, err := wire.ParseHeader(frame)
	if err != nil {
		t.Fatal(err)
	}
	b := frame[n+2*int(h.Removed):]
	var seen uint16
	for range h.Changed {
		c, k, err := wire.ParseChange(b)
		if err != nil {
			t.Fatal(err)
		}
		seen |= c.Mask
		b = b[k:]
	}
	return seen
}

// TestWalkPosesWritesAsWritePose holds walkPoses, one candidate at a time,
// to writePose: the change's bytes, and the pose, rest and sent left
// behind, for poses that differ in each group alone, in all, in none;
// position steps on each side of what SmallSteps carries, on each axis;
// positions far apart (steps beyond int32); and random ones, at each tier.
func TestWalkPosesWritesAsWritePose(t *testing.T) {
	pos := func(x, y, z int32) poseWords {
		return poseWords{a: uint64(uint32(x)) | uint64(uint32(y))<<32, b: uint64(uint32(z)) | 0x1234<<32, c: 0x0102030405060708, d: 0x0a0b0c0d}
	}
	type tc struct{ held, now poseWords }
	cases := []tc{
		{pos(1, 2, 3), pos(1, 2, 3)},                   // no change
		{poseWords{a: 9}, poseWords{a: 9, c: 1 << 48}}, // spin's first bytes alone
		{poseWords{a: 9}, poseWords{a: 9, d: 1}},       // spin's others alone
		{poseWords{a: 9}, poseWords{a: 9, c: 1}},       // velocity alone
		{poseWords{a: 9}, poseWords{a: 9, c: 1 << 47}}, // velocity's last bit alone
		{poseWords{a: 9}, poseWords{a: 9, b: 1 << 63}}, // rotation's last bit alone
		{poseWords{a: 9}, poseWords{a: 9, b: 1 << 31}}, // position's last bit alone
		{poseWords{a: 9}, poseWords{a: 9 | 1<<63}},
		{poseWords{a: 9}, poseWords{a: 9, b: 1 << 32}}, // rotation alone
		{poseWords{a: 9, c: 5, d: 5}, poseWords{a: 9}}, // to rest
		{poseWords{}, poseWords{a: ^uint64(0), b: ^uint64(0), c: ^uint64(0), d: ^uint32(0)}},
		{pos(-1<<31, 1<<31-1, 0), pos(1<<31-1, -1<<31, 0)}, // steps beyond int32
	}
	for _, d := range []int32{wire.SmallStepMax, wire.SmallStepMax + 1, -wire.SmallStepMax, -wire.SmallStepMax - 1} {
		cases = append(cases,
			tc{pos(100, 200, 300), pos(100+d, 200, 300)},
			tc{pos(100, 200, 300), pos(100, 200+d, 300)},
			tc{pos(100, 200, 300), pos(100, 200, 300+d)},
			tc{pos(-7, 8, -9), pos(-7+d, 8-d, -9+d)},
		)
	}
	r := newSimWorld(3, 10, 10).rng
	for range 200 {
		held := poseWords{a: r.Uint64(), b: r.Uint64(), c: r.Uint64(), d: r.Uint32()}
		now := held
		for k := range 4 { // some words the same, some steps small
			switch r.IntN(3) {
			case 0:
				(*[4]uint64)(unsafe.Pointer(&now))[k] ^= r.Uint64() & 0x0000ffff0000ffff
			case 1:
				(*[4]uint64)(unsafe.Pointer(&now))[k] = r.Uint64()
			}
		}
		now.tick = 0
		cases = append(cases, tc{held, now})
	}
	for ci, c := range cases {
		for tier := range uint8(4) {
			if err := walkPoseAsWritePose(c.held, c.now, tier); err != nil {
				t.Fatalf("case %d tier %d: %v", ci, tier, err)
			}
		}
	}
}

// FuzzWalkPosesIsWritePose: any pose held, any pose now, any tier:
// walkPoses writes and leaves what writePose does.
func FuzzWalkPosesIsWritePose(f *testing.F) {
	f.Add(uint64(9), uint64(0), uint64(0), uint32(0), uint64(9), uint64(1<<32), uint64(1), uint32(1), uint8(2))
	f.Add(uint64(100|200<<32), uint64(300), uint64(5), uint32(5), uint64(100+wire.SmallStepMax+1|200<<32), uint64(300), uint64(0), uint32(0), uint8(0))
	f.Add(^uint64(0), ^uint64(0), ^uint64(0), ^uint32(0), uint64(0), uint64(0), uint64(0), uint32(0), uint8(3))
	f.Fuzz(func(t *testing.T, ha, hb, hc uint64, hd uint32, na, nb, nc uint64, nd uint32, tier uint8) {
		held := poseWords{a: ha, b: hb, c: hc, d: hd}
		now := poseWords{a: na, b: nb, c: nc, d: nd}
		if err := walkPoseAsWritePose(held, now, tier&3); err != nil {
			t.Fatal(err)
		}
	})
}

// noMoves are the arena's moves of walkPoseAsWritePose: every odometer 0,
// so that no edge is reached (walkPoses only reads them).
var noMoves [1 << 16]moveEnt

// walkPoseAsWritePose runs walkPoses on one candidate whose pose held is
// held and the arena's now, at tier, and writePose on a copy: it returns
// how they differ, or nil.
func walkPoseAsWritePose(held, now poseWords, tier uint8) error {
	const wid, tick = 5, 77
	held.tick = 3
	w := entWalk{pose: held, tier: tier, life: 1}
	pk := entPick{edge: thrMax, sent: 2, wid: wid, turns: 0xff, rest: 9}
	qpose := make([]poseWords, wid+1)
	qpose[wid] = now

	wantW, wantP := w, pk
	wantP.sent = tick // the walk's, before writePose
	var o [poseWindow]byte
	k := writePose(&o, wid, &wantW, &wantP, &qpose[wid], tick)

	walks, picks, cands := []entWalk{w}, []entPick{pk}, []int32{0}
	out := make([]byte, 3, 3+maxPoseChange+poseWindow)
	run := poseRun{cands: &cands[0], n: 1, picks: &picks[0], walks: &walks[0], qpose: &qpose[0], moves: &noMoves,
		out: &out[0], len: len(out), tick: tick}
	walkPoses(&run)
	got := out[3:run.len]
	switch {
	case run.j != 1:
		return fmt.Errorf("stopped at %d", run.j)
	case !bytes.Equal(got, o[:k]) || run.outN != min(k, 1):
		return fmt.Errorf("walkPoses wrote %x (%d changes), writePose %x", got, run.outN, o[:k])
	case walks[0] != wantW || picks[0] != wantP:
		return fmt.Errorf("left %+v %+v, writePose %+v %+v", walks[0], picks[0], wantW, wantP)
	}
	return nil
}

// TestWalkPosesStops: walkPoses passes over the removed and the client's
// own looked at already, leaving them be, and stops at each candidate
// that needs keep: its full pose, or an edge its odometers reached.
func TestWalkPosesStops(t *testing.T) {
	const tick = 9
	moves := new([1 << 16]moveEnt)
	qpose := make([]poseWords, 16)
	moves[3].odo = 100
	walks := make([]entWalk, 6)
	picks := []entPick{
		{edge: thrMax, wid: 0},   // removed
		{edge: thrMax, wid: 1},   // own, looked at
		{edge: thrMax, wid: 2},   // full pose: keep
		{edge: 100 + 50, wid: 3}, // an edge at 50: keep
		{edge: 100 + 51, wid: 3}, // not yet
		{edge: thrMax, wid: 4},
	}
	walks[2].flags = hfFull
	for i := range picks {
		qpose[i].a = uint64(i) // every pose differs from the one held
	}
	cands, owned := []int32{0, 1, 2, 3, 4, 5}, []int32{1}
	out := make([]byte, 0, 6*maxPoseChange+poseWindow)
	run := poseRun{cands: &cands[0], n: len(cands), picks: &picks[0], walks: &walks[0], qpose: &qpose[0], moves: moves,
		owned: &owned[0], nOwned: 1, mk: 50, out: unsafe.SliceData(out), tick: tick}
	var stops []int
	for {
		walkPoses(&run)
		if run.j >= run.n {
			break
		}
		stops = append(stops, run.j)
		run.j++
	}
	if len(stops) != 2 || stops[0] != 2 || stops[1] != 3 {
		t.Fatalf("stopped at %v, want [2 3]", stops)
	}
	for i, p := range picks {
		if sent := p.sent == tick; sent != (i >= 4) {
			t.Fatalf("slot %d: sent %d: only slots 4 and 5 go here", i, p.sent)
		}
	}
	if run.outN != 2 {
		t.Fatalf("%d changes written, want 2", run.outN)
	}
}

package netsync

import (
	"bytes"
	"fmt"
	"testing"
	"unsafe"

	"github.com/fiveonit/engine/netsync/wire"
)

// TestWritePoseIsAppendChange holds writePose, the walk's writer of a pose
// change, to appendChange, the general one: the change's bytes, and the
// pose and rest it leaves behind. The cases are poses that differ in each
// group alone, in all and in none; position steps on each side of what
// SmallSteps carries, on each axis; positions far apart, whose steps do not
// fit an int32; and random ones. Each case runs at every tier.
func TestWritePoseIsAppendChange(t *testing.T) {
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
		for tier := range uint8(wire.TierCount) {
			if err := writePoseAsAppendChange(c.held, c.now, tier); err != nil {
				t.Fatalf("case %d tier %d: %v", ci, tier, err)
			}
		}
	}
}

// FuzzWritePoseIsAppendChange: for any pose held, any pose now and any
// tier, writePose writes what appendChange does and leaves the pose and
// rest it should.
func FuzzWritePoseIsAppendChange(f *testing.F) {
	f.Add(uint64(9), uint64(0), uint64(0), uint32(0), uint64(9), uint64(1<<32), uint64(1), uint32(1), uint8(2))
	f.Add(uint64(100|200<<32), uint64(300), uint64(5), uint32(5), uint64(100+wire.SmallStepMax+1|200<<32), uint64(300), uint64(0), uint32(0), uint8(0))
	f.Add(^uint64(0), ^uint64(0), ^uint64(0), ^uint32(0), uint64(0), uint64(0), uint64(0), uint32(0), uint8(3))
	f.Fuzz(func(t *testing.T, ha, hb, hc uint64, hd uint32, na, nb, nc uint64, nd uint32, tier uint8) {
		held := poseWords{a: ha, b: hb, c: hc, d: hd}
		now := poseWords{a: na, b: nb, c: nc, d: nd}
		if err := writePoseAsAppendChange(held, now, tier&3); err != nil {
			t.Fatal(err)
		}
	})
}

// writePoseAsAppendChange runs writePose on an entity whose pose held is
// held and the arena's now, at tier, and returns how its change and what it
// leaves differ from appendChange's change of the groups poseDiff finds,
// or nil.
func writePoseAsAppendChange(held, now poseWords, tier uint8) error {
	const wid, tick = 5, 77
	held.tick = 3
	w := entWalk{pose: held, tier: tier, life: 1}
	pk := entPick{edge: thrMax, sent: 2, wid: wid, turns: 0xff, rest: 9}
	var o [poseWindow]byte
	k := writePose(&o, wid, &w, &pk, &now, tick)

	wantW, wantP := entWalk{pose: held, tier: tier, life: 1}, pk
	var want []byte
	if diff := poseDiff(&now, &held); diff != 0 {
		var rec wire.Record
		putPose(&rec, &now)
		from := posePosition(&held)
		want = appendChange(nil, wid, diff|wire.MaskTierOf(tier), &rec, &from)
		wantW.pose, wantW.pose.tick = now, tick
		wantP.rest = 0
		if now.c == 0 && now.d == 0 {
			wantP.rest = stRest
		}
	}
	switch {
	case !bytes.Equal(o[:k], want):
		return fmt.Errorf("writePose wrote %x, appendChange %x", o[:k], want)
	case w != wantW || pk != wantP:
		return fmt.Errorf("writePose left %+v %+v, want %+v %+v", w, pk, wantW, wantP)
	}
	return nil
}

// TestAppendChangeAgedIsWire holds appendChangeAged, the acked frames'
// writer of a change, to wire.AppendChange: every mask of groups, with and
// without an age, positions whose steps fit and do not, and records that
// differ in some bytes of some groups.
func TestAppendChangeAgedIsWire(t *testing.T) {
	r := newSimWorld(5, 10, 10).rng
	for i := range 3000 {
		var rec, old wire.Record
		for k := range rec {
			rec[k] = byte(r.Uint32())
		}
		old = rec
		for k := range rec { // a byte or two of some groups differ
			if r.IntN(40) == 0 {
				old[k] ^= byte(1 << r.IntN(8))
			}
		}
		if i%3 == 0 { // steps that fit, or just do not
			for a := range 3 {
				at := wire.PositionAt + 4*a
				d := int32(r.IntN(2*wire.SmallStepMax+5)) - wire.SmallStepMax - 2
				le.PutUint32(old[at:], le.Uint32(rec[at:])-uint32(d))
			}
		}
		from := old.Position()
		groups := uint16(r.Uint32()) & wire.MaskGroups
		mask := groups | wire.MaskTierOf(uint8(r.IntN(4)))
		if r.IntN(2) == 0 {
			mask |= wire.PoseFull
		}
		age := uint8(r.Uint32())
		if r.IntN(2) == 0 {
			mask |= wire.PoseAge
		}
		wmask := mask
		if groups&(1<<wire.GroupPosition) != 0 && wire.StepsFit(&rec, &from) {
			wmask |= wire.SmallSteps
		}
		want := wire.AppendChange([]byte{7}, 42, wmask, age, &rec, &from)
		got := appendChangeAged([]byte{7}, 42, mask, age, &rec, &from)
		if !bytes.Equal(got, want) {
			t.Fatalf("case %d: mask %x: appendChangeAged %x, AppendChange %x", i, mask, got, want)
		}
	}
}

package wire

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestLayout(t *testing.T) {
	// The groups tile the record exactly, with no gap and no overlap.
	var owner [RecordBytes]int
	for g := 0; g < GroupCount; g++ {
		for i := GroupAt(g); i < GroupAt(g)+GroupBytes(g); i++ {
			if owner[i] != 0 {
				t.Fatalf("byte %d in groups %d and %d", i, owner[i]-1, g)
			}
			owner[i] = g + 1
		}
	}
	for i, o := range owner {
		if o == 0 {
			t.Fatalf("byte %d in no group", i)
		}
	}
	for g := 0; g < GroupCount; g++ {
		pose := MaskPose&(1<<g) != 0
		if pose != (GroupAt(g) >= PoseAt) || GroupAt(g)+GroupBytes(g) > RecordBytes {
			t.Fatalf("group %d at %d: pose %v, but PoseAt is %d", g, GroupAt(g), pose, PoseAt)
		}
	}
	if EntityRecordBytes != 84 || QuantPoseBytes != 28 || RecordBytes != 112 || GenAt != 7 {
		t.Fatalf("layout moved: record %d + %d, gen at %d", EntityRecordBytes, QuantPoseBytes, GenAt)
	}
	if MaskGroups|SmallSteps|PoseFull|MaskTier|PoseAge|MaskReserved != 0xFFFF ||
		MaskGroups&SmallSteps != 0 || (MaskGroups|SmallSteps|PoseFull)&MaskTier != 0 {
		t.Fatal("mask bits overlap or leave a gap")
	}
	for _, every := range TierEvery {
		if every&(every-1) != 0 {
			t.Fatalf("TierEvery %d is not a power of two", every)
		}
	}
}

func TestQuantizePositionError(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var worst float64
	for range 200000 {
		v := (rng.Float32() - 0.5) * 20000
		got := DequantizePosition(QuantizePosition(v))
		worst = math.Max(worst, math.Abs(float64(got)-float64(v)))
	}
	if worst > float64(MaxPositionError)*1.0001 {
		t.Fatalf("largest position error %g m, documented %g", worst, MaxPositionError)
	}
	t.Logf("largest position error %.5f m (documented %.5f)", worst, MaxPositionError)
	for _, c := range []struct {
		in   float32
		want int32
	}{
		{0, 0}, {1, 256}, {-1, -256}, {1.0 / 512, 1}, {float32(math.NaN()), 0},
		{float32(math.Inf(1)), math.MaxInt32}, {float32(math.Inf(-1)), math.MinInt32}, {1e12, math.MaxInt32},
	} {
		if got := QuantizePosition(c.in); got != c.want {
			t.Errorf("QuantizePosition(%g) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestQuantizeScalars(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	type scalar struct {
		name     string
		lo, hi   float32
		max      float64
		roundTrp func(float32) float32
	}
	for _, s := range []scalar{
		{"velocity", -255, 255, float64(MaxVelocityError), func(v float32) float32 { return DequantizeVelocity(QuantizeVelocity(v)) }},
		{"spin", -31.9, 31.9, float64(MaxSpinError), func(v float32) float32 { return DequantizeSpin(QuantizeSpin(v)) }},
		{"unit", 0, 1, 0.5 / UnitScale, func(v float32) float32 { return DequantizeUnit(QuantizeUnit(v)) }},
		{"steer", -1, 1, 0.5 / SteerScale, func(v float32) float32 { return DequantizeSteer(QuantizeSteer(v)) }},
		{"angle", -math.Pi + 0.001, math.Pi - 0.001, math.Pi / 65536, func(v float32) float32 { return DequantizeAngle(QuantizeAngle(v)) }},
	} {
		var worst float64
		for range 100000 {
			v := s.lo + (s.hi-s.lo)*rng.Float32()
			worst = math.Max(worst, math.Abs(float64(s.roundTrp(v))-float64(v)))
		}
		if worst > s.max*1.001+1e-7 {
			t.Errorf("%s: largest error %g, documented %g", s.name, worst, s.max)
		}
		if s.roundTrp(0) != 0 {
			t.Errorf("%s: 0 does not come back exactly", s.name)
		}
	}
	// Out of range clamps; an angle wraps.
	if QuantizeVelocity(1000) != math.MaxInt16 || QuantizeUnit(2) != 255 || QuantizeSteer(-3) != -SteerScale {
		t.Error("out of range values do not clamp")
	}
	if d := math.Abs(float64(DequantizeAngle(QuantizeAngle(3*math.Pi))) - math.Pi); d > 1e-3 && math.Abs(d-2*math.Pi) > 1e-3 {
		t.Errorf("3pi wraps to %g", DequantizeAngle(QuantizeAngle(3*math.Pi)))
	}
}

func randomQuat(rng *rand.Rand) Quat {
	u1, u2, u3 := rng.Float64(), rng.Float64(), rng.Float64()
	return Quat{
		float32(math.Sqrt(1-u1) * math.Sin(2*math.Pi*u2)), float32(math.Sqrt(1-u1) * math.Cos(2*math.Pi*u2)),
		float32(math.Sqrt(u1) * math.Sin(2*math.Pi*u3)), float32(math.Sqrt(u1) * math.Cos(2*math.Pi*u3)),
	}
}

func TestQuantizeRotationError(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var worst, worstYaw float64
	for range 500000 {
		q := randomQuat(rng)
		worst = math.Max(worst, RotationAngle(q, DequantizeRotation(QuantizeRotation(q))))
		// The engine's rotations: about +Z only.
		s, c := math.Sincos((rng.Float64() - 0.5) * 2 * math.Pi)
		q = Quat{Z: float32(s), W: float32(c)}
		worstYaw = math.Max(worstYaw, RotationAngle(q, DequantizeRotation(QuantizeRotation(q))))
	}
	if worst > float64(MaxRotationError) || worstYaw > float64(MaxYawError) {
		t.Fatalf("largest rotation error %g rad (about +Z %g), documented %g (%g)", worst, worstYaw, MaxRotationError, MaxYawError)
	}
	t.Logf("largest rotation error %.5f rad = %.4f degree, about +Z %.5f rad (documented %.4f, %.4f rad)",
		worst, worst*180/math.Pi, worstYaw, MaxRotationError, MaxYawError)
	// No rotation, and a rotation about +Z, keep X and Y exactly zero.
	for _, q := range []Quat{{W: 1}, {Z: 0.6, W: 0.8}, {Z: -0.8, W: 0.6}} {
		d := DequantizeRotation(QuantizeRotation(q))
		if d.X != 0 || d.Y != 0 {
			t.Errorf("%v comes back tilted: %v", q, d)
		}
	}
	// q and -q are one rotation, one code; a zero or NaN quaternion is no rotation.
	if QuantizeRotation(Quat{0.1, 0.2, 0.3, 0.9}) != QuantizeRotation(Quat{-0.1, -0.2, -0.3, -0.9}) {
		t.Error("q and -q quantize differently")
	}
	nan := float32(math.NaN())
	for _, q := range []Quat{{}, {nan, 0, 0, 1}} {
		if QuantizeRotation(q) != QuantizeRotation(Quat{W: 1}) {
			t.Errorf("%v does not quantize as no rotation", q)
		}
	}
	// Every code decodes to a unit quaternion.
	for range 10000 {
		d := DequantizeRotation(rng.Uint32())
		n := float64(d.X)*float64(d.X) + float64(d.Y)*float64(d.Y) + float64(d.Z)*float64(d.Z) + float64(d.W)*float64(d.W)
		if math.Abs(n-1) > 1e-5 {
			t.Fatalf("code decodes to a quaternion of norm %g", n)
		}
	}
}

func TestRecordRoundTrip(t *testing.T) {
	e := Entity{
		Kind: KindCar, Model: 3, Variant: 2, Party: 4, Player: 5, Gen: 200, Vehicle: 700, Seat: 2, Tractor: 65535,
		Pos: Vec3{1234.5, -99.25, 1.5}, Rot: Quat{Z: 0.6, W: 0.8}, Lin: Vec3{12.5, -3, 0.25}, Ang: Vec3{0, 0, -1.5},
		Throttle: 0.5, Brake: 1, Steer: -0.25, Held: 0x3FF, HP: 77, MaxHP: 100,
		Act: ActDriving, Weapon: 2, AimYaw: 1, AimPitch: -0.5, Timer: 30, Flags: FlagSiren | FlagAlert,
	}
	var r Record
	r.Quantize(&e)
	var full, quant Entity
	r.Decode(&full, true)
	r.Decode(&quant, false)
	if full.Pos != e.Pos || full.Rot != e.Rot || full.Lin != e.Lin || full.Ang != e.Ang {
		t.Errorf("full pose does not come back exactly: %+v", full)
	}
	if quant.Kind != e.Kind || quant.Gen != e.Gen || quant.Vehicle != e.Vehicle || quant.Tractor != e.Tractor ||
		quant.Seat != e.Seat || quant.Player != e.Player || quant.Party != e.Party || quant.Variant != e.Variant ||
		quant.Held != e.Held || quant.HP != e.HP || quant.MaxHP != e.MaxHP || quant.Act != e.Act ||
		quant.Weapon != e.Weapon || quant.Timer != e.Timer || quant.Flags != e.Flags {
		t.Errorf("exact fields differ: %+v", quant)
	}
	if d := quant.Pos.X - e.Pos.X; d != 0 { // 1234.5 is a multiple of 1/256
		t.Errorf("position x off by %g", d)
	}
	if RotationAngle(quant.Rot, e.Rot) > float64(MaxRotationError) || math.Abs(float64(quant.Steer-e.Steer)) > 0.5/SteerScale {
		t.Errorf("quantized fields off: %+v", quant)
	}
	if r.Gen() != 200 || r.Kind() != KindCar || r.AtRest() {
		t.Error("record accessors")
	}
	e.Lin, e.Ang = Vec3{0.001, 0, 0}, Vec3{0, 0, 0.0001} // below half a step: at rest
	r.Quantize(&e)
	if !r.AtRest() {
		t.Error("a record whose velocity quantizes to zero is not at rest")
	}
}

func TestEventRoundTrip(t *testing.T) {
	for _, ev := range []Event{
		{Kind: EventShot, Source: 9, Pos: Vec3{1, 2, 3}, Dir: Vec3{0.6, 0.8, 0}},
		{Kind: EventBlast, Source: 4, Pos: Vec3{-10, 20.5, 0}, Amount: 7.5},
		{Kind: EventHit, Source: 1, Target: 2, Pos: Vec3{100, 200, 1}, Amount: 25},
		{Kind: EventCarjack, Source: 1, Target: 2, Other: 3, Pos: Vec3{5, 6, 0}},
	} {
		b := AppendEvent(nil, &ev)
		if len(b) != EventBytes(ev.Kind) {
			t.Fatalf("kind %d: %d bytes, want %d", ev.Kind, len(b), EventBytes(ev.Kind))
		}
		got, n, err := ParseEvent(b)
		if err != nil || n != len(b) {
			t.Fatalf("kind %d: %v (%d bytes)", ev.Kind, err, n)
		}
		if math.Abs(float64(got.Dir.X-ev.Dir.X)) > 1.0/DirScale {
			t.Fatalf("kind %d: dir %v", ev.Kind, got.Dir)
		}
		got.Dir = ev.Dir
		if got != ev {
			t.Fatalf("kind %d: got %+v, want %+v", ev.Kind, got, ev)
		}
		if _, _, err := ParseEvent(b[:len(b)-1]); err == nil {
			t.Fatalf("kind %d: a short event parses", ev.Kind)
		}
	}
	if _, _, err := ParseEvent([]byte{9}); err == nil {
		t.Fatal("an unknown event kind parses")
	}
	if b := AppendEvent(nil, &Event{Kind: 9}); len(b) != 0 {
		t.Fatal("an unknown event kind is written")
	}
}

func BenchmarkQuantizeRecord(b *testing.B) {
	e := Entity{Kind: KindCar, Pos: Vec3{100, 200, 1}, Rot: Quat{Z: 0.6, W: 0.8}, Lin: Vec3{10, 2, 0}, HP: 100}
	var r Record
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		e.Pos.X = float32(i & 1023)
		r.Quantize(&e)
	}
}

func TestGroupEqual(t *testing.T) {
	for g := 0; g < GroupCount; g++ {
		var a, b Record
		for i := range a {
			a[i], b[i] = byte(i), byte(i)
		}
		if !GroupEqual(&a, &b, g) {
			t.Fatalf("group %d: equal records differ", g)
		}
		for i := 0; i < GroupBytes(g); i++ {
			c := b
			c[GroupAt(g)+i] ^= 1
			if GroupEqual(&a, &c, g) {
				t.Fatalf("group %d: byte %d differs unseen", g, i)
			}
		}
		// A byte outside the group does not count.
		c := b
		c[(GroupAt(g)+GroupBytes(g))%RecordBytes] ^= 1
		if !GroupEqual(&a, &c, g) {
			t.Fatalf("group %d: a byte outside it counts", g)
		}
	}
}

package wire

import (
	"encoding/binary"
	"math"
)

// Quantization scales and their largest errors (half a step, rounding to
// nearest; inside the ranges below). The tests check every bound.
const (
	// PositionScale: position in 1/256 m as int32. Largest error 1/512 m
	// (1.95 mm) within +-8,388 km; and SmallSteps' int16 cover +-128 m
	// exactly.
	PositionScale = 256
	// VelocityScale: linear velocity in 1/128 m/s as int16, +-255.99 m/s
	// (faster than anything in the game). Largest error 1/256 m/s.
	VelocityScale = 128
	// SpinScale: angular velocity in 1/1024 rad/s as int16, +-32 rad/s
	// (five turns per second). Largest error 1/2048 rad/s.
	SpinScale = 1024
	// RotationSteps: smallest three, each of the three smaller components
	// (within +-1/sqrt2) in 1023 steps of sqrt2/1022 with 0 exact, 10 bits
	// each, and 2 bits for which component was left out. Largest error of
	// a component 0.00070; of the rotation 0.005 rad (0.29 degree), and
	// 0.002 rad (0.11 degree) for a rotation about +Z, the engine's.
	RotationSteps = 511
	// UnitScale: throttle and brake (0..1) as u8 0..255. Largest error
	// 1/510.
	UnitScale = 255
	// SteerScale: steer (-1..1) as i8 -127..127. Largest error 1/254.
	SteerScale = 127
	// AngleScale: an aim angle as int16 over the whole turn, 65536 steps
	// of 2pi. Largest error pi/65536 rad (0.0027 degree).
	AngleScale = 32768 / math.Pi
	// RadiusScale: a blast radius in 1/256 m as u16, up to 255.99 m.
	RadiusScale = 256
	// DirScale: a shot's unit direction, each axis as int16 in 1/32767.
	DirScale = 32767
)

// The largest errors of the quantization, as documented above.
const (
	MaxPositionError float32 = 0.5 / PositionScale
	MaxVelocityError float32 = 0.5 / VelocityScale
	MaxSpinError     float32 = 0.5 / SpinScale
	// MaxRotationError is in radians: the angle between a rotation and
	// its quantized self. Bound: each of the three components sent is off
	// by at most e = 1/(2*511*sqrt2); the one recomputed (at least 1/2) by
	// at most 3e; so the quaternions are at most sqrt(12)e apart, an angle
	// of 4*asin(sqrt(3)e) = 0.0048 rad.
	MaxRotationError float32 = 0.005
	// MaxYawError is the same for a rotation about +Z (X and Y are zero
	// and stay exactly zero): sqrt(2)e apart, 0.002 rad.
	MaxYawError float32 = 0.002
)

var le = binary.LittleEndian

// roundClamp rounds f to the nearest integer (half away from zero) within
// [lo, hi]; NaN is 0. lo and hi are within +-2^31, so adding a half and
// truncating is exact rounding (and several times faster than math.Round).
func roundClamp(f, lo, hi float64) int64 {
	if f != f {
		return 0
	}
	if f <= lo {
		return int64(lo)
	}
	if f >= hi {
		return int64(hi)
	}
	if f < 0 {
		return int64(f - 0.5)
	}
	return int64(f + 0.5)
}

// QuantizePosition returns one axis of a position in 1/PositionScale m.
func QuantizePosition(v float32) int32 {
	return int32(roundClamp(float64(v)*PositionScale, math.MinInt32, math.MaxInt32))
}

// DequantizePosition is the inverse of QuantizePosition.
func DequantizePosition(q int32) float32 { return float32(float64(q) / PositionScale) }

// QuantizeVelocity returns one axis of a linear velocity in 1/VelocityScale m/s.
func QuantizeVelocity(v float32) int16 {
	return int16(roundClamp(float64(v)*VelocityScale, math.MinInt16, math.MaxInt16))
}

// DequantizeVelocity is the inverse of QuantizeVelocity.
func DequantizeVelocity(q int16) float32 { return float32(q) / VelocityScale }

// QuantizeSpin returns one axis of an angular velocity in 1/SpinScale rad/s.
func QuantizeSpin(v float32) int16 {
	return int16(roundClamp(float64(v)*SpinScale, math.MinInt16, math.MaxInt16))
}

// DequantizeSpin is the inverse of QuantizeSpin.
func DequantizeSpin(q int16) float32 { return float32(q) / SpinScale }

// QuantizeUnit returns v (0..1, clamped) as 0..UnitScale.
func QuantizeUnit(v float32) uint8 { return uint8(roundClamp(float64(v)*UnitScale, 0, UnitScale)) }

// DequantizeUnit is the inverse of QuantizeUnit.
func DequantizeUnit(q uint8) float32 { return float32(q) / UnitScale }

// QuantizeSteer returns v (-1..1, clamped) as -SteerScale..SteerScale.
func QuantizeSteer(v float32) int8 {
	return int8(roundClamp(float64(v)*SteerScale, -SteerScale, SteerScale))
}

// DequantizeSteer is the inverse of QuantizeSteer.
func DequantizeSteer(q int8) float32 { return float32(q) / SteerScale }

// QuantizeAngle returns an angle (any, in radians) as an int16 over the
// whole turn: -32768 is -pi, 32767 is just under pi.
func QuantizeAngle(v float32) int16 {
	f := float64(v)
	if f != f || math.IsInf(f, 0) {
		return 0
	}
	if f < -math.Pi || f > math.Pi {
		f = math.Remainder(f, 2*math.Pi) // in [-pi, pi]
	}
	return int16(int32(roundClamp(f*AngleScale, -32768, 32768)))
}

// DequantizeAngle is the inverse of QuantizeAngle, in [-pi, pi).
func DequantizeAngle(q int16) float32 { return float32(float64(q) / AngleScale) }

// QuantizeRotation packs a rotation as its smallest three components: the
// largest component (by magnitude) is left out and made positive (q and -q
// are the same rotation), its index in the top 2 bits, and the other three
// in 10 bits each, in X, Y, Z, W order. A quaternion that is not unit is
// normalised first; a zero or non-finite one is no rotation.
func QuantizeRotation(q Quat) uint32 {
	c := [4]float64{float64(q.X), float64(q.Y), float64(q.Z), float64(q.W)}
	n := c[0]*c[0] + c[1]*c[1] + c[2]*c[2] + c[3]*c[3]
	if !(n > 1e-12) || math.IsInf(n, 0) {
		c = [4]float64{0, 0, 0, 1}
		n = 1
	}
	largest := 0
	for i := 1; i < 4; i++ {
		if math.Abs(c[i]) > math.Abs(c[largest]) {
			largest = i
		}
	}
	s := 1 / math.Sqrt(n)
	if c[largest] < 0 {
		s = -s
	}
	v := uint32(largest) << 30
	shift := 20
	for i := 0; i < 4; i++ {
		if i == largest {
			continue
		}
		u := roundClamp(c[i]*s*math.Sqrt2*RotationSteps, -RotationSteps, RotationSteps) + RotationSteps
		v |= uint32(u) << shift
		shift -= 10
	}
	return v
}

// DequantizeRotation is the inverse of QuantizeRotation. Any uint32 gives a
// unit quaternion.
func DequantizeRotation(v uint32) Quat {
	var c [4]float64
	largest := int(v >> 30)
	shift := 20
	sum := 0.0
	for i := 0; i < 4; i++ {
		if i == largest {
			continue
		}
		u := int64(v>>shift) & 1023
		if u > 2*RotationSteps {
			u = 2 * RotationSteps
		}
		c[i] = float64(u-RotationSteps) / (RotationSteps * math.Sqrt2)
		sum += c[i] * c[i]
		shift -= 10
	}
	if sum > 1 {
		s := 1 / math.Sqrt(sum)
		for i := range c {
			c[i] *= s
		}
		sum = 1
	}
	c[largest] = math.Sqrt(1 - sum)
	return Quat{float32(c[0]), float32(c[1]), float32(c[2]), float32(c[3])}
}

// RotationAngle returns the angle in radians between rotations a and b (each
// normalised first). It uses the chord between the two quaternions, exact
// for small angles where an arc cosine of their dot product is not.
func RotationAngle(a, b Quat) float64 {
	ua := [4]float64{float64(a.X), float64(a.Y), float64(a.Z), float64(a.W)}
	ub := [4]float64{float64(b.X), float64(b.Y), float64(b.Z), float64(b.W)}
	var na, nb, dot float64
	for i := range ua {
		na += ua[i] * ua[i]
		nb += ub[i] * ub[i]
		dot += ua[i] * ub[i]
	}
	na, nb = math.Sqrt(na), math.Sqrt(nb)
	sign := 1.0
	if dot < 0 {
		sign = -1
	}
	var chord float64
	for i := range ua {
		d := ua[i]/na - sign*ub[i]/nb
		chord += d * d
	}
	// |a - b| = 2 sin(angle/4) for unit quaternions with a.b >= 0.
	return 4 * math.Asin(math.Min(1, math.Sqrt(chord)/2))
}

func putF32(b []byte, v float32) { le.PutUint32(b, math.Float32bits(v)) }
func getF32(b []byte) float32    { return math.Float32frombits(le.Uint32(b)) }

func putVec3(b []byte, v Vec3) {
	putF32(b[0:], v.X)
	putF32(b[4:], v.Y)
	putF32(b[8:], v.Z)
}

func getVec3(b []byte) Vec3 { return Vec3{getF32(b[0:]), getF32(b[4:]), getF32(b[8:])} }

// Quantize writes every group of r from e: the full snapshot's record and the
// quantized pose.
func (r *Record) Quantize(e *Entity) {
	r[KindAt] = e.Kind
	r[ModelAt] = e.Model
	r[VariantAt] = e.Variant
	le.PutUint16(r[PartyAt:], e.Party)
	le.PutUint16(r[PlayerAt:], e.Player)
	r[GenAt] = e.Gen
	le.PutUint16(r[VehicleAt:], e.Vehicle)
	r[SeatAt] = e.Seat
	le.PutUint16(r[TractorAt:], e.Tractor)

	r[ThrottleAt] = QuantizeUnit(e.Throttle)
	r[BrakeAt] = QuantizeUnit(e.Brake)
	r[SteerAt] = uint8(QuantizeSteer(e.Steer))
	le.PutUint16(r[HeldAt:], e.Held)
	le.PutUint16(r[HPAt:], e.HP)
	le.PutUint16(r[MaxHPAt:], e.MaxHP)

	r[ActAt] = e.Act
	r[WeaponAt] = e.Weapon
	le.PutUint16(r[AimYawAt:], uint16(QuantizeAngle(e.AimYaw)))
	le.PutUint16(r[AimPitchAt:], uint16(QuantizeAngle(e.AimPitch)))
	le.PutUint16(r[TimerAt:], e.Timer)

	le.PutUint16(r[FlagsAt:], e.Flags)

	putVec3(r[FullPoseAt:], e.Pos)
	putF32(r[FullPoseAt+12:], e.Rot.X)
	putF32(r[FullPoseAt+16:], e.Rot.Y)
	putF32(r[FullPoseAt+20:], e.Rot.Z)
	putF32(r[FullPoseAt+24:], e.Rot.W)
	putVec3(r[FullPoseAt+28:], e.Lin)
	putVec3(r[FullPoseAt+40:], e.Ang)

	le.PutUint32(r[PositionAt:], uint32(QuantizePosition(e.Pos.X)))
	le.PutUint32(r[PositionAt+4:], uint32(QuantizePosition(e.Pos.Y)))
	le.PutUint32(r[PositionAt+8:], uint32(QuantizePosition(e.Pos.Z)))
	le.PutUint32(r[RotationAt:], QuantizeRotation(e.Rot))
	le.PutUint16(r[VelocityAt:], uint16(QuantizeVelocity(e.Lin.X)))
	le.PutUint16(r[VelocityAt+2:], uint16(QuantizeVelocity(e.Lin.Y)))
	le.PutUint16(r[VelocityAt+4:], uint16(QuantizeVelocity(e.Lin.Z)))
	le.PutUint16(r[SpinAt:], uint16(QuantizeSpin(e.Ang.X)))
	le.PutUint16(r[SpinAt+2:], uint16(QuantizeSpin(e.Ang.Y)))
	le.PutUint16(r[SpinAt+4:], uint16(QuantizeSpin(e.Ang.Z)))
}

// Decode fills e from r. The pose comes from the full pose when full is set
// (the client's own entities), else from the quantized pose.
func (r *Record) Decode(e *Entity, full bool) {
	e.Kind = r[KindAt]
	e.Model = r[ModelAt]
	e.Variant = r[VariantAt]
	e.Party = le.Uint16(r[PartyAt:])
	e.Player = le.Uint16(r[PlayerAt:])
	e.Gen = r[GenAt]
	e.Vehicle = le.Uint16(r[VehicleAt:])
	e.Seat = r[SeatAt]
	e.Tractor = le.Uint16(r[TractorAt:])

	e.Throttle = DequantizeUnit(r[ThrottleAt])
	e.Brake = DequantizeUnit(r[BrakeAt])
	e.Steer = DequantizeSteer(int8(r[SteerAt]))
	e.Held = le.Uint16(r[HeldAt:])
	e.HP = le.Uint16(r[HPAt:])
	e.MaxHP = le.Uint16(r[MaxHPAt:])

	e.Act = r[ActAt]
	e.Weapon = r[WeaponAt]
	e.AimYaw = DequantizeAngle(int16(le.Uint16(r[AimYawAt:])))
	e.AimPitch = DequantizeAngle(int16(le.Uint16(r[AimPitchAt:])))
	e.Timer = le.Uint16(r[TimerAt:])

	e.Flags = le.Uint16(r[FlagsAt:])

	if full {
		e.Pos = getVec3(r[FullPoseAt:])
		e.Rot = Quat{getF32(r[FullPoseAt+12:]), getF32(r[FullPoseAt+16:]), getF32(r[FullPoseAt+20:]), getF32(r[FullPoseAt+24:])}
		e.Lin = getVec3(r[FullPoseAt+28:])
		e.Ang = getVec3(r[FullPoseAt+40:])
		return
	}
	p := r.Position()
	e.Pos = Vec3{DequantizePosition(p[0]), DequantizePosition(p[1]), DequantizePosition(p[2])}
	e.Rot = DequantizeRotation(le.Uint32(r[RotationAt:]))
	e.Lin = Vec3{
		DequantizeVelocity(int16(le.Uint16(r[VelocityAt:]))),
		DequantizeVelocity(int16(le.Uint16(r[VelocityAt+2:]))),
		DequantizeVelocity(int16(le.Uint16(r[VelocityAt+4:]))),
	}
	e.Ang = Vec3{
		DequantizeSpin(int16(le.Uint16(r[SpinAt:]))),
		DequantizeSpin(int16(le.Uint16(r[SpinAt+2:]))),
		DequantizeSpin(int16(le.Uint16(r[SpinAt+4:]))),
	}
}

// Position returns the quantized position of r, in 1/PositionScale m.
func (r *Record) Position() [3]int32 {
	return [3]int32{int32(le.Uint32(r[PositionAt:])), int32(le.Uint32(r[PositionAt+4:])), int32(le.Uint32(r[PositionAt+8:]))}
}

// Gen returns the generation held in r.
func (r *Record) Gen() uint8 { return r[GenAt] }

// Kind returns the kind held in r.
func (r *Record) Kind() uint8 { return r[KindAt] }

// AtRest reports whether r's quantized velocity and spin are zero: the pose
// it holds is then exact for every tick until the next one comes.
func (r *Record) AtRest() bool {
	return le.Uint32(r[VelocityAt:]) == 0 && le.Uint16(r[VelocityAt+4:]) == 0 &&
		le.Uint32(r[SpinAt:]) == 0 && le.Uint16(r[SpinAt+4:]) == 0
}

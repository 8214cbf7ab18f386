package wire

import "math"

// The kinds of event (components.EventKind).
const (
	EventShot    uint8 = 1 // Source fired from Pos in direction Dir
	EventBlast   uint8 = 2 // an explosion at Pos of radius Amount (m)
	EventHit     uint8 = 3 // Source hurt Target by Amount (hp) at Pos
	EventCarjack uint8 = 4 // Source pulled Target out of the vehicle Other, at Pos
)

// The bytes of each kind of event on the wire, its kind byte included.
const (
	ShotBytes    = 1 + 2 + 12 + 6     // kind, source, pos, dir
	BlastBytes   = 1 + 2 + 12 + 2     // kind, source, pos, radius
	HitBytes     = 1 + 2 + 2 + 12 + 2 // kind, source, target, pos, amount
	CarjackBytes = 1 + 2 + 2 + 2 + 12 // kind, source, target, other, pos
)

// Event is something a client shows once: a shot, a blast, a hit, a carjack.
// Entities are wire ids (0 for none). Which fields a kind carries is in
// PROTOCOL.md; the others are zero after a round trip.
type Event struct {
	Kind   uint8
	Source uint16 // who fired, threw, hit or pulled
	Target uint16 // who was hit or pulled out
	Other  uint16 // the vehicle of a carjack
	Pos    Vec3   // shot's muzzle, blast's centre, hit's point, carjack's vehicle
	Dir    Vec3   // a shot's unit direction
	Amount float32
}

// EventBytes returns the wire size of an event of kind k, 0 for an unknown
// kind.
func EventBytes(k uint8) int {
	switch k {
	case EventShot:
		return ShotBytes
	case EventBlast:
		return BlastBytes
	case EventHit:
		return HitBytes
	case EventCarjack:
		return CarjackBytes
	}
	return 0
}

func appendPos(b []byte, v Vec3) []byte {
	b = le.AppendUint32(b, uint32(QuantizePosition(v.X)))
	b = le.AppendUint32(b, uint32(QuantizePosition(v.Y)))
	return le.AppendUint32(b, uint32(QuantizePosition(v.Z)))
}

func readPos(b []byte) Vec3 {
	return Vec3{
		DequantizePosition(int32(le.Uint32(b))),
		DequantizePosition(int32(le.Uint32(b[4:]))),
		DequantizePosition(int32(le.Uint32(b[8:]))),
	}
}

func quantizeDir(v float32) uint16 {
	return uint16(int16(roundClamp(float64(v)*DirScale, -DirScale, DirScale)))
}

// AppendEvent appends ev to b. An event of an unknown kind appends nothing.
func AppendEvent(b []byte, ev *Event) []byte {
	switch ev.Kind {
	case EventShot:
		b = append(b, ev.Kind)
		b = le.AppendUint16(b, ev.Source)
		b = appendPos(b, ev.Pos)
		b = le.AppendUint16(b, quantizeDir(ev.Dir.X))
		b = le.AppendUint16(b, quantizeDir(ev.Dir.Y))
		b = le.AppendUint16(b, quantizeDir(ev.Dir.Z))
	case EventBlast:
		b = append(b, ev.Kind)
		b = le.AppendUint16(b, ev.Source)
		b = appendPos(b, ev.Pos)
		b = le.AppendUint16(b, uint16(roundClamp(float64(ev.Amount)*RadiusScale, 0, math.MaxUint16)))
	case EventHit:
		b = append(b, ev.Kind)
		b = le.AppendUint16(b, ev.Source)
		b = le.AppendUint16(b, ev.Target)
		b = appendPos(b, ev.Pos)
		b = le.AppendUint16(b, uint16(roundClamp(float64(ev.Amount), 0, math.MaxUint16)))
	case EventCarjack:
		b = append(b, ev.Kind)
		b = le.AppendUint16(b, ev.Source)
		b = le.AppendUint16(b, ev.Target)
		b = le.AppendUint16(b, ev.Other)
		b = appendPos(b, ev.Pos)
	}
	return b
}

// ParseEvent reads an event from the start of b and returns it with its
// length.
func ParseEvent(b []byte) (ev Event, n int, err error) {
	if len(b) < 1 {
		return ev, 0, malformed("event cut short")
	}
	ev.Kind = b[0]
	n = EventBytes(ev.Kind)
	if n == 0 {
		return ev, 0, malformed("event kind %d", ev.Kind)
	}
	if len(b) < n {
		return ev, 0, malformed("event of kind %d cut short", ev.Kind)
	}
	ev.Source = le.Uint16(b[1:])
	switch ev.Kind {
	case EventShot:
		ev.Pos = readPos(b[3:])
		ev.Dir = Vec3{
			float32(int16(le.Uint16(b[15:]))) / DirScale,
			float32(int16(le.Uint16(b[17:]))) / DirScale,
			float32(int16(le.Uint16(b[19:]))) / DirScale,
		}
	case EventBlast:
		ev.Pos = readPos(b[3:])
		ev.Amount = float32(le.Uint16(b[15:])) / RadiusScale
	case EventHit:
		ev.Target = le.Uint16(b[3:])
		ev.Pos = readPos(b[5:])
		ev.Amount = float32(le.Uint16(b[17:]))
	case EventCarjack:
		ev.Target = le.Uint16(b[3:])
		ev.Other = le.Uint16(b[5:])
		ev.Pos = readPos(b[7:])
	}
	return ev, n, nil
}

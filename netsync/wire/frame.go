package wire

import (
	"errors"
	"fmt"
)

// The kinds of binary frame (a frame's first byte). Kinds 1 to 3 are left to
// the protocol's other binary frames.
const (
	// FrameKeyframe is a whole snapshot: the delta layout, onto nothing.
	// The client forgets what it held first.
	FrameKeyframe uint8 = 4
	// FrameDelta is an ordered delta snapshot, onto the last frame applied.
	FrameDelta uint8 = 5
	// FrameAcked is an acked delta snapshot, onto the newest frame the
	// client acknowledged (a keyframe when its baseTick is 0): acked.go.
	FrameAcked uint8 = 6
	// FrameInput is the client's input frame (input.go).
	FrameInput uint8 = 7
)

// Header flags.
const (
	// HeaderCheck says a u32 check follows the header's counts.
	HeaderCheck uint8 = 1
	// HeaderChain says an acked frame's body is a chain of links, the
	// ordered deltas of the frames after its base (PROTOCOL.md §9).
	HeaderChain uint8 = 2
	// HeaderReserved are the flags no ordered frame may set yet. An acked
	// frame may set HeaderChain too.
	HeaderReserved uint8 = ^HeaderCheck
)

// ackedReserved are the flags no acked frame may set yet.
const ackedReserved = HeaderReserved &^ HeaderChain

// HeaderBytes is a frame header without its check; CheckBytes more with it.
const (
	HeaderBytes = 19
	CheckBytes  = 4
)

// MaxEvents is the most events one frame carries (a u8 count).
const MaxEvents = 255

// Errors of the decoders. Both make the client ask for a keyframe.
var (
	// ErrMalformed is a frame that breaks the format: short, too long, a
	// reserved bit set, an id of 0, an id twice, an unknown kind.
	ErrMalformed = errors.New("wire: malformed frame")
	// ErrResync is a frame that does not fit what the client holds: a base
	// that is not the last frame applied, a check that differs, a removal
	// of an entity not held, or a delta with nothing held yet.
	ErrResync = errors.New("wire: resync needed")
)

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, args...)...)
}

// Header is a snapshot frame's header.
//
//	u8 kind | u32 tick | u32 baseTick | u32 lastSeq | i8 inputBuffer | u8 flags
//	| u16 removed | u16 changed | [u32 check]
type Header struct {
	Kind        uint8
	Tick        uint32 // the server tick the frame's state is of
	BaseTick    uint32 // the tick of the frame it applies onto (0 in a keyframe)
	LastSeq     uint32 // the last input of the client the server ran
	InputBuffer int8   // inputs waiting in the client's queue on the server; below 0, how far behind its newest input is
	Flags       uint8  // Header*
	Removed     uint16 // ids in the removed list (0 in a chained acked frame)
	Changed     uint16 // changes, or the links of a chained acked frame (HeaderChain)
	Check       uint32 // FNV-1a of the held records, when Flags has HeaderCheck
}

// AppendHeader appends h to b.
func AppendHeader(b []byte, h *Header) []byte {
	b = append(b, h.Kind)
	b = le.AppendUint32(b, h.Tick)
	b = le.AppendUint32(b, h.BaseTick)
	b = le.AppendUint32(b, h.LastSeq)
	b = append(b, byte(h.InputBuffer), h.Flags)
	b = le.AppendUint16(b, h.Removed)
	b = le.AppendUint16(b, h.Changed)
	if h.Flags&HeaderCheck != 0 {
		b = le.AppendUint32(b, h.Check)
	}
	return b
}

// ParseHeader reads a header from the start of b and returns it with its
// length. It checks the kind (a keyframe or a delta), the flags and that the
// counts fit in what follows.
func ParseHeader(b []byte) (h Header, n int, err error) { return parseHeader(b, false) }

// parseHeader reads an ordered frame's header (a keyframe or a delta) or,
// when acked, an acked frame's (kind 6: a keyframe when its base is 0, else
// a delta whose base is older than its tick, or a chain of links onto that
// base with HeaderChain).
func parseHeader(b []byte, acked bool) (h Header, n int, err error) {
	if len(b) < HeaderBytes {
		return h, 0, malformed("%d bytes, a header is %d", len(b), HeaderBytes)
	}
	h.Kind = b[0]
	h.Tick = le.Uint32(b[1:])
	h.BaseTick = le.Uint32(b[5:])
	h.LastSeq = le.Uint32(b[9:])
	h.InputBuffer = int8(b[13])
	h.Flags = b[14]
	h.Removed = le.Uint16(b[15:])
	h.Changed = le.Uint16(b[17:])
	n = HeaderBytes
	switch {
	case acked && h.Kind != FrameAcked, !acked && h.Kind != FrameKeyframe && h.Kind != FrameDelta:
		return h, 0, malformed("frame kind %d", h.Kind)
	}
	reserved := HeaderReserved
	if acked {
		reserved = ackedReserved
	}
	if h.Flags&reserved != 0 {
		return h, 0, malformed("reserved header flags %#x", h.Flags)
	}
	if h.Flags&HeaderCheck != 0 {
		if len(b) < n+CheckBytes {
			return h, 0, malformed("no room for the check")
		}
		h.Check = le.Uint32(b[n:])
		n += CheckBytes
	}
	if h.Kind == FrameKeyframe && (h.BaseTick != 0 || h.Removed != 0 || h.Flags&HeaderCheck == 0) {
		return h, 0, malformed("keyframe with a base, removals or no check")
	}
	if h.Flags&HeaderChain != 0 {
		if err := chainHeader(b[n:], &h); err != nil {
			return h, 0, err
		}
		return h, n, nil
	}
	if acked && h.BaseTick == 0 && (h.Removed != 0 || h.Flags&HeaderCheck == 0) {
		return h, 0, malformed("acked keyframe with removals or no check")
	}
	if acked && h.BaseTick != 0 && h.BaseTick >= h.Tick {
		return h, 0, malformed("acked frame of tick %d onto tick %d", h.Tick, h.BaseTick)
	}
	// Each removal is 2 bytes, each change at least 4, and the events'
	// count 1: refuse counts the bytes cannot hold before looping on them.
	if need := int(h.Removed)*2 + int(h.Changed)*4 + 1; len(b)-n < need {
		return h, 0, malformed("%d removals and %d changes in %d bytes", h.Removed, h.Changed, len(b)-n)
	}
	return h, n, nil
}

// ChangeBytes returns the length of a change with mask.
func ChangeBytes(mask uint16) int {
	n := 4
	if mask&PoseAge != 0 {
		n++
	}
	for g := 0; g < GroupCount; g++ {
		if mask&(1<<g) != 0 {
			n += int(groupBytes[g])
		}
	}
	if mask&SmallSteps != 0 && mask&(1<<GroupPosition) != 0 {
		n -= PositionBytes - SmallStepBytes
	}
	return n
}

// StepsFit reports whether the position of rec is within SmallStepMax of
// from on every axis.
func StepsFit(rec *Record, from *[3]int32) bool {
	p := rec.Position()
	for i := range p {
		d := int64(p[i]) - int64(from[i])
		if d > SmallStepMax || d < -SmallStepMax {
			return false
		}
	}
	return true
}

// AppendChange appends a change of entity eid: its mask, the age byte when
// mask has PoseAge, then the bytes of each group of mask taken from rec, in
// group order. When mask has the position and SmallSteps, the position goes
// as steps from from (the position the client holds); the caller checks
// StepsFit first.
func AppendChange(b []byte, eid, mask uint16, age uint8, rec *Record, from *[3]int32) []byte {
	if mask&(1<<GroupPosition) == 0 {
		mask &^= SmallSteps
	}
	b = le.AppendUint16(b, eid)
	b = le.AppendUint16(b, mask)
	if mask&PoseAge != 0 {
		b = append(b, age)
	}
	groups := mask & MaskGroups
	if groups&(1<<GroupPosition) != 0 {
		if mask&SmallSteps != 0 {
			p := rec.Position()
			b = le.AppendUint16(b, uint16(p[0]-from[0]))
			b = le.AppendUint16(b, uint16(p[1]-from[1]))
			b = le.AppendUint16(b, uint16(p[2]-from[2]))
		} else {
			b = append(b, rec[PositionAt:PositionAt+PositionBytes]...)
		}
		groups &^= 1 << GroupPosition
	}
	for g := 1; groups != 0; g++ {
		if groups&(1<<g) != 0 {
			at := int(groupAt[g])
			b = append(b, rec[at:at+int(groupBytes[g])]...)
			groups &^= 1 << g
		}
	}
	return b
}

// Change is one change read from a frame.
type Change struct {
	EID  uint16
	Mask uint16
	Age  uint8  // ticks before the frame's tick the pose was measured (PoseAge)
	Body []byte // the groups' bytes, in group order
}

// ParseChange reads a change from the start of b and returns it with its
// length. Body aliases b.
func ParseChange(b []byte) (c Change, n int, err error) {
	if len(b) < 4 {
		return c, 0, malformed("change cut short")
	}
	c.EID = le.Uint16(b)
	c.Mask = le.Uint16(b[2:])
	if c.EID == 0 {
		return c, 0, malformed("change of entity 0")
	}
	if c.Mask&MaskReserved != 0 {
		return c, 0, malformed("entity %d: reserved mask bits %#x", c.EID, c.Mask)
	}
	if c.Mask&SmallSteps != 0 && c.Mask&(1<<GroupPosition) == 0 {
		return c, 0, malformed("entity %d: small steps without a position", c.EID)
	}
	n = ChangeBytes(c.Mask)
	if len(b) < n {
		return c, 0, malformed("entity %d: change of %d bytes, %d left", c.EID, n, len(b))
	}
	body := 4
	if c.Mask&PoseAge != 0 {
		c.Age = b[4]
		body++
	}
	c.Body = b[body:n]
	return c, n, nil
}

// ApplyChange writes the groups of c onto rec; a position sent as SmallSteps
// is added to the one rec holds. c must come from ParseChange.
func ApplyChange(rec *Record, c *Change) {
	body := c.Body
	groups := c.Mask & MaskGroups
	if groups&(1<<GroupPosition) != 0 {
		if c.Mask&SmallSteps != 0 {
			p := rec.Position()
			for i := range p {
				p[i] += int32(int16(le.Uint16(body[2*i:])))
				le.PutUint32(rec[PositionAt+4*i:], uint32(p[i]))
			}
			body = body[SmallStepBytes:]
		} else {
			copy(rec[PositionAt:PositionAt+PositionBytes], body)
			body = body[PositionBytes:]
		}
		groups &^= 1 << GroupPosition
	}
	for g := 1; groups != 0; g++ {
		if groups&(1<<g) != 0 {
			at, size := int(groupAt[g]), int(groupBytes[g])
			copy(rec[at:at+size], body)
			body = body[size:]
			groups &^= 1 << g
		}
	}
}

package wire

import "encoding/binary"

// The input frame (client to server), kind 7:
//
//	u8 kind=7 | u32 ack | u8 flags | u32 firstSeq | u8 count | input*count
//	input = u8 throttle | u8 brake | i8 steer | i8 moveX | i8 moveY
//	        | u16 lookYaw | i8 lookPitch | u16 held | u16 pressed
//	        [| u8 view, with InputView]
//
// ack is the newest snapshot tick the client applied (the acked snapshots'
// base; the ordered ones ignore it). The inputs are the client's ticks
// firstSeq, firstSeq+1, ... firstSeq+count-1, oldest first: the last one over
// an ordered transport, the last InputsLossy over a lossy one, so that a lost
// frame's inputs come again in the next.
//
// With InputView set, each input ends with a u8 view: the server tick whose
// world the client drew when it made the input is ack less view (the lag
// compensation of its shots). A frame without it is an old client's: its
// shots hit the present.

// Input frame flags.
const (
	// InputResync asks the server for a keyframe (the client's decoder
	// found a wrong check or a base it does not hold).
	InputResync uint8 = 1
	// InputView says each input carries its view: the server tick the
	// client drew, as a count of ticks before ack.
	InputView uint8 = 2
	// InputReserved are the flags no frame may set yet.
	InputReserved uint8 = ^(InputResync | InputView)
)

// Inputs per frame.
const (
	// InputsOrdered is the inputs a frame carries over an ordered
	// transport: each input once, in order, is all it takes.
	InputsOrdered = 1
	// InputsLossy is the inputs a frame carries over a lossy transport:
	// four, so that three frames in a row may be lost without losing an
	// input.
	InputsLossy = 4
	// MaxInputsPerFrame bounds count: more is a malformed frame.
	MaxInputsPerFrame = 8
)

// InputBytes is one input's size, InputHeaderBytes the frame's header's;
// InputViewBytes is an input's with InputView.
const (
	InputBytes       = 12
	InputViewBytes   = InputBytes + 1
	InputHeaderBytes = 11
)

// Input is one tick of a client's controls, quantized as the wire carries
// them. The client predicts with exactly these values (package control turns
// them into a Drive the same way on both sides).
type Input struct {
	Throttle  uint8 // 0..255 is 0..1
	Brake     uint8 // 0..255 is 0..1
	Steer     int8  // -127..127 is -1..1 (left positive)
	MoveX     int8  // -127..127 is -1..1
	MoveY     int8  // -127..127 is -1..1
	LookYaw   uint16
	LookPitch int8
	Held      uint16
	Pressed   uint16
	// View is how many ticks before the frame's ack the server tick the
	// client drew is (0..255); 0 in a frame without InputView.
	View uint8
}

// InputFrame is a decoded input frame.
type InputFrame struct {
	Ack      uint32
	Flags    uint8
	FirstSeq uint32
	Count    int
	Inputs   [MaxInputsPerFrame]Input
}

// AppendInputFrame appends f to b.
func AppendInputFrame(b []byte, f *InputFrame) []byte {
	b = append(b, FrameInput)
	b = binary.LittleEndian.AppendUint32(b, f.Ack)
	b = append(b, f.Flags)
	b = binary.LittleEndian.AppendUint32(b, f.FirstSeq)
	b = append(b, uint8(f.Count))
	for i := 0; i < f.Count && i < MaxInputsPerFrame; i++ {
		in := &f.Inputs[i]
		b = append(b, in.Throttle, in.Brake, uint8(in.Steer), uint8(in.MoveX), uint8(in.MoveY))
		b = binary.LittleEndian.AppendUint16(b, in.LookYaw)
		b = append(b, uint8(in.LookPitch))
		b = binary.LittleEndian.AppendUint16(b, in.Held)
		b = binary.LittleEndian.AppendUint16(b, in.Pressed)
		if f.Flags&InputView != 0 {
			b = append(b, in.View)
		}
	}
	return b
}

// inputSize returns the bytes of one input in a frame of flags.
func inputSize(flags uint8) int {
	if flags&InputView != 0 {
		return InputViewBytes
	}
	return InputBytes
}

// DecodeInputFrame decodes an input frame into f. A frame of another kind,
// a reserved flag, a count of 0 or over MaxInputsPerFrame, or a length that
// is not exactly the count's is malformed; f is then undefined.
func DecodeInputFrame(b []byte, f *InputFrame) error {
	if len(b) < InputHeaderBytes {
		return malformed("input frame of %d bytes", len(b))
	}
	if b[0] != FrameInput {
		return malformed("frame kind %d is not an input frame", b[0])
	}
	f.Ack = binary.LittleEndian.Uint32(b[1:])
	f.Flags = b[5]
	if f.Flags&InputReserved != 0 {
		return malformed("input flags %#x", f.Flags)
	}
	f.FirstSeq = binary.LittleEndian.Uint32(b[6:])
	f.Count = int(b[10])
	if f.Count == 0 || f.Count > MaxInputsPerFrame {
		return malformed("%d inputs in a frame", f.Count)
	}
	size := inputSize(f.Flags)
	if len(b) != InputHeaderBytes+f.Count*size {
		return malformed("input frame of %d bytes for %d inputs", len(b), f.Count)
	}
	p := b[InputHeaderBytes:]
	for i := 0; i < f.Count; i++ {
		in := &f.Inputs[i]
		in.Throttle, in.Brake = p[0], p[1]
		in.Steer, in.MoveX, in.MoveY = int8(p[2]), int8(p[3]), int8(p[4])
		in.LookYaw = binary.LittleEndian.Uint16(p[5:])
		in.LookPitch = int8(p[7])
		in.Held = binary.LittleEndian.Uint16(p[8:])
		in.Pressed = binary.LittleEndian.Uint16(p[10:])
		in.View = 0
		if size == InputViewBytes {
			in.View = p[12]
		}
		p = p[size:]
	}
	return nil
}

// ReliableAbove is the largest frame sent on a lossy transport's unreliable
// channel: a snapshot over it goes on the reliable one. One SCTP packet under
// a 1,200-byte path MTU, the WebRTC default, holds 1,100 bytes after the
// DTLS, SCTP and DATA chunk headers of about 60 bytes. So an unreliable frame
// is never fragmented, and one lost fragment never loses a whole frame.
const ReliableAbove = 1100

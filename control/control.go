// Package control turns a player's controls (components.Drive) into the
// input frame's quantized wire.Input and back. The server runs a client's
// tick on Drive(in); the client predicts on Drive(Quantize(d)), the very same
// values, so prediction and server agree to the bit.
package control

import (
	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/netsync/wire"
)

const (
	yawStep   = 2 * math32.Pi / 65536
	pitchStep = math32.Pi / 2 / 127
)

// Quantize returns d as the wire carries it. Out-of-range and non-finite
// values are clamped (NaN is 0).
func Quantize(d *components.Drive) wire.Input {
	return wire.Input{
		Throttle:  unit8(d.Throttle),
		Brake:     unit8(d.Brake),
		Steer:     signed8(d.Steer),
		MoveX:     signed8(d.MoveX),
		MoveY:     signed8(d.MoveY),
		LookYaw:   angle16(d.LookYaw),
		LookPitch: int8(math32.Round(clamp(finite(d.LookPitch), -math32.Pi/2, math32.Pi/2) / pitchStep)),
		Held:      uint16(d.Held),
		Pressed:   uint16(d.Pressed),
	}
}

// Drive returns the controls an input stands for. Every wire value is valid:
// a hostile client can send nothing out of range.
func Drive(in *wire.Input) components.Drive {
	return components.Drive{
		Throttle:  float32(in.Throttle) / 255,
		Brake:     float32(in.Brake) / 255,
		Steer:     float32(max(in.Steer, -127)) / 127,
		MoveX:     float32(max(in.MoveX, -127)) / 127,
		MoveY:     float32(max(in.MoveY, -127)) / 127,
		LookYaw:   float32(int16(in.LookYaw)) * yawStep,
		LookPitch: float32(max(in.LookPitch, -127)) * pitchStep,
		Held:      components.Buttons(in.Held),
		Pressed:   components.Buttons(in.Pressed),
	}
}

// Round returns d as the server will run it: Drive(Quantize(d)).
func Round(d *components.Drive) components.Drive {
	in := Quantize(d)
	return Drive(&in)
}

func finite(x float32) float32 {
	if x-x != 0 {
		return 0
	}
	return x
}

func clamp(x, lo, hi float32) float32 { return math32.Min(math32.Max(x, lo), hi) }

func unit8(x float32) uint8 { return uint8(math32.Round(clamp(finite(x), 0, 1) * 255)) }

func signed8(x float32) int8 { return int8(math32.Round(clamp(finite(x), -1, 1) * 127)) }

// angle16 wraps a yaw into a turn of 65,536 steps.
func angle16(yaw float32) uint16 {
	yaw = finite(yaw)
	turns := yaw / (2 * math32.Pi)
	turns -= math32.Floor(turns)
	return uint16(int32(math32.Round(turns*65536)) & 0xFFFF)
}

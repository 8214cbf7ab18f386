package control

import (
	"testing"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/netsync/wire"
)

func TestRoundTrip(t *testing.T) {
	cases := []components.Drive{
		{},
		{Throttle: 1, Brake: 0.5, Steer: -1, MoveX: 0.3, MoveY: -0.7, LookYaw: 3, LookPitch: 0.4, Held: components.BtnHandbrake, Pressed: components.BtnUse},
		{Throttle: 2, Brake: -1, Steer: 5, MoveY: math32.NaN(), LookYaw: -7, LookPitch: 9},
	}
	for _, d := range cases {
		r := Round(&d)
		// Rounding twice changes nothing: the client predicts on exactly
		// what the server runs.
		if r2 := Round(&r); r2 != r {
			t.Fatalf("round of %+v is %+v, again %+v", d, r, r2)
		}
		if r.Throttle < 0 || r.Throttle > 1 || r.Steer < -1 || r.Steer > 1 || r.MoveY != r.MoveY {
			t.Fatalf("out of range: %+v", r)
		}
		// The heading survives within a step.
		if d.LookYaw == d.LookYaw {
			diff := math32.Remainder(r.LookYaw-d.LookYaw, 2*math32.Pi)
			if math32.Abs(diff) > yawStep {
				t.Fatalf("yaw %v came back as %v", d.LookYaw, r.LookYaw)
			}
		}
	}
}

func TestEveryWireValueIsInRange(t *testing.T) {
	for v := 0; v < 256; v++ {
		in := wire.Input{Throttle: uint8(v), Brake: uint8(v), Steer: int8(v), MoveX: int8(v), MoveY: int8(v), LookPitch: int8(v), LookYaw: uint16(v << 8)}
		d := Drive(&in)
		for _, x := range []float32{d.Steer, d.MoveX, d.MoveY} {
			if x < -1 || x > 1 {
				t.Fatalf("wire %d gave %v", v, x)
			}
		}
		if d.Throttle < 0 || d.Throttle > 1 || math32.Abs(d.LookPitch) > math32.Pi/2+1e-6 || math32.Abs(d.LookYaw) > math32.Pi+1e-6 {
			t.Fatalf("wire %d gave %+v", v, d)
		}
	}
}

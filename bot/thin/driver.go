package thin

import (
	"math/rand/v2"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/control"
	"github.com/fiveonit/engine/netsync/wire"
)

// Driver makes a thin bot's controls with no knowledge of the world: a
// steady throttle and a slow steering wave in a car, the same wave as a
// walk forward on foot (the server runs whichever the character is doing).
// Each bot's throttle, wave and phase are drawn from its seed, so that the
// bots spread over the level rather than drive in one file. It allocates
// nothing.
type Driver struct {
	throttle float32 // 0.4..1
	amp      float32 // the steering wave's amplitude, 0.2..1
	period   uint32  // the wave's period in ticks: 3 to 12 s
	phase    float32
	tick     uint32 // within the period
}

// NewDriver returns the driver of seed.
func NewDriver(seed uint64) Driver {
	rng := rand.New(rand.NewPCG(seed, 0x7468696e)) // "thin"
	return Driver{
		throttle: 0.4 + 0.6*rng.Float32(),
		amp:      0.2 + 0.8*rng.Float32(),
		period:   3*60 + rng.Uint32N(9*60+1),
		phase:    2 * math32.Pi * rng.Float32(),
	}
}

// Next returns the controls of the driver's next tick, quantized as the
// wire carries them.
func (d *Driver) Next() wire.Input {
	a := d.phase + 2*math32.Pi*float32(d.tick)/float32(d.period)
	d.tick = (d.tick + 1) % d.period
	steer := d.amp * math32.Sin(a)
	dr := components.Drive{
		Throttle: d.throttle,
		Steer:    steer,
		MoveY:    1,
		LookYaw:  a, // a walker turns round once a period
	}
	return control.Quantize(&dr)
}

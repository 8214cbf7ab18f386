package bench

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fiveonit/engine/netsync"
	"github.com/fiveonit/engine/netsync/wire"
)

// city is a benchmark world: n cars spread over a square of side citySide
// metres, driving about (each tick every mover advances 1/60 s).
type city struct {
	ents []wire.Entity // by wire id; 0 unused
	rng  *rand.Rand
}

// citySide is the side of the square a city's cars start in, in metres.
const citySide = 1000

func newCity(n int) *city {
	c := &city{ents: make([]wire.Entity, n+1), rng: rand.New(rand.NewPCG(1, 2))}
	for i := 1; i <= n; i++ {
		yaw := c.rng.Float64() * 2 * math.Pi
		s, co := math.Sincos(yaw / 2)
		c.ents[i] = wire.Entity{
			Kind: wire.KindCar, Model: uint8(i % 8), HP: 1000, MaxHP: 1000,
			Pos: wire.Vec3{X: c.rng.Float32() * citySide, Y: c.rng.Float32() * citySide},
			Rot: wire.Quat{Z: float32(s), W: float32(co)},
			Lin: wire.Vec3{X: 12 * float32(math.Cos(yaw)), Y: 12 * float32(math.Sin(yaw))},
			Ang: wire.Vec3{Z: 0.1}, Throttle: 0.6,
		}
	}
	return c
}

// move advances every car (every: all of them, else none).
func (c *city) move(all bool) {
	if !all {
		return
	}
	const dt = 1.0 / 60
	for i := 1; i < len(c.ents); i++ {
		e := &c.ents[i]
		e.Pos.X += e.Lin.X * dt
		e.Pos.Y += e.Lin.Y * dt
		yaw := 2*math.Atan2(float64(e.Rot.Z), float64(e.Rot.W)) + float64(e.Ang.Z)*dt
		s, co := math.Sincos(yaw / 2)
		e.Rot = wire.Quat{Z: float32(s), W: float32(co)}
	}
}

func (c *city) fill(a *netsync.Arena, tick uint32) {
	a.Begin(tick)
	for i := 1; i < len(c.ents); i++ {
		a.Put(uint16(i), &c.ents[i], false)
	}
	a.End()
}

// BenchmarkNetsyncQuantize is the arena's tick per entity: Put (quantize into
// the record, mark the groups changed) of 1,000 cars, every one moving or
// none. Reported as ns per entity.
func BenchmarkNetsyncQuantize(b *testing.B) {
	for _, moving := range []bool{true, false} {
		name := "unchanged"
		if moving {
			name = "moving"
		}
		b.Run(name, func(b *testing.B) {
			c := newCity(1000)
			a := netsync.NewArena()
			tick := uint32(1)
			c.fill(a, tick)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				tick++
				b.StopTimer()
				c.move(moving)
				b.StartTimer()
				c.fill(a, tick)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/entity")
		})
	}
}

// BenchmarkNetsyncEncode is one client's frame per entity it holds: 64
// clients over 2,000 cars in 1,000 x 1,000 m (about 280 held each at the
// game's 250 m radius), a frame every 3rd tick, every car moving or none.
// Reported: ns per held entity per client, and bytes per client per second
// at 20 frames a second.
func BenchmarkNetsyncEncode(b *testing.B) {
	for _, moving := range []bool{false, true} {
		name := "unchanged"
		if moving {
			name = "changed"
		}
		b.Run(name, func(b *testing.B) {
			const clients = 64
			c := newCity(2000)
			a := netsync.NewArena()
			encs := make([]*netsync.Encoder, clients)
			views := make([]netsync.View, clients)
			rng := rand.New(rand.NewPCG(3, 4))
			for i := range encs {
				encs[i] = netsync.NewEncoder(a)
				views[i].Center = wire.Vec3{X: rng.Float32() * 1000, Y: rng.Float32() * 1000}
			}
			tick := uint32(0)
			frame := func() (bytes, held int) {
				for range wire.SnapshotEvery {
					tick++
					c.move(moving)
					c.fill(a, tick)
				}
				b.StartTimer()
				for i, e := range encs {
					bytes += len(e.Encode(&views[i]))
				}
				b.StopTimer()
				for _, e := range encs {
					held += e.Held()
				}
				return bytes, held
			}
			for range 100 { // keyframes, the tiers' first turns, every buffer grown
				frame()
			}
			b.ReportAllocs()
			b.ResetTimer()
			b.StopTimer()
			var bytes, held int
			for i := 0; i < b.N; i++ {
				fb, fh := frame()
				bytes += fb
				held += fh
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(held), "ns/entity")
			b.ReportMetric(float64(held)/float64(b.N)/clients, "held/client")
			b.ReportMetric(float64(bytes)/float64(b.N)/clients*20, "B/client/s")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/clients/1000, "us/client")
		})
	}
}

// BenchmarkNetsyncDecode is the client's side: a decoder applying each frame
// of one client of the "changed" city.
func BenchmarkNetsyncDecode(b *testing.B) {
	c := newCity(2000)
	a := netsync.NewArena()
	enc := netsync.NewEncoder(a)
	dec := wire.NewDecoder()
	view := netsync.View{Center: wire.Vec3{X: 500, Y: 500}}
	tick := uint32(0)
	next := func() []byte {
		for range wire.SnapshotEvery {
			tick++
			c.move(true)
			c.fill(a, tick)
		}
		return enc.Encode(&view)
	}
	for range 10 {
		if _, err := dec.Apply(next()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.StopTimer()
	for i := 0; i < b.N; i++ {
		f := next()
		b.StartTimer()
		if _, err := dec.Apply(f); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
	}
}

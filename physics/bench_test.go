package physics

import (
	"fmt"
	"testing"
	"time"

	"github.com/fiveonit/engine/components"
)

// benchReset is how many ticks a benchmark runs from its snapshot before
// going back to it, so that b.N does not decide how much the city's traffic
// has piled up at its crossings: ten seconds of play.
const benchReset = 600

// BenchmarkStep runs the city (see city_test.go) at 100, 1,000 and 5,000
// bodies, half cars cruising, half people walking, after two seconds of
// warm-up. One op is one tick. Metrics: ns/body/step is Step alone (timed
// round each call); ns/body/tick adds the vehicle and walking models, the
// whole of the physics system's work but the gather and write-back;
// contacts/body is the dynamic and static contacts per body per step.
func BenchmarkStep(b *testing.B) {
	for _, n := range []int{100, 1000, 5000} {
		b.Run(fmt.Sprintf("bodies=%d", n), func(b *testing.B) {
			c := newCity(n, 1)
			var s Scratch
			for k := 0; k < 120; k++ {
				c.tick(&s)
			}
			snap := append([]Body(nil), c.b.List...)
			b.ReportAllocs()
			b.ResetTimer()
			var stepNs, tickNs time.Duration
			contacts := 0
			for k := 0; k < b.N; k++ {
				if k%benchReset == benchReset-1 {
					b.StopTimer()
					copy(c.b.List, snap)
					b.StartTimer()
				}
				c.steer() // the AI's inputs: not physics, not counted below
				t0 := time.Now()
				c.driveAll(Dt)
				t1 := time.Now()
				Step(c.st, &c.b, &s, Dt)
				t2 := time.Now()
				c.wrap()
				stepNs += t2.Sub(t1)
				tickNs += t2.Sub(t0)
				contacts += s.Stats.Contacts + s.Stats.StaticContacts
			}
			per := float64(b.N) * float64(n)
			b.ReportMetric(float64(stepNs.Nanoseconds())/per, "ns/body/step")
			b.ReportMetric(float64(tickNs.Nanoseconds())/per, "ns/body/tick")
			b.ReportMetric(float64(contacts)/per, "contacts/body")
		})
	}
}

func BenchmarkDriveCar(b *testing.B) {
	spec := CarModel(ModelSedan)
	pose := components.Pose{Rot: components.YawQuat(0.3)}
	vel := components.Velocity{Lin: components.Vec3{X: 10, Y: 3}}
	in := components.Drive{Throttle: 1, Steer: 0.3}
	b.ReportAllocs()
	for b.Loop() {
		DriveCar(&pose, &vel, &in, spec, Dt)
		vel.Lin = components.Vec3{X: 10, Y: 3}
	}
}

func BenchmarkDriveWalker(b *testing.B) {
	pose := components.Pose{Rot: components.YawQuat(0.3)}
	var vel components.Velocity
	in := components.Drive{MoveY: 1, MoveX: 0.3, LookYaw: 1.2}
	b.ReportAllocs()
	for b.Loop() {
		DriveWalker(&pose, &vel, &in, &DefaultWalker, Dt)
	}
}

func BenchmarkStaticSegmentClear(b *testing.B) {
	c := newCity(1000, 1)
	b.ReportAllocs()
	k := 0
	for b.Loop() {
		k++
		c.st.SegmentClear(Vec{float32(k % 500), 0}, Vec{0, float32(k % 400)})
	}
}

func BenchmarkStaticOverlaps(b *testing.B) {
	c := newCity(1000, 1)
	b.ReportAllocs()
	k := 0
	for b.Loop() {
		k++
		c.st.Overlaps(Vec{float32(k % 560), float32(k * 7 % 560)}, 0.35)
	}
}

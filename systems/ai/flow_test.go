package ai_test

import (
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/ecs/ecstest"
	"github.com/fiveonit/engine/systems/systemstest"
)

// TestTrafficFlows runs main-city's traffic and crowd round two players
// for minutes: the cars keep moving (the crossings do not lock up: they
// stand little but at red lights, and there not much longer than the
// lights hold them), keep to their lanes' speed limits, none crashes into
// another, and none runs a pedestrian down.
func TestTrafficFlows(t *testing.T) {
	for _, seed := range []uint64{1} {
		l := systemstest.Load(t, "main-city")
		r := newRig(t, l, ecs.FreeRoam(), seed, nil)
		r.Character(t, -48, -48, 0)
		r.Character(t, 200, 150, 0)
		crashes, pedHits, stoppedSum, atLights, samples := 0, 0, 0, 0, 0
		secs := 150
		if testing.Short() {
			secs = 75 // the race pass: half the minutes, the same checks
		}
		for sec := 0; sec < secs; sec++ {
			r.Step(60)
			for _, c := range r.W.Contacts {
				if c.B.IsZero() {
					continue
				}
				ka, kb := ecstest.Get[components.Kind](r.W, c.A), ecstest.Get[components.Kind](r.W, c.B)
				switch {
				case ka.IsVehicle() && kb.IsVehicle() && c.Impulse > 2000:
					crashes++
				case ka.IsVehicle() != kb.IsVehicle() && c.Impulse > 300:
					pedHits++
				}
			}
			for _, c := range npcs(r.W, true, components.RoleTraffic) {
				v := r.Speed(c)
				lane := ecstest.Get[components.NPC](r.W, c).Lane
				switch {
				case v >= 0.5:
				case lane >= 0 && lightOf(r.W, int(lane)).Stop():
					atLights++ // its lane ends at amber or red
				default:
					stoppedSum++
				}
				samples++
				if lane >= 0 && v > l.Roads.Lanes[lane].SpeedLimit+0.5 {
					t.Fatalf("seed %d: a car at %.1f m/s on a lane of %.0f", seed, v, l.Roads.Lanes[lane].SpeedLimit)
				}
			}
		}
		if crashes > 0 || pedHits > 0 {
			t.Errorf("seed %d: %d crashes between cars, %d people hit", seed, crashes, pedHits)
		}
		t.Logf("seed %d: the cars stood %.1f%% of the time, and %.1f%% at lights", seed,
			100*float32(stoppedSum)/float32(samples), 100*float32(atLights)/float32(samples))
		if frac := float32(stoppedSum) / float32(samples); frac > 0.1 {
			t.Errorf("seed %d: the cars stood %.0f%% of the time (not at a light)", seed, 100*frac)
		}
		if frac := float32(atLights) / float32(samples); frac > 0.25 {
			t.Errorf("seed %d: the cars stood at lights %.0f%% of the time", seed, 100*frac)
		}
	}
}

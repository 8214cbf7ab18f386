package ai_test

import (
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
)

// TestTrafficFlows runs main-city's traffic and crowd round two players
// for minutes: the cars keep moving (the crossings do not lock up), keep
// to their lanes' speed limits, none crashes into another, and none runs
// a pedestrian down.
func TestTrafficFlows(t *testing.T) {
	for _, seed := range []uint64{1} {
		l := loadLevel(t, "main-city")
		r := newRig(t, l, ecs.FreeRoam(), seed, nil)
		r.character(t, -48, -48)
		r.character(t, 200, 150)
		crashes, pedHits, stoppedSum, samples := 0, 0, 0, 0
		for sec := 0; sec < 150; sec++ {
			r.step(60)
			for _, c := range r.w.Contacts {
				if c.B.IsZero() {
					continue
				}
				ka, kb := get[components.Kind](r.w, c.A), get[components.Kind](r.w, c.B)
				switch {
				case ka.IsVehicle() && kb.IsVehicle() && c.Impulse > 2000:
					crashes++
				case ka.IsVehicle() != kb.IsVehicle() && c.Impulse > 300:
					pedHits++
				}
			}
			for _, c := range npcs(r.w, true, components.RoleTraffic) {
				v := speedOf(r.w, c)
				if v < 0.5 {
					stoppedSum++
				}
				samples++
				if lane := get[components.NPC](r.w, c).Lane; lane >= 0 && v > l.Roads.Lanes[lane].SpeedLimit+0.5 {
					t.Fatalf("seed %d: a car at %.1f m/s on a lane of %.0f", seed, v, l.Roads.Lanes[lane].SpeedLimit)
				}
			}
		}
		if crashes > 0 || pedHits > 0 {
			t.Errorf("seed %d: %d crashes between cars, %d people hit", seed, crashes, pedHits)
		}
		if frac := float32(stoppedSum) / float32(samples); frac > 0.2 {
			t.Errorf("seed %d: the cars stood %.0f%% of the time", seed, 100*frac)
		}
	}
}

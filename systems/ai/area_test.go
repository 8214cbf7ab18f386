package ai_test

import (
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems/ai"
	"github.com/fiveonit/engine/systems/systemstest"
)

// areaLevel is a two-way road along y = 0 from x = -800 to 800 with no
// traffic spawn point, and a traffic spawn area over its stretch from
// x = 100 to 300.
const areaLevel = `{
  "name": "test-traffic-area",
  "version": 1,
  "ground": {"min":[-900,-900],"max":[900,900]},
  "roads": {
    "nodes": [{"id":1,"pos":[-800,0]},{"id":2,"pos":[800,0]}],
    "lanes": [
      {"id":0,"from":1,"to":2,"width":3.5,"offset":1.75,"speedLimit":14},
      {"id":1,"from":2,"to":1,"width":3.5,"offset":1.75,"speedLimit":14}
    ]
  },
  "spawnAreas": [
    {"id":"busy","role":"traffic","polygon":[[100,-10],[300,-10],[300,10],[100,10]]}
  ]
}`

// TestTrafficSpawnArea: an ambient car comes out of a traffic spawn area
// at its lane point nearest to the player that lies at the spawn distance
// (TrafficSpawnMin at least), on the lane, facing its way. Lane points
// are every ai.AreaStep from 15 m past a lane's start.
func TestTrafficSpawnArea(t *testing.T) {
	for _, c := range []struct {
		name   string
		player phys.Vec
		want   phys.Vec
	}{
		// West of the area: its first point on lane 0 (x = -785 + 8k).
		{"west of the area", phys.Vec{X: 0, Y: 20}, phys.Vec{X: 103, Y: -1.75}},
		// In the area's middle: the nearest point 60 m away at least.
		{"over the area", phys.Vec{X: 200, Y: 20}, phys.Vec{X: 143, Y: -1.75}},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := systemstest.Parse(t, "test-traffic-area", areaLevel)
			r := newRig(t, l, ecs.Rules{Traffic: 1}, 1, func(tu *ai.Tuning) { tu.SightRange = 20 })
			r.Character(t, c.player.X, c.player.Y, 0)
			r.Step(1)
			cars := npcs(r.W, true, components.RoleTraffic)
			if len(cars) != 1 {
				t.Fatalf("%d cars, want 1", len(cars))
			}
			if at := r.Pos(cars[0]); at.Sub(c.want).Len() > 0.5 {
				t.Fatalf("the car came out at %v, want %v", at, c.want)
			}
		})
	}
}

package ai_test

import (
	"testing"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/ecs/ecstest"
	"github.com/fiveonit/engine/levels"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems/ai"
	"github.com/fiveonit/engine/systems/systemstest"
	"github.com/mlange-42/arche/generic"
)

// crossLevel is a crossroads: four two-way arms of one lane each way
// (speed limits 10 west, 14 elsewhere) meeting at node 0, a block in
// each quarter with a pavement round it.
const crossLevel = `{
  "name": "test-cross", "version": 1,
  "ground": {"min": [-150, -150], "max": [150, 150]},
  "buildings": [
    {"id": "ne", "footprint": [[12, 12], [60, 12], [60, 60], [12, 60]], "height": 10, "use": "office"},
    {"id": "nw", "footprint": [[-60, 12], [-12, 12], [-12, 60], [-60, 60]], "height": 10, "use": "office"},
    {"id": "sw", "footprint": [[-60, -60], [-12, -60], [-12, -12], [-60, -12]], "height": 10, "use": "office"},
    {"id": "se", "footprint": [[12, -60], [60, -60], [60, -12], [12, -12]], "height": 10, "use": "office"}
  ],
  "roads": {
    "nodes": [
      {"id": 0, "pos": [0, 0], "intersection": true},
      {"id": 1, "pos": [-140, 0]}, {"id": 2, "pos": [140, 0]},
      {"id": 3, "pos": [0, 140]}, {"id": 4, "pos": [0, -140]}
    ],
    "lanes": [
      {"id": 0, "from": 1, "to": 0, "width": 3.5, "offset": 1.75, "speedLimit": 10},
      {"id": 1, "from": 0, "to": 1, "width": 3.5, "offset": 1.75, "speedLimit": 10},
      {"id": 2, "from": 0, "to": 2, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 3, "from": 2, "to": 0, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 4, "from": 0, "to": 3, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 5, "from": 3, "to": 0, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 6, "from": 0, "to": 4, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 7, "from": 4, "to": 0, "width": 3.5, "offset": 1.75, "speedLimit": 14}
    ]
  },
  "pavements": [
    {"id": "p-ne", "points": [[8, 8], [64, 8], [64, 64], [8, 64]], "width": 3, "closed": true},
    {"id": "p-nw", "points": [[-64, 8], [-8, 8], [-8, 64], [-64, 64]], "width": 3, "closed": true},
    {"id": "p-sw", "points": [[-64, -64], [-8, -64], [-8, -8], [-64, -8]], "width": 3, "closed": true},
    {"id": "p-se", "points": [[8, -64], [64, -64], [64, -8], [8, -8]], "width": 3, "closed": true}
  ],
  "spawns": [
    {"role": "player", "pos": [-100, -1.75], "yaw": 0},
    {"role": "traffic", "pos": [-120, -1.75], "yaw": 0},
    {"role": "traffic", "pos": [120, 1.75], "yaw": 3.1415927},
    {"role": "traffic", "pos": [1.75, -120], "yaw": 1.5707964},
    {"role": "traffic", "pos": [-1.75, 120], "yaw": -1.5707964},
    {"role": "pedestrian", "pos": [30, 8], "yaw": 0}
  ]
}`

// trafficCar makes an ambient car of model at (x, y) facing yaw, on lane
// and turning onto next (-1: the AI chooses).
func (r *rig) trafficCar(t testing.TB, model uint8, x, y, yaw float32, lane, next int32) ecs.Entity {
	t.Helper()
	car, _, err := r.B.TrafficCar(model, 0, components.Vec3{X: x, Y: y}, yaw, lane)
	if err != nil {
		t.Fatal(err)
	}
	routeOf := generic.NewMap1[ai.Route](r.W.Arche)
	routeOf.Assign(car, &ai.Route{Lane: lane, Next: next})
	return car
}

// laneOffset returns how far p lies to the left of lane's centreline.
func laneOffset(l *levels.Level, lane int, p phys.Vec) (along, left float32) {
	a, b := l.LaneLine(lane)
	d := phys.Vec{X: b.X - a.X, Y: b.Y - a.Y}
	n := d.Len()
	d = d.Scale(1 / n)
	q := p.Sub(phys.Vec{X: a.X, Y: a.Y})
	return q.Dot(d), d.Cross(q)
}

// TestLaneTurns drives a car from the west arm through the crossroads
// straight on and round either corner: it follows its lane, turns onto
// the lane it chose, never swings into the other half of the road, and
// keeps to the limits.
func TestLaneTurns(t *testing.T) {
	cases := []struct {
		name  string
		model uint8
		next  int32
		stray float32 // how far left of its lane's line it may swing
	}{
		{"sedan straight", phys.ModelSedan, 2, 0.3},
		{"sedan left", phys.ModelSedan, 4, 1},
		{"sedan right", phys.ModelSedan, 6, 1},
		{"sports right", phys.ModelSports, 6, 1},
		{"van left", phys.ModelVan, 4, 1},
		{"truck left", phys.ModelTruck, 4, 1},
		{"truck right", phys.ModelTruck, 6, 1.6}, // a truck swings wide
	}
	l := systemstest.Parse(t, "test", crossLevel)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, l, ecs.Rules{Traffic: 1, Pedestrians: 0}, 1, nil)
			car := r.trafficCar(t, c.model, -100, -1.75, 0, 0, c.next)
			var maxSpeed, worstLeft float32
			for i := 0; i < 60*20; i++ {
				r.Step(1)
				p := r.Pos(car)
				limit := l.Roads.Lanes[ecstest.Get[components.NPC](r.W, car).Lane].SpeedLimit
				maxSpeed = max(maxSpeed, r.Speed(car)-limit)
				// Left of its own lane's line by more than a lane: in the
				// other half of the road (outside the crossing's box).
				if math32.Abs(p.X) > 12 || math32.Abs(p.Y) > 12 {
					lane := 0
					if p.X > 12 || p.Y > 12 || p.Y < -12 {
						lane = int(c.next)
					}
					_, left := laneOffset(l, lane, p)
					worstLeft = max(worstLeft, left)
				}
			}
			if maxSpeed > 0.5 {
				t.Errorf("went %.2f m/s over the limit", maxSpeed)
			}
			if worstLeft > c.stray {
				t.Errorf("strayed %.2f m left of its lane", worstLeft)
			}
			npc := ecstest.Get[components.NPC](r.W, car)
			if npc.Lane != c.next {
				t.Fatalf("on lane %d, want %d", npc.Lane, c.next)
			}
			along, left := laneOffset(l, int(c.next), r.Pos(car))
			if along < 40 || math32.Abs(left) > 0.5 {
				t.Fatalf("%.1f m along lane %d, %.2f m off its line", along, c.next, left)
			}
		})
	}
}

// TestTurnChoice lets the AI choose at the crossroads: every choice is a
// lane out of the node the car came to, never back the way it came, and
// over a few seeds it takes more than one way.
func TestTurnChoice(t *testing.T) {
	l := systemstest.Parse(t, "test", crossLevel)
	node, _ := l.NodeIndex(0)
	chosen := map[int32]bool{}
	for seed := uint64(1); seed <= 8; seed++ {
		r := newRig(t, l, ecs.Rules{Traffic: 1, Pedestrians: 0}, seed, nil)
		car := r.trafficCar(t, phys.ModelSedan, -100, -1.75, 0, 0, -1)
		r.Step(60 * 15)
		lane := ecstest.Get[components.NPC](r.W, car).Lane
		ok := false
		for _, o := range l.LanesOut(node) {
			ok = ok || o == lane
		}
		if !ok || lane == 1 {
			t.Fatalf("seed %d: on lane %d, not a way on out of node 0", seed, lane)
		}
		if _, left := laneOffset(l, int(lane), r.Pos(car)); math32.Abs(left) > 0.5 {
			t.Fatalf("seed %d: %.2f m off lane %d", seed, left, lane)
		}
		chosen[lane] = true
	}
	if len(chosen) < 2 {
		t.Fatalf("always took the same way: %v", chosen)
	}
}

// TestStopsAndGoes puts something in the lane ahead of a car: a stopped
// car, a person standing there. The car stops behind it, a little way
// off, and goes on when the way is clear.
func TestStopsAndGoes(t *testing.T) {
	cases := []struct {
		name   string
		person bool
	}{
		{"stopped car", false},
		{"person", true},
	}
	l := systemstest.Parse(t, "test", crossLevel)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, l, ecs.Rules{Traffic: 1, Pedestrians: 0}, 1, nil)
			car := r.trafficCar(t, phys.ModelSedan, -110, -1.75, 0, 0, 2)
			var block ecs.Entity
			var ext float32
			if c.person {
				block = r.Character(t, -40, -1.75, 0)
				ext = phys.DefaultWalker.Radius
			} else {
				var err error
				block, err = r.B.Vehicle(components.KindCar, phys.ModelVan, components.Vec3{X: -40, Y: -1.75}, 0, ecs.Entity{})
				if err != nil {
					t.Fatal(err)
				}
				ext = phys.CarModel(phys.ModelVan).HalfX
			}
			r.Step(60 * 15)
			if v := r.Speed(car); v > 0.1 {
				t.Fatalf("still going %.2f m/s", v)
			}
			gap := -40 - ext - (r.Pos(car).X + phys.CarModel(phys.ModelSedan).HalfX)
			if gap < 0.5 || gap > 4 {
				t.Fatalf("stopped %.2f m behind it", gap)
			}
			// Clear the way: the person steps onto the verge, the car is
			// taken away.
			if c.person {
				ecstest.Get[components.Pose](r.W, block).Pos = components.Vec3{X: -40, Y: -9}
			} else {
				r.W.Despawn(block)
			}
			r.Step(60 * 8)
			if p := r.Pos(car); p.X < 0 {
				t.Fatalf("did not go on: at %v", p)
			}
		})
	}
}

// TestStopsBehindQueue lines three cars up behind a stopped one: each
// stops behind the one in front, none touches another.
func TestStopsBehindQueue(t *testing.T) {
	l := systemstest.Parse(t, "test", crossLevel)
	r := newRig(t, l, ecs.Rules{Traffic: 3, Pedestrians: 0}, 1, nil)
	if _, err := r.B.Vehicle(components.KindCar, phys.ModelSedan, components.Vec3{X: -30, Y: -1.75}, 0, ecs.Entity{}); err != nil {
		t.Fatal(err)
	}
	cars := []ecs.Entity{
		r.trafficCar(t, phys.ModelSedan, -75, -1.75, 0, 0, 2),
		r.trafficCar(t, phys.ModelTruck, -95, -1.75, 0, 0, 2),
		r.trafficCar(t, phys.ModelCompact, -125, -1.75, 0, 0, 2),
	}
	touched := 0
	for i := 0; i < 60*20; i++ {
		r.Step(1)
		for _, h := range r.W.Contacts {
			if !h.B.IsZero() {
				touched++
			}
		}
	}
	if touched > 0 {
		t.Fatalf("%d contacts between the cars", touched)
	}
	front := float32(-30 - phys.CarModel(phys.ModelSedan).HalfX)
	for _, c := range cars {
		spec := phys.CarModel(ecstest.Get[components.Identity](r.W, c).Model)
		p := r.Pos(c)
		gap := front - (p.X + spec.HalfX)
		if r.Speed(c) > 0.1 || gap < 0.5 || gap > 4 {
			t.Fatalf("car at %v: gap %.2f m, speed %.2f", p, gap, r.Speed(c))
		}
		front = p.X - spec.HalfX
	}
}

package levels

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestLanePointsIn: the points of smallLevel's lanes inside an area, every
// step metres and end metres clear of each lane's ends, lane by lane from
// each lane's From end; none on a lane closed to traffic, none on a level
// that has not passed Validate.
func TestLanePointsIn(t *testing.T) {
	l := parseSmall(t)
	area := []Vec2{{0, -10}, {60, -10}, {60, 10}, {0, 10}}
	east, west := Vec2{1, 0}, Vec2{-1, 0}
	want := []LanePoint{
		{Vec2{5, -1.75}, east, 0}, {Vec2{15, -1.75}, east, 0}, {Vec2{25, -1.75}, east, 0}, {Vec2{35, -1.75}, east, 0},
		{Vec2{35, 1.75}, west, 1}, {Vec2{25, 1.75}, west, 1}, {Vec2{15, 1.75}, west, 1}, {Vec2{5, 1.75}, west, 1},
	}
	if got := l.LanePointsIn(area, 10, 15); !reflect.DeepEqual(got, want) {
		t.Fatalf("LanePointsIn = %v, want %v", got, want)
	}
	if got := l.LanePointsIn(area, 10, 60); len(got) != 0 {
		t.Errorf("with ends longer than half a lane: %v", got)
	}
	if got := l.LanePointsIn([]Vec2{{-100, 50}, {100, 50}, {100, 90}}, 10, 15); len(got) != 0 {
		t.Errorf("an area off the road: %v", got)
	}
	l.Roads.Lanes[1].NoTraffic = true
	if got := l.LanePointsIn(area, 10, 15); !reflect.DeepEqual(got, want[:4]) {
		t.Errorf("with lane 1 closed to traffic: %v, want %v", got, want[:4])
	}
	if got := (&Level{Roads: l.Roads}).LanePointsIn(area, 10, 15); got != nil {
		t.Errorf("a level not validated: %v", got)
	}
}

// TestWith: a level with a game's spawn points and areas added is a
// validated copy that finds them (by role, by id); the level it was made
// from is as it was. An addition the level refuses is refused with its
// path in the copy.
func TestWith(t *testing.T) {
	l := parseSmall(t)
	before, _ := Marshal(l)
	place := Spawn{ID: "start", Role: RolePlace, Pos: Vec2{-30, -20}}
	police := Spawn{Role: RolePolice, Pos: Vec2{-30, -30}, Yaw: 1}
	area := SpawnArea{ID: "beat", Role: RolePolice, Polygon: []Vec2{{0, -10}, {60, -10}, {60, 10}, {0, 10}}}
	c, err := l.With("small.json with a game", []Spawn{place, police}, []SpawnArea{area})
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := c.Place("start"); !ok || p != place {
		t.Errorf("Place(start) = %v, %v", p, ok)
	}
	if got := c.SpawnsOf(RolePolice); !slices.Equal(got, []int32{3}) || c.Spawns[3] != police {
		t.Errorf("police spawns %v", got)
	}
	if len(c.SpawnAreas) != 1 || c.SpawnAreas[0].ID != "beat" {
		t.Errorf("spawn areas %v", c.SpawnAreas)
	}
	if after, _ := Marshal(l); string(after) != string(before) || len(l.Spawns) != 2 || l.SpawnsOf(RolePolice) != nil {
		t.Fatalf("the level changed:\n%s", after)
	}
	if _, ok := l.Place("start"); ok {
		t.Fatal("the level finds the copy's place")
	}
	cases := []struct {
		name   string
		spawns []Spawn
		areas  []SpawnArea
		path   string
		msg    string
	}{
		{"a place inside a building", []Spawn{{ID: "in", Role: RolePlace, Pos: Vec2{20, 20}}}, nil, "spawns[2].pos", `inside buildings[0] ("house")`},
		{"a place of the level's id", []Spawn{{ID: "haven", Role: RolePlace, Pos: Vec2{-30, -20}}}, nil, "zones[0].id", `"haven" is already the id of spawns[2].id`},
		{"an area of a spawn's id", []Spawn{place}, []SpawnArea{{ID: "start", Role: RoleTraffic, Polygon: area.Polygon}}, "spawnAreas[0].id", `already the id of spawns[2].id`},
		{"an area of a wrong role", nil, []SpawnArea{{ID: "beat", Role: RoleGuard, Polygon: area.Polygon}}, "spawnAreas[0].role", `unknown value "guard"`},
	}
	for _, k := range cases {
		_, err := l.With("w.json", k.spawns, k.areas)
		if err == nil {
			t.Errorf("%s: accepted", k.name)
			continue
		}
		checkError(t, err, "w.json", k.path, k.msg, 0)
		if !strings.Contains(err.Error(), k.path) {
			t.Errorf("%s: %v", k.name, err)
		}
	}
	if again, _ := Marshal(l); string(again) != string(before) {
		t.Fatal("a refused addition changed the level")
	}
}

// TestSpawnAreasRoundTrip: a level with spawn areas and a place writes and
// reads back the same.
func TestSpawnAreasRoundTrip(t *testing.T) {
	data := strings.Replace(smallLevel, `"zones": [`, spawnArea, 1)
	data = strings.Replace(data, `"role": "hospital", "pos": [0, 40], "yaw": 1.5}`, `"role": "hospital", "pos": [0, 40], "yaw": 1.5}, {"id": "start", "role": "place", "pos": [-30, -20], "yaw": 0}`, 1)
	l, err := Parse("areas.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	out, err := Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	l2, err := Parse("again.json", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !reflect.DeepEqual(l2.SpawnAreas, l.SpawnAreas) || len(l2.SpawnAreas) != 1 || l2.Spawns[2].Role != RolePlace {
		t.Fatalf("round trip: %+v, %+v", l2.SpawnAreas, l2.Spawns)
	}
	if !strings.Contains(string(out), "\n  \"spawnAreas\": [\n    {\"id\":\"beat\"") {
		t.Errorf("spawn areas not one a line:\n%s", out)
	}
}

package games

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fiveonit/engine/levels"
)

// placesGame is a game file with levels as its places: the cases below.
func placesGame(levelsJSON string) []byte {
	return []byte(`{"name":"g","rules":{"playersHurt":"on"},"levels":` + levelsJSON + `}`)
}

var commonItems = []byte(`{"items":[{"name":"water","kind":"consumable","stack":5,"heal":5}]}`)

// TestParsePlaces: what a game's file adds to its levels is checked as it
// loads, whatever level it names: a level named twice or badly, a place of
// an unknown role, a place with no id, an id used twice in one level's
// entry, a heading out of range, a spawn area of a role other than police
// or traffic, of too few points or with no id are refused with the field.
// A level the game never plays is fine.
func TestParsePlaces(t *testing.T) {
	good := `[{"level":"no-such-level","places":[{"id":"a","role":"place","pos":[1,2],"yaw":0},{"role":"police","pos":[3,4],"yaw":1}],` +
		`"spawnAreas":[{"id":"beat","role":"traffic","polygon":[[0,0],[10,0],[10,10]]}]}]`
	g, err := Parse("g.json", commonItems, placesGame(good))
	if err != nil {
		t.Fatalf("the good one: %v", err)
	}
	if len(g.Levels) != 1 || len(g.Levels[0].Places) != 2 || g.Levels[0].SpawnAreas[0].Role != levels.RoleTraffic {
		t.Fatalf("parsed %+v", g.Levels)
	}
	place := func(p string) string { return `[{"level":"x","places":[` + p + `]}]` }
	area := func(a string) string { return `[{"level":"x","spawnAreas":[` + a + `]}]` }
	for _, c := range []struct{ name, levels, why string }{
		{"a bad level name", `[{"level":"Main City"}]`, "levels[0].level"},
		{"a level twice", `[{"level":"x"},{"level":"x"}]`, "levels[1].level: level \"x\" is named by levels[0]"},
		{"a bad role", place(`{"id":"a","role":"wizard","pos":[0,0],"yaw":0}`), `levels[0].places[0].role: unknown role "wizard"`},
		{"a place with no id", place(`{"role":"place","pos":[0,0],"yaw":0}`), "levels[0].places[0].id: a place needs an id"},
		{"a bad id", place(`{"id":"A B","role":"place","pos":[0,0],"yaw":0}`), "levels[0].places[0].id"},
		{"an id twice", place(`{"id":"a","role":"place","pos":[0,0],"yaw":0},{"id":"a","role":"police","pos":[5,0],"yaw":0}`), `levels[0].places[1].id: "a" is used twice`},
		{"a heading of many turns", place(`{"id":"a","role":"place","pos":[0,0],"yaw":9}`), "levels[0].places[0].yaw"},
		{"an area of a bad role", area(`{"id":"b","role":"hospital","polygon":[[0,0],[10,0],[10,10]]}`), `levels[0].spawnAreas[0].role: unknown role "hospital"`},
		{"an area of two points", area(`{"id":"b","role":"police","polygon":[[0,0],[10,0]]}`), "levels[0].spawnAreas[0].polygon: must have 3"},
		{"an area with no id", area(`{"role":"police","polygon":[[0,0],[10,0],[10,10]]}`), "levels[0].spawnAreas[0].id"},
		{"an area of a place's id", `[{"level":"x","places":[{"id":"a","role":"place","pos":[0,0],"yaw":0}],"spawnAreas":[{"id":"a","role":"police","polygon":[[0,0],[10,0],[10,10]]}]}]`, `levels[0].spawnAreas[0].id: "a" is used twice`},
		{"an unknown field", place(`{"id":"a","role":"place","pos":[0,0],"yaw":0,"colour":1}`), "colour"},
	} {
		_, err := Parse("g.json", commonItems, placesGame(c.levels))
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s: %v, want %q", c.name, err, c.why)
		}
	}
}

// TestGameLevel: a game's places and spawn areas join the level a room of
// the game plays: a copy that finds them, the level itself unchanged; a
// game that adds nothing to a level plays it as it is. Against the level,
// a place inside a building or off the ground, an id the level has, and a
// spawn area that is not a simple counter-clockwise polygon on the ground
// are refused, by Level and by Check, naming the game's field.
func TestGameLevel(t *testing.T) {
	city, err := levels.Load("main-city")
	if err != nil {
		t.Fatal(err)
	}
	before, _ := levels.Marshal(city)
	house := city.Buildings[0]
	var inside levels.Vec2
	for _, p := range house.Footprint {
		inside = inside.Add(p.Scale(1 / float32(len(house.Footprint))))
	}
	start := `{"id":"start","role":"place","pos":[1.75,-330],"yaw":1.5707964}`
	beat := `{"id":"beat","role":"police","polygon":[[-10,-300],[10,-300],[10,-200],[-10,-200]]}`
	common, err := data.ReadFile("data/items.json") // the items main-city names
	if err != nil {
		t.Fatal(err)
	}
	mk := func(t *testing.T, places, areas string) *Game {
		t.Helper()
		g, err := Parse("g.json", common, placesGame(`[{"level":"test-flat"},{"level":"main-city","places":[`+places+`],"spawnAreas":[`+areas+`]}]`))
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	g := mk(t, start+`,{"role":"police","pos":[0,-340],"yaw":1.5707964}`, beat)
	l, err := g.Level(city)
	if err != nil {
		t.Fatal(err)
	}
	if l == city {
		t.Fatal("the game's places went into the level itself")
	}
	if p, ok := l.Place("start"); !ok || p.Pos != (levels.Vec2{X: 1.75, Y: -330}) || p.Role != levels.RolePlace {
		t.Errorf("Place(start) = %+v, %v", p, ok)
	}
	if n, m := len(l.SpawnsOf(levels.RolePolice)), len(city.SpawnsOf(levels.RolePolice)); n != m+1 {
		t.Errorf("%d police spawns with the game's, %d without", n, m)
	}
	// The level's own spawn areas, then the game's.
	own := len(city.SpawnAreas)
	if len(l.SpawnAreas) != own+1 || l.SpawnAreas[own].ID != "beat" {
		t.Errorf("spawn areas %+v", l.SpawnAreas)
	}
	if _, ok := city.Place("start"); ok || slices.ContainsFunc(city.SpawnAreas, func(a levels.SpawnArea) bool { return a.ID == "beat" }) {
		t.Fatal("the level itself has the game's places")
	}
	if after, _ := levels.Marshal(city); string(after) != string(before) {
		t.Fatal("the level changed")
	}
	if err := g.Check(city); err != nil {
		t.Fatalf("Check: %v", err)
	}
	flat, _ := levels.Load("test-flat")
	if l, err := g.Level(flat); err != nil || l != flat {
		t.Errorf("a level the game adds nothing to: %p %v, want the level %p", l, err, flat)
	}
	for _, c := range []struct{ name, places, areas, why string }{
		{"a place inside a building", fmt.Sprintf(`{"id":"in","role":"place","pos":[%g,%g],"yaw":0}`, inside.X, inside.Y), "",
			fmt.Sprintf("levels[1].places[0].pos: [%g, %g] lies inside buildings[0]", inside.X, inside.Y)},
		{"a place off the ground", `{"id":"far","role":"place","pos":[9000,0],"yaw":0}`, "", "levels[1].places[0].pos: [9000, 0] lies outside the ground"},
		{"a place of a building's id", fmt.Sprintf(`{"id":%q,"role":"place","pos":[1.75,-330],"yaw":0}`, house.ID), "",
			fmt.Sprintf(`levels[1].places[0].id: %q is already the id of buildings[0].id`, house.ID)},
		{"a place of a zone's id", `{"id":"yard","role":"place","pos":[1.75,-330],"yaw":0}`, "", `"yard" is already the id of levels[1].places[0].id`},
		{"the second place bad", start + `,{"role":"hospital","pos":[9000,0],"yaw":0}`, "", "levels[1].places[1].pos"},
		{"an area of a zone's id", "", `{"id":"yard","role":"police","polygon":[[-10,-300],[10,-300],[10,-200]]}`, `levels[1].spawnAreas[0].id: "yard" is already the id of zones[`},
		{"a clockwise area", "", `{"id":"beat","role":"police","polygon":[[-10,-200],[10,-200],[10,-300],[-10,-300]]}`, "levels[1].spawnAreas[0].polygon: must wind counter-clockwise"},
		{"an area off the ground", "", `{"id":"beat","role":"police","polygon":[[0,0],[9000,0],[0,10]]}`, "levels[1].spawnAreas[0].polygon[1]"},
	} {
		g := mk(t, c.places, c.areas)
		if _, err := g.Level(city); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.why) || !strings.Contains(err.Error(), "main-city") {
			t.Errorf("%s: Level: %v, want %q", c.name, err, c.why)
		}
		if err := g.Check(city); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: Check: %v", c.name, err)
		}
	}
	if after, _ := levels.Marshal(city); string(after) != string(before) {
		t.Fatal("a refused game changed the level")
	}
}

// TestCityJobsPlaces: city-jobs adds its run teams' starts and the runs'
// drops to main-city, each a place on a road (within a lane's reach of a
// lane's centreline), clear of the buildings.
func TestCityJobsPlaces(t *testing.T) {
	g, err := Lookup("city-jobs")
	if err != nil {
		t.Fatal(err)
	}
	city, err := levels.Load("main-city")
	if err != nil {
		t.Fatal(err)
	}
	l, err := g.Level(city)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"crew-start", "police-start", "chase-drop", "heist-start", "heist-drop"} {
		p, ok := l.Place(id)
		if !ok {
			t.Errorf("no place %s", id)
			continue
		}
		if _, d := l.NearestLane(p.Pos); d > 2 {
			t.Errorf("%s at %v is %g m from a lane's centreline", id, p.Pos, d)
		}
		if l.BuildingAt(p.Pos) >= 0 {
			t.Errorf("%s at %v is inside a building", id, p.Pos)
		}
	}
}

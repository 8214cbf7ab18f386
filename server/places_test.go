package server

import (
	"os"
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/games"
	"github.com/fiveonit/engine/levels"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems/police"
	"github.com/mlange-42/arche/generic"
)

// areaGame is a game with police that adds to main-city a police spawn
// area over the avenue's stretch from y = 110 to 180, and a place on the
// avenue 30 m short of it.
const areaGame = `{"name":"area-test","rules":{"playersHurt":"on","police":true},
  "levels":[{"level":"main-city",
    "places":[{"id":"lookout","role":"place","pos":[1.75,80],"yaw":1.5707964}],
    "spawnAreas":[{"id":"avenue-beat","role":"police","polygon":[[-8,110],[8,110],[8,180],[-8,180]]}]}]}`

// TestGameSpawnAreaPolice: a room of a game that adds places and a police
// spawn area to its level plays the level with them (the level given
// stays as it was); a wanted player near the area has the police come out
// of it, on a lane inside it, not out of the police station far off.
// main-city's own police spawn areas (its beats) are left out of the
// level given, so that the game's is the only area.
func TestGameSpawnAreaPolice(t *testing.T) {
	items, err := os.ReadFile("../games/data/items.json")
	if err != nil {
		t.Fatal(err)
	}
	gm, err := games.Parse("area-test.json", items, []byte(areaGame))
	if err != nil {
		t.Fatal(err)
	}
	city, err := levels.Load("main-city")
	if err != nil {
		t.Fatal(err)
	}
	l, err := city.With("main-city.json", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	l.SpawnAreas = nil
	rules := gm.ForLevel(l)
	g, err := New(Config{Room: "area", Level: l, Seed: 3, Game: gm, Rules: rules})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := g.Level().Place("lookout"); !ok || len(g.Level().SpawnAreas) != 1 {
		t.Fatal("the room's level lacks the game's place or spawn area")
	}
	if _, ok := l.Place("lookout"); ok || len(l.SpawnAreas) != 0 {
		t.Fatal("the level given got the game's place")
	}
	p := join(t, g, Who{Debug: true})
	ps := []*probe{p}
	run(g, ps, 2, nil)
	lookout, _ := g.Level().Place("lookout")
	moveTo(t, g, ps, p, lookout.Pos.X, lookout.Pos.Y, lookout.Yaw)
	ok(t, do(g, ps, p, `{"type":"debug","cmd":"wanted","stars":1}`))
	run(g, ps, police.SpawnEvery+1, func(int) components.Drive { return components.Drive{Held: components.BtnHandbrake} })
	f := generic.NewFilter2[components.Kind, components.Pose]()
	q := f.Query(g.World().Arche)
	var cars []phys.Vec
	for q.Next() {
		if k, pose := q.Get(); *k == components.KindPoliceCar {
			cars = append(cars, phys.Flat(pose.Pos))
		}
	}
	if len(cars) != 1 {
		t.Fatalf("%d police cars, want 1", len(cars))
	}
	c := levels.Vec2{X: cars[0].X, Y: cars[0].Y}
	area := g.Level().SpawnAreas[0].Polygon
	if !levels.PointInPolygon(c, area) {
		t.Fatalf("the police car came out at %v, outside the game's area", c)
	}
	if _, d := g.Level().NearestLane(c); d > 1 {
		t.Fatalf("the police car came out %v m off a lane", d)
	}
	// The area's lane point nearest to the player, AreaMin away at least
	// (the car may have set off since: a few metres).
	if d := c.Sub(lookout.Pos).Len(); d < police.AreaMin-3 || d > police.AreaMin+police.AreaStep+3 {
		t.Fatalf("the police car came out %v m from the player, want about %d", d, police.AreaMin)
	}
}

package levels

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
)

// smallLevel is a valid level with one of everything; the malformed cases
// below each change one thing in it.
const smallLevel = `{
  "name": "small",
  "version": 1,
  "ground": {"min": [-100, -100], "max": [100, 100], "height": 0},
  "rules": {"traffic": 3},
  "buildings": [
    {"id": "house", "footprint": [[10, 10], [30, 10], [30, 30], [10, 30]], "height": 8, "use": "residential"},
    {"id": "depot", "footprint": [[-80, 40], [-40, 40], [-40, 80], [-80, 80]], "height": 6, "use": "garage"}
  ],
  "roads": {
    "nodes": [
      {"id": 1, "pos": [-50, 0], "intersection": true},
      {"id": 2, "pos": [50, 0]}
    ],
    "lanes": [
      {"id": 0, "from": 1, "to": 2, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 1, "from": 2, "to": 1, "width": 3.5, "offset": 1.75, "speedLimit": 14}
    ]
  },
  "pavements": [
    {"id": "walk", "points": [[-50, 6], [50, 6]], "width": 3}
  ],
  "spawns": [
    {"role": "player", "pos": [0, -2], "yaw": 0},
    {"role": "hospital", "pos": [0, 40], "yaw": 1.5}
  ],
  "zones": [
    {"id": "haven", "kind": "safe", "polygon": [[-90, -90], [-60, -90], [-60, -60]]}
  ],
  "gates": [
    {"id": "gate", "kind": "barrier", "pos": [60, 50], "yaw": 0, "width": 6, "rule": {"party": 2, "keyTag": "depot"}}
  ],
  "vehicleSpawners": [
    {"id": "cars", "model": "sedan", "bays": [{"pos": [-60, 30], "yaw": 1.57}], "garage": "depot", "price": 100}
  ],
  "npcSpawners": [
    {"id": "guards", "role": "guard", "pos": [40, 40], "yaw": 0, "count": 2, "patrol": [[40, 40], [60, 40]],
     "schedule": {"every": 60, "from": 20, "to": 6}, "items": [{"item": "yard-key", "count": 1}]}
  ],
  "shops": [
    {"id": "shop", "building": "house", "pos": [5, 20], "yaw": 3.14, "items": ["water"]}
  ],
  "containers": [
    {"id": "crate", "kind": "crate", "pos": [35, 35], "yaw": 0, "locked": true, "keyTag": "k", "items": [{"item": "cash", "count": 5}]}
  ],
  "pickups": [
    {"item": "crowbar", "count": 1, "pos": [0, 50]}
  ]
}
`

// spawnArea puts a police spawn area over smallLevel's road: what a case
// puts before its zones.
const spawnArea = `"spawnAreas": [{"id": "beat", "role": "police", "polygon": [[0, -10], [60, -10], [60, 10], [0, 10]]}],
  "zones": [`

func TestParseSmall(t *testing.T) {
	l, err := Parse("small.json", []byte(smallLevel))
	if err != nil {
		t.Fatal(err)
	}
	if l.Name != "small" || len(l.Buildings) != 2 || len(l.Roads.Lanes) != 2 || l.Rules.Traffic == nil || *l.Rules.Traffic != 3 {
		t.Fatalf("decoded wrong: %+v", l)
	}
	if l.Rules.Pedestrians != nil {
		t.Errorf("rules.pedestrians = %d, want unset", *l.Rules.Pedestrians)
	}
	if got := l.NPCSpawners[0].Schedule; got == nil || *got != (Schedule{Every: 60, From: 20, To: 6}) {
		t.Errorf("schedule = %+v", got)
	}
	if got := l.NPCSpawners[0].Items; len(got) != 1 || got[0] != (Stack{Item: "yard-key", Count: 1}) {
		t.Errorf("the guards carry %+v", got)
	}
	if _, err := Parse("small.json", []byte(strings.Replace(smallLevel, `"model": "sedan", `, ``, 1))); err != nil {
		t.Errorf("a garage's spawner without a model: %v", err)
	}
	if got := l.Gates[0].Rule; got != (GateRule{Party: 2, KeyTag: "depot"}) {
		t.Errorf("gate rule = %+v", got)
	}
}

// TestParseBad: every malformed file gives an *Error matching ErrInvalid that
// names the file, the JSON path of the bad value and the problem.
func TestParseBad(t *testing.T) {
	cases := []struct {
		name     string
		old, new string // the change to smallLevel (first occurrence)
		path     string // the error's path, exactly
		msg      string // a part of the error's message
		line     int    // the error's line, when it is a JSON error
	}{
		{"syntax: missing comma", `"height": 8,`, `"height": 8`, "buildings[0]", "syntax error", 7},
		{"syntax: NaN", `"height": 8`, `"height": NaN`, "buildings[0].height", "syntax error: invalid character 'N'", 7},
		{"syntax: trailing comma", `"width": 3}`, `"width": 3,}`, "pavements[0]", "syntax error", 21},
		{"truncated", "{\"item\": \"crowbar\", \"count\": 1, \"pos\": [0, 50]}\n  ]\n}\n", `{"item": "crowbar"`, "pickups[0]", "unexpected end of file", 47},
		{"empty file", smallLevel, "  \n", "", "empty file", 2},
		{"trailing data", "  ]\n}\n", "  ]\n} {}\n", "", "an object after the level's object", 49},
		{"top level array", smallLevel, "[]", "", "want an object, got an array", 1},
		{"wrong type: string for number", `"width": 3.5`, `"width": "wide"`, "roads.lanes[0].width", `want a number, got string "wide"`, 16},
		{"wrong type: number for string", `"id": "house"`, `"id": 7`, "buildings[0].id", "want a string, got number 7", 7},
		{"wrong type: null for string", `"id": "house"`, `"id": null`, "buildings[0].id", "want a string, got null", 7},
		{"wrong type: object for list", `"spawns": [`, `"spawns": {"a": 1}, "x": [`, "spawns", "want an array, got an object", 23},
		{"wrong type: bool", `"intersection": true`, `"intersection": 1`, "roads.nodes[0].intersection", "want true or false", 12},
		{"wrong type: float for int", `"count": 2`, `"count": 1.5`, "npcSpawners[0].count", "want an integer", 37},
		{"uint16 out of range", `"party": 2`, `"party": 70000`, "gates[0].rule.party", "want an integer from 0 to 65535", 31},
		{"float32 out of range", `"height": 8`, `"height": 1e39`, "buildings[0].height", "out of the range of a float32", 7},
		{"unknown field", `"use": "residential"`, `"use": "residential", "colour": "red"`, "buildings[0].colour", `unknown field "colour"`, 7},
		{"field names are case-sensitive", `"name": "small"`, `"Name": "small"`, "Name", `unknown field "Name"`, 2},
		{"repeated field", `"version": 1`, `"version": 1, "version": 1`, "version", `field "version" given twice`, 3},
		{"point of 3 numbers", `"pos": [0, -2]`, `"pos": [0, -2, 5]`, "spawns[0].pos[2]", "more than 2 numbers", 24},
		{"point of 1 number", `"pos": [0, -2]`, `"pos": [0]`, "spawns[0].pos", "got 1 numbers", 24},
		{"point as object", `"pos": [0, -2]`, `"pos": {"x": 0}`, "spawns[0].pos", "want [x, y], got an object", 24},
		{"missing node", `"from": 2, "to": 1`, `"from": 2, "to": 99`, "roads.lanes[1].to", "node 99 does not exist", 0},
		{"lane to itself", `"from": 2, "to": 1`, `"from": 2, "to": 2`, "roads.lanes[1].to", "a lane joins two nodes", 0},
		{"duplicate lane", `"from": 2, "to": 1`, `"from": 1, "to": 2`, "roads.lanes[1]", "like roads.lanes[0]", 0},
		{"duplicate lane id", `{"id": 1, "from": 2`, `{"id": 0, "from": 2`, "roads.lanes[1].id", "already the id of roads.lanes[0]", 0},
		{"duplicate node id", `{"id": 2, "pos": [50, 0]}`, `{"id": 1, "pos": [50, 0]}`, "roads.nodes[1].id", "already the id of roads.nodes[0]", 0},
		{"polygon of 2 points", `[[10, 10], [30, 10], [30, 30], [10, 30]]`, `[[10, 10], [30, 10]]`, "buildings[0].footprint", "must have 3 to 128 points, got 2", 0},
		{"clockwise polygon", `[[10, 10], [30, 10], [30, 30], [10, 30]]`, `[[10, 30], [30, 30], [30, 10], [10, 10]]`, "buildings[0].footprint", "counter-clockwise", 0},
		{"self-crossing polygon", `[[10, 10], [30, 10], [30, 30], [10, 30]]`, `[[10, 10], [30, 30], [30, 10], [10, 30]]`, "buildings[0].footprint", "must be simple", 0},
		{"repeated polygon point", `[[10, 10], [30, 10], [30, 30], [10, 30]]`, `[[10, 10], [30, 10], [30, 10], [30, 30], [10, 30]]`, "buildings[0].footprint[2]", "repeats the point before it", 0},
		{"negative height", `"height": 8`, `"height": -8`, "buildings[0].height", "must be > 0 m, got -8", 0},
		{"zero width", `"width": 3.5`, `"width": 0`, "roads.lanes[0].width", "must be > 0 m", 0},
		{"negative offset", `"offset": 1.75`, `"offset": -1`, "roads.lanes[0].offset", "must be from 0 to 50", 0},
		{"point off the ground", `"pos": [0, 50]`, `"pos": [0, 500]`, "pickups[0].pos", "outside the ground", 0},
		{"spawn inside a building", `"pos": [0, 40]`, `"pos": [20, 20]`, "spawns[1].pos", `inside buildings[0] ("house")`, 0},
		{"bay inside a building", `[-60, 30]`, `[-60, 60]`, "vehicleSpawners[0].bays[0].pos", `inside buildings[1] ("depot")`, 0},
		{"unknown spawn role", `"role": "player"`, `"role": "wizard"`, "spawns[0].role", `unknown value "wizard"`, 0},
		{"unknown building use", `"use": "residential"`, `"use": "castle"`, "buildings[0].use", `unknown value "castle"`, 0},
		{"unknown zone kind", `"kind": "safe"`, `"kind": "deadly"`, "zones[0].kind", "unknown value", 0},
		{"unknown npc role", `"role": "guard"`, `"role": "dragon"`, "npcSpawners[0].role", "unknown value", 0},
		{"unknown container kind", `"kind": "crate"`, `"kind": "box"`, "containers[0].kind", "unknown value", 0},
		{"id used twice", `"id": "haven"`, `"id": "house"`, "zones[0].id", `"house" is already the id of buildings[0].id`, 0},
		{"bad id", `"id": "haven"`, `"id": "Haven Zone"`, "zones[0].id", "not a valid name", 0},
		{"bad level name", `"name": "small"`, `"name": ""`, "name", "not a valid level name", 0},
		{"wrong version", `"version": 1`, `"version": 2`, "version", "reads version 1, got 2", 0},
		{"ground upside down", `"max": [100, 100]`, `"max": [-200, 100]`, "ground.max", "north-east", 0},
		{"missing garage", `"garage": "depot"`, `"garage": "barn"`, "vehicleSpawners[0].garage", `building "barn" does not exist`, 0},
		{"garage of wrong use", `"garage": "depot"`, `"garage": "house"`, "vehicleSpawners[0].garage", `is a "residential", not a "garage"`, 0},
		{"price without garage", `"garage": "depot", `, ``, "vehicleSpawners[0].price", "set garage too", 0},
		{"no bays", `[{"pos": [-60, 30], "yaw": 1.57}]`, `[]`, "vehicleSpawners[0].bays", "at least one bay", 0},
		{"zero count", `"count": 2`, `"count": 0`, "npcSpawners[0].count", "must be from 1 to 64", 0},
		{"hour past 24", `"from": 20`, `"from": 25`, "npcSpawners[0].schedule.from", "must be from 0 to 24 h", 0},
		{"yaw of many turns", `"yaw": 1.5`, `"yaw": 100`, "spawns[1].yaw", "radians", 0},
		{"shop sells nothing", `"items": ["water"]`, `"items": []`, "shops[0].items", "at least one item", 0},
		{"shop of missing building", `"building": "house"`, `"building": "mall"`, "shops[0].building", "does not exist", 0},
		{"stack of 0", `"count": 5`, `"count": 0`, "containers[0].items[0].count", "must be from 1", 0},
		{"negative traffic", `"traffic": 3`, `"traffic": -3`, "rules.traffic", "must be from 0", 0},
		{"building on a lane", `[[10, 10], [30, 10], [30, 30], [10, 30]]`, `[[10, -10], [30, -10], [30, 30], [10, 30]]`, "buildings[0].footprint", "stands on roads.lanes[0]", 0},
		{"building on a pavement", `[[10, 10], [30, 10], [30, 30], [10, 30]]`, `[[10, 7], [30, 7], [30, 30], [10, 30]]`, "buildings[0].footprint", `stands on pavements[0] ("walk")`, 0},
		{"no model outside a garage", `"model": "sedan", "bays": [{"pos": [-60, 30], "yaw": 1.57}], "garage": "depot", "price": 100`, `"bays": [{"pos": [-60, 30], "yaw": 1.57}]`, "vehicleSpawners[0].model", "not a valid name", 0},
		{"an NPC's stack of 0", `"item": "yard-key", "count": 1`, `"item": "yard-key", "count": 0`, "npcSpawners[0].items[0].count", "must be from 1", 0},
		{"an NPC's item badly named", `"item": "yard-key"`, `"item": "Yard Key"`, "npcSpawners[0].items[0].item", "not a valid name", 0},
		{"place without an id", `"role": "hospital"`, `"role": "place"`, "spawns[1].id", "a place needs an id", 0},
		{"spawn area of a wrong role", `"zones": [`, strings.Replace(spawnArea, `"police"`, `"hospital"`, 1), "spawnAreas[0].role", `unknown value "hospital"`, 0},
		{"spawn area of 2 points", `"zones": [`, strings.Replace(spawnArea, `, [60, 10], [0, 10]`, ``, 1), "spawnAreas[0].polygon", "must have 3 to 128 points", 0},
		{"spawn area off the ground", `"zones": [`, strings.Replace(spawnArea, `[60, -10]`, `[600, -10]`, 1), "spawnAreas[0].polygon[1]", "outside the ground", 0},
		{"clockwise spawn area", `"zones": [`, strings.Replace(spawnArea, `[[0, -10], [60, -10], [60, 10], [0, 10]]`, `[[0, 10], [60, 10], [60, -10], [0, -10]]`, 1), "spawnAreas[0].polygon", "counter-clockwise", 0},
		{"spawn area id taken", `"zones": [`, strings.Replace(spawnArea, `"beat"`, `"house"`, 1), "spawnAreas[0].id", `"house" is already the id of buildings[0].id`, 0},
		{"pavement of 1 point", `[[-50, 6], [50, 6]]`, `[[-50, 6]]`, "pavements[0].points", "must have 2", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(smallLevel, c.old) {
				t.Fatalf("the case's old text %q is not in smallLevel", c.old)
			}
			data := strings.Replace(smallLevel, c.old, c.new, 1)
			l, err := Parse("small.json", []byte(data))
			if err == nil {
				t.Fatalf("Parse succeeded: %+v", l)
			}
			checkError(t, err, "small.json", c.path, c.msg, c.line)
		})
	}
}

// checkError checks that err is an *Error of file with the given path, a
// message holding msg and, unless line is 0, at that line.
func checkError(t *testing.T, err error, file, path, msg string, line int) {
	t.Helper()
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("error %v does not match ErrInvalid", err)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T %v is not an *Error", err, err)
	}
	if e.File != file || e.Path != path || !strings.Contains(e.Msg, msg) {
		t.Errorf("error %q: want file %q, path %q, a message with %q", err, file, path, msg)
	}
	if line != 0 && e.Line != line {
		t.Errorf("error %q: line %d, want %d", err, e.Line, line)
	}
	if line != 0 && e.Col < 1 {
		t.Errorf("error %q: column %d, want >= 1", err, e.Col)
	}
	if !strings.HasPrefix(err.Error(), file+":") || !strings.Contains(err.Error(), path) {
		t.Errorf("error text %q does not name the file and the path", err)
	}
}

func TestParseTooBig(t *testing.T) {
	data := append([]byte(smallLevel), bytes.Repeat([]byte(" "), MaxFileSize)...)
	_, err := Parse("big.json", data)
	checkError(t, err, "big.json", "", "more than the", 0)
}

func TestParseColumn(t *testing.T) {
	data := strings.Replace(smallLevel, `"width": 3.5`, `"width": "wide"`, 1)
	_, err := Parse("small.json", []byte(data))
	var e *Error
	if !errors.As(err, &e) {
		t.Fatal(err)
	}
	// The column of the value "wide" on its line.
	lineText := strings.Split(data, "\n")[e.Line-1]
	if want := strings.Index(lineText, `"wide"`) + 1; e.Col != want {
		t.Errorf("col %d, want %d (line %q)", e.Col, want, lineText)
	}
	if want := "small.json:16:"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q does not start with %q", err, want)
	}
}

// TestValidateNonFinite: a level built in code may hold NaN and infinities,
// which JSON cannot; Validate names them too.
func TestValidateNonFinite(t *testing.T) {
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	cases := []struct {
		name   string
		change func(l *Level)
		path   string
	}{
		{"NaN height", func(l *Level) { l.Buildings[0].Height = nan }, "buildings[0].height"},
		{"infinite width", func(l *Level) { l.Roads.Lanes[1].Width = inf }, "roads.lanes[1].width"},
		{"NaN point", func(l *Level) { l.Spawns[0].Pos.Y = nan }, "spawns[0].pos"},
		{"NaN footprint", func(l *Level) { l.Buildings[1].Footprint[2].X = nan }, "buildings[1].footprint[2]"},
		{"infinite yaw", func(l *Level) { l.Gates[0].Yaw = -inf }, "gates[0].yaw"},
		{"NaN ground", func(l *Level) { l.Ground.Min.X = nan }, "ground.min[0]"},
		{"NaN schedule", func(l *Level) { l.NPCSpawners[0].Schedule.Every = nan }, "npcSpawners[0].schedule.every"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, err := Parse("small.json", []byte(smallLevel))
			if err != nil {
				t.Fatal(err)
			}
			c.change(l)
			err = l.Validate("code")
			if err == nil {
				t.Fatal("Validate accepted it")
			}
			checkError(t, err, "code", c.path, "finite", 0)
			if l.idx.laneA != nil {
				t.Error("an invalid level kept its lookups")
			}
		})
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	l, err := Parse("small.json", []byte(smallLevel))
	if err != nil {
		t.Fatal(err)
	}
	data, err := Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	l2, err := Parse("again.json", data)
	if err != nil {
		t.Fatalf("Parse(Marshal(l)): %v\n%s", err, data)
	}
	data2, err := Marshal(l2)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, data2) {
		t.Errorf("Marshal is not stable:\n%s\n---\n%s", data, data2)
	}
	if l2.Buildings[1].Footprint[2] != (Vec2{-40, 80}) || l2.Spawns[1].Yaw != 1.5 || *l2.NPCSpawners[0].Schedule != *l.NPCSpawners[0].Schedule {
		t.Errorf("round trip changed values")
	}
	// One list entry a line.
	if n := bytes.Count(data, []byte("\n")); n != 48 {
		t.Errorf("canonical layout has %d lines, want 48:\n%s", n, data)
	}
}

func TestMarshalNaN(t *testing.T) {
	l, err := Parse("small.json", []byte(smallLevel))
	if err != nil {
		t.Fatal(err)
	}
	l.Buildings[1].Height = float32(math.NaN())
	if _, err := Marshal(l); err == nil || !strings.Contains(err.Error(), "buildings[1]") {
		t.Errorf("Marshal of NaN: err %v, want one naming buildings[1]", err)
	}
}

package levels

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// danglingComma is a comma left before a list's end.
var danglingComma = regexp.MustCompile(`,\s*\]`)

// signalLevel is a crossroads with a signal (two phases, a lane in both)
// and a race of three gates; the malformed cases below each change one
// thing in it. Lane 8 is a driveway into the crossing, closed to the
// traffic, which no phase needs to list.
const signalLevel = `{
  "name": "crossing",
  "version": 1,
  "ground": {"min": [-100, -100], "max": [100, 100], "height": 0},
  "buildings": [
    {"id": "house", "footprint": [[20, 20], [40, 20], [40, 40], [20, 40]], "height": 8, "use": "residential"}
  ],
  "roads": {
    "nodes": [
      {"id": 0, "pos": [0, 0], "intersection": true},
      {"id": 1, "pos": [-90, 0]}, {"id": 2, "pos": [90, 0]},
      {"id": 3, "pos": [0, 90]}, {"id": 4, "pos": [0, -90]},
      {"id": 5, "pos": [-10, -12]}
    ],
    "lanes": [
      {"id": 0, "from": 1, "to": 0, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 1, "from": 0, "to": 1, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 2, "from": 2, "to": 0, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 3, "from": 0, "to": 2, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 4, "from": 3, "to": 0, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 5, "from": 0, "to": 3, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 6, "from": 4, "to": 0, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 7, "from": 0, "to": 4, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 8, "from": 5, "to": 0, "width": 3, "offset": 0, "speedLimit": 5, "noTraffic": true}
    ],
    "signals": [
      {"id": "cross", "node": 0, "phases": [{"lanes": [0, 2], "green": 20}, {"lanes": [4, 6, 2], "green": 12.5}], "amber": 3, "offset": 5}
    ]
  },
  "races": [
    {"id": "sprint", "gates": [
      {"id": "start", "pos": [-60, -1.75], "yaw": 0, "width": 8},
      {"id": "mid", "pos": [1.75, 50], "yaw": 1.5707964, "width": 8},
      {"id": "finish", "pos": [1.75, 80], "yaw": 1.5707964, "width": 8}
    ]},
    {"id": "ring", "loop": true, "gates": [
      {"id": "r0", "pos": [-80, -1.75], "yaw": 0, "width": 8},
      {"id": "r1", "pos": [80, 1.75], "yaw": 3.1415927, "width": 8}
    ]}
  ]
}
`

func TestParseSignalsAndRaces(t *testing.T) {
	l, err := Parse("crossing.json", []byte(signalLevel))
	if err != nil {
		t.Fatal(err)
	}
	s := l.Roads.Signals[0]
	if s.ID != "cross" || s.Node != 0 || len(s.Phases) != 2 || s.Phases[1].Green != 12.5 || s.Amber != 3 || s.Offset != 5 {
		t.Fatalf("signal decoded wrong: %+v", s)
	}
	if c := s.Cycle(); c != 38.5 {
		t.Errorf("cycle %g s, want 38.5", c)
	}
	if got := l.SignalAt(0); got != 0 {
		t.Errorf("SignalAt(node 0) = %d, want 0", got)
	}
	if got := l.SignalAt(1); got != -1 {
		t.Errorf("SignalAt(node 1) = %d, want -1", got)
	}
	if i, ok := l.LaneIndex(6); !ok || i != 6 {
		t.Errorf("LaneIndex(6) = %d, %v", i, ok)
	}
	r, ok := l.Race("ring")
	if !ok || !r.Loop || len(r.Gates) != 2 || r.Gates[1].ID != "r1" {
		t.Fatalf("race ring decoded wrong: %+v", r)
	}
	if _, ok := l.Race("nope"); ok {
		t.Error("found a race that is not there")
	}
	// Canonical layout: a signal and a race each on a line of their own.
	data, err := Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"\n      {\"id\":\"cross\",\"node\":0,\"phases\":[{\"lanes\":[0,2],\"green\":20},{\"lanes\":[4,6,2],\"green\":12.5}],\"amber\":3,\"offset\":5}\n",
		"\n  \"races\": [\n    {\"id\":\"sprint\",\"gates\":[",
	} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("canonical layout lacks %q:\n%s", want, data)
		}
	}
	l2, err := Parse("again.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if data2, _ := Marshal(l2); !bytes.Equal(data, data2) {
		t.Error("Marshal is not stable")
	}
}

// TestParseBadSignalsAndRaces: each new field's errors, at its JSON path.
func TestParseBadSignalsAndRaces(t *testing.T) {
	cases := []struct {
		name     string
		old, new string // the change to signalLevel (first occurrence)
		path     string
		msg      string
	}{
		{"signal id taken", `"id": "cross"`, `"id": "house"`, "roads.signals[0].id", `"house" is already the id of buildings[0].id`},
		{"signal bad id", `"id": "cross"`, `"id": "Cross"`, "roads.signals[0].id", "not a valid name"},
		{"signal of a missing node", `"node": 0`, `"node": 9`, "roads.signals[0].node", "node 9 does not exist"},
		{"signal at a bend", `"node": 0`, `"node": 1`, "roads.signals[0].node", "node 1 is not an intersection"},
		{"two signals at a node", `"amber": 3, "offset": 5}`, `"amber": 3, "offset": 5}, {"id": "again", "node": 0, "phases": [{"lanes": [0, 2], "green": 20}, {"lanes": [4, 6], "green": 12}], "amber": 3}`, "roads.signals[1].node", "node 0 already has roads.signals[0]"},
		{"one phase", `{"lanes": [4, 6, 2], "green": 12.5}`, ``, "roads.signals[0].phases", "must have 2 to 8 phases, got 1"},
		{"empty phase", `{"lanes": [4, 6, 2], "green": 12.5}`, `{"lanes": [], "green": 12.5}`, "roads.signals[0].phases[1].lanes", "at least one lane"},
		{"missing lane", `"lanes": [0, 2]`, `"lanes": [0, 22]`, "roads.signals[0].phases[0].lanes[1]", "lane 22 does not exist"},
		{"lane out of the node", `"lanes": [0, 2]`, `"lanes": [0, 3]`, "roads.signals[0].phases[0].lanes[1]", "lane 3 does not enter node 0"},
		{"lane twice", `"lanes": [0, 2]`, `"lanes": [0, 2, 0]`, "roads.signals[0].phases[0].lanes[2]", "lane 0 is listed twice"},
		{"lane in no phase", `"lanes": [4, 6, 2]`, `"lanes": [4, 2]`, "roads.signals[0].phases", "lane 6 into node 0 is in no phase"},
		{"green too short", `"green": 20`, `"green": 0.5`, "roads.signals[0].phases[0].green", "must be from 1 to 300 s"},
		{"green too long", `"green": 20`, `"green": 301`, "roads.signals[0].phases[0].green", "must be from 1 to 300 s"},
		{"negative amber", `"amber": 3`, `"amber": -1`, "roads.signals[0].amber", "must be from 0 to 300 s"},
		{"offset past the cycle", `"offset": 5`, `"offset": 38.5`, "roads.signals[0].offset", "up to the cycle's 38.5 s"},
		{"negative offset", `"offset": 5`, `"offset": -1`, "roads.signals[0].offset", "up to the cycle's"},
		{"phases not a list", `"phases": [`, `"phases": 3, "x": [`, "roads.signals[0].phases", "want an array, got number 3"},
		{"unknown signal field", `"amber": 3`, `"amber": 3, "colour": 1`, "roads.signals[0].colour", `unknown field "colour"`},
		{"race id taken", `"id": "sprint"`, `"id": "cross"`, "races[0].id", `"cross" is already the id of roads.signals[0].id`},
		{"race of one gate", `{"id": "r1", "pos": [80, 1.75], "yaw": 3.1415927, "width": 8}`, ``, "races[1].gates", "at least 2 gates, got 1"},
		{"gate id taken", `"id": "mid"`, `"id": "start"`, "races[0].gates[1].id", `"start" is already the id of races[0].gates[0].id`},
		{"gate off the ground", `"pos": [1.75, 80]`, `"pos": [1.75, 180]`, "races[0].gates[2].pos", "outside the ground"},
		{"gate in a building", `"pos": [1.75, 80]`, `"pos": [30, 30]`, "races[0].gates[2].pos", `inside buildings[0] ("house")`},
		{"gate yaw of turns", `"yaw": 1.5707964, "width": 8}`, `"yaw": 7, "width": 8}`, "races[0].gates[1].yaw", "radians"},
		{"gate of no width", `"yaw": 0, "width": 8`, `"yaw": 0, "width": 0`, "races[0].gates[0].width", "must be > 0 m"},
		{"gate too wide", `"yaw": 0, "width": 8`, `"yaw": 0, "width": 51`, "races[0].gates[0].width", "at most 50 m"},
		{"gate on the one before", `"pos": [1.75, 80]`, `"pos": [1.75, 50]`, "races[0].gates[2].pos", "lies where the gate before it does"},
		{"loop not a bool", `"loop": true`, `"loop": 1`, "races[1].loop", "want true or false"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(signalLevel, c.old) {
				t.Fatalf("the case's old text %q is not in signalLevel", c.old)
			}
			data := strings.Replace(signalLevel, c.old, c.new, 1)
			// Leaving a list entry out leaves its comma behind.
			data = danglingComma.ReplaceAllString(data, "]")
			l, err := Parse("crossing.json", []byte(data))
			if err == nil {
				t.Fatalf("Parse succeeded: %+v", l)
			}
			checkError(t, err, "crossing.json", c.path, c.msg, 0)
		})
	}
}

// TestRaceGateCrossed: a step through a gate's line, between its ends and
// the way it faces, crosses it; any other does not.
func TestRaceGateCrossed(t *testing.T) {
	g := RaceGate{ID: "g", Pos: Vec2{10, 0}, Yaw: 1.5707964, Width: 8} // faces north, spans x 6..14
	left, right := g.Ends()
	if d := left.Sub(Vec2{6, 0}).Len(); d > 1e-4 {
		t.Errorf("left end %v, want [6, 0]", left)
	}
	if d := right.Sub(Vec2{14, 0}).Len(); d > 1e-4 {
		t.Errorf("right end %v, want [14, 0]", right)
	}
	cases := []struct {
		name string
		a, b Vec2
		want bool
	}{
		{"straight through the middle", Vec2{10, -1}, Vec2{10, 1}, true},
		{"onto the line", Vec2{10, -1}, Vec2{10, 0}, true},
		{"from the line on", Vec2{10, 0}, Vec2{10, 1}, false},
		{"near the left end", Vec2{6.1, -0.5}, Vec2{6.1, 0.5}, true},
		{"past the left end", Vec2{5.9, -0.5}, Vec2{5.9, 0.5}, false},
		{"past the right end", Vec2{14.1, -0.5}, Vec2{14.1, 0.5}, false},
		{"slanting in from outside", Vec2{5, -1}, Vec2{9, 1}, true},
		{"the wrong way", Vec2{10, 1}, Vec2{10, -1}, false},
		{"short of it", Vec2{10, -3}, Vec2{10, -1}, false},
		{"beyond it", Vec2{10, 1}, Vec2{10, 3}, false},
		{"along it", Vec2{7, 0}, Vec2{13, 0}, false},
	}
	for _, c := range cases {
		if got := g.Crossed(c.a, c.b); got != c.want {
			t.Errorf("%s: Crossed(%v, %v) = %v, want %v", c.name, c.a, c.b, got, c.want)
		}
	}
}

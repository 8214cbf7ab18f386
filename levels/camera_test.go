package levels

import (
	"math"
	"strings"
	"testing"
)

// cameraLevel is smallLevel with two cameras: one still, one sweeping.
var cameraLevel = strings.Replace(smallLevel, `  "pickups": [`, `  "cameras": [
    {"id": "cam-door", "pos": [20, 8], "yaw": 1.5707964, "arc": 1.2, "range": 25},
    {"id": "cam-yard", "pos": [45, 45], "yaw": 3.1415927, "arc": 1, "range": 30, "sweep": 0.8, "period": 10}
  ],
  "pickups": [`, 1)

func TestParseCameras(t *testing.T) {
	l, err := Parse("small.json", []byte(cameraLevel))
	if err != nil {
		t.Fatal(err)
	}
	want := []Camera{
		{ID: "cam-door", Pos: Vec2{20, 8}, Yaw: math.Pi / 2, Arc: 1.2, Range: 25},
		{ID: "cam-yard", Pos: Vec2{45, 45}, Yaw: math.Pi, Arc: 1, Range: 30, Sweep: 0.8, Period: 10},
	}
	if len(l.Cameras) != len(want) {
		t.Fatalf("%d cameras, want %d", len(l.Cameras), len(want))
	}
	for i := range want {
		if l.Cameras[i] != want[i] {
			t.Errorf("cameras[%d] = %+v, want %+v", i, l.Cameras[i], want[i])
		}
	}
	// The canonical layout writes them last, one a line, and reads back.
	b, err := Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "\n  \"cameras\": [\n    {\"id\":\"cam-door\",\"pos\":[20,8],\"yaw\":1.5707964,\"arc\":1.2,\"range\":25},\n") {
		t.Errorf("canonical layout:\n%s", b)
	}
	back, err := Parse("small.json", b)
	if err != nil || len(back.Cameras) != 2 || back.Cameras[1] != want[1] {
		t.Fatalf("round trip: %v %+v", err, back)
	}
}

// TestParseBadCameras: each bad camera value is refused at its path.
func TestParseBadCameras(t *testing.T) {
	const good = `{"id": "cam-yard", "pos": [45, 45], "yaw": 3.1415927, "arc": 1, "range": 30, "sweep": 0.8, "period": 10}`
	cases := []struct {
		name, old, new, path, msg string
	}{
		{"id taken", `"id": "cam-yard"`, `"id": "house"`, "cameras[1].id", "already the id"},
		{"inside a building", `"pos": [45, 45]`, `"pos": [20, 20]`, "cameras[1].pos", "inside buildings[0]"},
		{"off the ground", `"pos": [45, 45]`, `"pos": [450, 45]`, "cameras[1].pos", "outside the ground"},
		{"yaw of many turns", `"yaw": 3.1415927`, `"yaw": 30`, "cameras[1].yaw", "radians"},
		{"no arc", `"arc": 1, `, ``, "cameras[1].arc", "must be > 0"},
		{"arc past a turn", `"arc": 1`, `"arc": 7`, "cameras[1].arc", "at most"},
		{"no range", `"range": 30`, `"range": 0`, "cameras[1].range", "must be > 0 m"},
		{"range too far", `"range": 30`, `"range": 500`, "cameras[1].range", "at most 200 m"},
		{"negative sweep", `"sweep": 0.8`, `"sweep": -0.8`, "cameras[1].sweep", "must be from 0"},
		{"sweep past half a turn", `"sweep": 0.8`, `"sweep": 4`, "cameras[1].sweep", "must be from 0"},
		{"sweep without a period", `, "period": 10`, ``, "cameras[1].period", "must be > 0 s"},
		{"period without a sweep", `"sweep": 0.8, `, ``, "cameras[1].period", "must be left out"},
		{"unknown field", `"period": 10`, `"period": 10, "zoom": 2`, "cameras[1].zoom", `unknown field "zoom"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cam := strings.Replace(good, c.old, c.new, 1)
			if cam == good {
				t.Fatalf("the case's old text %q is not in the camera", c.old)
			}
			data := strings.Replace(cameraLevel, good, cam, 1)
			l, err := Parse("small.json", []byte(data))
			if err == nil {
				t.Fatalf("Parse succeeded: %+v", l.Cameras)
			}
			checkError(t, err, "small.json", c.path, c.msg, 0)
		})
	}
}

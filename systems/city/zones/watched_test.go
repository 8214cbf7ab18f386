package zones_test

import (
	"testing"

	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/systems/city/zones"
)

// TestWatched: a restricted zone is watched when a guard spawner or a
// camera stands in it; a civilian spawner, a guard outside, a safe zone and
// an unknown index are not.
func TestWatched(t *testing.T) {
	l, err := levels.Parse("watched.json", []byte(`{
  "name": "watched", "version": 1,
  "ground": {"min": [-100, -100], "max": [100, 100]},
  "zones": [
    {"id": "yard", "kind": "restricted", "polygon": [[0,0],[20,0],[20,20],[0,20]]},
    {"id": "lot", "kind": "restricted", "polygon": [[40,0],[60,0],[60,20],[40,20]]},
    {"id": "park", "kind": "restricted", "polygon": [[-60,0],[-40,0],[-40,20],[-60,20]]},
    {"id": "haven", "kind": "safe", "polygon": [[-60,-60],[-40,-60],[-40,-40]]}
  ],
  "npcSpawners": [
    {"id": "guards", "role": "guard", "pos": [10, 10], "yaw": 0, "count": 1},
    {"id": "outside", "role": "guard", "pos": [-30, 10], "yaw": 0, "count": 1},
    {"id": "strollers", "role": "civilian", "pos": [-50, 10], "yaw": 0, "count": 1},
    {"id": "haven-guard", "role": "guard", "pos": [-50, -55], "yaw": 0, "count": 1}
  ],
  "cameras": [
    {"id": "cam", "pos": [50, 10], "yaw": 0, "arc": 1, "range": 20}
  ]
}`))
	if err != nil {
		t.Fatal(err)
	}
	z := zones.New(l)
	for i, want := range []bool{true, true, false, false, false} {
		if got := z.Watched(i); got != want {
			t.Errorf("zone %d watched %v, want %v", i, got, want)
		}
	}
	var none *zones.Zones
	if none.Watched(0) {
		t.Error("nil zones watch")
	}
}

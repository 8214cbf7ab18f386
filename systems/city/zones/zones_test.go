package zones_test

import (
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/systems/city/zones"
)

const level = `{
  "name": "test-zones",
  "version": 1,
  "ground": {"min":[-100,-100],"max":[100,100]},
  "zones": [
    {"id":"grounds","kind":"safe","polygon":[[0,0],[10,0],[10,10],[0,10]]},
    {"id":"lot","kind":"restricted","polygon":[[20,0],[30,0],[30,10],[20,10]]},
    {"id":"yard","kind":"restricted","polygon":[[40,0],[50,0],[45,10]]}
  ]
}`

func TestZones(t *testing.T) {
	l, err := levels.Parse("test-zones.json", []byte(level))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name       string
		safeIDs    []string
		x, y       float32
		safe       bool
		restricted int
	}{
		{"in the safe zone", nil, 5, 5, true, -1},
		{"outside all", nil, -5, 5, false, -1},
		{"in the lot", nil, 25, 5, false, 1},
		{"in the triangle", nil, 45, 2, false, 2},
		{"beside the triangle's slope", nil, 41, 9, false, -1},
		{"the rules make the lot safe", []string{"lot"}, 25, 5, true, -1},
	}
	for _, c := range cases {
		z := zones.New(l, c.safeIDs...)
		p := components.Vec3{X: c.x, Y: c.y}
		if got := z.Safe(p); got != c.safe {
			t.Errorf("%s: Safe %v", c.name, got)
		}
		if got := z.Restricted(p); got != c.restricted {
			t.Errorf("%s: Restricted %d", c.name, got)
		}
	}
	var none *zones.Zones
	if none.Safe(components.Vec3{}) || none.Restricted(components.Vec3{}) != -1 {
		t.Fatal("a nil Zones has zones")
	}
}

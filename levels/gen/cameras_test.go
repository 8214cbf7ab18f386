package main

import (
	"testing"

	"github.com/fiveonit/engine/levels"
)

// TestCityCameras: main-city has its cameras where FORMAT.md says, two in
// the yard and two at the police station, each inside its restricted zone
// (or at its edge), sweeping, and clear of the police cars' spawn points
// (a camera's body would keep a car from coming out there).
func TestCityCameras(t *testing.T) {
	l := city()
	if err := l.Validate("main-city.json"); err != nil {
		t.Fatal(err)
	}
	zone := func(id string) []levels.Vec2 {
		for _, z := range l.Zones {
			if z.ID == id {
				return z.Polygon
			}
		}
		t.Fatalf("no zone %q", id)
		return nil
	}
	want := map[string]string{
		"yard-cam-gate": "yard", "yard-cam-corner": "yard",
		"police-cam-lot": "police-lot", "police-cam-door": "police-lot",
	}
	if len(l.Cameras) != len(want) {
		t.Fatalf("%d cameras, want %d", len(l.Cameras), len(want))
	}
	for _, c := range l.Cameras {
		z, ok := want[c.ID]
		if !ok {
			t.Errorf("camera %q is not one of main-city's", c.ID)
			continue
		}
		if !levels.PointInPolygon(c.Pos, zone(z)) {
			t.Errorf("camera %s at %v is not in zone %s", c.ID, c.Pos, z)
		}
		if c.Sweep <= 0 || c.Period <= 0 {
			t.Errorf("camera %s does not sweep", c.ID)
		}
		for _, i := range l.SpawnsOf(levels.RolePolice) {
			if d := l.Spawns[i].Pos.Sub(c.Pos).Len(); d < 6 {
				t.Errorf("camera %s is %g m from a police spawn point", c.ID, d)
			}
		}
	}
}

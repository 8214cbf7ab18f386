package games

import (
	"errors"
	"strings"
	"testing"

	"github.com/fiveonit/engine/missions"
	"github.com/fiveonit/engine/missions/cityjobs"
)

// TestSetMissions: a game's missions are checked when it loads: a name that
// is not a level-format name, a name used twice, a mission without a title,
// contact or New, a reward out of range, more than missions.MaxDefs, and a
// mission item of the catalog that names no mission are refused with the
// reason; city-jobs registers every mission of cityjobs.Missions, in its
// order.
func TestSetMissions(t *testing.T) {
	g, err := Lookup("city-jobs")
	if err != nil {
		t.Fatal(err)
	}
	want := cityjobs.Missions()
	if len(g.Missions) != len(want) || len(want) == 0 {
		t.Fatalf("city-jobs has %d missions, want cityjobs.Missions' %d", len(g.Missions), len(want))
	}
	for i, d := range want {
		if g.Missions[i].Name != d.Name {
			t.Fatalf("city-jobs' mission %d is %q, want %q", i, g.Missions[i].Name, d.Name)
		}
	}
	mk := func() missions.Mission { return nil }
	ok := func(name string) missions.Def {
		return missions.Def{Name: name, Title: "T", Contact: "C", New: mk}
	}
	// city-jobs' own items name delivery, theft and pickup: a valid list
	// keeps them.
	base := []missions.Def{ok("delivery"), ok("theft"), ok("pickup")}
	many := make([]missions.Def, missions.MaxDefs+1)
	for i := range many {
		many[i] = ok(string(rune('a'+i)) + "-job")
	}
	for _, c := range []struct {
		name string
		defs []missions.Def
		why  string
	}{
		{"bad name", append(append([]missions.Def{}, base...), ok("Bad Name")), "not a valid name"},
		{"twice", append(append([]missions.Def{}, base...), ok("theft")), "registered twice"},
		{"no contact", append(append([]missions.Def{}, base...), missions.Def{Name: "x", Title: "T", New: mk}), "a contact"},
		{"reward", append(append([]missions.Def{}, base...), missions.Def{Name: "x", Title: "T", Contact: "C", New: mk, Reward: -1}), "reward"},
		{"too many", many, "at most"},
		{"orphan item", []missions.Def{ok("delivery"), ok("theft")}, `item "bag" belongs to mission "pickup"`},
	} {
		h := *g
		err := h.setMissions(c.defs)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s: %v, want %q", c.name, err, c.why)
		}
	}
	h := *g
	if err := h.setMissions(base); err != nil || len(h.Missions) != 3 {
		t.Fatalf("a valid list: %v", err)
	}
}

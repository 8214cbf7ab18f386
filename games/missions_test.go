package games

import (
	"errors"
	"strings"
	"testing"

	"github.com/fiveonit/engine/missions"
	"github.com/fiveonit/engine/missions/cityjobs"
	"github.com/fiveonit/engine/missions/cityruns"
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

// TestSetRuns: a game's run missions are checked when it loads: a name
// that is not a level-format name, a name used twice, a run without a
// title, one the runs cannot play (missions.RunDef.Check), more than
// missions.MaxDefs, and a mission that takes a run's name are refused with
// the reason; a mission item may belong to a run. city-jobs registers
// every run of cityruns.Runs, in its order, and Run finds each by name.
func TestSetRuns(t *testing.T) {
	g, err := Lookup("city-jobs")
	if err != nil {
		t.Fatal(err)
	}
	want := cityruns.Runs()
	if len(g.Runs) != len(want) || len(want) == 0 {
		t.Fatalf("city-jobs has %d runs, want cityruns.Runs' %d", len(g.Runs), len(want))
	}
	for i, d := range want {
		if g.Runs[i].Name != d.Name {
			t.Fatalf("city-jobs' run %d is %q, want %q", i, g.Runs[i].Name, d.Name)
		}
		if r, ok := g.Run(d.Name); !ok || r != &g.Runs[i] {
			t.Fatalf("Run(%q) = %v, %v", d.Name, r, ok)
		}
	}
	if _, ok := g.Run("delivery"); ok {
		t.Fatal("Run finds a phone mission")
	}
	if fr, _ := Lookup("free-roam"); len(fr.Runs) != 0 {
		t.Fatal("free-roam has runs")
	}
	mk := func() missions.RunMission { return nil }
	two := []missions.RunTeam{{Name: "A"}, {Name: "B"}}
	ok := func(name string) missions.RunDef { return missions.RunDef{Name: name, Title: "T", Teams: two, New: mk} }
	many := make([]missions.RunDef, missions.MaxDefs+1)
	for i := range many {
		many[i] = ok(string(rune('a'+i)) + "-run")
	}
	for _, c := range []struct {
		name string
		defs []missions.RunDef
		why  string
	}{
		{"bad name", []missions.RunDef{ok("Bad Name")}, "not a valid name"},
		{"twice", []missions.RunDef{ok("tag"), ok("tag")}, "registered twice"},
		{"no title", []missions.RunDef{{Name: "tag", Teams: two, New: mk}}, "a title"},
		{"a versus of one team", []missions.RunDef{{Name: "tag", Title: "T", Teams: two[:1], New: mk}}, "at least two teams"},
		{"no New", []missions.RunDef{{Name: "tag", Title: "T", Teams: two}}, "needs a name and New"},
		{"too many", many, "at most"},
	} {
		h := *g
		err := h.setRuns(c.defs)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s: %v, want %q", c.name, err, c.why)
		}
	}
	// A phone mission may not take a run's name; the strongbox belongs to
	// the run yard-heist.
	h := *g
	h.Runs = []missions.RunDef{ok("delivery"), ok("yard-heist")}
	pm := func() missions.Mission { return nil }
	err = h.setMissions([]missions.Def{{Name: "delivery", Title: "T", Contact: "C", New: pm}})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "registered twice") {
		t.Errorf("a mission of a run's name: %v", err)
	}
	h.Runs = []missions.RunDef{ok("yard-heist")}
	if err := h.setMissions([]missions.Def{ok2("delivery", pm), ok2("theft", pm), ok2("pickup", pm)}); err != nil {
		t.Errorf("the strongbox of the run yard-heist: %v", err)
	}
	h.Runs = nil
	if err := h.setMissions([]missions.Def{ok2("delivery", pm), ok2("theft", pm), ok2("pickup", pm)}); err == nil || !strings.Contains(err.Error(), `"strongbox" belongs to mission "yard-heist"`) {
		t.Errorf("the strongbox with no run yard-heist: %v", err)
	}
}

func ok2(name string, mk func() missions.Mission) missions.Def {
	return missions.Def{Name: name, Title: "T", Contact: "C", New: mk}
}

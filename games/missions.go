package games

import (
	"fmt"
	"slices"

	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/missions"
	"github.com/fiveonit/engine/missions/cityjobs"
	"github.com/fiveonit/engine/missions/cityruns"
)

// builtinMissions returns the missions a built-in game registers, by the
// game's name: its Go code, beside its JSON file's data.
func builtinMissions(game string) []missions.Def {
	switch game {
	case "city-jobs":
		return cityjobs.Missions()
	}
	return nil
}

// builtinRuns returns the run missions a built-in game registers, by the
// game's name.
func builtinRuns(game string) []missions.RunDef {
	switch game {
	case "city-jobs":
		return cityruns.Runs()
	}
	return nil
}

// Run returns the game's run mission named name, false for none.
func (g *Game) Run(name string) (*missions.RunDef, bool) {
	for i := range g.Runs {
		if g.Runs[i].Name == name {
			return &g.Runs[i], true
		}
	}
	return nil, false
}

// setRuns gives g its run missions, checked: at most missions.MaxDefs,
// each with a valid name, used once, a title, and playable
// (missions.RunDef.Check). Call it before setMissions, which checks that
// no mission takes a run's name.
func (g *Game) setRuns(defs []missions.RunDef) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: game %s: %s", ErrInvalid, g.Name, fmt.Sprintf(format, a...))
	}
	if len(defs) > missions.MaxDefs {
		return bad("%d run missions, at most %d", len(defs), missions.MaxDefs)
	}
	for i := range defs {
		d := &defs[i]
		switch {
		case !levels.ValidName(d.Name):
			return bad("runs[%d]: name %q is not a valid name", i, d.Name)
		case slices.ContainsFunc(defs[:i], func(o missions.RunDef) bool { return o.Name == d.Name }):
			return bad("runs[%d]: run mission %q registered twice", i, d.Name)
		case d.Title == "":
			return bad("run mission %q: a title is required", d.Name)
		}
		if err := d.Check(); err != nil {
			return bad("run mission %q: %v", d.Name, err)
		}
	}
	g.Runs = defs
	return nil
}

// setMissions gives g its missions, checked: at most missions.MaxDefs,
// each with a valid name, used once among the missions and the run
// missions, a contact, a title and a New; and every mission item of the
// catalog names one of them or a run mission.
func (g *Game) setMissions(defs []missions.Def) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: game %s: %s", ErrInvalid, g.Name, fmt.Sprintf(format, a...))
	}
	if len(defs) > missions.MaxDefs {
		return bad("%d missions, at most %d", len(defs), missions.MaxDefs)
	}
	names := map[string]bool{}
	for _, r := range g.Runs {
		names[r.Name] = true
	}
	for i, d := range defs {
		switch {
		case !levels.ValidName(d.Name):
			return bad("missions[%d]: name %q is not a valid name", i, d.Name)
		case names[d.Name]:
			return bad("missions[%d]: mission %q registered twice", i, d.Name)
		case d.Title == "" || d.Contact == "" || d.New == nil:
			return bad("mission %q: a title, a contact and New are required", d.Name)
		case d.Reward < 0 || d.Reward > MaxPrice:
			return bad("mission %q: reward %d is not within 0..%d", d.Name, d.Reward, MaxPrice)
		}
		names[d.Name] = true
	}
	for _, it := range g.Items.Items() {
		if it.Mission != "" && !names[it.Mission] {
			return bad("item %q belongs to mission %q, which the game does not have", it.Name, it.Mission)
		}
	}
	g.Missions = defs
	return nil
}

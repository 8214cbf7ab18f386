package games

import "github.com/fiveonit/engine/missions"

// Run returns the game's run mission named name (Game.Runs), false for
// none.
func (g *Game) Run(name string) (*missions.RunDef, bool) {
	for i := range g.Runs {
		if g.Runs[i].Name == name {
			return &g.Runs[i], true
		}
	}
	return nil, false
}

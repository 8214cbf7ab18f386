package server

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/games"
	"github.com/fiveonit/engine/levels"
)

// newGame makes a room on level playing the game named game, with the
// game's rules for the level.
func newGame(t testing.TB, level, game string) *GameServer {
	t.Helper()
	l, err := levels.Load(level)
	if err != nil {
		t.Fatal(err)
	}
	gm, err := games.Lookup(game)
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(Config{Room: "t", Level: l, Seed: 1, Game: gm, Rules: gm.ForLevel(l)})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestWelcomeTellsTheGame: the welcome names the game and carries its
// rules, and a zone the game's rules make safe is listed as safe.
func TestWelcomeTellsTheGame(t *testing.T) {
	for _, c := range []struct {
		game      string
		phone     bool
		lotIsSafe bool
	}{
		{"free-roam", false, false},
		{"city-jobs", true, true},
	} {
		t.Run(c.game, func(t *testing.T) {
			g := newGame(t, "main-city", c.game)
			p := join(t, g, Who{})
			g.Tick()
			p.read()
			if p.welcome.Game != c.game {
				t.Fatalf("welcome game %q", p.welcome.Game)
			}
			var r ecs.Rules
			if err := json.Unmarshal(p.welcome.Rules, &r); err != nil || r.Name != c.game || r.Phone != c.phone {
				t.Fatalf("welcome rules %s: %v", p.welcome.Rules, err)
			}
			var lot string
			for _, z := range p.welcome.Zones {
				if z.ID == "police-lot" {
					lot = z.Kind
				}
			}
			if want := map[bool]string{true: "safe", false: "restricted"}[c.lotIsSafe]; lot != want {
				t.Fatalf("police-lot listed %q, want %q", lot, want)
			}
		})
	}
}

// TestNewRefusesALevelTheGameCannotPlay: a level naming an item the game's
// catalog lacks is refused with the reason.
func TestNewRefusesALevelTheGameCannotPlay(t *testing.T) {
	l, err := levels.Parse("x.json", []byte(`{"name":"test-x","version":1,"ground":{"min":[-50,-50],"max":[50,50]},"rules":{},"roads":{},
		"spawns":[{"role":"player","pos":[0,0],"yaw":0}],"pickups":[{"item":"unobtainium","count":1,"pos":[5,5]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(Config{Room: "t", Level: l, Rules: ecs.FreeRoam()}); !errors.Is(err, games.ErrInvalid) {
		t.Fatalf("got %v, want games.ErrInvalid", err)
	}
}

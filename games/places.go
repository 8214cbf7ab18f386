package games

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/fiveonit/engine/levels"
)

// LevelPlaces is what a game adds to one level it plays: places beside the
// level's spawn points, and spawn areas (FORMAT.md). A room of the game on
// that level plays the level with them (Game.Level).
type LevelPlaces struct {
	// Level is the level's name. A game names what levels it likes: one
	// it is never played on is never looked at.
	Level string `json:"level"`
	// Places are spawn points as the level's (levels.Spawn): a role
	// comes out of them as out of the level's own, and a place's id
	// names it for a run's team (missions.RunTeam.Spawn) or a mission
	// (levels.Level.Place).
	Places []levels.Spawn `json:"places,omitempty"`
	// SpawnAreas are areas the police or the traffic also come out of.
	SpawnAreas []levels.SpawnArea `json:"spawnAreas,omitempty"`
}

// checkPlaces checks what can be checked of the game's places without
// their level: each level named once, valid names and roles, ids unique
// within a level's entry, finite points and headings, polygons of 3 to
// levels.MaxPolygonPoints points. Game.Level checks the rest against the
// level.
func checkPlaces(ls []LevelPlaces) error {
	twoPi := float32(2 * math.Pi)
	finite := func(v float32) bool { return !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) }
	for k, lp := range ls {
		at := fmt.Sprintf("levels[%d]", k)
		if !levels.ValidName(lp.Level) {
			return fmt.Errorf("%s.level: %q is not a valid level name", at, lp.Level)
		}
		for j := range k {
			if ls[j].Level == lp.Level {
				return fmt.Errorf("%s.level: level %q is named by levels[%d] already", at, lp.Level, j)
			}
		}
		var ids []string
		id := func(path, s string) error {
			if !levels.ValidName(s) {
				return fmt.Errorf("%s: %q is not a valid id", path, s)
			}
			if slices.Contains(ids, s) {
				return fmt.Errorf("%s: %q is used twice", path, s)
			}
			ids = append(ids, s)
			return nil
		}
		for i, p := range lp.Places {
			path := fmt.Sprintf("%s.places[%d]", at, i)
			switch {
			case !slices.Contains(levels.SpawnRoles, p.Role):
				return fmt.Errorf("%s.role: unknown role %q, want one of %q", path, p.Role, levels.SpawnRoles)
			case p.Role == levels.RolePlace && p.ID == "":
				return fmt.Errorf("%s.id: a place needs an id", path)
			case !finite(p.Pos.X) || !finite(p.Pos.Y):
				return fmt.Errorf("%s.pos: must be finite", path)
			case !finite(p.Yaw) || p.Yaw < -twoPi || p.Yaw > twoPi:
				return fmt.Errorf("%s.yaw: must be within [-2π, 2π] radians", path)
			}
			if p.ID != "" {
				if err := id(path+".id", p.ID); err != nil {
					return err
				}
			}
		}
		for i, a := range lp.SpawnAreas {
			path := fmt.Sprintf("%s.spawnAreas[%d]", at, i)
			if err := id(path+".id", a.ID); err != nil {
				return err
			}
			if !slices.Contains(levels.AreaRoles, a.Role) {
				return fmt.Errorf("%s.role: unknown role %q, want one of %q", path, a.Role, levels.AreaRoles)
			}
			if n := len(a.Polygon); n < 3 || n > levels.MaxPolygonPoints {
				return fmt.Errorf("%s.polygon: must have 3 to %d points, got %d", path, levels.MaxPolygonPoints, n)
			}
		}
	}
	return nil
}

// Level returns the level a room of the game plays on l: l itself when
// the game adds nothing to it, else a copy of l with the game's places
// after its spawn points and the game's spawn areas after its own
// (levels.Level.With), checked as the level's own are: on the ground,
// clear of the buildings, their ids unique among the level's. l is the
// level as loaded, without the game's additions (they would clash with
// themselves), and is never changed. The error, which wraps ErrInvalid,
// names the game's field.
func (g *Game) Level(l *levels.Level) (*levels.Level, error) {
	k := slices.IndexFunc(g.Levels, func(lp LevelPlaces) bool { return lp.Level == l.Name })
	if k < 0 || len(g.Levels[k].Places) == 0 && len(g.Levels[k].SpawnAreas) == 0 {
		return l, nil
	}
	lp := &g.Levels[k]
	c, err := l.With(l.Name+".json", lp.Places, lp.SpawnAreas)
	if err == nil {
		return c, nil
	}
	var le *levels.Error
	if !errors.As(err, &le) {
		return nil, fmt.Errorf("%w: game %s on level %s: %w", ErrInvalid, g.Name, l.Name, err)
	}
	// The copy's paths of the additions, as the game's file names them.
	at := fmt.Sprintf("levels[%d]", k)
	name := func(s string) string {
		s = relabel(s, "spawns[", len(l.Spawns), at+".places[")
		return relabel(s, "spawnAreas[", len(l.SpawnAreas), at+".spawnAreas[")
	}
	return nil, fmt.Errorf("%w: game %s on level %s: %s: %s", ErrInvalid, g.Name, l.Name, name(le.Path), name(le.Msg))
}

// relabel rewrites every "list[i" in s whose index i is from or more as
// "to[i-from": a path of the level's copy as the game's file names it.
func relabel(s, list string, from int, to string) string {
	var b strings.Builder
	for {
		k := strings.Index(s, list)
		if k < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := k + len(list)
		n := end
		for n < len(s) && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		i, err := strconv.Atoi(s[end:n])
		b.WriteString(s[:k])
		if err != nil || i < from {
			b.WriteString(s[k:n])
		} else {
			b.WriteString(to + strconv.Itoa(i-from))
		}
		s = s[n:]
	}
}

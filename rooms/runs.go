package rooms

import (
	"errors"
	"fmt"

	"github.com/fiveonit/engine/fleet/directory"
	"github.com/fiveonit/engine/games"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/missions"
	"github.com/fiveonit/engine/runs"
	"github.com/fiveonit/engine/server"
)

// RunSpec is a run room a platform makes: one run mission played by a
// roster of accounts in seats, on a level, in a game (package runs,
// server.RunConfig).
type RunSpec struct {
	// Room is the room's name (ErrBadRoomName's rules); it must not be
	// open.
	Room string `json:"room"`
	// Game is the game whose run mission it plays ("": the manager's
	// default); Mission the mission's name (games.Game.Runs).
	Game    string `json:"game,omitempty"`
	Mission string `json:"mission"`
	// Level is the level ("": the manager's default).
	Level string `json:"level,omitempty"`
	// Roster is who plays: accounts in seats, seats in the mission's
	// teams by index.
	Roster runs.Roster `json:"roster"`
	// Def, if set, is the run mission itself, in Go, instead of the
	// game's Mission: a platform's own, or a test's.
	Def *missions.RunDef `json:"-"`
}

// Errors of MakeRun, each wrapped with the particulars.
var (
	// ErrRoomTaken: a room of that name is open or being made.
	ErrRoomTaken = errors.New("rooms: a room of that name is open")
	// ErrNoRun: the game has no run mission of that name.
	ErrNoRun = errors.New("rooms: no such run mission")
	// ErrRunOver closes a run room's players once its run is over.
	ErrRunOver = errors.New("the run is over")
)

// MakeRun makes and opens the run room of spec: it waits for its roster
// from then on. It refuses a room name that is not valid or is taken, an
// unknown level, game or mission, a roster the run refuses (an account
// twice, a team the mission lacks: server.ErrRunRoster) and a room past
// the manager's MaxRooms. The room closes once its run is over
// (server.GameServer.Over), whoever is in it.
func (m *Manager) MakeRun(spec RunSpec) (*Room, error) {
	if !roomName.MatchString(spec.Room) {
		return nil, ErrBadRoomName
	}
	o := Options{Level: spec.Level, Game: spec.Game, Traffic: -1, Pedestrians: -1}
	if o.Level == "" {
		o.Level = m.cfg.DefaultLevel
	}
	if _, err := levels.Load(o.Level); err != nil {
		return nil, fmt.Errorf("rooms: %w", err)
	}
	if o.Game == "" {
		o.Game = m.cfg.DefaultGame
	}
	game, err := games.Lookup(o.Game)
	if err != nil {
		return nil, fmt.Errorf("rooms: %w", err)
	}
	def := spec.Def
	if def == nil {
		d, ok := game.Run(spec.Mission)
		if !ok {
			return nil, fmt.Errorf("%w: game %s has no run mission %q", ErrNoRun, game.Name, spec.Mission)
		}
		def = d
	}
	o.Run = &server.RunConfig{Mission: def, Roster: spec.Roster}
	m.mu.Lock()
	_, making := m.making[spec.Room]
	taken := m.rooms[spec.Room] != nil || making
	m.mu.Unlock()
	if taken {
		return nil, fmt.Errorf("%w: %s", ErrRoomTaken, spec.Room)
	}
	if err := m.make(spec.Room, o); err != nil {
		var held *directory.HeldError
		if errors.As(err, &held) {
			return nil, fmt.Errorf("%w: %s, on another server (%s)", ErrRoomTaken, spec.Room, held.Addr)
		}
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.rooms[spec.Room]
	if r == nil || r.Options.Run == nil || r.Options.Run != o.Run {
		return nil, fmt.Errorf("%w: %s", ErrRoomTaken, spec.Room) // a join made it meanwhile
	}
	return r, nil
}

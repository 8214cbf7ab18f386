package missions

import (
	"errors"

	"github.com/fiveonit/engine/levels"
)

// RunMission is a mission played in a run room (package runs) by a roster
// of seats in teams, not offered by phone: the platform makes the room with
// the mission and the roster, and the mission starts for every seat in
// the world once the run goes live, as one instance.
//
// The life of a run mission:
//
//  1. The room waits for its roster and counts down; every player's input
//     is held and the mission does not step.
//  2. The run goes live: the host calls RunDef.New, then RunMission.Start.
//     Its players are every seat's character in the world.
//  3. Every tick, in the post-step, the host calls RunMission.Step. A
//     player who drops keeps their character in the world, input held,
//     for runs.HoldTicks: the mission sees them as any other (a stopped
//     car beside a chaser is caught like anyone's). A player whose seat is gone for good (not back in
//     time) leaves the world and the mission hears it (RunMission.Leave).
//     A seat added under way (AddSeat) comes into the world where the run
//     stands and into Players.
//  4. The mission ends the run: RunHost.Win (versus), Host.Succeed or
//     Host.Fail (co-op, or a versus with no winner). A versus team whose
//     every seat is gone forfeits; the host ends the run then and the
//     mission is not stepped again.
//
// What a run mission spawns is its own, as with any mission, and goes when
// the run ends.
type RunMission interface {
	Start(h RunHost) error
	Step(h RunHost)
	Phone(h RunHost, p Player, c Command) error
	Leave(h RunHost, p Player)
}

// RunTeam is one team of a run mission.
type RunTeam struct {
	// Name is what the players see ("Getaway", "Police").
	Name string
	// Spawn names where the team's players start: a place of the game
	// (games.LevelPlaces) or of the level (a spawn point's id, or a
	// zone's: its centre), checked when the run's room is made. Its players start there a car's width apart,
	// each at the first free spot, at the wheel of a car of their own.
	// "" starts them at the level's player spawns.
	Spawn string
}

// RunDef is a run mission as a game registers it.
type RunDef struct {
	// Name is the mission's id, unique among the game's missions and
	// runs; Title what the players see.
	Name, Title string
	// Coop makes the seats one crew that plays together and keeps
	// checkpoints; else the teams play versus.
	Coop bool
	// Teams are its teams, at least one (two or more for versus), at
	// most runs.MaxTeams. A player's Party in the simulation is their
	// team's index plus one.
	Teams []RunTeam
	// FriendlyFire lets teammates hurt each other (the rule "on"); else
	// the run plays the rule "rivals": no hurt within a team. Either way
	// a hit on a teammate counts against the hitter's score.
	FriendlyFire bool
	// MaxSeats bounds the roster, late seats included (0: runs.MaxSeats).
	MaxSeats int
	// New makes a fresh instance.
	New func() RunMission
}

// RunHost is what a run mission may do: everything a Host does, and the
// run's own actions. The MissionHost implements it for a run room's one
// instance; its methods are called only from the mission's own methods,
// on the room's goroutine.
//
// A run pays through Host.Pay like any mission; once a debug command has
// been honoured in the run's room, Pay pays nothing (Paying is false) and
// the result says so.
type RunHost interface {
	Host
	// Team returns p's team: an index into RunDef.Teams.
	Team(p Player) int
	// Seat returns p's seat in the run (runs' seat number).
	Seat(p Player) int
	// TakeOut takes p's character out of the world, and its car when
	// nobody else sits in it: p is out of the run and watches a teammate
	// (anybody still in the run, once their team has nobody left). p is
	// no longer in Players; the mission is not told Leave for it.
	TakeOut(p Player)
	// SendBack sends p back as a team's players start: at the wheel of a
	// fresh car, at their team's spawn (versus), or at the last
	// checkpoint or the start (co-op). The car p had stays where it was,
	// unless it was theirs and empty: that goes.
	SendBack(p Player)
	// Checkpoint saves where a co-op crew comes back: a late seat comes
	// in here, and a player who dies or is sent back comes back here.
	Checkpoint(at levels.Vec2, yaw float32)
	// Score adds n (negative takes) to p's score in the run.
	Score(p Player, n int)
	// Win ends a versus run with team winning; text says why.
	Win(team int, text string)
	// Paying reports whether the run still pays (no debug command was
	// honoured in its room).
	Paying() bool
}

// ErrRunDef is returned for a RunDef that cannot be played: no teams, a
// versus with fewer than two, more than runs allow, or no New.
var ErrRunDef = errors.New("missions: bad run mission")

// MaxRunTeams is the most teams a run mission has (runs.MaxTeams).
const MaxRunTeams = 8

// Check reports what is wrong with d, nil when it may be played.
func (d *RunDef) Check() error {
	switch {
	case d.Name == "" || d.New == nil:
		return errors.Join(ErrRunDef, errors.New("a run mission needs a name and New"))
	case len(d.Teams) == 0 || len(d.Teams) > MaxRunTeams:
		return errors.Join(ErrRunDef, errors.New("a run mission has 1 to 8 teams"))
	case !d.Coop && len(d.Teams) < 2:
		return errors.Join(ErrRunDef, errors.New("a versus run mission has at least two teams"))
	}
	return nil
}

// Package runs is a run as pure logic: one mission played in its own room
// by a roster of accounts in seats, the seats in teams. It keeps the run's
// phase (waiting for the roster, the countdown, live, ended, closed), each
// seat's state (never come, playing, dropped and held, out of the run,
// gone for good), the score and the result. It has no sockets, no clock
// and no goroutines: the server's runs feature calls it from the room's
// goroutine with the room's tick as the time, and turns what changed into
// run frames (package textframe) and into the world (bodies held, taken
// out, sent back).
//
// The life of a run:
//
//  1. Waiting: the room is made with the roster; each seat's account joins
//     with its join token. Once every seat has come in, or WaitTicks have
//     passed with at least one, the countdown starts. A seat that never
//     came by then is gone (a team left with nobody forfeits); a run that
//     nobody came to ends with OutcomeAbandoned.
//  2. Countdown: CountdownTicks, then live. Until live, every player's
//     input is held by the server.
//  3. Live: the mission steps. A seat whose player drops is held for
//     HoldTicks; one who comes back within them plays on, else the seat is
//     gone for good. In versus, a team with no seat left forfeits: the last
//     team standing wins.
//  4. Ended with a Result (the mission's, a forfeit's or an abandon's),
//     then Closed CloseTicks later: the room closes.
//
// A run's seats are numbered from 0 in the order the roster gives them
// and AddSeat adds them; a seat's number never changes.
package runs

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fiveonit/engine/ecs"
)

// Mode says how the teams of a run play.
type Mode uint8

// The modes.
const (
	// Versus: the teams play against each other; a team left with nobody
	// forfeits, and a run ends with a winning team.
	Versus Mode = iota
	// Coop: the seats play together as one crew (one team or more);
	// the run keeps checkpoints and ends with success or failure.
	Coop
)

var modeNames = [...]string{"versus", "coop"}

// String returns the mode's name as the run frame spells it.
func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return "unknown"
}

// Phase is where a run stands.
type Phase uint8

// The phases, in order.
const (
	Waiting   Phase = iota // for the roster to come in
	Countdown              // every player held, the start near
	Live                   // the mission steps
	Ended                  // with a result; the room closes soon
	Closed                 // the room closes now
)

var phaseNames = [...]string{"waiting", "countdown", "live", "ended", "closed"}

// String returns the phase's name as the run frame spells it.
func (p Phase) String() string {
	if int(p) < len(phaseNames) {
		return phaseNames[p]
	}
	return "unknown"
}

// State is where one seat stands.
type State uint8

// The seat states.
const (
	Empty     State = iota // its player has not come in yet
	Playing                // its player is connected and in the run
	Dropped                // its player dropped: the seat is held until HeldUntil
	Out                    // the mission took its body out of the world: it watches
	Gone                   // gone for good: never came, or not back in time
	OutDrop                // out of the run and dropped: gone once HeldUntil passes
	numStates              // how many states; not a state
)

var stateNames = [numStates]string{"empty", "playing", "dropped", "out", "gone", "out-dropped"}

// String returns the state's name as the run frame spells it.
func (s State) String() string {
	if s < numStates {
		return stateNames[s]
	}
	return "unknown"
}

// Timings of a run, in ticks.
const (
	// WaitTicks is how long a run waits for its roster: a minute. Then it
	// starts with whoever came.
	WaitTicks = 60 * ecs.TickRate
	// CountdownTicks is the countdown before live: five seconds.
	CountdownTicks = 5 * ecs.TickRate
	// HoldTicks is how long a dropped player's seat is held: a minute.
	HoldTicks = 60 * ecs.TickRate
	// CloseTicks is how long an ended run's room stays open, for the
	// result to be read: thirty seconds.
	CloseTicks = 30 * ecs.TickRate
)

// Bounds of a roster.
const (
	// MaxTeams is the most teams a run has.
	MaxTeams = 8
	// MaxSeats is the most seats a run has, late seats included.
	MaxSeats = 64
	// MaxName is the longest account or name on a roster, in bytes.
	MaxName = 64
)

// TeamHitPenalty is what each hit on a teammate costs the hitter's score.
const TeamHitPenalty = 10

// The reasons a roster, a join or a late seat is refused. The errors
// returned wrap them with the particulars.
var (
	ErrRoster    = errors.New("runs: bad roster")
	ErrNoSeat    = errors.New("your account has no seat in this run")
	ErrSeatHeld  = errors.New("your seat is already played by another connection")
	ErrSeatGone  = errors.New("your seat in this run is gone: you did not come back in time")
	ErrRunOver   = errors.New("this run is over")
	ErrNoTeam    = errors.New("the run has no such team")
	ErrFull      = errors.New("the run has no room for another seat")
	ErrDuplicate = errors.New("the account has a seat in this run already")
)

// Seat is one place on a roster: an account in a team.
type Seat struct {
	// Account is the account that plays it (a join token's subject).
	Account string `json:"account"`
	// Name is what the others see; "" is the join token's name.
	Name string `json:"name,omitempty"`
	// Team is the seat's team: an index into the mission's teams.
	Team int `json:"team"`
}

// Roster is who plays a run: the seats, in order.
type Roster struct {
	Seats []Seat `json:"seats"`
}

// Check reports whether r is a roster a run of teams teams may start
// with: at least one seat, at most MaxSeats, every team an index below
// teams, no account twice, none empty or longer than MaxName.
func (r Roster) Check(teams int) error {
	if len(r.Seats) == 0 {
		return fmt.Errorf("%w: no seats", ErrRoster)
	}
	if len(r.Seats) > MaxSeats {
		return fmt.Errorf("%w: %d seats, at most %d", ErrRoster, len(r.Seats), MaxSeats)
	}
	for i, s := range r.Seats {
		if err := checkSeat(s, teams); err != nil {
			return fmt.Errorf("%w: seat %d: %w", ErrRoster, i, err)
		}
		for _, o := range r.Seats[:i] {
			if o.Account == s.Account {
				return fmt.Errorf("%w: %w: %q", ErrRoster, ErrDuplicate, s.Account)
			}
		}
	}
	return nil
}

// checkSeat reports what is wrong with s in a run of teams teams.
func checkSeat(s Seat, teams int) error {
	switch {
	case strings.TrimSpace(s.Account) == "":
		return errors.New("no account")
	case len(s.Account) > MaxName || len(s.Name) > MaxName:
		return fmt.Errorf("an account or name longer than %d bytes", MaxName)
	case s.Team < 0 || s.Team >= teams:
		return fmt.Errorf("%w: team %d (the run has %d)", ErrNoTeam, s.Team, teams)
	}
	return nil
}

// Outcome says how a run ended.
type Outcome uint8

// The outcomes.
const (
	OutcomeNone      Outcome = iota // not ended
	OutcomeWon                      // versus: Result.Winner won
	OutcomeSuccess                  // co-op: the crew succeeded
	OutcomeFailure                  // co-op: the crew failed
	OutcomeForfeit                  // versus: every other team forfeited; Result.Winner won
	OutcomeAbandoned                // nobody came, or everybody left
)

var outcomeNames = [...]string{"", "won", "success", "failure", "forfeit", "abandoned"}

// String returns the outcome's name as the run frame spells it.
func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "unknown"
}

// Result is how a run ended.
type Result struct {
	Outcome Outcome
	// Winner is the winning team, -1 for none (co-op, abandoned).
	Winner int
	// Text says why, to every player.
	Text string
	// NoPay is set when a debug command was honoured during the run: the
	// run pays nothing, and its result says so.
	NoPay bool
}

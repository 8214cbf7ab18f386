package server

import (
	"fmt"

	"github.com/fiveonit/engine/textframe"
)

// A feature is one part of the game that the server wires to its sessions:
// items, cars, missions, the city's clock and signals, the police, stealth,
// the player's status, accounts, the social side and the debug commands.
// The core (sessions, input queues, join and leave, snapshots and
// keyframes, round trips) knows features only through this interface, and
// a feature keeps its own state of each session (a perSession list by the
// session's slot), so that Session carries none of it.
//
// The server calls every method from the room goroutine only, in the
// order of GameServer.features, which is also the order each session's
// text frames go out in:
//
//   - commands returns the text frame types the feature answers (the
//     "type" of textframe.Command). New builds the table of commands from
//     them once; two features answering one type is a programming error.
//   - command does one of those commands of s. Its error is the reason the
//     reply gives (the command was refused, nothing changed). It is only
//     called for a session that has joined and is not closed.
//   - enter is told that s came into the room: its character and car are
//     in the world and seated (for a spectator, neither). The feature's
//     state of s starts anew here: the slot may have been another
//     session's. The welcome goes after every feature's enter.
//   - resume is told that a new connection took s's place back (a player
//     who dropped came back within the rejoin window, or took their place
//     over from a connection that hung): the character, the car and the
//     feature's state of s are as they were, but the client holds nothing
//     yet, so the feature forgets what it sent and tells it anew.
//   - notify sends s the frames of what changed since the feature last told
//     it, once per tick after the snapshots, and reports whether s is still
//     connected. A send that fails closes s (its character leaves the world
//     at once), so notify returns false at once and touches s no more;
//     the server then skips the later features for s. It allocates nothing
//     on a tick where nothing changed.
//   - leave is told that s is leaving, before its connection closes and
//     before its character and car leave the world (they are still there
//     to read). It is called for every session that was admitted, joined or
//     not (an enter that failed still leaves). A player who drops while
//     the room holds places (Config.RejoinWindow, a run) leaves only once
//     their place is gone: until then their session is detached, its input
//     held, and nothing sent to it arrives anywhere.
type feature interface {
	commands() []string
	command(s *Session, c *textframe.Command) error
	enter(s *Session)
	resume(s *Session)
	notify(s *Session) bool
	leave(s *Session)
}

// welcomer is a feature that adds to the welcome: its part of the level
// and the rules the client needs before its first snapshot.
type welcomer interface {
	welcome(s *Session, f *textframe.Welcome)
}

// dropper is a feature that is told when a session's connection dropped
// and the room holds its place (detached): a run marks its seat held.
type dropper interface {
	drop(s *Session)
}

// admitter is a feature that may refuse a join before it reaches the
// room (a run room refuses an account with no seat). It is called from
// any goroutine: it must guard what it reads.
type admitter interface {
	admit(who Who) error
}

// ticker is a feature that runs once per tick after the clients' frames
// are handled and before the world steps (the social side's frames go
// there, so that a send that cuts a client off never lands in the middle
// of another client's frames).
type ticker interface {
	tick()
}

// perSession is a feature's state of each session, by the session's slot
// (Session.slot: from 0 to Config.MaxPlayers-1, the slot of a session
// that left given to the next one to join). It is made once with the room,
// so a full room allocates nothing per session.
type perSession[T any] []T

// newPerSession makes room for n sessions.
func newPerSession[T any](n int) perSession[T] { return make(perSession[T], n) }

// of returns the feature's state of s.
func (p perSession[T]) of(s *Session) *T { return &p[s.slot] }

// reset starts the feature's state of s anew.
func (p perSession[T]) reset(s *Session) {
	var zero T
	p[s.slot] = zero
}

// noCommands is embedded by a feature that answers no command.
type noCommands struct{}

func (noCommands) commands() []string                         { return nil }
func (noCommands) command(*Session, *textframe.Command) error { return nil }

// noSession is embedded by a feature that keeps nothing of a session.
type noSession struct{}

func (noSession) enter(*Session)  {}
func (noSession) resume(*Session) {}
func (noSession) leave(*Session)  {}

// commandTable maps each command type to the feature that answers it.
type commandTable map[string]feature

// newCommandTable builds the table from the features' commands; a type
// answered twice, or one the core answers itself, is an error.
func newCommandTable(fs []feature, core ...string) (commandTable, error) {
	t := commandTable{}
	for _, c := range core {
		t[c] = nil
	}
	for _, f := range fs {
		for _, c := range f.commands() {
			if _, dup := t[c]; dup {
				return nil, fmt.Errorf("server: the command %q is answered twice", c)
			}
			t[c] = f
		}
	}
	return t, nil
}

package server

import (
	"errors"
	"fmt"

	"github.com/fiveonit/engine/ecs"

	"github.com/fiveonit/engine/textframe"
)

// The reasons a spectate command is refused.
var (
	ErrNotWatching  = errors.New("you play: only a spectator or a player out of the run watches another")
	ErrNotWatchable = errors.New("nobody to watch there")
)

// watchFeature serves the clients that watch another player rather than
// play: a spectator, and a player a run took out of the world. It takes
// their spectate command (whom to watch) and tells them whom they watch
// (the spectate frame) as it starts and whenever it changes. A run's
// player out of the run watches a teammate still in it, and once their
// team has nobody left, anybody still in the run.
type watchFeature struct {
	noSession
	g    *GameServer
	sent perSession[uint32] // the session last told, plus nothing: 0 is nobody
	told perSession[bool]
	hud  perSession[hudSent] // the watched frame last sent
}

// hudSent is the watched frame a session was last sent.
type hudSent struct {
	sent bool
	f    textframe.WatchedFrame
}

func newWatchFeature(g *GameServer) *watchFeature {
	n := g.cfg.MaxPlayers
	return &watchFeature{g: g, sent: newPerSession[uint32](n), told: newPerSession[bool](n), hud: newPerSession[hudSent](n)}
}

func (f *watchFeature) commands() []string { return []string{"spectate"} }

func (f *watchFeature) enter(s *Session) {
	f.sent.reset(s)
	f.told.reset(s)
	f.hud.reset(s)
}

func (f *watchFeature) resume(s *Session) {
	f.told.reset(s)
	f.hud.reset(s)
}

// command switches whom s watches to the player of session c.Session:
// one with a body in the world, and in a run room one still in the run.
func (f *watchFeature) command(s *Session, c *textframe.Command) error {
	if !s.who.Spectate && !s.out {
		return ErrNotWatching
	}
	t := f.session(c.Session)
	switch {
	case c.Session == 0:
		return errors.New(`spectate needs "session": the player to watch`)
	case t == nil || !f.watchable(t):
		return fmt.Errorf("%w: session %d is no player in the world here", ErrNotWatchable, c.Session)
	case f.g.runs != nil && f.g.runs.seatOf(t) < 0:
		return fmt.Errorf("%w: session %d is not in the run", ErrNotWatchable, c.Session)
	}
	s.who.Watch = t.player
	return nil
}

// watchable reports whether o is a player with a body in the world.
func (f *watchFeature) watchable(o *Session) bool {
	return !o.closed && !o.who.Spectate && !o.out && f.g.w.Arche.Alive(o.char)
}

// session returns the joined session of id, nil for none.
func (f *watchFeature) session(id uint32) *Session {
	for _, o := range f.g.sessions {
		if o.id == id && o.joined && !o.closed {
			return o
		}
	}
	return nil
}

// pick points s, out of a run, at a teammate still in it, else anybody
// still in it.
func (f *watchFeature) pick(s *Session) {
	r := f.g.runs
	if r == nil || r.seatOf(s) < 0 {
		return
	}
	team := r.teamOfSeat(r.seatOf(s))
	var anyone *Session
	for _, o := range f.g.sessions {
		if o == s || r.seatOf(o) < 0 || !f.watchable(o) {
			continue
		}
		if r.teamOfSeat(r.seatOf(o)) == team {
			s.who.Watch = o.player
			return
		}
		if anyone == nil {
			anyone = o
		}
	}
	if anyone != nil {
		s.who.Watch = anyone.player
	}
}

// notify tells a watching client whom it watches now, when that changed
// (and once as it starts watching); a run's player out of the run whose
// teammate left the world is pointed at another first.
func (f *watchFeature) notify(s *Session) bool {
	if !s.who.Spectate && !s.out {
		return true
	}
	g := f.g
	char, ok := f.watched(s)
	var t *Session
	if ok {
		for _, o := range g.sessions {
			if o.char == char && !o.closed {
				t = o
			}
		}
	}
	if s.out && (t == nil || t.player != s.who.Watch) {
		f.pick(s)
		if char, ok = f.watched(s); ok {
			for _, o := range g.sessions {
				if o.char == char && !o.closed {
					t = o
				}
			}
		}
	}
	var id uint32
	if t != nil {
		id = t.id
	}
	if !*f.told.of(s) || *f.sent.of(s) != id {
		*f.told.of(s), *f.sent.of(s) = true, id
		fr := textframe.SpectateFrame{Type: "spectate", Team: -1}
		if t != nil {
			fr.Session, fr.Player, fr.Name = t.id, t.player, t.who.Name
			if g.runs != nil {
				fr.Team = g.runs.Team(t.char)
			}
		}
		if !g.sendText(s, fr) {
			return false
		}
	}
	return f.notifyHUD(s, t)
}

// notifyHUD sends s, which watches t (nil: nobody), the watched frame:
// t's health, Cash and Wanted stars, when one of them changed.
func (f *watchFeature) notifyHUD(s *Session, t *Session) bool {
	g := f.g
	fr := textframe.WatchedFrame{Type: "watched"}
	if t != nil && g.w.Arche.Alive(t.char) {
		fr.Player = t.player
		if h := g.health.Get(t.char); h != nil {
			fr.HP, fr.MaxHP, fr.Dead = h.HP, h.Max, h.HP == 0
		}
		if wa, cash := g.wanted.Get(t.char); wa != nil {
			fr.Stars, fr.Cash = wa.Stars, cash.Amount
		}
	}
	sent := f.hud.of(s)
	if sent.sent && sent.f == fr {
		return true
	}
	sent.sent, sent.f = true, fr
	g.text = fr.AppendJSON(g.text[:0])
	return g.sendTextBytes(s, g.text)
}

// watched returns the character s's view is centred on: its own, or for a
// spectator the watched player's (the first player's when Watch is 0 or
// gone).
func (f *watchFeature) watched(s *Session) (ecs.Entity, bool) {
	g := f.g
	if !s.who.Spectate && !s.out {
		return s.char, g.w.Arche.Alive(s.char)
	}
	var first ecs.Entity
	for _, o := range g.sessions {
		if o.who.Spectate || o.closed || !g.w.Arche.Alive(o.char) {
			continue
		}
		if o.player == s.who.Watch {
			return o.char, true
		}
		if first.IsZero() {
			first = o.char
		}
	}
	return first, !first.IsZero()
}

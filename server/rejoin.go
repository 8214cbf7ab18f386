package server

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
)

// A room may hold a player's place through a drop (Config.RejoinWindow, a
// run's minute): when the connection of a player who did not say they
// leave closes, their session is detached rather than gone. Their
// character and car stay in the world where they were, input held (the
// car braked where it stands), and can be hit, caught or put down like
// anyone's; every feature keeps its state of the session; nothing sent to
// it arrives anywhere. A join that presents the session's reconnect token
// (Who.Rejoin, given in the welcome), or an account whose place is held,
// takes the place back within the window: a new Session with the same id
// and slot, the same character, car, pose and inventory, and a keyframe
// and the features' frames anew. When the window runs out the player
// leaves as if they had gone then.
//
// A join with a token may also take over a place whose connection is
// still open (a connection that hung, the old socket not yet closed): the
// old connection is closed with ErrReplaced.

// Errors a join that takes a place back is refused with.
var (
	ErrRejoinUnknown = errors.New("your place in this room is gone: join again")
	ErrRejoinAccount = errors.New("that reconnect token is another account's")
	ErrReplaced      = errors.New("replaced by a new connection of yours")
	ErrNoReturn      = errors.New("you did not come back in time")
)

// tokenBytes is a reconnect token's length before encoding: 128 bits, so
// that nobody guesses another's.
const tokenBytes = 16

// newToken returns a fresh reconnect token.
func newToken() string {
	var b [tokenBytes]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// places is the room's side of the places it holds: the window, the
// places by reconnect token, and what a drop, a return and a window that
// runs out do.
type places struct {
	g *GameServer
	// window is how many ticks a dropped player's place is held: 0 holds
	// none, and gives no tokens.
	window uint64
	// tokens are the places by reconnect token: every joined player's
	// while the room holds places. GameServer.mu.
	tokens map[string]*Session
}

// newPlaces sets up the places of a room that holds them for window.
func newPlaces(g *GameServer, window time.Duration) places {
	return places{g: g, window: uint64(window.Seconds() * ecs.TickRate), tokens: map[string]*Session{}}
}

// add gives s a reconnect token, when the room holds places.
func (p *places) add(s *Session) {
	if p.window == 0 || s.who.Spectate {
		return
	}
	s.token = newToken()
	p.g.mu.Lock()
	p.tokens[s.token] = s
	p.g.mu.Unlock()
}

// remove forgets s's tokens: its place is gone.
func (p *places) remove(s *Session) {
	if s.token == "" && s.prevToken == "" {
		return
	}
	p.g.mu.Lock()
	delete(p.tokens, s.token)
	delete(p.tokens, s.prevToken)
	p.g.mu.Unlock()
	s.prevToken = ""
}

// confirm forgets the token s's place had before it was taken back: the
// new client got its welcome and its new token (its first input frame
// came).
func (p *places) confirm(s *Session) {
	if s.prevToken == "" {
		return
	}
	p.g.mu.Lock()
	if p.tokens[s.prevToken] == s {
		delete(p.tokens, s.prevToken)
	}
	p.g.mu.Unlock()
	s.prevToken = ""
}

// find finds the session whose place a join as who takes back, under
// g.mu: the session of who.Rejoin's token, or, without one, a detached
// session of who.Account. It returns nil, nil for a join anew, and an
// error for a token the room does not hold or one of another account.
func (p *places) find(who Who) (*Session, error) {
	if who.Rejoin != "" {
		s := p.tokens[who.Rejoin]
		switch {
		case s == nil:
			return nil, ErrRejoinUnknown
		case who.Account != s.who.Account:
			return nil, ErrRejoinAccount
		}
		return s, nil
	}
	if who.Account == "" || who.Spectate {
		return nil, nil
	}
	for _, s := range p.tokens {
		if s.who.Account == who.Account && s.away.Load() {
			return s, nil
		}
	}
	return nil, nil
}

// Resumable reports whether a join as who would take a held place back
// rather than join anew: the rooms then claim no account (the held place
// holds it still) and count no player more. Safe from any goroutine.
func (g *GameServer) Resumable(who Who) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	s, err := g.places.find(who)
	return s != nil && err == nil
}

// resumeSession makes the session that takes old's place back on conn.
// g.mu is held.
func resumeSession(old *Session, conn Conn, who Who) *Session {
	w := old.who
	w.Addr, w.Acked, w.Rejoin = who.Addr, who.Acked, ""
	return &Session{id: old.id, slot: old.slot, conn: conn, who: w, tokens: TextBurst, bucket: FrameBurst, resumeOf: old}
}

// resume brings s into old's place at the tick: the body, the features'
// state and the place's token stay; the client is new, so it gets a
// welcome, a keyframe and every feature's frames anew. A place gone
// meanwhile refuses it.
func (p *places) resume(s *Session) error {
	g := p.g
	old := s.resumeOf
	s.resumeOf = nil
	if old.closed {
		return ErrRejoinUnknown
	}
	if !old.detached {
		old.conn.Close(ErrReplaced.Error()) // its transport's Leave finds it replaced
	}
	old.closed = true
	s.player, s.joined, s.char, s.car, s.charWire = old.player, old.joined, old.char, old.car, old.charWire
	s.debug, s.presses, s.hold, s.out = old.debug, old.presses, old.hold, old.out
	s.acked = s.conn.Lossy() || s.who.Acked
	s.newSnapshotter(g)
	// The old token stays good, for this place, until the new client
	// shows it got the new welcome (its first input frame: confirm): a
	// connection that dies before then may try again with it.
	p.remove(old)
	p.add(s)
	if old.token != "" {
		s.prevToken = old.token
		g.mu.Lock()
		p.tokens[old.token] = s
		g.mu.Unlock()
	}
	i := slicesIndex(g.sessions, old)
	g.sessions[i] = s
	for _, f := range g.features {
		f.resume(s)
	}
	var car uint16
	if g.w.Arche.Alive(s.car) {
		car = g.ids.Get(s.car).WireID
	}
	g.sendWelcome(s, car)
	return nil
}

// slicesIndex returns the index of s in ss, which holds it.
func slicesIndex(ss []*Session, s *Session) int {
	for i, o := range ss {
		if o == s {
			return i
		}
	}
	panic(fmt.Sprintf("server: session %d is not in the room", s.id))
}

// lost handles s's connection found gone (its transport left, or a send
// found it closed): a player who did not say they leave keeps their place
// when the room holds places; anyone else leaves with reason.
func (p *places) lost(s *Session, reason string) {
	if p.window > 0 && s.joined && !s.quit && !s.who.Spectate && !s.closed && !s.detached {
		p.detach(s)
		return
	}
	p.g.leave(s, reason)
}

// detach holds s's place: its connection dropped, and the room holds
// places. Its input is held from now on; its frames go nowhere.
func (p *places) detach(s *Session) {
	g := p.g
	s.conn.Close("connection lost")
	s.conn = heldConn{}
	s.detached, s.heldUntil = true, g.w.Tick()+p.window
	s.away.Store(true)
	p.brake(s)
	for _, f := range g.features {
		if d, ok := f.(dropper); ok {
			d.drop(s)
		}
	}
}

// expire lets the places held past their window go: their players leave.
func (p *places) expire() {
	g := p.g
	now := g.w.Tick()
	for _, s := range g.sessions {
		if s.detached && !s.closed && now >= s.heldUntil {
			g.leave(s, ErrNoReturn.Error())
		}
	}
}

// brake holds s's character's input: nothing pressed, the look kept, and
// at the wheel the handbrake on and the brake while the car still rolls
// forward (at rest the brake pedal would reverse it).
func (p *places) brake(s *Session) {
	g := p.g
	if !g.w.Arche.Alive(s.char) {
		return
	}
	_, in, drive := g.persons.Get(s.char)
	held := components.Drive{Held: components.BtnHandbrake, LookYaw: drive.LookYaw}
	if v := in.Vehicle; in.Seat == 0 && !v.IsZero() && g.w.Arche.Alive(v) {
		pose, vel := g.poses.Get(v)
		c, sn := pose.Rot.Heading()
		if vel.Lin.X*c+vel.Lin.Y*sn > heldRoll {
			held.Brake = 1
		}
	}
	*drive = held
}

// heldRoll (m/s) is the forward speed above which a held car brakes.
const heldRoll = 0.5

// heldConn is a detached session's connection: it takes every frame and
// sends it nowhere.
type heldConn struct{}

func (heldConn) Lossy() bool                   { return false }
func (heldConn) Send([]byte, bool, bool) error { return nil }
func (heldConn) Close(string)                  {}

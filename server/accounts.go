package server

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/prefab"
	"github.com/fiveonit/engine/store"
	"github.com/fiveonit/engine/textframe"
)

// PersistEvery is the most often a player's account state is posted to the
// account store while it changes: once per second (staggered by session),
// and on leave. A process killed outright loses at most the changes of
// this last second, and the store's write behind it (store.Accounts
// writes every 100 ms).
const PersistEvery = ecs.TickRate

// ErrAccountLost closes the session of an account whose lease another
// server took (this one could not reach the store for longer than the
// lease): its changes could no longer be kept.
var ErrAccountLost = errors.New("your account is playing on another server now: its changes here could not be kept")

// loadAccount gives s's character the state of its account: what the
// store kept, or the starting state of an account never saved. A player
// without one (anonymous, or no store) keeps nothing and starts anew.
func (g *GameServer) loadAccount(s *Session, char ecs.Entity) {
	if s.who.Keep == nil {
		return
	}
	a := s.who.Keep.Account()
	if s.who.Keep.New() {
		a.Cash = prefab.StartCash
	}
	if _, cash := g.wanted.Get(char); cash != nil {
		cash.Amount = a.Cash
	}
	s.kept.Cash = a.Cash
	s.kept.Cars = append(s.kept.Cars[:0], a.Cars...)
	if s.who.Keep.New() {
		s.who.Keep.Save(&s.kept) // a new account is kept from its start
	}
}

// accountState reads s's character into s.kept, the buffer posted to the
// store, and reports whether it differs from what was posted last: the
// Cash, and the cars kept in garages (s.kept.Cars itself, changed by the
// car commands: cars.go). The items that persist will go into the same
// buffer's Items (reused: no allocation).
func (g *GameServer) accountState(s *Session) bool {
	changed := s.cars.dirty
	s.cars.dirty = false
	if !g.w.Arche.Alive(s.char) {
		return changed
	}
	if _, cash := g.wanted.Get(s.char); cash != nil && cash.Amount != s.kept.Cash {
		s.kept.Cash = cash.Amount
		changed = true
	}
	return changed
}

// persist posts s's account state to the store when it changed, once per
// PersistEvery on s's own tick of it, and closes s if its account's lease
// was lost. The post copies under a mutex and allocates nothing: the
// store's writer does the writing, off the room goroutine.
func (g *GameServer) persist(s *Session) {
	k := s.who.Keep
	if k == nil || s.closed || !s.joined || (g.w.Tick()+uint64(s.id))%PersistEvery != 0 {
		return
	}
	if k.Lost() {
		g.kick(s, ErrAccountLost)
		return
	}
	if g.accountState(s) {
		k.Save(&s.kept)
	}
}

// leaveAccount posts s's last account state and lets the account go: the
// store's writer releases it once that is written. A session that never
// came in lets it go unchanged.
func (g *GameServer) leaveAccount(s *Session) {
	k := s.who.Keep
	if k == nil {
		return
	}
	if s.joined && g.accountState(s) {
		k.Leave(&s.kept)
		return
	}
	k.Leave(nil)
}

// debugCash sets your Cash to Value, a whole number from 0 to
// store.MaxCash.
func (g *GameServer) debugCash(s *Session, c *textframe.Command) error {
	n, err := strconv.ParseInt(c.Value, 10, 64)
	if err != nil || n < 0 || n > store.MaxCash {
		return fmt.Errorf("value must be a whole number from 0 to %d, not %q", int64(store.MaxCash), c.Value)
	}
	if !g.w.Arche.Alive(s.char) {
		return errors.New("you have no character")
	}
	_, cash := g.wanted.Get(s.char)
	if cash == nil {
		return errors.New("you have no cash")
	}
	cash.Amount = n
	return nil
}

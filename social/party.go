package social

import (
	"errors"
	"fmt"
	"slices"
)

// The parties' bounds: at most MaxPartySize players join a party by
// invitation; an invitation stands for InviteSeconds; a player has at most
// MaxInvites standing at once.
const (
	MaxPartySize  = 4
	InviteSeconds = 60
	MaxInvites    = 8
)

// MaxParties is the most parties a room numbers at once: as many as the
// largest room's players (each may be alone in a party of their join
// token's key). Party numbers are a u16 on the wire, 0 meaning none.
const MaxParties = 1024

// Errors of Parties' invitations. Each reads right on its own, as the reply
// to the player.
var (
	ErrPartySelf     = errors.New("you cannot invite yourself")
	ErrPartyFull     = errors.New("the party is full")
	ErrPartySame     = errors.New("already in your party")
	ErrInvited       = errors.New("already invited")
	ErrTooManyInvite = errors.New("too many invitations standing")
	ErrNoInvite      = errors.New("no such invitation")
	ErrNoParty       = errors.New("you are in no party")
	ErrNoPartyRoom   = errors.New("no party number free in this room")
)

// Invite is an invitation standing: From asks To into From's party.
type Invite struct {
	From, To uint32
	Expires  uint64 // tick
}

// Parties numbers a room's parties 1..N and keeps who is in which. A
// player comes in with the party key of its join token (Join) and changes
// party by invitation (Invite, Accept) or by leaving (LeaveParty). A party's
// number is freed when its last member goes. Room goroutine only.
type Parties struct {
	of      map[uint32]uint16 // session -> party number (members only)
	size    [MaxParties + 1]int
	keys    map[string]uint16 // a join token's key -> its party, while it has members
	invites []Invite
}

// NewParties returns a room's Parties.
func NewParties() *Parties {
	return &Parties{of: map[uint32]uint16{}, keys: map[string]uint16{}}
}

// Of returns session's party, 0 for none.
func (p *Parties) Of(session uint32) uint16 { return p.of[session] }

// Size returns the members of party n.
func (p *Parties) Size(n uint16) int {
	if n == 0 {
		return 0
	}
	return p.size[n]
}

// Join puts session, new in the room, in the party of key ("": none) and
// returns its number: the key's party while it has members, else the
// lowest number free. A platform's party (a key) is the platform's to
// size: MaxPartySize bounds invitations only. Without a free number the
// player plays in no party.
func (p *Parties) Join(session uint32, key string) uint16 {
	if key == "" {
		return 0
	}
	n, ok := p.keys[key]
	if !ok || p.size[n] == 0 {
		if n = p.free(); n == 0 {
			return 0
		}
		p.keys[key] = n
	}
	p.set(session, n)
	return n
}

// Invite records from's invitation of to at tick now. It fails with the
// reason and changes nothing.
func (p *Parties) Invite(from, to uint32, now uint64) error {
	n := p.of[from]
	switch {
	case from == to:
		return ErrPartySelf
	case n != 0 && p.of[to] == n:
		return ErrPartySame
	case n != 0 && p.size[n] >= MaxPartySize:
		return fmt.Errorf("%w: %d players at most", ErrPartyFull, MaxPartySize)
	}
	standing := 0
	for _, iv := range p.invites {
		if iv.From == from {
			if iv.To == to {
				return ErrInvited
			}
			standing++
		}
	}
	if standing >= MaxInvites {
		return fmt.Errorf("%w: %d at most", ErrTooManyInvite, MaxInvites)
	}
	p.invites = append(p.invites, Invite{From: from, To: to, Expires: now + ticks(InviteSeconds)})
	return nil
}

// Accept takes to into the party of from, whose invitation to holds, at
// tick now: from's party, or a new one (numbered now) when from is in
// none. to leaves its own party. It returns the party and the sessions
// whose party changed. It fails with the reason and changes nothing but
// dropping an invitation that cannot be honoured.
func (p *Parties) Accept(to, from uint32, now uint64) (uint16, []uint32, error) {
	i := slices.IndexFunc(p.invites, func(iv Invite) bool { return iv.From == from && iv.To == to && iv.Expires > now })
	if i < 0 {
		return 0, nil, ErrNoInvite
	}
	n := p.of[from]
	switch {
	case n != 0 && p.of[to] == n:
		p.invites = slices.Delete(p.invites, i, i+1)
		return 0, nil, ErrPartySame
	case n != 0 && p.size[n] >= MaxPartySize:
		p.invites = slices.Delete(p.invites, i, i+1)
		return 0, nil, fmt.Errorf("%w: %d players at most", ErrPartyFull, MaxPartySize)
	}
	p.invites = slices.Delete(p.invites, i, i+1)
	var changed []uint32
	if n == 0 {
		p.unset(to) // its number may be the one free
		if n = p.free(); n == 0 {
			return 0, nil, ErrNoPartyRoom
		}
		p.set(from, n)
		changed = append(changed, from)
	}
	p.set(to, n)
	return n, append(changed, to), nil
}

// Decline drops from's invitation of to.
func (p *Parties) Decline(to, from uint32) error {
	i := slices.IndexFunc(p.invites, func(iv Invite) bool { return iv.From == from && iv.To == to })
	if i < 0 {
		return ErrNoInvite
	}
	p.invites = slices.Delete(p.invites, i, i+1)
	return nil
}

// LeaveParty takes session out of its party: it plays in none.
func (p *Parties) LeaveParty(session uint32) error {
	if p.of[session] == 0 {
		return ErrNoParty
	}
	p.unset(session)
	return nil
}

// Leave takes session out of the room: out of its party, its invitations
// from and to it dropped.
func (p *Parties) Leave(session uint32) {
	p.unset(session)
	p.invites = slices.DeleteFunc(p.invites, func(iv Invite) bool { return iv.From == session || iv.To == session })
}

// Expire drops the invitations past their time at tick now.
func (p *Parties) Expire(now uint64) {
	p.invites = slices.DeleteFunc(p.invites, func(iv Invite) bool { return iv.Expires <= now })
}

// Invites returns the invitations standing (the Parties' own slice).
func (p *Parties) Invites() []Invite { return p.invites }

func (p *Parties) set(session uint32, n uint16) {
	p.unset(session)
	p.of[session] = n
	p.size[n]++
}

func (p *Parties) unset(session uint32) {
	n, ok := p.of[session]
	if !ok {
		return
	}
	delete(p.of, session)
	if p.size[n]--; p.size[n] == 0 {
		for k, v := range p.keys { // the key goes with its party's last member
			if v == n {
				delete(p.keys, k)
			}
		}
	}
}

// free returns the lowest party number with no member, 0 when none is.
func (p *Parties) free() uint16 {
	for n := 1; n <= MaxParties; n++ {
		if p.size[n] == 0 {
			return uint16(n)
		}
	}
	return 0
}

package server

import (
	"errors"
	"fmt"

	"github.com/fiveonit/engine/social"
	"github.com/fiveonit/engine/textframe"
)

// partyCommand runs a "party" command: "invite" the session named, "accept"
// or "decline" the invitation of the session named, "leave" one's party.
// A party's number goes into its members' Identity.Party, which the
// simulation reads (gates, carjacks, friendly fire).
func (r *socialFeature) partyCommand(s *Session, c *textframe.Command, now uint64) error {
	if s.who.Spectate {
		return errors.New("a spectator plays in no party")
	}
	p := r.parties
	switch c.Cmd {
	case "invite":
		to := r.session(c.Session)
		switch {
		case c.Session == 0:
			return errors.New(`party invite needs "session": the player to invite`)
		case to == nil:
			return fmt.Errorf("%w: session %d", social.ErrNoPlayer, c.Session)
		case to.who.Spectate:
			return errors.New("a spectator plays in no party")
		}
		if err := p.Invite(s.id, to.id, now); err != nil {
			return err
		}
		r.out = append(r.out, outFrame{to.id, textframe.Marshal(textframe.PartyFrame{
			Type: "party", Cmd: "invite", From: s.id, Name: s.who.Name, Party: p.Of(s.id), Seconds: social.InviteSeconds})})
	case "accept":
		_, changed, err := p.Accept(s.id, c.Session, now)
		if err != nil {
			return err
		}
		for _, id := range changed {
			r.setParty(r.session(id))
		}
	case "decline":
		if err := p.Decline(s.id, c.Session); err != nil {
			return err
		}
		r.out = append(r.out, outFrame{c.Session, textframe.Marshal(textframe.PartyFrame{
			Type: "party", Cmd: "declined", From: s.id, Name: s.who.Name})})
	case "leave":
		if err := p.LeaveParty(s.id); err != nil {
			return err
		}
		r.setParty(s)
	default:
		return fmt.Errorf("unknown party command %q (known: invite, accept, decline, leave)", c.Cmd)
	}
	r.membership = true // the roster shows the parties
	return nil
}

// setParty gives s's character its party's number.
func (r *socialFeature) setParty(s *Session) {
	if s == nil || !r.g.w.Arche.Alive(s.char) {
		return
	}
	r.g.ids.Get(s.char).Party = r.parties.Of(s.id)
}

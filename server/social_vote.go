package server

import (
	"errors"
	"fmt"

	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/social"
	"github.com/fiveonit/engine/textframe"
)

// voteCommand runs a "vote" command: "kick" starts a vote against the
// session named, "yes" and "no" are a ballot in the running one.
func (r *socialFeature) voteCommand(s *Session, c *textframe.Command, now uint64) error {
	if s.who.Spectate {
		return errors.New("a spectator has no vote")
	}
	var v social.Vote
	var err error
	switch c.Cmd {
	case "kick":
		if c.Session == 0 {
			return errors.New(`vote kick needs "session": the player to kick`)
		}
		v, err = r.votes.Start(s.id, c.Session, r.voters(), now)
	case "yes", "no":
		v, err = r.votes.Cast(s.id, c.Cmd == "yes", now)
	default:
		return fmt.Errorf("unknown vote command %q (known: kick, yes, no)", c.Cmd)
	}
	if err != nil {
		return err
	}
	r.voteChanged(v)
	return nil
}

// voters returns the sessions that may vote: the room's players, not its
// spectators. It allocates (a vote starts seldom).
func (r *socialFeature) voters() []uint32 {
	var out []uint32
	for _, s := range r.g.sessions {
		if s.joined && !s.closed && !s.who.Spectate {
			out = append(out, s.id)
		}
	}
	return out
}

// voteChanged records the vote's new state for the room, and the player
// it voted out.
func (r *socialFeature) voteChanged(v social.Vote) {
	r.vote, r.voteDirty = v, true
	if v.Outcome == social.Passed {
		r.kick = v.Target
	}
}

// voteOut disconnects the player of session id, voted out, with the
// reason, and refuses its account (or address) from then on: any other
// session of that account in the room goes too (never the other players
// of an address, who may be anyone behind one NAT).
func (r *socialFeature) voteOut(id uint32) {
	g := r.g
	s := r.session(id)
	if s == nil {
		return
	}
	who := s.who
	r.ban(who)
	for _, o := range g.sessions {
		if o == s || (who.Account != "" && o.who.Account == who.Account) {
			g.leave(o, ErrVotedOut.Error())
		}
	}
}

// voteFrame is the frame of vote v at tick now.
func (r *socialFeature) voteFrame(v social.Vote, now uint64) []byte {
	f := textframe.VoteFrame{Type: "vote", ID: v.ID, Starter: v.Starter, Target: v.Target, State: v.Outcome.String(),
		Yes: v.Yes, No: v.No, Need: v.Need, Voters: v.Voters}
	if f.Voters == nil {
		f.Voters = []uint32{}
	}
	if t := r.session(v.Target); t != nil {
		f.TargetName = t.who.Name
	}
	if v.Outcome == social.Open && v.Ends > now {
		f.Seconds = float64(v.Ends-now) / ecs.TickRate
	}
	return textframe.Marshal(f)
}

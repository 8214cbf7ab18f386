package social

import (
	"errors"
	"fmt"
	"slices"
)

// The votes' bounds: a vote runs VoteSeconds at most; a player may start
// one every VoteCooldown seconds; the room needs MinVoters players besides
// the target (so a room of two never votes one of them out).
const (
	VoteSeconds  = 30
	VoteCooldown = 120
	MinVoters    = 2
)

// Errors of Votes.Start and Votes.Cast. Each reads right on its own, as the
// reply to the player.
var (
	ErrVoteRunning  = errors.New("a vote is already running")
	ErrVoteSelf     = errors.New("you cannot start a vote against yourself")
	ErrVoteCooldown = errors.New("you started a vote too recently")
	ErrVoteTooFew   = errors.New("too few players to vote")
	ErrNoPlayer     = errors.New("no such player in this room")
	ErrNoVote       = errors.New("no vote is running")
	ErrNotVoter     = errors.New("you have no vote in this one")
	ErrVoted        = errors.New("you have voted already")
)

// Outcome is how a vote ended.
type Outcome uint8

// The outcomes. Open is a vote still running.
const (
	Open       Outcome = iota
	Passed             // a majority of the voters said yes: the target goes
	Failed             // enough said no that a majority for yes cannot come
	TimedOut           // VoteSeconds ran out first
	TargetLeft         // the target left the room
	TooFew             // voters left until fewer than MinVoters remained
)

var outcomeNames = [...]string{"open", "passed", "failed", "timeout", "target-left", "too-few"}

// String returns the outcome's name, as the vote frame carries it.
func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "unknown"
}

// ballot is a voter's say: 0 none yet, 1 yes, 2 no.
type ballot struct {
	session uint32
	say     uint8
}

// Vote is the state of a vote to kick, as a vote frame shows it.
type Vote struct {
	ID      uint32
	Starter uint32
	Target  uint32
	Outcome Outcome
	Yes, No int
	// Voters are the sessions with a vote: the room's players at the
	// start but the target, less those who left since.
	Voters []uint32
	// Need is the yes votes that pass it: more than half of Voters.
	Need int
	// Ends is the tick it times out at.
	Ends uint64
}

// Votes runs a room's votes to kick, one at a time. Time is in ticks.
// Room goroutine only.
type Votes struct {
	cur     Vote
	ballots []ballot
	running bool
	nextID  uint32
	starts  Limiter
}

// NewVotes returns a room's Votes.
func NewVotes() *Votes {
	return &Votes{starts: Limiter{Burst: 1, Every: ticks(VoteCooldown)}}
}

// Running reports whether a vote is running, and its state.
func (v *Votes) Running() (Vote, bool) { return v.state(), v.running }

// Start starts a vote by starter to kick target at tick now; players are
// the room's players (starter and target among them). The starter's yes
// is counted. It fails with the reason and changes nothing; a vote that
// starts passes at once when the starter alone is a majority (never, with
// MinVoters of at least 2).
func (v *Votes) Start(starter, target uint32, players []uint32, now uint64) (Vote, error) {
	switch {
	case v.running:
		return Vote{}, ErrVoteRunning
	case starter == target:
		return Vote{}, ErrVoteSelf
	case !slices.Contains(players, target):
		return Vote{}, fmt.Errorf("%w: session %d", ErrNoPlayer, target)
	case !slices.Contains(players, starter):
		return Vote{}, ErrNotVoter
	case len(players)-1 < MinVoters:
		return Vote{}, fmt.Errorf("%w: a vote needs %d players besides its target", ErrVoteTooFew, MinVoters)
	}
	if ok, wait := v.starts.Allow(starter, now); !ok {
		return Vote{}, fmt.Errorf("%w: one every %d s (wait %d s)", ErrVoteCooldown, VoteCooldown, (wait+ticks(1)-1)/ticks(1))
	}
	v.nextID++
	v.running = true
	v.cur = Vote{ID: v.nextID, Starter: starter, Target: target, Ends: now + ticks(VoteSeconds)}
	v.ballots = v.ballots[:0]
	for _, p := range players {
		if p != target {
			v.ballots = append(v.ballots, ballot{session: p})
		}
	}
	v.say(starter, 1)
	return v.settle(), nil
}

// Cast counts voter's ballot (yes or no) in the running vote. It returns the
// vote after it: Passed when it made the majority.
func (v *Votes) Cast(voter uint32, yes bool, now uint64) (Vote, error) {
	if !v.running {
		return Vote{}, ErrNoVote
	}
	i := slices.IndexFunc(v.ballots, func(b ballot) bool { return b.session == voter })
	switch {
	case i < 0:
		return Vote{}, ErrNotVoter
	case v.ballots[i].say != 0:
		return Vote{}, ErrVoted
	}
	say := uint8(2)
	if yes {
		say = 1
	}
	v.say(voter, say)
	return v.settle(), nil
}

// Leave takes session out of the running vote: the vote ends if it was the
// target (TargetLeft) or if fewer than MinVoters remain (TooFew); a voter
// who leaves no longer counts, for or against. It reports whether the
// vote changed.
func (v *Votes) Leave(session uint32) (Vote, bool) {
	if !v.running {
		return Vote{}, false
	}
	if session == v.cur.Target {
		return v.end(TargetLeft), true
	}
	n := len(v.ballots)
	v.ballots = slices.DeleteFunc(v.ballots, func(b ballot) bool { return b.session == session })
	if len(v.ballots) == n {
		return Vote{}, false
	}
	if len(v.ballots) < MinVoters {
		return v.end(TooFew), true
	}
	return v.settle(), true
}

// Tick ends the running vote if its time ran out at tick now; it reports
// whether it did.
func (v *Votes) Tick(now uint64) (Vote, bool) {
	if !v.running || now < v.cur.Ends {
		return Vote{}, false
	}
	return v.end(TimedOut), true
}

// Forget drops what the votes keep of session (it left the room): its
// cooldown.
func (v *Votes) Forget(session uint32) { v.starts.Forget(session) }

func (v *Votes) say(voter uint32, say uint8) {
	for i := range v.ballots {
		if v.ballots[i].session == voter {
			v.ballots[i].say = say
		}
	}
}

// settle ends the vote when its outcome is sure, and returns its state.
func (v *Votes) settle() Vote {
	st := v.state()
	switch {
	case st.Yes >= st.Need:
		return v.end(Passed)
	case len(v.ballots)-st.No < st.Need:
		return v.end(Failed)
	}
	return st
}

func (v *Votes) end(o Outcome) Vote {
	v.running = false
	v.cur.Outcome = o
	return v.state()
}

// state is the vote as it stands (a copy the caller may keep).
func (v *Votes) state() Vote {
	st := v.cur
	st.Yes, st.No = 0, 0
	st.Voters = make([]uint32, 0, len(v.ballots))
	for _, b := range v.ballots {
		st.Voters = append(st.Voters, b.session)
		switch b.say {
		case 1:
			st.Yes++
		case 2:
			st.No++
		}
	}
	st.Need = len(v.ballots)/2 + 1
	return st
}

package runs

import "fmt"

// Config sets a run up.
type Config struct {
	// Mode is how its teams play.
	Mode Mode
	// Teams is how many teams it has (the mission's), from 1 to MaxTeams.
	Teams int
	// MaxSeats bounds its seats, late ones included (0: MaxSeats).
	MaxSeats int
}

// SeatInfo is one seat of a run as it stands.
type SeatInfo struct {
	Seat
	// State is where the seat stands.
	State State
	// HeldUntil is the tick a dropped seat is held until.
	HeldUntil uint64
	// Score is the seat's score; TeamHits the hits it dealt its teammates
	// (each cost it TeamHitPenalty).
	Score    int
	TeamHits int
	// Late is set for a seat added while the run was under way.
	Late bool
}

// Run is one run: its roster, phase, seats and result. Make it with New;
// call it from one goroutine (the room's).
type Run struct {
	cfg    Config
	phase  Phase
	since  uint64 // the tick the phase began
	seats  []SeatInfo
	result Result
	noPay  bool
	rev    uint32 // counts every change a run frame shows

	gone  []int // the seats gone this tick, for Tick's caller
	teams []int // scratch: the seats in the run by team
}

// New starts a run of cfg for roster at tick now, waiting for its players.
// It refuses a roster that fails Roster.Check.
func New(cfg Config, roster Roster, now uint64) (*Run, error) {
	if cfg.Teams < 1 || cfg.Teams > MaxTeams {
		return nil, fmt.Errorf("%w: %d teams (1 to %d)", ErrRoster, cfg.Teams, MaxTeams)
	}
	if cfg.MaxSeats <= 0 || cfg.MaxSeats > MaxSeats {
		cfg.MaxSeats = MaxSeats
	}
	if err := roster.Check(cfg.Teams); err != nil {
		return nil, err
	}
	if len(roster.Seats) > cfg.MaxSeats {
		return nil, fmt.Errorf("%w: %d seats, the run takes %d", ErrRoster, len(roster.Seats), cfg.MaxSeats)
	}
	r := &Run{cfg: cfg, since: now, rev: 1, result: Result{Winner: -1}, teams: make([]int, cfg.Teams)}
	for _, s := range roster.Seats {
		r.seats = append(r.seats, SeatInfo{Seat: s})
	}
	return r, nil
}

// Mode returns the run's mode.
func (r *Run) Mode() Mode { return r.cfg.Mode }

// Teams returns how many teams the run has.
func (r *Run) Teams() int { return r.cfg.Teams }

// Phase returns where the run stands, and the tick that phase began.
func (r *Run) Phase() (Phase, uint64) { return r.phase, r.since }

// Revision counts the changes a run frame shows: phase, seats, scores,
// result. It starts at 1.
func (r *Run) Revision() uint32 { return r.rev }

// Seats returns the run's seats, by seat number. The slice is the run's:
// read it, never keep it.
func (r *Run) Seats() []SeatInfo { return r.seats }

// Result returns how the run ended (Outcome is OutcomeNone until then).
func (r *Run) Result() Result { return r.result }

// SeatOf returns the seat of account, false when it has none.
func (r *Run) SeatOf(account string) (int, bool) {
	if account == "" {
		return -1, false
	}
	for i := range r.seats {
		if r.seats[i].Account == account {
			return i, true
		}
	}
	return -1, false
}

// Admit checks whether account may take its seat now, and returns it. It
// refuses an account with no seat (ErrNoSeat), a seat gone (ErrSeatGone),
// one a connection plays already (ErrSeatHeld), and any join once the run
// is over (ErrRunOver). It changes nothing: Connect does.
func (r *Run) Admit(account string) (int, error) {
	if r.phase >= Ended {
		return -1, ErrRunOver
	}
	i, ok := r.SeatOf(account)
	if !ok {
		return -1, ErrNoSeat
	}
	switch r.seats[i].State {
	case Gone:
		return -1, ErrSeatGone
	case Playing, Out:
		return -1, ErrSeatHeld
	}
	return i, nil
}

// Connect marks seat i's player connected at tick now: come in for the
// first time (false), or back within its hold (true: it takes its body
// again, or its watching when it was out).
func (r *Run) Connect(i int, now uint64) (back bool) {
	s := &r.seats[i]
	switch s.State {
	case Dropped:
		s.State, back = Playing, true
	case OutDrop:
		s.State, back = Out, true
	default:
		s.State = Playing
	}
	s.HeldUntil = 0
	r.rev++
	return back
}

// Drop marks seat i's player gone from the room at tick now. While the run
// waits or counts down, or is live, its seat is held for HoldTicks; once
// it is over, the seat just goes.
func (r *Run) Drop(i int, now uint64) {
	s := &r.seats[i]
	switch {
	case r.phase >= Ended:
		s.State = Gone
	case s.State == Playing:
		s.State, s.HeldUntil = Dropped, now+HoldTicks
	case s.State == Out:
		s.State, s.HeldUntil = OutDrop, now+HoldTicks
	default:
		return
	}
	r.rev++
}

// Leave marks seat i gone for good at tick now: its player left, or did
// not come back within its hold. A run that is over keeps its seats as
// they were.
func (r *Run) Leave(i int, now uint64) {
	s := &r.seats[i]
	if r.phase >= Ended || s.State == Gone {
		return
	}
	s.State, s.HeldUntil = Gone, 0
	r.rev++
}

// TakeOut marks seat i out of the run: the mission took its body out of
// the world, and its player watches a teammate.
func (r *Run) TakeOut(i int) {
	s := &r.seats[i]
	switch s.State {
	case Playing:
		s.State = Out
	case Dropped:
		s.State = OutDrop
	default:
		return
	}
	r.rev++
}

// InRun reports whether seat i still has a body in the run: playing, or
// dropped and held.
func (r *Run) InRun(i int) bool {
	st := r.seats[i].State
	return st == Playing || st == Dropped
}

// AddSeat adds a seat for s while the run is under way (or before it
// starts) and returns its number. It refuses a team the run lacks
// (ErrNoTeam), an account with a seat already (ErrDuplicate), a run at its
// MaxSeats (ErrFull) and a run that is over (ErrRunOver).
func (r *Run) AddSeat(s Seat) (int, error) {
	switch {
	case r.phase >= Ended:
		return -1, ErrRunOver
	case len(r.seats) >= r.cfg.MaxSeats:
		return -1, fmt.Errorf("%w: %d seats", ErrFull, len(r.seats))
	}
	if err := checkSeat(s, r.cfg.Teams); err != nil {
		return -1, err
	}
	if _, ok := r.SeatOf(s.Account); ok {
		return -1, fmt.Errorf("%w: %q", ErrDuplicate, s.Account)
	}
	r.seats = append(r.seats, SeatInfo{Seat: s, Late: r.phase != Waiting})
	r.rev++
	return len(r.seats) - 1, nil
}

// Score adds n to seat i's score (n may be negative).
func (r *Run) Score(i, n int) {
	if i < 0 || i >= len(r.seats) || n == 0 {
		return
	}
	r.seats[i].Score += n
	r.rev++
}

// TeamHit counts a hit of seat i on a teammate: against its score.
func (r *Run) TeamHit(i int) {
	if i < 0 || i >= len(r.seats) {
		return
	}
	r.seats[i].TeamHits++
	r.seats[i].Score -= TeamHitPenalty
	r.rev++
}

// TeamScore returns the sum of team t's seats' scores.
func (r *Run) TeamScore(t int) int {
	n := 0
	for i := range r.seats {
		if r.seats[i].Team == t {
			n += r.seats[i].Score
		}
	}
	return n
}

// NoPay makes the run pay nothing (a debug command was honoured in it);
// its result will say so.
func (r *Run) NoPay() {
	if !r.noPay {
		r.noPay = true
		r.rev++
	}
}

// Paying reports whether the run may still pay its players.
func (r *Run) Paying() bool { return !r.noPay }

// End ends a run that is not over with res at tick now (the mission's
// result). Later calls do nothing.
func (r *Run) End(res Result, now uint64) {
	if r.phase >= Ended {
		return
	}
	res.NoPay = r.noPay
	if res.Outcome != OutcomeWon && res.Outcome != OutcomeForfeit {
		res.Winner = -1
	}
	r.result = res
	r.setPhase(Ended, now)
}

func (r *Run) setPhase(p Phase, now uint64) {
	r.phase, r.since = p, now
	r.rev++
}

// Tick moves the run on at tick now: the waiting's end, the countdown's,
// the holds that ran out, a team left with nobody, the close. It returns
// the seats gone for good this tick (the slice is the run's own, valid
// until the next call): their bodies leave the world and the mission is
// told.
func (r *Run) Tick(now uint64) []int {
	r.gone = r.gone[:0]
	switch r.phase {
	case Waiting:
		came, all := 0, true
		for i := range r.seats {
			if r.seats[i].State == Empty {
				all = false
			} else if r.seats[i].State != Gone {
				came++
			}
		}
		switch {
		case came > 0 && all:
			r.setPhase(Countdown, now)
		case now-r.since >= WaitTicks && came == 0:
			r.End(Result{Outcome: OutcomeAbandoned, Text: "Nobody came: the run is off."}, now)
		case now-r.since >= WaitTicks:
			for i := range r.seats {
				if r.seats[i].State == Empty {
					r.seats[i].State = Gone
					r.gone = append(r.gone, i)
				}
			}
			r.setPhase(Countdown, now)
		}
	case Countdown:
		if now-r.since >= CountdownTicks {
			r.setPhase(Live, now)
		}
	case Ended:
		if now-r.since >= CloseTicks {
			r.setPhase(Closed, now)
		}
	}
	if r.phase < Ended {
		r.expire(now)
		r.forfeits(now)
	}
	return r.gone
}

// expire lets the held seats whose time ran out go for good.
func (r *Run) expire(now uint64) {
	for i := range r.seats {
		s := &r.seats[i]
		if (s.State == Dropped || s.State == OutDrop) && now >= s.HeldUntil {
			s.State, s.HeldUntil = Gone, 0
			r.gone = append(r.gone, i)
			r.rev++
		}
	}
}

// forfeits ends a run nobody is left in, and in versus once the seats of
// every team but one are gone, that team wins by forfeit. A seat out of
// the run still counts for its team: its teammates may win.
func (r *Run) forfeits(now uint64) {
	clear(r.teams)
	left := 0
	for i := range r.seats {
		s := &r.seats[i]
		if s.State != Gone && s.State != Empty {
			r.teams[s.Team]++
			left++
		}
	}
	if r.phase == Waiting {
		return // the roster is still coming in
	}
	if left == 0 {
		r.End(Result{Outcome: OutcomeAbandoned, Text: "Everyone left: the run is off."}, now)
		return
	}
	if r.cfg.Mode != Versus || r.cfg.Teams < 2 {
		return
	}
	standing := -1
	for t, n := range r.teams {
		if n == 0 {
			continue
		}
		if standing >= 0 {
			return // two teams still stand
		}
		standing = t
	}
	r.End(Result{Outcome: OutcomeForfeit, Winner: standing, Text: "Every other team left: they forfeit."}, now)
}

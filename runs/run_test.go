package runs

import (
	"errors"
	"testing"
)

func roster(seats ...Seat) Roster { return Roster{Seats: seats} }

func versus2v2(t *testing.T) *Run {
	t.Helper()
	r, err := New(Config{Mode: Versus, Teams: 2}, roster(
		Seat{Account: "a1", Team: 0}, Seat{Account: "a2", Team: 0},
		Seat{Account: "b1", Team: 1}, Seat{Account: "b2", Team: 1}), 0)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// live brings r to Live with every seat connected, and returns the tick.
func live(t *testing.T, r *Run) uint64 {
	t.Helper()
	for i := range r.Seats() {
		r.Connect(i, 1)
	}
	r.Tick(1)
	if p, _ := r.Phase(); p != Countdown {
		t.Fatalf("with every seat in: phase %v, want countdown", p)
	}
	now := uint64(1 + CountdownTicks)
	r.Tick(now)
	if p, _ := r.Phase(); p != Live {
		t.Fatalf("after the countdown: phase %v, want live", p)
	}
	return now
}

func TestRosterCheck(t *testing.T) {
	long := string(make([]byte, MaxName+1))
	many := make([]Seat, MaxSeats+1)
	for i := range many {
		many[i] = Seat{Account: string(rune('A'+i%26)) + string(rune('a'+i/26)), Team: 0}
	}
	cases := []struct {
		name  string
		r     Roster
		teams int
		want  error
	}{
		{"good", roster(Seat{Account: "a", Team: 0}, Seat{Account: "b", Team: 1}), 2, nil},
		{"empty", roster(), 2, ErrRoster},
		{"an account twice", roster(Seat{Account: "a"}, Seat{Account: "a", Team: 1}), 2, ErrDuplicate},
		{"no account", roster(Seat{Account: " "}), 1, ErrRoster},
		{"no such team", roster(Seat{Account: "a", Team: 2}), 2, ErrNoTeam},
		{"a negative team", roster(Seat{Account: "a", Team: -1}), 2, ErrNoTeam},
		{"a long account", roster(Seat{Account: long}), 1, ErrRoster},
		{"too many seats", Roster{Seats: many}, 1, ErrRoster},
	}
	for _, c := range cases {
		err := c.r.Check(c.teams)
		if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := New(Config{Teams: 2}, roster(Seat{Account: "a"}, Seat{Account: "a"}), 0); !errors.Is(err, ErrDuplicate) {
		t.Errorf("New with an account twice: %v", err)
	}
	if _, err := New(Config{Teams: 0}, roster(Seat{Account: "a"}), 0); !errors.Is(err, ErrRoster) {
		t.Errorf("New with no team: %v", err)
	}
	if _, err := New(Config{Teams: 1, MaxSeats: 1}, roster(Seat{Account: "a"}, Seat{Account: "b"}), 0); !errors.Is(err, ErrRoster) {
		t.Errorf("New past MaxSeats: %v", err)
	}
}

func TestPhases(t *testing.T) {
	r := versus2v2(t)
	if p, _ := r.Phase(); p != Waiting {
		t.Fatalf("a new run is %v", p)
	}
	for i := range 3 {
		r.Connect(i, 10)
	}
	r.Tick(10)
	if p, _ := r.Phase(); p != Waiting {
		t.Fatalf("with a seat missing: %v, want waiting", p)
	}
	r.Connect(3, 20)
	r.Tick(20)
	if p, since := r.Phase(); p != Countdown || since != 20 {
		t.Fatalf("with every seat in: %v since %d, want countdown since 20", p, since)
	}
	r.Tick(20 + CountdownTicks - 1)
	if p, _ := r.Phase(); p != Countdown {
		t.Fatalf("a tick before the countdown ends: %v", p)
	}
	r.Tick(20 + CountdownTicks)
	if p, _ := r.Phase(); p != Live {
		t.Fatalf("after the countdown: %v", p)
	}
	end := uint64(1000)
	r.End(Result{Outcome: OutcomeWon, Winner: 1, Text: "b got away"}, end)
	r.End(Result{Outcome: OutcomeWon, Winner: 0}, end) // later calls do nothing
	if res := r.Result(); res.Outcome != OutcomeWon || res.Winner != 1 || res.Text != "b got away" {
		t.Fatalf("result %+v", res)
	}
	r.Tick(end + CloseTicks - 1)
	if p, _ := r.Phase(); p != Ended {
		t.Fatalf("before the close: %v", p)
	}
	r.Tick(end + CloseTicks)
	if p, _ := r.Phase(); p != Closed {
		t.Fatalf("after the close: %v", p)
	}
	if _, err := r.Admit("a1"); !errors.Is(err, ErrRunOver) {
		t.Fatalf("a join after the end: %v", err)
	}
}

// TestWaitTimeout: the run starts with whoever came once WaitTicks pass;
// the seats that never came are gone, and a team with nobody forfeits.
func TestWaitTimeout(t *testing.T) {
	r := versus2v2(t)
	r.Connect(0, 5)
	r.Connect(2, 5)
	r.Tick(WaitTicks - 1)
	if p, _ := r.Phase(); p != Waiting {
		t.Fatalf("before the timeout: %v", p)
	}
	gone := r.Tick(WaitTicks)
	if p, _ := r.Phase(); p != Countdown {
		t.Fatalf("at the timeout: %v, want countdown", p)
	}
	if len(gone) != 2 || gone[0] != 1 || gone[1] != 3 {
		t.Fatalf("gone %v, want seats 1 and 3", gone)
	}
	if _, err := r.Admit("a2"); !errors.Is(err, ErrSeatGone) {
		t.Fatalf("a seat that never came, after the timeout: %v", err)
	}

	r = versus2v2(t)
	r.Connect(0, 5)
	r.Tick(WaitTicks)
	if p, _ := r.Phase(); p != Ended {
		t.Fatalf("only team 0 came: %v, want ended", p)
	}
	if res := r.Result(); res.Outcome != OutcomeForfeit || res.Winner != 0 {
		t.Fatalf("only team 0 came: %+v, want team 0 by forfeit", res)
	}

	r = versus2v2(t)
	r.Tick(WaitTicks)
	if res := r.Result(); res.Outcome != OutcomeAbandoned {
		t.Fatalf("nobody came: %+v", res)
	}
}

// TestAdmit: a join is refused, with its reason, for an account with no
// seat, a seat played by another connection, and a seat gone.
func TestAdmit(t *testing.T) {
	r := versus2v2(t)
	if _, err := r.Admit("stranger"); !errors.Is(err, ErrNoSeat) {
		t.Errorf("no seat: %v", err)
	}
	if _, err := r.Admit(""); !errors.Is(err, ErrNoSeat) {
		t.Errorf("no account: %v", err)
	}
	i, err := r.Admit("b1")
	if err != nil || i != 2 {
		t.Fatalf("b1: seat %d, %v", i, err)
	}
	r.Connect(i, 1)
	if _, err := r.Admit("b1"); !errors.Is(err, ErrSeatHeld) {
		t.Errorf("a second connection: %v", err)
	}
	r.Drop(i, 2)
	if j, err := r.Admit("b1"); err != nil || j != i {
		t.Errorf("back after a drop: seat %d, %v", j, err)
	}
}

// TestHeldThroughDrop: a dropped seat is held HoldTicks; back within them
// it plays on, else it is gone for good.
func TestHeldThroughDrop(t *testing.T) {
	r := versus2v2(t)
	now := live(t, r)
	r.Drop(1, now)
	if s := r.Seats()[1]; s.State != Dropped || s.HeldUntil != now+HoldTicks {
		t.Fatalf("dropped: %+v", s)
	}
	if !r.InRun(1) {
		t.Fatal("a held seat has no body in the run")
	}
	if gone := r.Tick(now + HoldTicks - 1); len(gone) != 0 {
		t.Fatalf("gone before its minute: %v", gone)
	}
	if back := r.Connect(1, now+HoldTicks-1); !back {
		t.Fatal("back within the minute: not told it takes its body again")
	}
	if s := r.Seats()[1]; s.State != Playing || s.HeldUntil != 0 {
		t.Fatalf("back: %+v", s)
	}

	r.Drop(1, now+100)
	gone := r.Tick(now + 100 + HoldTicks)
	if len(gone) != 1 || gone[0] != 1 || r.Seats()[1].State != Gone {
		t.Fatalf("after the minute: gone %v, seat %+v", gone, r.Seats()[1])
	}
	if _, err := r.Admit("a2"); !errors.Is(err, ErrSeatGone) {
		t.Fatalf("back after the minute: %v", err)
	}
	if p, _ := r.Phase(); p != Live {
		t.Fatalf("one of two gone: %v, the run goes on", p)
	}
}

// TestForfeit: in versus, a team whose every seat is gone forfeits; out of
// the run still counts for its team; co-op never forfeits but ends when
// everyone left.
func TestForfeit(t *testing.T) {
	r := versus2v2(t)
	now := live(t, r)
	r.TakeOut(2)
	r.Drop(3, now)
	r.Tick(now + HoldTicks)
	if p, _ := r.Phase(); p != Live {
		t.Fatalf("team 1 has a seat out but in the run: %v", p)
	}
	r.Drop(2, now+HoldTicks)
	if r.Seats()[2].State != OutDrop {
		t.Fatalf("out and dropped: %v", r.Seats()[2].State)
	}
	r.Tick(now + 2*HoldTicks)
	if res := r.Result(); res.Outcome != OutcomeForfeit || res.Winner != 0 {
		t.Fatalf("team 1 gone: %+v, want team 0 by forfeit", res)
	}

	c, err := New(Config{Mode: Coop, Teams: 1}, roster(Seat{Account: "x"}, Seat{Account: "y"}), 0)
	if err != nil {
		t.Fatal(err)
	}
	now = live(t, c)
	c.Drop(0, now)
	c.Tick(now + HoldTicks)
	if p, _ := c.Phase(); p != Live {
		t.Fatalf("co-op with one left: %v", p)
	}
	c.Drop(1, now+HoldTicks)
	c.Tick(now + 2*HoldTicks)
	if res := c.Result(); res.Outcome != OutcomeAbandoned {
		t.Fatalf("co-op everyone gone: %+v", res)
	}
}

func TestAddSeat(t *testing.T) {
	r := versus2v2(t)
	now := live(t, r)
	i, err := r.AddSeat(Seat{Account: "b3", Team: 1})
	if err != nil || i != 4 || !r.Seats()[4].Late || r.Seats()[4].State != Empty {
		t.Fatalf("late seat: %d, %v, %+v", i, err, r.Seats()[4])
	}
	cases := []struct {
		name string
		s    Seat
		want error
	}{
		{"a team the run lacks", Seat{Account: "c", Team: 2}, ErrNoTeam},
		{"an account seated", Seat{Account: "a1", Team: 1}, ErrDuplicate},
	}
	for _, c := range cases {
		rev := r.Revision()
		if _, err := r.AddSeat(c.s); !errors.Is(err, c.want) || r.Revision() != rev {
			t.Errorf("%s: %v, want %v and nothing changed", c.name, err, c.want)
		}
	}
	full, err := New(Config{Mode: Coop, Teams: 1, MaxSeats: 1}, roster(Seat{Account: "x"}), 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := full.AddSeat(Seat{Account: "y"}); !errors.Is(err, ErrFull) {
		t.Errorf("past the run's size: %v", err)
	}
	r.End(Result{Outcome: OutcomeWon, Winner: 0}, now+1)
	if _, err := r.AddSeat(Seat{Account: "z", Team: 0}); !errors.Is(err, ErrRunOver) {
		t.Errorf("after the end: %v", err)
	}
}

func TestScoreAndTeamHits(t *testing.T) {
	r := versus2v2(t)
	live(t, r)
	r.Score(0, 50)
	r.TeamHit(0)
	r.TeamHit(0)
	r.Score(2, 30)
	if s := r.Seats()[0]; s.Score != 50-2*TeamHitPenalty || s.TeamHits != 2 {
		t.Fatalf("seat 0: %+v", s)
	}
	if got := r.TeamScore(0); got != 50-2*TeamHitPenalty {
		t.Fatalf("team 0 scores %d", got)
	}
	if got := r.TeamScore(1); got != 30 {
		t.Fatalf("team 1 scores %d", got)
	}
}

// TestNoPay: a debug command honoured during a run makes it pay nothing,
// and its result says so.
func TestNoPay(t *testing.T) {
	r := versus2v2(t)
	now := live(t, r)
	if !r.Paying() {
		t.Fatal("a new run pays nothing")
	}
	r.NoPay()
	if r.Paying() {
		t.Fatal("still paying after NoPay")
	}
	r.End(Result{Outcome: OutcomeWon, Winner: 1}, now)
	if !r.Result().NoPay {
		t.Fatal("the result does not say the run paid nothing")
	}
}

// TestLeave: a seat whose player leaves is gone at once; its team may
// forfeit at the next tick.
func TestLeave(t *testing.T) {
	r := versus2v2(t)
	now := live(t, r)
	r.Leave(2, now)
	if r.Seats()[2].State != Gone {
		t.Fatalf("left: %v", r.Seats()[2].State)
	}
	r.Leave(3, now)
	r.Tick(now + 1)
	if res := r.Result(); res.Outcome != OutcomeForfeit || res.Winner != 0 {
		t.Fatalf("team 1 left: %+v", res)
	}
	r.Leave(0, now+2) // over: the seats stay as they were
	if r.Seats()[0].State != Playing {
		t.Fatalf("a leave after the end: %v", r.Seats()[0].State)
	}
}

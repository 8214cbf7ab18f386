package social

import (
	"errors"
	"slices"
	"testing"
)

// op is one step of a vote scenario: start (a kicks b), cast (a says yes
// or no), leave (a leaves), or tick (the time passes to at).
type op struct {
	kind  string
	a, b  uint32
	yes   bool
	at    uint64 // the tick the step happens at
	err   error  // the error wanted, nil for none
	after Outcome
}

func TestVotes(t *testing.T) {
	room := []uint32{1, 2, 3, 4}
	end := ticks(VoteSeconds)
	cases := []struct {
		name    string
		players []uint32
		ops     []op
	}{
		{"majority of the others passes", room, []op{
			{kind: "start", a: 1, b: 4, after: Open},
			{kind: "cast", a: 2, yes: true, after: Passed}, // 2 of 3: more than half
		}},
		{"a tie is no majority", []uint32{1, 2, 3, 4, 5}, []op{
			{kind: "start", a: 1, b: 5, after: Open},
			{kind: "cast", a: 2, yes: true, after: Open},
			{kind: "cast", a: 3, yes: false, after: Open},
			{kind: "cast", a: 4, yes: false, after: Failed}, // 2 yes of 4 cannot pass
		}},
		{"three of four pass", []uint32{1, 2, 3, 4, 5}, []op{
			{kind: "start", a: 1, b: 5},
			{kind: "cast", a: 2, yes: true, after: Open},
			{kind: "cast", a: 3, yes: true, after: Passed},
		}},
		{"no majority can come", room, []op{
			{kind: "start", a: 1, b: 4},
			{kind: "cast", a: 2, yes: false, after: Open},   // 1 yes, 1 no of 3: 2 yes may come
			{kind: "cast", a: 3, yes: false, after: Failed}, // 2 no of 3: 2 yes cannot
		}},
		{"timeout", room, []op{
			{kind: "start", a: 1, b: 4},
			{kind: "tick", at: end - 1, after: Open},
			{kind: "tick", at: end, after: TimedOut},
			{kind: "cast", a: 2, yes: true, at: end, err: ErrNoVote},
		}},
		{"one vote at a time", room, []op{
			{kind: "start", a: 1, b: 4},
			{kind: "start", a: 2, b: 3, err: ErrVoteRunning},
		}},
		{"not against oneself", room, []op{
			{kind: "start", a: 2, b: 2, err: ErrVoteSelf},
		}},
		{"not against nobody", room, []op{
			{kind: "start", a: 1, b: 9, err: ErrNoPlayer},
		}},
		{"not by a stranger", room, []op{
			{kind: "start", a: 9, b: 1, err: ErrNotVoter},
		}},
		{"not in a room of two", []uint32{1, 2}, []op{
			{kind: "start", a: 1, b: 2, err: ErrVoteTooFew},
		}},
		{"cooldown per starter", room, []op{
			{kind: "start", a: 1, b: 4},
			{kind: "tick", at: end, after: TimedOut},
			{kind: "start", a: 1, b: 3, at: end, err: ErrVoteCooldown},
			{kind: "start", a: 2, b: 3, at: end, after: Open}, // another starter may
			{kind: "tick", at: 2 * end, after: TimedOut},
			{kind: "start", a: 1, b: 3, at: ticks(VoteCooldown), after: Open},
		}},
		{"the target has no vote", room, []op{
			{kind: "start", a: 1, b: 4},
			{kind: "cast", a: 4, yes: false, err: ErrNotVoter},
		}},
		{"one ballot each", room, []op{
			{kind: "start", a: 1, b: 4},
			{kind: "cast", a: 1, yes: true, err: ErrVoted},
			{kind: "cast", a: 2, yes: false, after: Open},
			{kind: "cast", a: 2, yes: true, err: ErrVoted},
		}},
		{"a latecomer has no vote", room, []op{
			{kind: "start", a: 1, b: 4},
			{kind: "cast", a: 5, yes: true, err: ErrNotVoter},
		}},
		{"the target leaving ends it", room, []op{
			{kind: "start", a: 1, b: 4},
			{kind: "leave", a: 4, after: TargetLeft},
		}},
		{"a voter leaving lowers the majority", []uint32{1, 2, 3, 4, 5, 6}, []op{
			{kind: "start", a: 1, b: 6},                     // 5 voters: 3 to pass
			{kind: "cast", a: 2, yes: true, after: Open},    // 2 of 5
			{kind: "leave", a: 5, after: Open},              // 2 of 4: 3 to pass
			{kind: "leave", a: 4, after: Passed},            // 2 of 3
			{kind: "start", a: 2, b: 3, after: Open},        // the next may start at once
			{kind: "leave", a: 9},                           // a stranger leaving changes nothing
			{kind: "cast", a: 1, yes: false, after: Open},   // 1 yes 1 no of 2: wait
			{kind: "cast", a: 2, yes: false, err: ErrVoted}, // the starter voted yes
		}},
		{"a yes voter leaving takes its yes", room, []op{
			{kind: "start", a: 1, b: 4},
			{kind: "leave", a: 1, after: Open}, // voters 2, 3: 2 to pass, no yes left
			{kind: "cast", a: 2, yes: true, after: Open},
			{kind: "cast", a: 3, yes: true, after: Passed},
		}},
		{"too few voters left", room, []op{
			{kind: "start", a: 1, b: 4},
			{kind: "leave", a: 2, after: Open},
			{kind: "leave", a: 3, after: TooFew},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := NewVotes()
			players := slices.Clone(c.players)
			for i, o := range c.ops {
				var st Vote
				var err error
				switch o.kind {
				case "start":
					st, err = v.Start(o.a, o.b, players, o.at)
				case "cast":
					st, err = v.Cast(o.a, o.yes, o.at)
				case "leave":
					players = slices.DeleteFunc(players, func(p uint32) bool { return p == o.a })
					st, _ = v.Leave(o.a)
					if o.a == 9 {
						if cur, ok := v.Running(); !ok || cur.Outcome != Open {
							t.Fatalf("step %d: a stranger's leave ended the vote", i)
						}
						continue
					}
				case "tick":
					var ended bool
					st, ended = v.Tick(o.at)
					if !ended {
						st, _ = v.Running()
					}
				}
				if !errors.Is(err, o.err) {
					t.Fatalf("step %d (%s %d %d): error %v, want %v", i, o.kind, o.a, o.b, err, o.err)
				}
				if err != nil {
					continue
				}
				if st.Outcome != o.after {
					t.Fatalf("step %d (%s %d %d): %s (yes %d no %d of %d, need %d), want %s",
						i, o.kind, o.a, o.b, st.Outcome, st.Yes, st.No, len(st.Voters), st.Need, o.after)
				}
				if _, running := v.Running(); running != (st.Outcome == Open) {
					t.Fatalf("step %d: running %v with outcome %s", i, running, st.Outcome)
				}
			}
		})
	}
}

// TestVoteState: the state a vote frame shows.
func TestVoteState(t *testing.T) {
	v := NewVotes()
	st, err := v.Start(2, 5, []uint32{1, 2, 3, 4, 5}, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := Vote{ID: 1, Starter: 2, Target: 5, Outcome: Open, Yes: 1, Voters: []uint32{1, 2, 3, 4}, Need: 3, Ends: 100 + ticks(VoteSeconds)}
	if st.ID != want.ID || st.Starter != want.Starter || st.Target != want.Target || st.Yes != want.Yes || st.No != 0 ||
		!slices.Equal(st.Voters, want.Voters) || st.Need != want.Need || st.Ends != want.Ends {
		t.Fatalf("state %+v, want %+v", st, want)
	}
}

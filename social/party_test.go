package social

import (
	"errors"
	"slices"
	"testing"
)

func TestPartiesJoinByKey(t *testing.T) {
	p := NewParties()
	steps := []struct {
		session uint32
		key     string
		want    uint16
	}{
		{1, "crew-a", 1},
		{2, "", 0},
		{3, "crew-b", 2},
		{4, "crew-a", 1}, // the key's party while it has members
	}
	for _, s := range steps {
		if got := p.Join(s.session, s.key); got != s.want || p.Of(s.session) != s.want {
			t.Fatalf("session %d key %q: party %d, want %d", s.session, s.key, got, s.want)
		}
	}
	p.Leave(1)
	p.Leave(4) // crew-a's last member: number 1 is free, the key forgotten
	if got := p.Join(5, "crew-c"); got != 1 {
		t.Fatalf("a new key after party 1 emptied: %d, want the lowest free, 1", got)
	}
	if got := p.Join(6, "crew-a"); got != 3 {
		t.Fatalf("crew-a again: %d, want a new number, 3", got)
	}
	if p.Size(1) != 1 || p.Size(2) != 1 || p.Size(3) != 1 || p.Size(0) != 0 {
		t.Fatalf("sizes %d %d %d", p.Size(1), p.Size(2), p.Size(3))
	}
}

func TestPartyInvites(t *testing.T) {
	exp := ticks(InviteSeconds)
	type step struct {
		op      string // invite, accept, decline, leave-party, leave, expire
		a, b    uint32 // invite: a asks b; accept/decline: a answers b's
		at      uint64
		err     error
		party   uint16   // accept: the party a joins
		changed []uint32 // accept: whose party changed
		wantOf  map[uint32]uint16
		invites *int // invitations standing after it; nil: not checked
	}
	cases := []struct {
		name  string
		keys  map[uint32]string
		steps []step
	}{
		{"two without a party make one", nil, []step{
			{op: "invite", a: 1, b: 2, invites: n(1)},
			{op: "accept", a: 2, b: 1, party: 1, changed: []uint32{1, 2}, wantOf: map[uint32]uint16{1: 1, 2: 1}},
		}},
		{"into a token's party", map[uint32]string{1: "k"}, []step{
			{op: "invite", a: 1, b: 2},
			{op: "accept", a: 2, b: 1, party: 1, changed: []uint32{2}, wantOf: map[uint32]uint16{1: 1, 2: 1}},
		}},
		{"leaving one's own for another", map[uint32]string{1: "k", 2: "j"}, []step{
			{op: "invite", a: 1, b: 2},
			{op: "accept", a: 2, b: 1, party: 1, changed: []uint32{2}, wantOf: map[uint32]uint16{1: 1, 2: 1}},
		}},
		{"not oneself", nil, []step{{op: "invite", a: 1, b: 1, err: ErrPartySelf}}},
		{"not twice", nil, []step{
			{op: "invite", a: 1, b: 2},
			{op: "invite", a: 1, b: 2, err: ErrInvited, invites: n(1)},
		}},
		{"not one's own member", map[uint32]string{1: "k", 2: "k"}, []step{{op: "invite", a: 1, b: 2, err: ErrPartySame}}},
		{"a full party", map[uint32]string{1: "k", 2: "k", 3: "k", 4: "k"}, []step{
			{op: "invite", a: 1, b: 5, err: ErrPartyFull, invites: n(0)},
		}},
		{"full by the time of the answer", map[uint32]string{1: "k", 2: "k", 3: "k"}, []step{
			{op: "invite", a: 1, b: 5},
			{op: "invite", a: 1, b: 6, invites: n(2)},
			{op: "accept", a: 5, b: 1, party: 1, changed: []uint32{5}},
			{op: "accept", a: 6, b: 1, err: ErrPartyFull, wantOf: map[uint32]uint16{6: 0}, invites: n(0)},
		}},
		{"no invitation", nil, []step{{op: "accept", a: 2, b: 1, err: ErrNoInvite}}},
		{"expired", nil, []step{
			{op: "invite", a: 1, b: 2},
			{op: "accept", a: 2, b: 1, at: exp, err: ErrNoInvite},
			{op: "expire", at: exp, invites: n(0)},
		}},
		{"declined", nil, []step{
			{op: "invite", a: 1, b: 2},
			{op: "decline", a: 2, b: 1, invites: n(0)},
			{op: "accept", a: 2, b: 1, err: ErrNoInvite},
			{op: "decline", a: 2, b: 1, err: ErrNoInvite},
		}},
		{"too many standing", nil, []step{
			{op: "invite", a: 1, b: 2}, {op: "invite", a: 1, b: 3}, {op: "invite", a: 1, b: 4}, {op: "invite", a: 1, b: 5},
			{op: "invite", a: 1, b: 6}, {op: "invite", a: 1, b: 7}, {op: "invite", a: 1, b: 8}, {op: "invite", a: 1, b: 9},
			{op: "invite", a: 1, b: 10, err: ErrTooManyInvite, invites: n(MaxInvites)},
		}},
		{"leaving the party", map[uint32]string{1: "k", 2: "k"}, []step{
			{op: "leave-party", a: 2, wantOf: map[uint32]uint16{1: 1, 2: 0}},
			{op: "leave-party", a: 2, err: ErrNoParty},
		}},
		{"leaving the room drops its invitations", nil, []step{
			{op: "invite", a: 1, b: 2},
			{op: "invite", a: 3, b: 1, invites: n(2)},
			{op: "leave", a: 1, invites: n(0)},
			{op: "accept", a: 2, b: 1, err: ErrNoInvite},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := NewParties()
			for s := uint32(1); s <= 10; s++ {
				p.Join(s, c.keys[s])
			}
			for i, s := range c.steps {
				var err error
				var party uint16
				var changed []uint32
				switch s.op {
				case "invite":
					err = p.Invite(s.a, s.b, s.at)
				case "accept":
					party, changed, err = p.Accept(s.a, s.b, s.at)
				case "decline":
					err = p.Decline(s.a, s.b)
				case "leave-party":
					err = p.LeaveParty(s.a)
				case "leave":
					p.Leave(s.a)
				case "expire":
					p.Expire(s.at)
				}
				if !errors.Is(err, s.err) {
					t.Fatalf("step %d %s %d %d: %v, want %v", i, s.op, s.a, s.b, err, s.err)
				}
				if s.op == "accept" && err == nil && (party != s.party || !slices.Equal(changed, s.changed)) {
					t.Fatalf("step %d: party %d changed %v, want %d %v", i, party, changed, s.party, s.changed)
				}
				for sess, want := range s.wantOf {
					if got := p.Of(sess); got != want {
						t.Fatalf("step %d: session %d in party %d, want %d", i, sess, got, want)
					}
				}
				if s.invites != nil && len(p.Invites()) != *s.invites {
					t.Fatalf("step %d: %d invitations standing, want %d", i, len(p.Invites()), *s.invites)
				}
			}
		})
	}
}

func n(v int) *int { return &v }

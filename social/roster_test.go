package social

import "testing"

func TestShownPing(t *testing.T) {
	cases := []struct{ shown, measured, want uint16 }{
		{0, 40, 40},
		{40, 48, 40},    // jitter
		{40, 55, 55},    // 15 ms and more than a fifth
		{200, 215, 200}, // 15 ms but less than a fifth
		{200, 260, 260},
		{100, 60, 60},
	}
	for _, c := range cases {
		if got := ShownPing(c.shown, c.measured); got != c.want {
			t.Errorf("ShownPing(%d, %d) = %d, want %d", c.shown, c.measured, got, c.want)
		}
	}
}

func TestRosterUpdate(t *testing.T) {
	var r Roster
	a := []Member{{Session: 1, Player: 1, Name: "Ada"}, {Session: 2, Player: 2, Name: "Bea", State: InCar}}
	if !r.Update(a) || r.Revision() != 1 {
		t.Fatal("the first roster is a change")
	}
	a[1].State = InCar // the caller reuses its slice: the roster kept its own copy
	if r.Update(a) || r.Revision() != 1 {
		t.Fatal("the same lines are no change")
	}
	a[1].Party = 3
	if !r.Update(a) || r.Lines()[1].Party != 3 || r.Revision() != 2 {
		t.Fatal("a party changed is a change")
	}
	if !r.Update(a[:1]) || len(r.Lines()) != 1 {
		t.Fatal("a player gone is a change")
	}
	if r.Update(a[:1]) {
		t.Fatal("no change")
	}
	if got := InCar.String(); got != "car" {
		t.Fatalf("InCar is %q", got)
	}
}

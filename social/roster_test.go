package social

import (
	"fmt"
	"testing"
)

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
	ada := Member{Session: 1, Player: 1, Name: "Ada"}
	bea := Member{Session: 2, Player: 2, Name: "Bea", State: InCar}
	cy := Member{Session: 5, Player: 3, Name: "Cy"}
	beaOut, beaParty := bea, bea
	beaOut.State = OnFoot
	beaParty.Party = 3
	steps := []struct {
		name    string
		lines   []Member
		change  bool
		changed []Member
		gone    []uint32
	}{
		{"the first roster is a change", []Member{ada, bea}, true, []Member{ada, bea}, nil},
		{"the same lines are none", []Member{ada, bea}, false, nil, nil},
		{"a state", []Member{ada, beaOut}, true, []Member{beaOut}, nil},
		{"a party and a newcomer", []Member{ada, beaParty, cy}, true, []Member{beaParty, cy}, nil},
		{"one gone", []Member{beaParty, cy}, true, nil, []uint32{1}},
		{"all gone", nil, true, nil, []uint32{2, 5}},
		{"empty again", nil, false, nil, nil},
		{"back", []Member{cy}, true, []Member{cy}, nil},
	}
	var r Roster
	rev := uint32(0)
	for _, s := range steps {
		lines := append([]Member(nil), s.lines...)
		if got := r.Update(lines); got != s.change {
			t.Fatalf("%s: changed %v", s.name, got)
		}
		if s.change {
			rev++
		}
		changed, gone := r.Changes()
		if r.Revision() != rev || fmt.Sprint(changed) != fmt.Sprint(s.changed) || fmt.Sprint(gone) != fmt.Sprint(s.gone) {
			t.Fatalf("%s: revision %d changes %v gone %v, want %d %v %v", s.name, r.Revision(), changed, gone, rev, s.changed, s.gone)
		}
		if len(lines) > 0 {
			lines[0].Name = "reused" // the caller reuses its slice: the roster kept its own copy
			if r.Lines()[0].Name == "reused" {
				t.Fatalf("%s: the roster holds the caller's slice", s.name)
			}
		}
	}
	if got := InCar.String(); got != "car" {
		t.Fatalf("InCar is %q", got)
	}
}

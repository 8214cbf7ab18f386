package rooms

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fiveonit/engine/clock/clocktest"
	"github.com/fiveonit/engine/missions"
	"github.com/fiveonit/engine/runs"
	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/server/servertest"
)

// winAtOnce is a run mission whose team 0 wins at its first step.
type winAtOnce struct{}

func (winAtOnce) Start(missions.RunHost) error { return nil }
func (winAtOnce) Step(h missions.RunHost)      { h.Win(0, "Red wins.") }
func (winAtOnce) Phone(missions.RunHost, missions.Player, missions.Command) error {
	return errors.New("no screen")
}
func (winAtOnce) Leave(missions.RunHost, missions.Player) {}

var testRun = &missions.RunDef{Name: "test-run", Title: "Test run",
	Teams: []missions.RunTeam{{Name: "Red"}, {Name: "Blue"}},
	New:   func() missions.RunMission { return winAtOnce{} }}

func duel() runs.Roster {
	return runs.Roster{Seats: []runs.Seat{{Account: "a1", Team: 0}, {Account: "b1", Team: 1}}}
}

// TestMakeRunPlaysAndCloses: a run room made through MakeRun waits for
// its roster (it does not close empty), plays, and closes once its run is
// over, its players told why.
func TestMakeRunPlaysAndCloses(t *testing.T) {
	clk := clocktest.New()
	m := newManager(t, Config{DefaultLevel: "test-flat", Grace: time.Second, Clock: clk})
	r, err := m.MakeRun(RunSpec{Room: "duel", Roster: duel(), Def: testRun})
	if err != nil {
		t.Fatal(err)
	}
	open := func() bool { return slices.ContainsFunc(m.List(), func(i RoomInfo) bool { return i.Name == "duel" }) }
	for range 3 * time.Second / TickPeriod { // empty past the grace: a run room waits
		clk.Step(t, TickPeriod)
	}
	if !open() {
		t.Fatal("the run room closed empty while waiting for its roster")
	}
	var conns []*servertest.MemConn
	for _, acc := range []string{"a1", "b1"} {
		c := servertest.NewMemConn(false, 0)
		if _, _, err := m.Join("duel", Options{}, c, server.Who{Account: acc}); err != nil {
			t.Fatalf("%s: %v", acc, err)
		}
		conns = append(conns, c)
	}
	if _, _, err := m.Join("duel", Options{}, servertest.NewMemConn(false, 0), server.Who{Account: "stranger"}); !errors.Is(err, runs.ErrNoSeat) {
		t.Fatalf("a stranger: %v", err)
	}
	steps := int((runs.CountdownTicks + runs.CloseTicks + 10) * (time.Second / TickPeriod) / 60)
	for i := 0; i < steps && open(); i++ {
		clk.Step(t, TickPeriod)
		for _, c := range conns {
			c.Release(c.Recv())
		}
	}
	if open() {
		t.Fatal("the run room is open after its run ended and its close time passed")
	}
	<-r.Done()
	if closed, why := conns[0].Closed(); !closed || why != ErrRunOver.Error() {
		t.Fatalf("a player's connection: closed %v with %q", closed, why)
	}
}

// TestMakeRunRefused: a taken or bad room name, an unknown level, game or
// mission, a roster the run refuses: refused with the reason, no room.
func TestMakeRunRefused(t *testing.T) {
	m := newManager(t, Config{DefaultLevel: "test-flat"})
	dup := runs.Roster{Seats: []runs.Seat{{Account: "a"}, {Account: "a", Team: 1}}}
	cases := []struct {
		name string
		spec RunSpec
		want error
	}{
		{"the default room's name", RunSpec{Room: "default", Roster: duel(), Def: testRun}, ErrRoomTaken},
		{"a bad name", RunSpec{Room: "Bad Name", Roster: duel(), Def: testRun}, ErrBadRoomName},
		{"no such mission", RunSpec{Room: "r1", Mission: "nope", Roster: duel()}, ErrNoRun},
		{"an account twice", RunSpec{Room: "r2", Roster: dup, Def: testRun}, runs.ErrDuplicate},
		{"a team the mission lacks", RunSpec{Room: "r3", Roster: runs.Roster{Seats: []runs.Seat{{Account: "a", Team: 5}}}, Def: testRun}, runs.ErrNoTeam},
		{"no such level", RunSpec{Room: "r4", Level: "nowhere", Roster: duel(), Def: testRun}, nil},
	}
	for _, c := range cases {
		_, err := m.MakeRun(c.spec)
		if err == nil || c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	if n := len(m.List()); n != 1 {
		t.Fatalf("%d rooms open after the refusals, want the default alone", n)
	}
}

// TestRunHandler: the admin routes make a run room and add a seat with
// the bearer token, and refuse without it or with a bad request.
func TestRunHandler(t *testing.T) {
	m := newManager(t, Config{DefaultLevel: "test-flat"})
	if _, err := m.MakeRun(RunSpec{Room: "duel", Roster: duel(), Def: testRun}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.RunHandler("s3cret"))
	t.Cleanup(srv.Close)
	off := httptest.NewServer(m.RunHandler(""))
	t.Cleanup(off.Close)
	post := func(base, path, auth, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, base+path, strings.NewReader(body))
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		return resp.StatusCode, b.String()
	}
	const bearer = "Bearer s3cret"
	cases := []struct {
		name, base, path, auth, body string
		status                       int
	}{
		{"no token set", off.URL, "/runs", bearer, `{"room":"x","mission":"m","roster":{"seats":[]}}`, http.StatusForbidden},
		{"no bearer", srv.URL, "/runs", "", `{}`, http.StatusForbidden},
		{"a wrong bearer", srv.URL, "/runs", "Bearer nope", `{}`, http.StatusForbidden},
		{"not JSON", srv.URL, "/runs", bearer, `{"room":`, http.StatusBadRequest},
		{"an unknown field", srv.URL, "/runs", bearer, `{"room":"x","color":"red"}`, http.StatusBadRequest},
		{"no such mission", srv.URL, "/runs", bearer, `{"room":"x","mission":"nope","roster":{"seats":[{"account":"a","team":0}]}}`, http.StatusNotFound},
		{"a room taken", srv.URL, "/runs", bearer, `{"room":"default","mission":"nope","roster":{"seats":[{"account":"a","team":0}]}}`, http.StatusNotFound},
		{"a seat", srv.URL, "/runs/duel/seats", bearer, `{"account":"b2","team":1}`, http.StatusCreated},
		{"a seat again", srv.URL, "/runs/duel/seats", bearer, `{"account":"b2","team":1}`, http.StatusBadRequest},
		{"a seat of no team", srv.URL, "/runs/duel/seats", bearer, `{"account":"c","team":7}`, http.StatusBadRequest},
		{"a seat in no room", srv.URL, "/runs/nowhere/seats", bearer, `{"account":"c","team":0}`, http.StatusNotFound},
		{"a seat in a room with no run", srv.URL, "/runs/default/seats", bearer, `{"account":"c","team":0}`, http.StatusBadRequest},
	}
	for _, c := range cases {
		if status, body := post(c.base, c.path, c.auth, c.body); status != c.status {
			t.Errorf("%s: %d %q, want %d", c.name, status, body, c.status)
		}
	}
	_, body := post(srv.URL, "/runs/duel/seats", bearer, `{"account":"b3","team":1}`)
	var sr SeatResponse
	if err := json.Unmarshal([]byte(body), &sr); err != nil || sr.Seat != 3 || sr.Room != "duel" {
		t.Fatalf("the seat's answer %q: %+v %v", body, sr, err)
	}
}

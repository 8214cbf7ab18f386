package server

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/missions"
	"github.com/fiveonit/engine/runs"
	"github.com/fiveonit/engine/textframe"
)

// scripted is a run mission the test steers: each of its methods calls
// the test's func, if set.
type scripted struct {
	start func(h missions.RunHost) error
	step  func(h missions.RunHost)
	leave func(h missions.RunHost, p missions.Player)
	left  []missions.Player
	steps int
}

func (m *scripted) Start(h missions.RunHost) error {
	if m.start != nil {
		return m.start(h)
	}
	return nil
}

func (m *scripted) Step(h missions.RunHost) {
	m.steps++
	if m.step != nil {
		m.step(h)
	}
}

func (m *scripted) Phone(missions.RunHost, missions.Player, missions.Command) error {
	return errors.New("no screen")
}

func (m *scripted) Leave(h missions.RunHost, p missions.Player) {
	m.left = append(m.left, p)
	if m.leave != nil {
		m.leave(h, p)
	}
}

// runLevel is test-flat with a place for each team: red at (100, 0),
// blue at (-100, 100), both facing north.
func runLevel(t testing.TB) *levels.Level {
	t.Helper()
	raw, err := levels.Raw("test-flat")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	m["spawns"] = append(m["spawns"].([]any),
		map[string]any{"id": "red", "role": "guard", "pos": []float64{100, 0}, "yaw": math.Pi / 2},
		map[string]any{"id": "blue", "role": "guard", "pos": []float64{-100, 100}, "yaw": math.Pi / 2})
	b, _ := json.Marshal(m)
	l, err := levels.Parse("test-flat.json", b)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// runRoom is a run room of mission m (made by New) on runLevel, with the
// roster's accounts.
type runRoom struct {
	t   *testing.T
	g   *GameServer
	m   *scripted
	ps  map[string]*probe
	def *missions.RunDef
}

func newRunRoom(t *testing.T, coop, friendlyFire bool, seats ...runs.Seat) *runRoom {
	t.Helper()
	r := &runRoom{t: t, m: &scripted{}, ps: map[string]*probe{}}
	r.def = &missions.RunDef{Name: "test-run", Title: "Test run", Coop: coop, FriendlyFire: friendlyFire,
		Teams: []missions.RunTeam{{Name: "Red", Spawn: "red"}, {Name: "Blue", Spawn: "blue"}},
		New:   func() missions.RunMission { return r.m }}
	g, err := New(Config{Room: "run", Level: runLevel(t), Seed: 1, Rules: ecs.Rules{PlayersHurt: "on"},
		Run: &RunConfig{Mission: r.def, Roster: runs.Roster{Seats: seats}}})
	if err != nil {
		t.Fatal(err)
	}
	r.g = g
	return r
}

// join joins account to the room.
func (r *runRoom) join(account string) *probe {
	r.t.Helper()
	p := join(r.t, r.g, Who{Account: account, Name: account})
	r.ps[account] = p
	return p
}

// ticks runs n ticks, every connected probe sending d and reading.
func (r *runRoom) ticks(n int, d components.Drive) {
	for range n {
		for _, p := range r.ps {
			if !p.s.detached && !p.s.closed {
				p.send(d)
			}
		}
		r.g.Tick()
		for _, p := range r.ps {
			p.read()
		}
	}
}

// run returns the last run frame p got.
func (r *runRoom) run(p *probe) textframe.RunFrame {
	r.t.Helper()
	var f textframe.RunFrame
	m := p.lastText("run")
	if m == nil {
		r.t.Fatal("no run frame")
	}
	b, _ := json.Marshal(m)
	json.Unmarshal(b, &f)
	return f
}

// live joins every account and runs to live.
func (r *runRoom) live(accounts ...string) {
	r.t.Helper()
	for _, a := range accounts {
		r.join(a)
	}
	r.ticks(int(runs.CountdownTicks)+2, components.Drive{})
	if ph, _ := r.g.runs.run.Phase(); ph != runs.Live {
		r.t.Fatalf("phase %v after the countdown", ph)
	}
}

func (r *runRoom) char(account string) ecs.Entity {
	e, _ := r.g.World().ByWireID(r.ps[account].welcome.Character)
	return e
}

func (r *runRoom) player(account string) missions.Player {
	for _, p := range r.g.missions.host.Run().Players() {
		if p.Char == r.char(account) {
			return p
		}
	}
	r.t.Fatalf("%s is not a player of the run", account)
	return missions.Player{}
}

var twoVtwo = []runs.Seat{{Account: "a1", Team: 0}, {Account: "a2", Team: 0}, {Account: "b1", Team: 1}, {Account: "b2", Team: 1}}

// TestRunPhases: the room waits for its roster, counts down once every
// seat is in, goes live (the mission starts and steps only then), ends
// with the mission's result, and is over CloseTicks later; every player
// hears each phase in a run frame.
func TestRunPhases(t *testing.T) {
	r := newRunRoom(t, false, false, runs.Seat{Account: "a1", Team: 0}, runs.Seat{Account: "b1", Team: 1})
	a := r.join("a1")
	r.ticks(3, components.Drive{})
	if f := r.run(a); f.Phase != "waiting" || f.You != 0 || len(f.Seats) != 2 || f.Seats[0].State != "playing" || f.Seats[1].State != "empty" || f.Ends == 0 {
		t.Fatalf("waiting: %+v", f)
	}
	r.join("b1")
	r.ticks(2, components.Drive{})
	if f := r.run(a); f.Phase != "countdown" {
		t.Fatalf("with both in: %+v", f)
	}
	if r.m.steps != 0 {
		t.Fatal("the mission stepped before live")
	}
	r.ticks(int(runs.CountdownTicks), components.Drive{})
	if f := r.run(a); f.Phase != "live" || r.m.steps == 0 {
		t.Fatalf("after the countdown: %+v, %d steps", f, r.m.steps)
	}
	r.m.step = func(h missions.RunHost) { h.Win(1, "Blue got away.") }
	r.ticks(2, components.Drive{})
	f := r.run(a)
	if f.Phase != "ended" || f.Result == nil || f.Result.Outcome != "won" || f.Result.Winner != 1 || f.Result.Text != "Blue got away." {
		t.Fatalf("ended: %+v %+v", f, f.Result)
	}
	if r.g.Over() {
		t.Fatal("over as it ended")
	}
	r.ticks(int(runs.CloseTicks), components.Drive{})
	if !r.g.Over() || r.run(a).Phase != "closed" {
		t.Fatal("not over CloseTicks after the end")
	}
}

// TestRunHeldUntilLive: until live every player's input is held, the car
// braked where it stands; live, it drives.
func TestRunHeldUntilLive(t *testing.T) {
	r := newRunRoom(t, false, false, runs.Seat{Account: "a1", Team: 0}, runs.Seat{Account: "b1", Team: 1})
	r.join("a1")
	r.ticks(2, components.Drive{})
	car, _ := r.g.World().ByWireID(r.ps["a1"].welcome.Car)
	at := r.g.posOf(car).Pos
	r.ticks(120, components.Drive{Throttle: 1})
	if p := r.g.posOf(car).Pos; p.Sub(at).Len() > 0.1 {
		t.Fatalf("waiting, the car drove %v m", p.Sub(at).Len())
	}
	r.join("b1")
	r.ticks(int(runs.CountdownTicks)-1, components.Drive{Throttle: 1})
	if p := r.g.posOf(car).Pos; p.Sub(at).Len() > 0.1 {
		t.Fatalf("in the countdown, the car drove %v m", p.Sub(at).Len())
	}
	r.ticks(90, components.Drive{Throttle: 1})
	if p := r.g.posOf(car).Pos; p.Sub(at).Len() < 5 {
		t.Fatalf("live, the car drove only %v m", p.Sub(at).Len())
	}
}

// TestRunRefusesNoSeat: a join of an account with no seat is refused with
// the reason before it reaches the room; a spectator may watch.
func TestRunRefusesNoSeat(t *testing.T) {
	r := newRunRoom(t, false, false, twoVtwo...)
	for _, who := range []Who{{Account: "stranger"}, {}} {
		if _, err := r.g.Join(nil, who); !errors.Is(err, runs.ErrNoSeat) {
			t.Errorf("%+v: %v, want no seat", who, err)
		}
	}
	if err := r.g.Refused(Who{Account: "stranger"}); !errors.Is(err, runs.ErrNoSeat) {
		t.Errorf("Refused: %v", err)
	}
	if _, err := r.g.Join(servertestConn(), Who{Spectate: true}); err != nil {
		t.Errorf("a spectator: %v", err)
	}
	r.join("a1")
	r.ticks(1, components.Drive{})
	if _, err := r.g.Join(nil, Who{Account: "a1"}); !errors.Is(err, runs.ErrSeatHeld) {
		t.Errorf("a second connection of a seat: %v", err)
	}
}

// TestRunTeamsAreParties: players are numbered by their team; a mission
// with no friendly fire plays rivals, one with it plays on; hits between
// teammates count against the hitter.
func TestRunTeamsAreParties(t *testing.T) {
	for _, ff := range []bool{false, true} {
		r := newRunRoom(t, false, ff, twoVtwo...)
		r.live("a1", "a2", "b1", "b2")
		for acc, want := range map[string]uint8{"a1": 1, "a2": 1, "b1": 2, "b2": 2} {
			if got := r.g.ids.Get(r.char(acc)).Party; got != want {
				t.Errorf("friendly fire %v: %s is party %d, want %d", ff, acc, got, want)
			}
		}
		rule := map[bool]string{false: "rivals", true: "on"}[ff]
		if r.g.World().Rules.PlayersHurt != rule {
			t.Errorf("friendly fire %v: rule %q, want %q", ff, r.g.World().Rules.PlayersHurt, rule)
		}
		if !ff {
			continue
		}
		// A hit of a1 on a2 (teammates) and one of a1 on b1 (rivals).
		w := r.g.World()
		w.Events = append(w.Events, components.Event{Kind: components.EventHit, Source: r.char("a1"), Target: r.char("a2"), Amount: 10},
			components.Event{Kind: components.EventHit, Source: r.char("a1"), Target: r.char("b1"), Amount: 10})
		r.g.Tick()
		r.ticks(1, components.Drive{})
		f := r.run(r.ps["a1"])
		if s := f.Seats[0]; s.TeamHits != 1 || s.Score != -runs.TeamHitPenalty {
			t.Fatalf("a1 after a hit on a teammate: %+v", s)
		}
	}
}

// TestRunSeatHeldThroughDrop: a player who drops keeps their seat a
// minute, body in the world and input held; back within it they take the
// same character and car; a seat whose minute runs out is gone, its body
// leaves, the mission is told, and a team left with nobody forfeits.
func TestRunSeatHeldThroughDrop(t *testing.T) {
	r := newRunRoom(t, false, false, runs.Seat{Account: "a1", Team: 0}, runs.Seat{Account: "b1", Team: 1})
	r.live("a1", "b1")
	a, b := r.ps["a1"], r.ps["b1"]
	aChar, bChar := r.char("a1"), r.char("b1")
	a.s.Leave()
	r.ticks(2, components.Drive{})
	if f := r.run(b); f.Seats[0].State != "dropped" || f.Seats[0].Connected {
		t.Fatalf("a1 dropped: %+v", f.Seats[0])
	}
	r.ticks(int(runs.HoldTicks)-10, components.Drive{})
	if !r.g.World().Arche.Alive(aChar) {
		t.Fatal("a1's body left within the minute")
	}
	back := join(t, r.g, Who{Account: "a1", Name: "a1"})
	r.ps["a1"] = back
	r.ticks(2, components.Drive{})
	if back.welcome.Character != a.welcome.Character || back.welcome.Car != a.welcome.Car {
		t.Fatalf("a1 back as %d/%d, want %d/%d", back.welcome.Character, back.welcome.Car, a.welcome.Character, a.welcome.Car)
	}
	if f := r.run(back); f.Seats[0].State != "playing" || !f.Seats[0].Connected || f.Phase != "live" {
		t.Fatalf("a1 back: %+v", f)
	}
	_ = aChar

	b.s.Leave()
	r.ticks(int(runs.HoldTicks)+2, components.Drive{})
	if r.g.World().Arche.Alive(bChar) {
		t.Fatal("b1's body stays after the minute")
	}
	if len(r.m.left) != 1 || r.m.left[0].Char != bChar {
		t.Fatalf("the mission was told %+v, want b1's seat gone", r.m.left)
	}
	f := r.run(back)
	if f.Result == nil || f.Result.Outcome != "forfeit" || f.Result.Winner != 0 {
		t.Fatalf("blue left: %+v", f.Result)
	}
}

// TestRunSpawnsSpread: a team's players start at their team's place, a
// car's width apart, each at the first free spot.
func TestRunSpawnsSpread(t *testing.T) {
	seats := []runs.Seat{{Account: "a1", Team: 0}, {Account: "a2", Team: 0}, {Account: "a3", Team: 0}, {Account: "b1", Team: 1}}
	r := newRunRoom(t, false, false, seats...)
	r.live("a1", "a2", "a3", "b1")
	red := levels.Vec2{X: 100, Y: 0}
	var at []levels.Vec2
	for _, acc := range []string{"a1", "a2", "a3"} {
		p := r.g.posOf(r.char(acc)).Pos
		at = append(at, levels.Vec2{X: p.X, Y: p.Y})
	}
	if d := at[0].Sub(red).Len(); d > 0.5 {
		t.Fatalf("the first of red starts %v m from its place", d)
	}
	for i := range at {
		for j := range i {
			if d := at[i].Sub(at[j]).Len(); d < 2.5 || d > 7 {
				t.Errorf("red players %d and %d start %v m apart", i, j, d)
			}
		}
		if d := at[i].Sub(red).Len(); d > 7 {
			t.Errorf("red player %d starts %v m from its place", i, d)
		}
	}
	bp := r.g.posOf(r.char("b1")).Pos
	if d := (levels.Vec2{X: bp.X, Y: bp.Y}).Sub(levels.Vec2{X: -100, Y: 100}).Len(); d > 0.5 {
		t.Errorf("blue starts %v m from its place", d)
	}
}

// TestRunSendBack: a caught player not out is sent back as a team's
// players start, at the wheel of a fresh car at its place.
func TestRunSendBack(t *testing.T) {
	r := newRunRoom(t, false, false, runs.Seat{Account: "a1", Team: 0}, runs.Seat{Account: "b1", Team: 1})
	r.live("a1", "b1")
	r.ticks(120, components.Drive{Throttle: 1})
	oldCar := r.g.ps("a1").s.car
	r.m.step = func(h missions.RunHost) {
		h.SendBack(r.player("a1"))
		r.m.step = nil
	}
	r.ticks(2, components.Drive{})
	s := r.ps["a1"].s
	if s.car == oldCar || r.g.World().Arche.Alive(oldCar) {
		t.Fatal("no fresh car, or the old one stays")
	}
	act, in, _ := r.g.persons.Get(s.char)
	if in.Vehicle != s.car || in.Seat != 0 || act.Act != components.ActDriving {
		t.Fatalf("not at the wheel of the fresh car: %+v %+v", act, in)
	}
	if p := r.g.posOf(s.car).Pos; (levels.Vec2{X: p.X, Y: p.Y}).Sub(levels.Vec2{X: 100, Y: 0}).Len() > 7 {
		t.Fatalf("the fresh car is at %v, not at red's place", p)
	}
}

// ps returns the session probe of account in a run room's test; a helper
// for the tests that reach a probe by account through the server.
func (g *GameServer) ps(account string) *probe { return testProbes[account] }

var testProbes = map[string]*probe{}

func servertestConn() Conn { return heldConn{} }

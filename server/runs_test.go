package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/internal/race"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/missions"
	"github.com/fiveonit/engine/runs"
	"github.com/fiveonit/engine/server/servertest"
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
	for _, p := range r.g.missions.host.RunHost().Players() {
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
	moved := func() float32 {
		p := r.g.posOf(car).Pos
		return float32(math.Hypot(float64(p.X-at.X), float64(p.Y-at.Y)))
	}
	r.ticks(120, components.Drive{Throttle: 1})
	if d := moved(); d > 0.1 {
		t.Fatalf("waiting, the car drove %v m", d)
	}
	r.join("b1")
	r.ticks(int(runs.CountdownTicks)-1, components.Drive{Throttle: 1})
	if d := moved(); d > 0.1 {
		t.Fatalf("in the countdown, the car drove %v m", d)
	}
	r.ticks(90, components.Drive{Throttle: 1})
	if d := moved(); d < 5 {
		t.Fatalf("live, the car drove only %v m", d)
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
		for acc, want := range map[string]uint16{"a1": 1, "a2": 1, "b1": 2, "b2": 2} {
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
	race.Solo(t)
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
	oldCar := r.ps["a1"].s.car
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

func servertestConn() Conn { return servertest.NewMemConn(false, 0) }

// TestRunTakeOutAndSpectate: a player the mission takes out has their
// body out of the world and input held, watches a teammate still in the
// run (a spectate frame says whom), may switch to anybody in the run but
// nobody outside it, and once their team has nobody left watches anybody
// still in it.
func TestRunTakeOutAndSpectate(t *testing.T) {
	r := newRunRoom(t, false, false, append(twoVtwo, runs.Seat{Account: "b3", Team: 1})...)
	r.live("a1", "a2", "b1", "b2", "b3")
	spec := join(t, r.g, Who{Spectate: true})
	r.ps["spectator"] = spec
	aChar := r.char("a1")
	r.m.step = func(h missions.RunHost) {
		h.TakeOut(r.player("a1"))
		r.m.step = nil
	}
	r.ticks(2, components.Drive{})
	a := r.ps["a1"]
	if r.g.World().Arche.Alive(aChar) || !a.s.out {
		t.Fatal("a1's body is still in the world")
	}
	if f := r.run(a); f.Seats[0].State != "out" {
		t.Fatalf("a1's seat: %+v", f.Seats[0])
	}
	sp := a.lastText("spectate")
	if sp == nil || uint32(sp["session"].(float64)) != r.ps["a2"].s.ID() {
		t.Fatalf("a1 watches %v, want a2 (session %d)", sp, r.ps["a2"].s.ID())
	}
	if len(r.m.left) != 0 {
		t.Fatal("the mission was told Leave for a player it took out")
	}
	r.ticks(60, components.Drive{Throttle: 1})
	if n := a.s.InputBuffer(); n > 3 {
		t.Fatalf("a player out of the run holds %d inputs in its queue: its ticks do not run", n)
	}
	// Switch to a rival in the run: allowed; to the spectator: refused.
	b1 := r.ps["b1"].s.ID()
	a.command(fmt.Sprintf(`{"type":"spectate","id":1,"session":%d}`, b1))
	a.command(fmt.Sprintf(`{"type":"spectate","id":2,"session":%d}`, spec.s.ID()))
	r.ticks(2, components.Drive{})
	replies := map[float64]map[string]any{}
	for _, m := range a.texts {
		if m["type"] == "reply" {
			replies[m["id"].(float64)] = m
		}
	}
	if replies[1]["ok"] != true || replies[2]["ok"] != false {
		t.Fatalf("spectate replies %v", replies)
	}
	if sp := a.lastText("spectate"); uint32(sp["session"].(float64)) != b1 {
		t.Fatalf("after the switch a1 watches %v, want b1", sp)
	}
	// A player who plays may not spectate.
	r.ps["b2"].command(fmt.Sprintf(`{"type":"spectate","id":3,"session":%d}`, b1))
	r.ticks(1, components.Drive{})
	if rep := r.ps["b2"].lastText("reply"); rep["ok"] != false {
		t.Fatalf("a player spectating: %v", rep)
	}
	// a2 out too: red has nobody left in the run; a1 watches blue.
	r.m.step = func(h missions.RunHost) {
		h.TakeOut(r.player("a2"))
		r.m.step = nil
	}
	a.command(fmt.Sprintf(`{"type":"spectate","id":4,"session":%d}`, r.ps["a2"].s.ID()))
	r.ticks(3, components.Drive{})
	sp = r.ps["a2"].lastText("spectate")
	if sp == nil || sp["team"].(float64) != 1 {
		t.Fatalf("a2, its team out, watches %v, want a blue player", sp)
	}
}

// TestRunCoopCheckpointAndLateSeat: a co-op run keeps its checkpoint; a
// seat added under way comes in there, and a co-op seat added before any
// checkpoint at the start; a versus seat at its team's place.
func TestRunCoopCheckpointAndLateSeat(t *testing.T) {
	r := newRunRoom(t, true, false, runs.Seat{Account: "a1", Team: 0}, runs.Seat{Account: "a2", Team: 0})
	r.live("a1", "a2")
	if _, err := r.g.AddSeat(runs.Seat{Account: "early", Team: 0}); err != nil {
		t.Fatal(err)
	}
	r.join("early")
	r.ticks(2, components.Drive{})
	if p := r.g.posOf(r.char("early")).Pos; (levels.Vec2{X: p.X, Y: p.Y}).Sub(levels.Vec2{X: 100, Y: 0}).Len() > 10 {
		t.Fatalf("a late seat before any checkpoint came in at %v, not the start", p)
	}
	cp := levels.Vec2{X: 50, Y: -200}
	r.m.step = func(h missions.RunHost) {
		h.Checkpoint(cp, 0)
		r.m.step = nil
	}
	r.ticks(2, components.Drive{})
	i, err := r.g.AddSeat(runs.Seat{Account: "late", Team: 0})
	if err != nil || i != 3 {
		t.Fatalf("AddSeat: %d, %v", i, err)
	}
	r.join("late")
	r.ticks(3, components.Drive{})
	if p := r.g.posOf(r.char("late")).Pos; (levels.Vec2{X: p.X, Y: p.Y}).Sub(cp).Len() > 7 {
		t.Fatalf("the late seat came in at %v, not at the checkpoint %v", p, cp)
	}
	if f := r.run(r.ps["late"]); !f.Seats[3].Late || f.You != 3 {
		t.Fatalf("the late seat's frame: %+v", f)
	}
	if got := len(r.g.missions.host.RunHost().Players()); got != 4 {
		t.Fatalf("the mission has %d players, want 4 with the late seats", got)
	}
	// Sent back in co-op: at the checkpoint.
	r.m.step = func(h missions.RunHost) {
		h.SendBack(r.player("a1"))
		r.m.step = nil
	}
	r.ticks(2, components.Drive{})
	if p := r.g.posOf(r.ps["a1"].s.car).Pos; (levels.Vec2{X: p.X, Y: p.Y}).Sub(cp).Len() > 7 {
		t.Fatalf("sent back to %v, not the checkpoint", p)
	}

	v := newRunRoom(t, false, false, runs.Seat{Account: "a1", Team: 0}, runs.Seat{Account: "b1", Team: 1})
	v.live("a1", "b1")
	if _, err := v.g.AddSeat(runs.Seat{Account: "b2", Team: 1}); err != nil {
		t.Fatal(err)
	}
	v.join("b2")
	v.ticks(2, components.Drive{})
	if p := v.g.posOf(v.char("b2")).Pos; (levels.Vec2{X: p.X, Y: p.Y}).Sub(levels.Vec2{X: -100, Y: 100}).Len() > 7 {
		t.Fatalf("a versus late seat came in at %v, not blue's place", p)
	}
}

// TestRunAddSeatRefused: past the room's size, a team the run lacks, an
// account seated already, a room with no run: refused with the reason,
// nothing changed.
func TestRunAddSeatRefused(t *testing.T) {
	r := newRunRoom(t, false, false, twoVtwo...)
	cases := []struct {
		name string
		seat runs.Seat
		want error
	}{
		{"a team the run lacks", runs.Seat{Account: "c", Team: 2}, runs.ErrNoTeam},
		{"an account seated", runs.Seat{Account: "a1", Team: 1}, runs.ErrDuplicate},
	}
	for _, c := range cases {
		if _, err := r.g.AddSeat(c.seat); !errors.Is(err, c.want) || !errors.Is(err, ErrRunRoster) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	small, err := New(Config{Room: "run", Level: runLevel(t), Seed: 1, MaxPlayers: 2,
		Run: &RunConfig{Mission: r.def, Roster: runs.Roster{Seats: twoVtwo[:2]}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := small.AddSeat(runs.Seat{Account: "x", Team: 1}); !errors.Is(err, runs.ErrFull) {
		t.Errorf("past the room's size: %v", err)
	}
	if _, err := newServer(t).AddSeat(runs.Seat{Account: "x"}); !errors.Is(err, ErrRunRoster) {
		t.Errorf("a room with no run: %v", err)
	}
	if _, err := New(Config{Room: "run", Level: runLevel(t), Run: &RunConfig{Mission: r.def,
		Roster: runs.Roster{Seats: []runs.Seat{{Account: "x"}, {Account: "x", Team: 1}}}}}); !errors.Is(err, runs.ErrDuplicate) {
		t.Errorf("a roster with an account twice: %v", err)
	}
}

// TestRunDebugPaysNothing: a debug command honoured in a run's room makes
// the run pay nothing, and its result says so; nobody resets its level.
func TestRunDebugPaysNothing(t *testing.T) {
	r := newRunRoom(t, true, false, runs.Seat{Account: "a1", Team: 0})
	r.live("a1")
	a := r.ps["a1"]
	cash := func() int64 { _, c := r.g.wanted.Get(r.char("a1")); return c.Amount }
	before := cash()
	r.m.step = func(h missions.RunHost) {
		if h.Paying() {
			h.Pay(r.player("a1"), 100)
		}
	}
	r.ticks(1, components.Drive{})
	if cash() != before+100 {
		t.Fatal("the run did not pay before any debug command")
	}
	a.command(`{"type":"debug","id":1,"cmd":"clock","minutes":600}`)
	a.command(`{"type":"debug","id":2,"cmd":"reset-level"}`)
	r.m.step = func(h missions.RunHost) { h.Pay(r.player("a1"), 100); h.Succeed("Done.") }
	r.ticks(2, components.Drive{})
	if got := cash(); got != before+100 {
		t.Fatalf("the run paid after a debug command: cash %d, want %d", got, before+100)
	}
	f := r.run(a)
	if f.Paying || f.Result == nil || !f.Result.NoPay || f.Result.Outcome != "success" {
		t.Fatalf("the result: %+v %+v", f, f.Result)
	}
	for _, m := range a.texts {
		if m["type"] == "reply" && m["id"].(float64) == 2 && m["ok"] != false {
			t.Fatal("reset-level honoured in a run's room")
		}
	}
}

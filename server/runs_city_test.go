package server

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/games"
	"github.com/fiveonit/engine/internal/race"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/missions"
	"github.com/fiveonit/engine/missions/cityruns"
	"github.com/fiveonit/engine/runs"
	"github.com/fiveonit/engine/systems/city"
	"github.com/fiveonit/engine/textframe"
	"github.com/mlange-42/arche/generic"
)

// cityRun is a run room of a city-jobs run mission on main-city (no
// traffic, no pedestrians, no police), its seats' players joined.
type cityRun struct {
	t   *testing.T
	g   *GameServer
	ps  []*probe
	by  map[string]*probe
	run missions.RunMission // the mission's instance, once live
}

// newCityRun makes a run room of city-jobs' run mission name with seats,
// joins every seat's account (with debug commands when debug is set) and
// runs it to live.
func newCityRun(t *testing.T, name string, debug bool, seats ...runs.Seat) *cityRun {
	t.Helper()
	l, err := levels.Load("main-city")
	if err != nil {
		t.Fatal(err)
	}
	gm, err := games.Lookup("city-jobs")
	if err != nil {
		t.Fatal(err)
	}
	d, ok := gm.Run(name)
	if !ok {
		t.Fatalf("city-jobs has no run %q", name)
	}
	r := &cityRun{t: t, by: map[string]*probe{}}
	def := *d // the same mission, its instance kept for the test
	def.New = func() missions.RunMission { r.run = d.New(); return r.run }
	rules := gm.ForLevel(l)
	rules.Traffic, rules.Pedestrians, rules.Police = 0, 0, false
	r.g, err = New(Config{Room: "run", Level: l, Seed: 7, Game: gm, Rules: rules,
		Run: &RunConfig{Mission: &def, Roster: runs.Roster{Seats: seats}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range seats {
		p := join(t, r.g, Who{Account: s.Account, Name: s.Account, Debug: debug})
		r.ps = append(r.ps, p)
		r.by[s.Account] = p
	}
	r.ticks(int(runs.CountdownTicks)+2, nil)
	if f := r.frame(); f.Phase != "live" || r.run == nil {
		t.Fatalf("not live after the countdown: %+v", f)
	}
	return r
}

// ticks runs n ticks, each connected player sending drive(account) (nil:
// no controls), as a client sends an input every tick.
func (r *cityRun) ticks(n int, drive func(account string) components.Drive) {
	for range n {
		for _, p := range r.ps {
			if p.s.closed || p.s.detached {
				continue
			}
			d := components.Drive{}
			if drive != nil {
				d = drive(p.s.who.Account)
			}
			p.send(d)
		}
		r.g.Tick()
		for _, p := range r.ps {
			p.read()
		}
	}
}

// until runs up to n ticks with drive until the run ends and reports
// whether it did.
func (r *cityRun) until(n int, drive func(account string) components.Drive) bool {
	for range n {
		r.ticks(1, drive)
		if ph, _ := r.g.runs.run.Phase(); ph >= runs.Ended {
			r.ticks(1, nil) // the result's frame
			return true
		}
	}
	return false
}

// frame returns the last run frame the first player still in the room
// got.
func (r *cityRun) frame() textframe.RunFrame {
	r.t.Helper()
	for _, p := range r.ps {
		if !p.s.closed && !p.s.detached {
			return runFrameOf(r.t, p)
		}
	}
	r.t.Fatal("nobody left in the room")
	return textframe.RunFrame{}
}

func runFrameOf(t *testing.T, p *probe) textframe.RunFrame {
	t.Helper()
	m := p.lastText("run")
	if m == nil {
		t.Fatal("no run frame")
	}
	var f textframe.RunFrame
	b, _ := json.Marshal(m)
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// result checks that the run ended with outcome (and winner, for a won
// or forfeit run) and a text holding text, and returns the last frame.
func (r *cityRun) result(outcome string, winner int, text string) textframe.RunFrame {
	r.t.Helper()
	f := r.frame()
	if f.Result == nil || f.Result.Outcome != outcome || !strings.Contains(f.Result.Text, text) ||
		(outcome == "won" || outcome == "forfeit") && f.Result.Winner != winner {
		r.t.Fatalf("result %+v, want %s (winner %d) with %q", f.Result, outcome, winner, text)
	}
	return f
}

// do sends p's command, runs a tick and checks it was honoured.
func (r *cityRun) do(p *probe, format string, args ...any) {
	r.t.Helper()
	ok(r.t, do(r.g, r.ps, p, format, args...))
}

// moveTo moves p (its car when it sits in one) to (x, y) facing yaw.
func (r *cityRun) moveTo(p *probe, x, y, yaw float32) {
	r.t.Helper()
	moveTo(r.t, r.g, r.ps, p, x, y, yaw)
}

// seatOf returns account's seat in the run frame.
func (r *cityRun) seatOf(account string) textframe.RunSeat {
	r.t.Helper()
	for _, s := range r.frame().Seats {
		if s.Name == account {
			return s
		}
	}
	r.t.Fatalf("no seat of %s", account)
	return textframe.RunSeat{}
}

// place returns the room's place id.
func (r *cityRun) place(id string) levels.Spawn {
	r.t.Helper()
	p, ok := r.g.Level().Place(id)
	if !ok {
		r.t.Fatalf("no place %s on the room's level", id)
	}
	return p
}

var (
	crew1 = runs.Seat{Account: "crew1", Team: cityruns.TeamCrew}
	crew2 = runs.Seat{Account: "crew2", Team: cityruns.TeamCrew}
	cop1  = runs.Seat{Account: "cop1", Team: cityruns.TeamPolice}
)

// TestChaseStarts: the teams start at their places on main-city (the
// game's), each player at the wheel of a car of their own, a car's width
// from their teammates; every player sees the drop on the tracker, with
// the timer.
func TestChaseStarts(t *testing.T) {
	r := newCityRun(t, "chase", false, crew1, crew2, cop1)
	for _, c := range []struct {
		account, place string
	}{{"crew1", cityruns.CrewStart}, {"crew2", cityruns.CrewStart}, {"cop1", cityruns.PoliceStart}} {
		p := r.by[c.account]
		if d := r.place(c.place).Pos.Sub(at(r.g, p)).Len(); d > 7 {
			t.Errorf("%s starts %v m from %s", c.account, d, c.place)
		}
		if act, in, _ := r.g.persons.Get(p.s.char); act.Act != components.ActDriving || in.Vehicle != p.s.car {
			t.Errorf("%s is not at the wheel of their car", c.account)
		}
	}
	if d := at(r.g, r.by["crew1"]).Sub(at(r.g, r.by["crew2"])).Len(); d < 2.5 {
		t.Errorf("the crew start %v m apart", d)
	}
	drop := r.place(cityruns.ChaseDrop).Pos
	for _, p := range r.ps {
		tr := p.lastText("tracker")
		m, _ := tr["marker"].([]any)
		if tr["mission"] != "chase" || len(m) != 2 || float32(m[0].(float64)) != drop.X || float32(m[1].(float64)) != drop.Y || tr["ends"] == nil {
			t.Fatalf("%s's tracker %v, want the drop at %v with a timer", p.s.who.Account, tr, drop)
		}
	}
}

// TestChaseCrewDelivers plays the chase to the Crew's win with no debug
// command: the Crew's driver drives up the avenue at full throttle to the
// drop while the Police stand; the Crew win, the driver scores the
// delivery, and every one of the Crew is paid ChaseReward, the Police
// nothing.
func TestChaseCrewDelivers(t *testing.T) {
	race.Solo(t)
	r := newCityRun(t, "chase", false, crew1, crew2, cop1)
	cash0 := map[string]int64{}
	for a, p := range r.by {
		cash0[a] = cash(r.g, p)
	}
	drive := func(a string) components.Drive {
		if a == "crew1" {
			return components.Drive{Throttle: 1}
		}
		return components.Drive{Held: components.BtnHandbrake}
	}
	if !r.until(90*ecs.TickRate, drive) {
		t.Fatalf("the crew never reached the drop: crew1 at %v", at(r.g, r.by["crew1"]))
	}
	f := r.result("won", cityruns.TeamCrew, "drop")
	if f.Result.NoPay || !f.Paying {
		t.Fatalf("the run pays nothing: %+v", f.Result)
	}
	if s := r.seatOf("crew1"); s.Score != cityruns.ChaseDropPoints {
		t.Errorf("the driver's score %d, want %d", s.Score, cityruns.ChaseDropPoints)
	}
	if f.Teams[cityruns.TeamCrew].Score != cityruns.ChaseDropPoints || f.Teams[cityruns.TeamPolice].Score != 0 {
		t.Errorf("team scores %+v", f.Teams)
	}
	for a, p := range r.by {
		want := cash0[a]
		if a != "cop1" {
			want += cityruns.ChaseReward
		}
		if got := cash(r.g, p); got != want {
			t.Errorf("%s's cash %d, want %d", a, got, want)
		}
	}
}

// catchBy parks cop's car beside crew's standing car and waits for the
// catch: it returns the notice the crew got.
func (r *cityRun) catchBy(crew, cop *probe) string {
	r.t.Helper()
	c := at(r.g, crew)
	r.moveTo(cop, c.X+4, c.Y, math.Pi/2)
	from := len(crew.texts)
	stand := func(string) components.Drive { return components.Drive{Held: components.BtnHandbrake} }
	for range (cityruns.ChaseCatchSeconds + 1) * ecs.TickRate {
		r.ticks(1, stand)
		for _, m := range crew.texts[from:] {
			if m["type"] == "notice" && strings.Contains(m["text"].(string), "Caught") {
				return m["text"].(string)
			}
		}
	}
	r.t.Fatalf("no catch: %s at %v, %s at %v", crew.s.who.Account, at(r.g, crew), cop.s.who.Account, at(r.g, cop))
	return ""
}

// TestChasePoliceCatchEveryone plays the chase to the Police's win: a
// Police car parked beside a Crew car that stands is a catch after
// ChaseCatchSeconds (not before); the first catch sends the Crew player
// back to the Crew's start in a fresh car, the second takes them out of
// the run; with every one of the Crew out the Police win, the catcher
// scoring each catch.
func TestChasePoliceCatchEveryone(t *testing.T) {
	r := newCityRun(t, "chase", true, crew1, crew2, cop1)
	cop := r.by["cop1"]
	start := r.place(cityruns.CrewStart).Pos
	// crew2 out of the way while crew1 is caught at the start, where
	// crew2 would be caught with them.
	r.moveTo(r.by["crew2"], 1.75, 100, math.Pi/2)
	for _, a := range []string{"crew1", "crew2"} {
		crew := r.by[a]
		// Away from the start: the sending back shows.
		r.moveTo(crew, 1.75, -100, math.Pi/2)
		car := crew.s.car
		if text := r.catchBy(crew, cop); !strings.Contains(text, "sent back") {
			t.Fatalf("%s's first catch: %q", a, text)
		}
		r.ticks(1, nil)
		if crew.s.car == car || r.g.World().Arche.Alive(car) {
			t.Fatalf("%s has no fresh car, or the old one stays", a)
		}
		if d := at(r.g, crew).Sub(start).Len(); d > 10 {
			t.Fatalf("%s sent back to %v, %v m from the start", a, at(r.g, crew), d)
		}
		if text := r.catchBy(crew, cop); !strings.Contains(text, "out") {
			t.Fatalf("%s's second catch: %q", a, text)
		}
		r.ticks(2, nil)
		if s := r.seatOf(a); s.State != "out" {
			t.Fatalf("%s after two catches: %+v", a, s)
		}
		if r.g.World().Arche.Alive(crew.s.char) {
			t.Fatalf("%s's body is still in the world", a)
		}
	}
	r.ticks(1, nil)
	f := r.result("won", cityruns.TeamPolice, "caught every one")
	if s := r.seatOf("cop1"); s.Score != 4*cityruns.ChaseCatchPoints {
		t.Errorf("the catcher's score %d, want %d", s.Score, 4*cityruns.ChaseCatchPoints)
	}
	if !f.Result.NoPay {
		t.Error("a run with debug commands pays")
	}
}

// TestChaseNoCatchOnTheMove: a Police car beside a Crew car that drives
// on is no catch, nor one that leaves before ChaseCatchSeconds.
func TestChaseNoCatchOnTheMove(t *testing.T) {
	r := newCityRun(t, "chase", true, crew1, cop1)
	crew, cop := r.by["crew1"], r.by["cop1"]
	c := at(r.g, crew)
	r.moveTo(cop, c.X+4, c.Y, math.Pi/2)
	both := func(string) components.Drive { return components.Drive{Throttle: 1} }
	r.ticks((cityruns.ChaseCatchSeconds+1)*ecs.TickRate, both)
	c = at(r.g, crew)
	r.moveTo(cop, c.X+4, c.Y, math.Pi/2)
	r.ticks((cityruns.ChaseCatchSeconds*ecs.TickRate)-10, func(string) components.Drive { return components.Drive{Held: components.BtnHandbrake} })
	r.moveTo(cop, c.X+4, c.Y+40, math.Pi/2)
	r.ticks(ecs.TickRate, nil)
	for _, n := range crew.notices("") {
		if strings.Contains(n, "Caught") {
			t.Fatalf("a catch: %q", n)
		}
	}
	if s := r.seatOf("crew1"); s.State != "playing" {
		t.Fatalf("crew1 %+v", s)
	}
}

// heldCatch parks cop's car beside the car of crew, whose connection
// dropped, and waits for the catch: it returns the notice cop got (the
// held player gets none).
func (r *cityRun) heldCatch(crew, cop *probe) string {
	r.t.Helper()
	c := at(r.g, crew)
	r.moveTo(cop, c.X+4, c.Y, math.Pi/2)
	from := len(cop.texts)
	for range (cityruns.ChaseCatchSeconds + 1) * ecs.TickRate {
		r.ticks(1, func(string) components.Drive { return components.Drive{Held: components.BtnHandbrake} })
		for _, m := range cop.texts[from:] {
			if m["type"] == "notice" && strings.Contains(m["text"].(string), "Caught") {
				return m["text"].(string)
			}
		}
	}
	r.t.Fatalf("no catch: %s held at %v, %s at %v", crew.s.who.Account, at(r.g, crew), cop.s.who.Account, at(r.g, cop))
	return ""
}

// speedOf returns how fast e goes (m/s).
func (r *cityRun) speedOf(e ecs.Entity) float32 {
	_, v := r.g.poses.Get(e)
	return float32(math.Hypot(float64(v.Lin.X), float64(v.Lin.Y)))
}

// TestChaseCatchesAHeldSeat: a Crew player whose connection drops at
// full throttle keeps their seat: their car stays in the world and stands
// braked near where it was, whatever they last sent. It can be hurt: a
// Police car rams it. It is caught like anyone's: a Police car parked
// beside it catches them, who are sent back to the Crew's start in a
// fresh car, still held; caught again there, they are out, and with no
// Crew left the Police win.
func TestChaseCatchesAHeldSeat(t *testing.T) {
	r := newCityRun(t, "chase", true, crew1, cop1)
	crew, cop := r.by["crew1"], r.by["cop1"]
	r.moveTo(crew, 1.75, -100, math.Pi/2)
	r.moveTo(cop, 1.75, -200, math.Pi/2)
	r.ticks(ecs.TickRate, func(a string) components.Drive {
		if a == "crew1" {
			return components.Drive{Throttle: 1}
		}
		return components.Drive{Held: components.BtnHandbrake}
	})
	car, char := crew.s.car, crew.s.char
	if v := r.speedOf(car); v < 2*cityruns.ChaseSlow {
		t.Fatalf("crew1 drives at only %v m/s", v)
	}
	dropped := at(r.g, crew)
	crew.s.Leave()
	r.ticks(3*ecs.TickRate, nil)
	if s := r.seatOf("crew1"); s.State != "dropped" || s.Connected {
		t.Fatalf("crew1 after the drop: %+v", s)
	}
	if !r.g.World().Arche.Alive(char) || !r.g.World().Arche.Alive(car) {
		t.Fatal("crew1's character or car left the world")
	}
	if _, in, _ := r.g.persons.Get(char); in.Vehicle != car {
		t.Fatal("crew1 is no longer at the wheel")
	}
	stood := at(r.g, crew)
	if v := r.speedOf(car); v > 0.1 {
		t.Fatalf("the held car still goes at %v m/s", v)
	}
	if d := stood.Sub(dropped).Len(); d > 3 {
		t.Fatalf("the held car stood %v m from where it dropped", d)
	}

	// A hit: the Police car drives into the held car's back.
	r.moveTo(cop, stood.X, stood.Y-30, math.Pi/2)
	hp := r.g.health.Get(car).HP
	rammed := false
	for range 5 * ecs.TickRate {
		r.ticks(1, func(string) components.Drive { return components.Drive{Throttle: 1} })
		if r.g.health.Get(car).HP < hp {
			rammed = true
			break
		}
	}
	if !rammed {
		t.Fatalf("the rammed held car keeps %d hp: it at %v, the Police car at %v", hp, at(r.g, crew), at(r.g, cop))
	}
	// The Police car backs off while the pushed held car brakes to a
	// stand again.
	r.moveTo(cop, stood.X, stood.Y-200, math.Pi/2)
	r.ticks(3*ecs.TickRate, func(string) components.Drive { return components.Drive{Held: components.BtnHandbrake} })
	if v := r.speedOf(car); v > 0.1 {
		t.Fatalf("the rammed held car still goes at %v m/s", v)
	}

	if text := r.heldCatch(crew, cop); !strings.Contains(text, "sent back") {
		t.Fatalf("the held player's first catch: %q", text)
	}
	r.ticks(1, nil)
	if crew.s.car == car || r.g.World().Arche.Alive(car) {
		t.Fatal("the held player has no fresh car, or the old one stays")
	}
	if d := at(r.g, crew).Sub(r.place(cityruns.CrewStart).Pos).Len(); d > 10 {
		t.Fatalf("the held player sent back %v m from the start", d)
	}
	if s := r.seatOf("crew1"); s.State != "dropped" {
		t.Fatalf("crew1 sent back: %+v", s)
	}
	if text := r.heldCatch(crew, cop); !strings.Contains(text, "out") {
		t.Fatalf("the held player's second catch: %q", text)
	}
	r.ticks(2, nil)
	r.result("won", cityruns.TeamPolice, "caught every one")
	if s := r.seatOf("cop1"); s.Score != 2*cityruns.ChaseCatchPoints {
		t.Errorf("the catcher's score %d, want %d", s.Score, 2*cityruns.ChaseCatchPoints)
	}
}

// TestChaseOutOfTime: the Crew stand at their start until the timer runs
// out; the Police win and are paid, the Crew not.
func TestChaseOutOfTime(t *testing.T) {
	if testing.Short() {
		t.Skip("plays the chase's 5 minutes: the pass without -short runs it")
	}
	r := newCityRun(t, "chase", false, crew1, cop1)
	c0, p0 := cash(r.g, r.by["crew1"]), cash(r.g, r.by["cop1"])
	if r.until((cityruns.ChaseSeconds-1)*ecs.TickRate, nil) {
		t.Fatalf("ended before the time: %+v", r.frame().Result)
	}
	if !r.until(2*ecs.TickRate, nil) {
		t.Fatal("no end once the time ran out")
	}
	r.result("won", cityruns.TeamPolice, "Out of time")
	if cash(r.g, r.by["crew1"]) != c0 || cash(r.g, r.by["cop1"]) != p0+cityruns.ChaseReward {
		t.Fatalf("cash %d %d, was %d %d", cash(r.g, r.by["crew1"]), cash(r.g, r.by["cop1"]), c0, p0)
	}
}

// TestChaseForfeit: a team whose every player leaves forfeits: the other
// wins by forfeit, whichever it is.
func TestChaseForfeit(t *testing.T) {
	for _, c := range []struct {
		leaves []string
		winner int
	}{
		{[]string{"cop1"}, cityruns.TeamCrew},
		{[]string{"crew1", "crew2"}, cityruns.TeamPolice},
	} {
		t.Run(fmt.Sprint(c.leaves), func(t *testing.T) {
			r := newCityRun(t, "chase", false, crew1, crew2, cop1)
			for _, a := range c.leaves {
				r.by[a].command(`{"type":"leave"}`)
			}
			r.ticks(1, nil)
			for _, a := range c.leaves {
				r.by[a].s.Leave()
			}
			if !r.until(10, nil) {
				t.Fatalf("no end after %v left", c.leaves)
			}
			r.result("forfeit", c.winner, "forfeit")
		})
	}
}

// TestRunMissionsStepAllocateNothing: in their steady state (a chase
// under way, a heist on its way to the yard) the run missions' Step
// allocates nothing.
func TestRunMissionsStepAllocateNothing(t *testing.T) {
	for _, name := range []string{"chase", "yard-heist"} {
		seats := []runs.Seat{crew1, cop1}
		if name == "yard-heist" {
			seats = []runs.Seat{crew1, crew2}
		}
		r := newCityRun(t, name, false, seats...)
		r.ticks(ecs.TickRate, func(string) components.Drive { return components.Drive{Throttle: 0.3} })
		h := r.g.missions.host.RunHost()
		if h == nil {
			t.Fatalf("%s: no run", name)
		}
		if n := testing.AllocsPerRun(100, func() { r.run.Step(h) }); n != 0 {
			t.Errorf("%s: %v allocations per Step", name, n)
		}
		if h := r.g.missions.host.RunHost(); h == nil {
			t.Fatalf("%s ended in the measure", name)
		}
	}
}

// heistRun is a yard heist of crew1 and crew2 under way, the yard's
// guards dead (debug commands stand in for the fight: this run pays
// nothing).
func heistRun(t *testing.T, seats ...runs.Seat) *cityRun {
	t.Helper()
	r := newCityRun(t, "yard-heist", true, seats...)
	for _, s := range sentriesOf(r.g) {
		wid := r.g.ids.Get(s.e).WireID
		r.do(r.by["crew1"], `{"type":"debug","cmd":"kill","target":%d}`, wid)
	}
	return r
}

// kill kills p's character and waits until it comes back (RespawnTicks):
// it returns where p came back, on foot.
func (r *cityRun) kill(p *probe) levels.Vec2 {
	r.t.Helper()
	r.do(p, `{"type":"debug","cmd":"kill"}`)
	r.ticks(city.RespawnTicks+2, nil)
	if act, in, _ := r.g.persons.Get(p.s.char); act.Act != components.ActOnFoot || !in.Vehicle.IsZero() {
		r.t.Fatalf("%s not back on foot after a death: %+v", p.s.who.Account, act)
	}
	return at(r.g, p)
}

// notice runs up to n ticks until p has got a notice holding text (since
// it joined) and reports whether it has.
func (r *cityRun) notice(p *probe, n int, text string) bool {
	for range n {
		r.ticks(1, nil)
		for _, m := range p.notices("") {
			if strings.Contains(m, text) {
				return true
			}
		}
	}
	return false
}

// crateSlot returns the slot of the heist's crate that holds the
// strongbox, -1 for none.
func (r *cityRun) crateSlot() int {
	loot, _ := r.g.World().Items.ByName(cityruns.HeistLoot)
	f := generic.NewFilter1[components.Container]()
	q := f.Query(r.g.World().Arche)
	slot := -1
	for q.Next() {
		for k, st := range q.Get().Slots {
			if st.Item == loot {
				slot = k
			}
		}
	}
	return slot
}

// TestHeistSucceeds plays the yard heist to its success through both
// checkpoints, a crew of four. The crew start at heist-start at the wheel,
// at night; the tracker marks the yard's gate. Before any checkpoint a
// fallen player comes back at the start. The driver with a yard key
// drives in through the gate: the first checkpoint, inside the gate,
// where a fallen player now comes back. The strongbox is locked in the west crate: a crowbar
// forces it and the strongbox is taken: the second checkpoint, where it
// was taken. Its carrier brings it to the drop: the run succeeds, the
// strongbox goes, and the result says the run paid nothing (debug
// commands).
func TestHeistSucceeds(t *testing.T) {
	race.Solo(t)
	r := heistRun(t, crew1, crew2, runs.Seat{Account: "crew3"}, runs.Seat{Account: "crew4"})
	a := r.by["crew1"]
	start := r.place(cityruns.HeistStart).Pos
	if d := at(r.g, a).Sub(start).Len(); d > 7 {
		t.Fatalf("crew1 starts %v m from heist-start", d)
	}
	if h := r.g.World().Clock.Minutes(); h < cityruns.HeistNight || h > cityruns.HeistNight+5 {
		t.Fatalf("the clock at %v minutes, want about %d", h, cityruns.HeistNight)
	}
	if tr := a.lastText("tracker"); !strings.Contains(tr["objective"].(string), "yard") {
		t.Fatalf("tracker %v", tr)
	}
	// A fall before any checkpoint: back at the start.
	if at := r.kill(r.by["crew2"]); at.Sub(start).Len() > 10 {
		t.Fatalf("crew2 came back at %v, not at the start %v", at, start)
	}
	// Through the gate at the wheel with a yard key.
	r.do(a, `{"type":"debug","cmd":"give-item","item":"yard-key"}`)
	r.moveTo(a, 241.75, 194, math.Pi/2)
	for range 8 * ecs.TickRate {
		if at(r.g, a).Y > 210 {
			break
		}
		r.ticks(1, func(acc string) components.Drive {
			if acc == "crew1" {
				return components.Drive{Throttle: 0.4}
			}
			return components.Drive{}
		})
	}
	if !r.notice(a, 2, "Checkpoint: in the yard") {
		t.Fatalf("no checkpoint in the yard: crew1 at %v, notices %q", at(r.g, a), a.notices(""))
	}
	inside := levels.Vec2{X: 240, Y: 202.25 + cityruns.HeistInside}
	if at := r.kill(r.by["crew3"]); at.Sub(inside).Len() > 4 {
		t.Fatalf("crew3 came back at %v, not at the yard's checkpoint %v", at, inside)
	}
	// The crate forced, the strongbox taken.
	r.moveTo(a, 214, 228, math.Pi/2) // into the yard's west side
	leaveCar(t, r.g, r.ps, a)
	r.moveTo(a, 212, 233.5, 0)
	r.do(a, `{"type":"debug","cmd":"give-item","item":"crowbar"}`)
	r.do(a, `{"type":"use","slot":%d}`, slotOf(r.g, a, "crowbar"))
	slot := r.crateSlot()
	if slot < 0 {
		t.Fatal("no strongbox in a crate")
	}
	r.do(a, `{"type":"take","slot":%d}`, slot)
	if !r.notice(a, 2, "Checkpoint: the strongbox") {
		t.Fatalf("no checkpoint with the strongbox: notices %q", a.notices(""))
	}
	taken := at(r.g, a)
	if at := r.kill(r.by["crew4"]); at.Sub(taken).Len() > 4 {
		t.Fatalf("crew4 came back at %v, not where the strongbox was taken %v", at, taken)
	}
	if tr := a.lastText("tracker"); !strings.Contains(tr["objective"].(string), "drop") {
		t.Fatalf("tracker with the strongbox %v", tr)
	}
	// To the drop.
	drop := r.place(cityruns.HeistDrop).Pos
	r.moveTo(a, drop.X, drop.Y+5, math.Pi/2)
	if !r.until(3, nil) {
		t.Fatalf("no end at the drop: notices %q", a.notices(""))
	}
	f := r.result("success", 0, "strongbox is in")
	if !f.Result.NoPay {
		t.Error("the result does not say the run paid nothing")
	}
	if slotOf(r.g, a, cityruns.HeistLoot) >= 0 {
		t.Error("the strongbox is left with its carrier")
	}
}

// TestHeistFails plays the yard heist to its failures: the time runs out;
// the whole crew is down at once; one of the crew falls HeistLives times
// and is out (their seat out, their body gone), then the other falls.
func TestHeistFails(t *testing.T) {
	t.Run("out of time", func(t *testing.T) {
		if testing.Short() {
			t.Skip("plays the heist's 10 minutes: the pass without -short runs it")
		}
		r := newCityRun(t, "yard-heist", false, crew1, crew2)
		if r.until((cityruns.HeistSeconds-1)*ecs.TickRate, nil) {
			t.Fatalf("ended before the time: %+v", r.frame().Result)
		}
		if !r.until(2*ecs.TickRate, nil) {
			t.Fatal("no end once the time ran out")
		}
		r.result("failure", 0, "Out of time")
	})
	t.Run("everyone down", func(t *testing.T) {
		r := heistRun(t, crew1, crew2)
		for _, p := range r.ps {
			p.command(`{"type":"debug","cmd":"kill"}`)
		}
		if !r.until(2, nil) {
			t.Fatal("no end with the crew down")
		}
		r.result("failure", 0, "crew is down")
	})
	t.Run("out, then down", func(t *testing.T) {
		r := heistRun(t, crew1, crew2)
		a, b := r.by["crew1"], r.by["crew2"]
		for range cityruns.HeistLives - 1 {
			r.kill(b)
		}
		r.do(b, `{"type":"debug","cmd":"kill"}`)
		r.ticks(2, nil)
		if s := r.seatOf("crew2"); s.State != "out" {
			t.Fatalf("crew2 after %d falls: %+v", cityruns.HeistLives, s)
		}
		if r.g.World().Arche.Alive(b.s.char) {
			t.Fatal("crew2's body is still in the world")
		}
		if ph, _ := r.g.runs.run.Phase(); ph != runs.Live {
			t.Fatalf("the run ended with crew1 standing: %+v", r.frame().Result)
		}
		a.command(`{"type":"debug","cmd":"kill"}`)
		if !r.until(3, nil) {
			t.Fatal("no end with crew1 down and crew2 out")
		}
		r.result("failure", 0, "crew is down")
	})
}

package server

import (
	"errors"
	"fmt"
	"sync"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/missions"
	"github.com/fiveonit/engine/runs"
	"github.com/fiveonit/engine/systems"
	"github.com/fiveonit/engine/systems/city"
	"github.com/fiveonit/engine/systems/missionhost"
	"github.com/fiveonit/engine/textframe"
)

// RunConfig makes a room a run room: it plays one run mission for a
// roster of accounts in seats (package runs). The room waits for its
// roster, counts down, goes live, ends with a result, and then closes
// (GameServer.Over). Its join refuses an account with no seat; its
// players are numbered in the simulation by their team (Identity.Party
// is the team's index plus one); it holds a dropped player's place a
// minute whatever Config.RejoinWindow says; nobody resets its level; and
// one debug command honoured in it makes the run pay nothing.
type RunConfig struct {
	// Mission is the run mission (a game's: games.Game.Runs).
	Mission *missions.RunDef
	// Roster is who plays: accounts in seats, seats in the mission's
	// teams.
	Roster runs.Roster
}

// ErrRunRoster is returned by New and AddSeat for a run the room cannot
// play: a bad run mission, or a roster or seat the run refuses.
var ErrRunRoster = fmt.Errorf("server: bad run")

// runsFeature plays a run room's run: the seats, the phases, the input
// held until live, the teams as parties, the spawns, the mission's
// instance (through the MissionHost, with this feature as its
// RunControl), the score, the result and the run frames.
type runsFeature struct {
	noCommands
	g    *GameServer
	def  *missions.RunDef
	host *missionhost.System
	city *city.System

	mu  sync.Mutex // run: admit and AddSeat read it from any goroutine
	run *runs.Run

	seat    perSession[int] // a session's seat plus one, 0 none
	sent    perSession[uint32]
	started bool // the mission's instance was started
	over    bool // the run reached Closed: the room closes

	checkpoint levels.Spawn // co-op: where the crew comes back
	saved      bool         // a checkpoint was saved
}

// newRunsFeature sets up a run room's run, refusing a bad mission or
// roster with ErrRunRoster.
func newRunsFeature(g *GameServer, rc *RunConfig) (*runsFeature, error) {
	if rc.Mission == nil {
		return nil, fmt.Errorf("%w: no run mission", ErrRunRoster)
	}
	if err := rc.Mission.Check(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRunRoster, err)
	}
	mode := runs.Versus
	if rc.Mission.Coop {
		mode = runs.Coop
	}
	seats := g.cfg.MaxPlayers // a seat is a player of the room
	if m := rc.Mission.MaxSeats; m > 0 {
		seats = min(seats, m)
	}
	run, err := runs.New(runs.Config{Mode: mode, Teams: len(rc.Mission.Teams), MaxSeats: seats}, rc.Roster, g.w.Tick())
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRunRoster, err)
	}
	for _, t := range rc.Mission.Teams {
		if _, ok := g.cfg.Level.Place(t.Spawn); t.Spawn != "" && !ok {
			return nil, fmt.Errorf("%w: team %q starts at %q, which level %s has not", ErrRunRoster, t.Name, t.Spawn, g.cfg.Level.Name)
		}
	}
	f := &runsFeature{g: g, def: rc.Mission, run: run, host: systems.Missions(g.w),
		seat: newPerSession[int](g.cfg.MaxPlayers), sent: newPerSession[uint32](g.cfg.MaxPlayers)}
	f.city, _ = g.w.Sched.System(city.Name).(*city.System)
	if f.host == nil {
		return nil, fmt.Errorf("%w: the room runs no MissionHost", ErrRunRoster)
	}
	if f.city != nil && rc.Mission.Coop {
		f.city.RespawnAt = f.respawnAt // a co-op crew comes back at its checkpoint
	}
	return f, nil
}

// respawnAt says where a co-op seat's player who died comes back (the
// city's RespawnAt): at the crew's last checkpoint, or their team's place
// before any. false for anyone else: the rules' place.
func (f *runsFeature) respawnAt(char ecs.Entity) (levels.Spawn, bool) {
	i := f.Seat(char)
	if i < 0 {
		return levels.Spawn{}, false
	}
	return f.place(f.teamOfSeat(i))
}

// runRules returns rules made the run's: "rivals" (no hurt within a team)
// unless the mission allows friendly fire, then "on".
func runRules(r ecs.Rules, d *missions.RunDef) ecs.Rules {
	r.PlayersHurt = "rivals"
	if d.FriendlyFire {
		r.PlayersHurt = "on"
	}
	return r
}

// admit refuses a join whose account has no seat, whose seat is gone or
// played by another connection (but for a reconnect token: the core takes
// the place over), and any join once the run is over. A spectator may
// watch.
func (f *runsFeature) admit(who Who) error {
	if who.Spectate {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	_, err := f.run.Admit(who.Account)
	if errors.Is(err, runs.ErrSeatHeld) && who.Rejoin != "" {
		return nil
	}
	return err
}

// seatOf returns s's seat, -1 for none.
func (f *runsFeature) seatOf(s *Session) int { return *f.seat.of(s) - 1 }

// spawnAt places a seat's player as its team's players start: at their
// team's place, or in co-op at the last checkpoint, a car's width from
// whoever is there; false for a spectator or a team with no place.
func (f *runsFeature) spawnAt(s *Session) (components.Vec3, float32, bool) {
	f.mu.Lock()
	i, ok := f.run.SeatOf(s.who.Account)
	f.mu.Unlock()
	if !ok || s.who.Spectate || f.city == nil {
		return components.Vec3{}, 0, false
	}
	place, ok := f.place(f.teamOfSeat(i))
	if !ok {
		return components.Vec3{}, 0, false
	}
	pos, _ := f.city.SpotNear(f.g.w, place.Pos, place.Yaw)
	return pos, place.Yaw, true
}

// place returns where team t's players start: the co-op checkpoint once
// saved, else the team's place (in co-op, team 0's for a team with none).
func (f *runsFeature) place(t int) (levels.Spawn, bool) {
	if f.run.Mode() == runs.Coop && f.saved {
		return f.checkpoint, true
	}
	if p, ok := f.g.cfg.Level.Place(f.def.Teams[t].Spawn); ok {
		return p, true
	}
	if f.run.Mode() == runs.Coop && t != 0 {
		return f.place(0)
	}
	return levels.Spawn{}, false
}

// enter takes s's seat: connected, numbered by its team.
func (f *runsFeature) enter(s *Session) {
	f.seat.reset(s)
	f.sent.reset(s)
	if s.who.Spectate {
		return
	}
	f.mu.Lock()
	i, ok := f.run.SeatOf(s.who.Account)
	if ok {
		f.run.Connect(i, f.g.w.Tick())
	}
	f.mu.Unlock()
	if !ok {
		return // admit refused it: enter runs only after it
	}
	*f.seat.of(s) = i + 1
	if f.g.w.Arche.Alive(s.char) {
		f.g.ids.Get(s.char).Party = uint16(f.teamOfSeat(i) + 1)
	}
	s.hold = true
}

// resume takes s's seat back: its player came back within the minute.
func (f *runsFeature) resume(s *Session) {
	f.sent.reset(s)
	if i := f.seatOf(s); i >= 0 {
		f.mu.Lock()
		f.run.Connect(i, f.g.w.Tick())
		f.mu.Unlock()
	}
}

// drop holds s's seat: its connection dropped.
func (f *runsFeature) drop(s *Session) {
	if i := f.seatOf(s); i >= 0 {
		f.mu.Lock()
		f.run.Drop(i, f.g.w.Tick())
		f.mu.Unlock()
	}
}

// leave lets s's seat go for good: its player left, or did not come back
// in time. Its body leaves the world with it, and the mission hears it.
func (f *runsFeature) leave(s *Session) {
	if i := f.seatOf(s); i >= 0 {
		f.mu.Lock()
		f.run.Leave(i, f.g.w.Tick())
		f.mu.Unlock()
		f.host.LeaveRun(s.char)
	}
}

// tick moves the run on: its phases, the mission started once live and
// ended with the run, the input held until live, the hits on teammates,
// the room's close.
func (f *runsFeature) tick() {
	g := f.g
	now := g.w.Tick()
	f.mu.Lock()
	f.run.Tick(now)
	phase, _ := f.run.Phase()
	f.mu.Unlock()
	switch {
	case phase == runs.Live && !f.started:
		f.started = true
		if err := f.host.StartRun(g.w, f.def, f); err != nil {
			f.end(false, "The run could not start: "+err.Error())
		}
	case phase >= runs.Ended && f.started:
		f.mu.Lock()
		res := f.run.Result()
		f.mu.Unlock()
		f.host.EndRun(res.Outcome == runs.OutcomeSuccess || res.Outcome == runs.OutcomeWon, res.Text)
	}
	if phase == runs.Closed {
		f.over = true
	}
	for _, s := range g.sessions {
		if i := f.seatOf(s); i >= 0 {
			s.hold = phase != runs.Live || s.out
		}
	}
	if phase == runs.Live {
		f.teamHits()
	}
}

// teamHits counts the last step's hits between teammates against the
// hitters.
func (f *runsFeature) teamHits() {
	for _, e := range f.g.w.Events {
		if e.Kind != components.EventHit || e.Source == e.Target {
			continue
		}
		a, b := f.sessionOf(e.Source), f.sessionOf(e.Target)
		if a == nil || b == nil {
			continue
		}
		ia, ib := f.seatOf(a), f.seatOf(b)
		if ia < 0 || ib < 0 || f.teamOfSeat(ia) != f.teamOfSeat(ib) {
			continue
		}
		f.mu.Lock()
		f.run.TeamHit(ia)
		f.mu.Unlock()
	}
}

// sessionOf returns the session whose character (or car, at the wheel)
// e is, nil for none.
func (f *runsFeature) sessionOf(e ecs.Entity) *Session {
	if e.IsZero() {
		return nil
	}
	for _, s := range f.g.sessions {
		if !s.closed && (s.char == e || s.car == e && f.driving(s)) {
			return s
		}
	}
	return nil
}

// driving reports whether s sits at the wheel of its car.
func (f *runsFeature) driving(s *Session) bool {
	if !f.g.w.Arche.Alive(s.char) {
		return false
	}
	_, in, _ := f.g.persons.Get(s.char)
	return in.Vehicle == s.car && in.Seat == 0
}

// end ends the run that is not over: success or failure (co-op, or a
// versus with no winner).
func (f *runsFeature) end(success bool, text string) {
	out := runs.OutcomeFailure
	if success {
		out = runs.OutcomeSuccess
	}
	f.mu.Lock()
	f.run.End(runs.Result{Outcome: out, Text: text}, f.g.w.Tick())
	f.mu.Unlock()
}

// noPay makes the run pay nothing: a debug command was honoured.
func (f *runsFeature) noPay() {
	f.mu.Lock()
	f.run.NoPay()
	f.mu.Unlock()
}

// teamOfSeat returns seat i's team.
func (f *runsFeature) teamOfSeat(i int) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.run.Seats()[i].Team
}

// notify sends s the run frame when the run changed since it was told.
func (f *runsFeature) notify(s *Session) bool {
	f.mu.Lock()
	rev := f.run.Revision()
	f.mu.Unlock()
	if *f.sent.of(s) == rev {
		return true
	}
	*f.sent.of(s) = rev
	return f.g.sendText(s, f.frame(f.seatOf(s)))
}

// frame is the run frame for seat you (-1: a spectator). It allocates: it
// goes when the run changes.
func (f *runsFeature) frame(you int) textframe.RunFrame {
	g := f.g
	f.mu.Lock()
	defer f.mu.Unlock()
	phase, since := f.run.Phase()
	fr := textframe.RunFrame{Type: "run", Mission: f.def.Name, Title: f.def.Title, Mode: f.run.Mode().String(),
		Phase: phase.String(), Tick: g.w.Tick(), You: you, Paying: f.run.Paying(),
		Teams: make([]textframe.RunTeam, len(f.def.Teams)), Seats: make([]textframe.RunSeat, 0, len(f.run.Seats()))}
	switch phase {
	case runs.Waiting:
		fr.Ends = since + runs.WaitTicks
	case runs.Countdown:
		fr.Ends = since + runs.CountdownTicks
	case runs.Ended:
		fr.Ends = since + runs.CloseTicks
	}
	for t, team := range f.def.Teams {
		fr.Teams[t] = textframe.RunTeam{Name: team.Name, Score: f.run.TeamScore(t)}
	}
	for i, st := range f.run.Seats() {
		rs := textframe.RunSeat{Seat: i, Name: st.Name, Team: st.Team, State: st.State.String(), Score: st.Score,
			TeamHits: st.TeamHits, Late: st.Late}
		if rs.Name == "" {
			rs.Name = st.Account
		}
		for _, s := range g.sessions {
			if f.seatOf(s) == i && !s.closed {
				rs.Session, rs.Player, rs.Connected = s.id, s.player, !s.detached
				if s.who.Name != "" {
					rs.Name = s.who.Name
				}
			}
		}
		fr.Seats = append(fr.Seats, rs)
	}
	if res := f.run.Result(); res.Outcome != runs.OutcomeNone {
		fr.Result = &textframe.RunResult{Outcome: res.Outcome.String(), Winner: res.Winner, Text: res.Text, NoPay: res.NoPay}
	}
	return fr
}

// The missionhost.RunControl methods: the mission's run actions, on the
// room's goroutine from the mission's methods.

// Team returns the team of char's seat, -1 for none.
func (f *runsFeature) Team(char ecs.Entity) int {
	if i := f.Seat(char); i >= 0 {
		return f.teamOfSeat(i)
	}
	return -1
}

// Seat returns char's seat, -1 for none.
func (f *runsFeature) Seat(char ecs.Entity) int {
	for _, s := range f.g.sessions {
		if s.char == char && !s.closed {
			return f.seatOf(s)
		}
	}
	return -1
}

// TakeOut takes char's body out of the world: its player watches a
// teammate (watch.go).
func (f *runsFeature) TakeOut(char ecs.Entity) {
	s := f.owner(char)
	if s == nil || s.out {
		return
	}
	f.g.bodies.remove(s)
	s.out, s.hold = true, true
	f.mu.Lock()
	f.run.TakeOut(f.seatOf(s))
	f.mu.Unlock()
	f.g.watch.pick(s)
}

// SendBack sends char back as its team's players start, at the wheel of
// a fresh car.
func (f *runsFeature) SendBack(char ecs.Entity) {
	s := f.owner(char)
	if s == nil || s.out || !f.g.w.Arche.Alive(s.char) {
		return
	}
	pos, yaw, ok := f.spawnAt(s)
	if !ok {
		return
	}
	f.g.bodies.rebody(s, pos, yaw)
}

// Checkpoint saves where the co-op crew comes back.
func (f *runsFeature) Checkpoint(at levels.Vec2, yaw float32) {
	f.checkpoint, f.saved = levels.Spawn{ID: "checkpoint", Pos: at, Yaw: yaw}, true
}

// Score adds n to char's seat's score.
func (f *runsFeature) Score(char ecs.Entity, n int) {
	if i := f.Seat(char); i >= 0 {
		f.mu.Lock()
		f.run.Score(i, n)
		f.mu.Unlock()
	}
}

// Win ends the run with team winning.
func (f *runsFeature) Win(team int, text string) {
	f.mu.Lock()
	f.run.End(runs.Result{Outcome: runs.OutcomeWon, Winner: team, Text: text}, f.g.w.Tick())
	f.mu.Unlock()
}

// End ends the run with success or failure.
func (f *runsFeature) End(success bool, text string) { f.end(success, text) }

// Paying reports whether the run still pays.
func (f *runsFeature) Paying() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.run.Paying()
}

// owner returns the session whose character char is, nil for none.
func (f *runsFeature) owner(char ecs.Entity) *Session {
	for _, s := range f.g.sessions {
		if s.char == char && !s.closed {
			return s
		}
	}
	return nil
}

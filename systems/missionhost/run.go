package missionhost

import (
	"errors"

	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/missions"
)

// RunControl is the run's side of a run mission's instance: the server's
// runs feature implements it (the seats, the teams, the bodies of the
// players it takes out or sends back, the result). The host calls it on
// the room's goroutine, from the mission's methods.
type RunControl interface {
	// Team and Seat return the team and the seat of the player whose
	// character is char, -1 for none.
	Team(char ecs.Entity) int
	Seat(char ecs.Entity) int
	// TakeOut takes char out of the world for good: its player watches.
	TakeOut(char ecs.Entity)
	// SendBack sends char back as its team's players start, in a fresh
	// car.
	SendBack(char ecs.Entity)
	// Checkpoint saves where the crew comes back.
	Checkpoint(at levels.Vec2, yaw float32)
	// Score adds n to char's seat's score.
	Score(char ecs.Entity, n int)
	// Win ends the run with team winning; End ends it with success or
	// failure (co-op, or a versus with no winner).
	Win(team int, text string)
	End(success bool, text string)
	// Paying reports whether the run still pays.
	Paying() bool
}

// ErrRunning is returned by StartRun while a run's instance runs.
var ErrRunning = errors.New("missionhost: a run is running already")

// runInstance is the instance of a run mission: an instance whose Host is
// also the missions.RunHost of the mission.
type runInstance struct {
	*instance
	ctl RunControl
	rm  missions.RunMission
	out []ecs.Entity // the characters taken out: their leaving is not a Leave
	won bool
}

var _ missions.RunHost = (*runInstance)(nil)

// runMission adapts a missions.RunMission to the instance's Mission, so
// that the host runs it as any other and the mission gets its RunHost.
type runMission struct{ r *runInstance }

func (m runMission) Start(missions.Host) error { return m.r.rm.Start(m.r) }
func (m runMission) Step(missions.Host)        { m.r.rm.Step(m.r) }
func (m runMission) Phone(_ missions.Host, p missions.Player, c missions.Command) error {
	return m.r.rm.Phone(m.r, p, c)
}
func (m runMission) Leave(_ missions.Host, p missions.Player) { m.r.rm.Leave(m.r, p) }

// StartRun starts run mission d for every player in the room, with ctl as
// the run's side: the run went live. Later players join it as they come
// in (a late seat). It fails while a run's instance runs, and when the
// mission's Start refuses (nothing it spawned stays).
func (s *System) StartRun(w *ecs.World, d *missions.RunDef, ctl RunControl) error {
	if s.run != nil && !s.run.ended {
		return ErrRunning
	}
	def := &missions.Def{Name: d.Name, Title: d.Title, Contact: d.Title}
	in := &instance{s: s, w: w, def: def}
	r := &runInstance{instance: in, ctl: ctl, rm: d.New()}
	in.run, in.m = r, runMission{r}
	for i := range s.phones {
		if ph := &s.phones[i]; ph.used && ph.seen && ph.inst == nil {
			in.slots = append(in.slots, i)
		}
	}
	in.players = make([]missions.Player, len(in.slots), len(s.phones))
	in.refresh()
	for _, i := range in.slots {
		s.phones[i].inst = in
	}
	if err := s.start(in); err != nil {
		in.cleanup()
		for _, i := range in.slots {
			s.phones[i].inst = nil
		}
		return err
	}
	for _, i := range in.slots {
		s.phones[i].setTracker(in)
	}
	s.run = r
	s.insts = append(s.insts, in)
	if in.ended {
		s.reap()
	}
	return nil
}

// RunHost returns the run mission's host while its instance runs, nil
// before it started and once it ended: for tests and tools that look at
// the run as its mission does.
func (s *System) RunHost() missions.RunHost {
	if s.run == nil || s.run.ended {
		return nil
	}
	return s.run
}

// EndRun ends the run's instance, if it runs, with text (a forfeit, the
// run abandoned): the host cleans up after it. The mission is not told.
func (s *System) EndRun(success bool, text string) {
	if r := s.run; r != nil && !r.ended {
		r.ended, r.success, r.text = true, success, text
		s.reap()
	}
}

// LeaveRun tells the run's mission that the player of char left it for
// good (their seat is gone), while their character is still in the world
// to read: Mission.Leave, as the host would once it saw them gone, but
// before the run's end (a forfeit) can come first. Between ticks.
func (s *System) LeaveRun(char ecs.Entity) {
	r := s.run
	if r == nil || r.ended {
		return
	}
	for _, i := range r.slots {
		if s.phones[i].Char == char {
			r.leave(i)
			s.reap()
			return
		}
	}
}

// joinRun brings phone i into the run that runs: a late seat came in.
func (s *System) joinRun(i int) {
	r := s.run
	if r == nil || r.ended || s.phones[i].inst != nil {
		return
	}
	r.slots = append(r.slots, i)
	s.phones[i].inst = r.instance
	s.phones[i].setTracker(r.instance)
	r.refresh()
}

// isOut reports whether char was taken out of the run.
func (r *runInstance) isOut(char ecs.Entity) bool {
	for _, e := range r.out {
		if e == char {
			return true
		}
	}
	return false
}

// The missions.RunHost methods.

func (r *runInstance) Team(p missions.Player) int { return r.ctl.Team(p.Char) }
func (r *runInstance) Seat(p missions.Player) int { return r.ctl.Seat(p.Char) }
func (r *runInstance) Paying() bool               { return r.ctl.Paying() }

func (r *runInstance) TakeOut(p missions.Player) {
	if r.ended || r.isOut(p.Char) {
		return
	}
	r.out = append(r.out, p.Char)
	r.takeItems(p)
	r.ctl.TakeOut(p.Char)
}

func (r *runInstance) SendBack(p missions.Player) {
	if !r.ended {
		r.ctl.SendBack(p.Char)
	}
}

func (r *runInstance) Checkpoint(at levels.Vec2, yaw float32) {
	if !r.ended {
		r.ctl.Checkpoint(at, yaw)
	}
}

func (r *runInstance) Score(p missions.Player, n int) {
	if !r.ended {
		r.ctl.Score(p.Char, n)
	}
}

func (r *runInstance) Win(team int, text string) {
	if r.ended {
		return
	}
	r.won = true
	r.ctl.Win(team, text)
	r.end(true, text)
}

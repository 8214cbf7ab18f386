package server

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/store"
	"github.com/fiveonit/engine/systems"
	"github.com/fiveonit/engine/systems/ai"
	"github.com/fiveonit/engine/systems/gates"
	"github.com/fiveonit/engine/systems/items"
	"github.com/fiveonit/engine/systems/police"
	"github.com/fiveonit/engine/systems/signals"
	"github.com/fiveonit/engine/systems/spawners"
	"github.com/fiveonit/engine/textframe"
)

// debugFeature answers the debug commands of a session whose debug
// commands are honoured (Session.debug), and sends such a session the
// AI's readout twice a second.
type debugFeature struct {
	noSession
	g *GameServer
}

// debugCommands are the debug commands, by name. A command that needs a
// system names it: in a room without that system it answers "not
// available" rather than doing nothing.
var debugCommands = map[string]struct {
	needs string // a system name, or ""
	run   func(d *debugFeature, s *Session, c *textframe.Command) error
}{
	"teleport":    {"", (*debugFeature).teleport},
	"spawn-car":   {"", (*debugFeature).spawnCar},
	"clock":       {"", (*debugFeature).clock},
	"kill":        {"", (*debugFeature).kill},
	"wanted":      {police.Name, (*debugFeature).wanted},
	"give-key":    {gates.Name, (*debugFeature).giveKey},
	"reset-level": {spawners.Name, (*debugFeature).resetLevel},
	"cash":        {"", (*debugFeature).cash},
	"give-item":   {items.Name, (*debugFeature).giveItem},
	"signal":      {signals.Name, (*debugFeature).signal},
}

func (d *debugFeature) commands() []string { return []string{"debug"} }

// ErrDebugOff is the reply to a debug command from a client whose debug
// commands are not honoured.
var ErrDebugOff = errors.New("debug commands are off: they are on in a room on a test-* level, with FOI_DEBUG=1, or with a join token that carries debug")

// command runs a debug command of s.
func (d *debugFeature) command(s *Session, c *textframe.Command) error {
	g := d.g
	if !s.debug {
		return ErrDebugOff
	}
	cmd, ok := debugCommands[c.Cmd]
	if !ok {
		return fmt.Errorf("unknown debug command %q (known: teleport, spawn-car, clock, kill, wanted, give-key, reset-level, cash, give-item, signal)", c.Cmd)
	}
	if cmd.needs != "" && g.w.Sched.System(cmd.needs) == nil {
		return fmt.Errorf("not available: the %s system is not running in this room", cmd.needs)
	}
	if g.runs != nil && c.Cmd == "reset-level" {
		return ErrRunReset
	}
	err := cmd.run(d, s, c)
	if err == nil && g.runs != nil {
		g.runs.noPay() // honoured in a run's room: the run pays nothing
	}
	return err
}

// ErrRunReset refuses reset-level in a run's room: nobody resets a run's
// level.
var ErrRunReset = errors.New("not in a run's room: nobody resets a run's level")

// target is the entity a command names: Target's wire id, or the session's
// character.
func (d *debugFeature) target(s *Session, c *textframe.Command) (ecs.Entity, error) {
	g := d.g
	if c.Target == 0 {
		if !g.w.Arche.Alive(s.char) {
			return ecs.Entity{}, errors.New("you have no character")
		}
		return s.char, nil
	}
	e, ok := g.w.ByWireID(c.Target)
	if !ok {
		return ecs.Entity{}, fmt.Errorf("no entity %d", c.Target)
	}
	return e, nil
}

func finite32(v float32) bool { return !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) }

// spot checks that (x, y) is on the ground and not inside a building.
func (d *debugFeature) spot(x, y *float32, r float32) (phys.Vec, error) {
	g := d.g
	if x == nil || y == nil {
		return phys.Vec{}, errors.New("x and y are required")
	}
	p := phys.Vec{X: *x, Y: *y}
	if !finite32(p.X) || !finite32(p.Y) {
		return p, errors.New("x and y must be finite")
	}
	if g.static.Overlaps(p, r) {
		return p, fmt.Errorf("(%g, %g) is inside a building or off the level", p.X, p.Y)
	}
	return p, nil
}

// teleport moves the character, or the vehicle it sits in, to x, y.
func (d *debugFeature) teleport(s *Session, c *textframe.Command) error {
	g := d.g
	e, err := d.target(s, c)
	if err != nil {
		return err
	}
	if act, in, _ := g.persons.Get(e); act != nil && !in.Vehicle.IsZero() && g.w.Arche.Alive(in.Vehicle) {
		e = in.Vehicle
	}
	p, err := d.spot(c.X, c.Y, 2.5)
	if err != nil {
		return err
	}
	pose, vel := g.poses.Get(e)
	pose.Pos.X, pose.Pos.Y = p.X, p.Y
	if finite32(c.Yaw) && c.Yaw != 0 {
		pose.Rot = components.YawQuat(c.Yaw)
	}
	*vel = components.Velocity{}
	return nil
}

// spawnCar parks a car of Model at x, y (default: 8 m ahead of you).
func (d *debugFeature) spawnCar(s *Session, c *textframe.Command) error {
	g := d.g
	x, y := c.X, c.Y
	yaw := c.Yaw
	if x == nil && y == nil && g.w.Arche.Alive(s.char) {
		pose := g.posOf(s.char)
		co, si := pose.Rot.Heading()
		px, py := pose.Pos.X+co*8, pose.Pos.Y+si*8
		x, y, yaw = &px, &py, pose.Rot.Yaw()
	}
	p, err := d.spot(x, y, 2.5)
	if err != nil {
		return err
	}
	if c.Model >= phys.ModelPolice {
		return fmt.Errorf("model %d is not a player's car (0 to %d)", c.Model, phys.ModelPolice-1)
	}
	_, err = g.pf.Vehicle(components.KindCar, c.Model, components.Vec3{X: p.X, Y: p.Y, Z: g.static.GroundZ}, yaw, ecs.Entity{})
	return err
}

// clock sets the room clock (and its pace, if given).
func (d *debugFeature) clock(s *Session, c *textframe.Command) error {
	g := d.g
	if c.Minutes == nil || math.IsNaN(*c.Minutes) || math.IsInf(*c.Minutes, 0) {
		return errors.New("minutes is required (minutes after midnight)")
	}
	pace := g.w.Clock.Pace()
	if c.Pace != nil {
		if math.IsNaN(*c.Pace) || math.Abs(*c.Pace) > 1440 {
			return errors.New("pace must be within -1440..1440 game minutes a second")
		}
		pace = *c.Pace
	}
	g.w.Clock.SetNow(*c.Minutes, pace)
	return nil
}

// kill brings the target's health to 0: a person dies, a vehicle is
// wrecked.
func (d *debugFeature) kill(s *Session, c *textframe.Command) error {
	g := d.g
	e, err := d.target(s, c)
	if err != nil {
		return err
	}
	h := g.health.Get(e)
	if h == nil {
		return errors.New("that has no health")
	}
	h.HP = 0
	if act, _, _ := g.persons.Get(e); act != nil {
		act.Act = components.ActDead
	}
	return nil
}

// wanted sets your Wanted stars.
func (d *debugFeature) wanted(s *Session, c *textframe.Command) error {
	g := d.g
	if c.Stars == nil || *c.Stars > 5 {
		return errors.New("stars is required, 0 to 5")
	}
	wa, _ := g.wanted.Get(s.char)
	if wa == nil {
		return errors.New("you have no Wanted level")
	}
	wa.Stars, wa.Heat, wa.Unseen = *c.Stars, 0, 0
	return nil
}

// giveKey gives the target (default: your character) the level's key
// with tag Value: a gate whose rule names that tag opens for them at the
// wheel.
func (d *debugFeature) giveKey(s *Session, c *textframe.Command) error {
	g := d.g
	if c.Value == "" {
		return errors.New("value is required (a key tag of this level)")
	}
	e, err := d.target(s, c)
	if err != nil {
		return err
	}
	if act, _, _ := g.persons.Get(e); act == nil {
		return errors.New("only a person carries keys")
	}
	gs := systems.Gates(g.w)
	if gs == nil {
		return errors.New("not available: the gates system is not running in this room")
	}
	return gs.Give(g.w, e, c.Value)
}

// resetLevel resets the level at the next tick: the spawners park
// every bay and put their NPCs back, the gates shut.
func (d *debugFeature) resetLevel(s *Session, c *textframe.Command) error {
	g := d.g
	if !systems.ResetLevel(g.w) {
		return errors.New("not available: this room has no level to reset")
	}
	return nil
}

// cash sets your Cash to Value, a whole number from 0 to store.MaxCash.
func (d *debugFeature) cash(s *Session, c *textframe.Command) error {
	g := d.g
	n, err := strconv.ParseInt(c.Value, 10, 64)
	if err != nil || n < 0 || n > store.MaxCash {
		return fmt.Errorf("value must be a whole number from 0 to %d, not %q", int64(store.MaxCash), c.Value)
	}
	if !g.w.Arche.Alive(s.char) {
		return errors.New("you have no character")
	}
	_, cash := g.wanted.Get(s.char)
	if cash == nil {
		return errors.New("you have no cash")
	}
	cash.Amount = n
	return nil
}

// giveItem gives the target (default: your character) Count (default one)
// of the item named Item.
func (d *debugFeature) giveItem(s *Session, c *textframe.Command) error {
	if c.Item == "" {
		return errNeedsItem
	}
	e, err := d.target(s, c)
	if err != nil {
		return err
	}
	it := systems.Items(d.g.w)
	if it == nil {
		return errors.New("not available: this room has no items")
	}
	n := c.Count
	if n == 0 {
		n = 1
	}
	return it.Give(d.g.w, e, c.Item, n)
}

// signal holds a traffic signal (value: its id) on a phase (phase: its
// number, -1 for red on every lane), or releases it to its cycle when no
// phase is given.
func (d *debugFeature) signal(s *Session, c *textframe.Command) error {
	sg := systems.Signals(d.g.w)
	if sg == nil {
		return errors.New("not available: the signals system is not running in this room")
	}
	if c.Value == "" {
		return errors.New("value is required (a signal id of this level)")
	}
	if c.Phase == nil {
		return sg.Release(c.Value)
	}
	return sg.Hold(c.Value, *c.Phase)
}

// ReadoutEvery is the ticks between two debug readouts: twice per second,
// often enough for a person watching the AI's numbers.
const ReadoutEvery = ecs.TickRate / 2

// notify sends a debug client the AI's readout every ReadoutEvery ticks,
// when the room runs an AI.
func (d *debugFeature) notify(s *Session) bool {
	g := d.g
	if !s.debug || g.w.Tick()%ReadoutEvery != 0 {
		return true
	}
	a, ok := g.w.Sched.System(ai.Name).(*ai.System)
	if !ok {
		return true
	}
	r := a.Readout()
	f := textframe.ReadoutFrame{Type: "readout", Tick: r.Tick, Traffic: r.Traffic, TrafficWant: r.TrafficWant,
		Pedestrians: r.Pedestrians, PedestriansWant: r.PedestriansWant, Chasers: make([]textframe.ReadoutChaser, 0, len(r.Chasers))}
	for _, c := range r.Chasers {
		f.Chasers = append(f.Chasers, textframe.ReadoutChaser{ID: c.WireID, Target: c.Target, Mode: ai.ModeName(c.Mode),
			Dist: c.Dist, Speed: c.Speed, Sees: c.Sees, Lane: c.Lane})
	}
	f.Stealth = g.stealth.readout()
	return g.sendText(s, f)
}

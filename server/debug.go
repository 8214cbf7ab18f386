package server

import (
	"errors"
	"fmt"
	"github.com/fiveonit/engine/textframe"
	"math"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems"
	"github.com/fiveonit/engine/systems/gates"
	"github.com/fiveonit/engine/systems/items"
	"github.com/fiveonit/engine/systems/police"
	"github.com/fiveonit/engine/systems/signals"
	"github.com/fiveonit/engine/systems/spawners"
)

// debugCommands are the debug commands, by name. A command that needs a
// system names it: in a room without that system it answers "not
// available" rather than doing nothing.
var debugCommands = map[string]struct {
	needs string // a system name, or ""
	run   func(g *GameServer, s *Session, c *textframe.Command) error
}{
	"teleport":    {"", (*GameServer).debugTeleport},
	"spawn-car":   {"", (*GameServer).debugSpawnCar},
	"clock":       {"", (*GameServer).debugClock},
	"kill":        {"", (*GameServer).debugKill},
	"wanted":      {police.Name, (*GameServer).debugWanted},
	"give-key":    {gates.Name, (*GameServer).debugGiveKey},
	"reset-level": {spawners.Name, (*GameServer).debugResetLevel},
	"cash":        {"", (*GameServer).debugCash},
	"give-item":   {items.Name, (*GameServer).debugGiveItem},
	"signal":      {signals.Name, (*GameServer).debugSignal},
}

// ErrDebugOff is the reply to a debug command from a client whose debug
// commands are not honoured.
var ErrDebugOff = errors.New("debug commands are off: they are on in a room on a test-* level, with FOI_DEBUG=1, or with a join token that carries debug")

func (g *GameServer) debugCommand(s *Session, c *textframe.Command) error {
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
	return cmd.run(g, s, c)
}

// target is the entity a command names: Target's wire id, or the session's
// character.
func (g *GameServer) target(s *Session, c *textframe.Command) (ecs.Entity, error) {
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
func (g *GameServer) spot(x, y *float32, r float32) (phys.Vec, error) {
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

// debugTeleport moves the character, or the vehicle it sits in, to x, y.
func (g *GameServer) debugTeleport(s *Session, c *textframe.Command) error {
	e, err := g.target(s, c)
	if err != nil {
		return err
	}
	if act, in, _ := g.persons.Get(e); act != nil && !in.Vehicle.IsZero() && g.w.Arche.Alive(in.Vehicle) {
		e = in.Vehicle
	}
	p, err := g.spot(c.X, c.Y, 2.5)
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

// debugSpawnCar parks a car of Model at x, y (default: 8 m ahead of you).
func (g *GameServer) debugSpawnCar(s *Session, c *textframe.Command) error {
	x, y := c.X, c.Y
	yaw := c.Yaw
	if x == nil && y == nil && g.w.Arche.Alive(s.char) {
		pose := g.posOf(s.char)
		co, si := pose.Rot.Heading()
		px, py := pose.Pos.X+co*8, pose.Pos.Y+si*8
		x, y, yaw = &px, &py, pose.Rot.Yaw()
	}
	p, err := g.spot(x, y, 2.5)
	if err != nil {
		return err
	}
	if c.Model >= phys.ModelPolice {
		return fmt.Errorf("model %d is not a player's car (0 to %d)", c.Model, phys.ModelPolice-1)
	}
	_, err = g.pf.Vehicle(components.KindCar, c.Model, components.Vec3{X: p.X, Y: p.Y, Z: g.static.GroundZ}, yaw, ecs.Entity{})
	return err
}

// debugClock sets the room clock (and its pace, if given).
func (g *GameServer) debugClock(s *Session, c *textframe.Command) error {
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

// debugKill brings the target's health to 0: a person dies, a vehicle is
// wrecked.
func (g *GameServer) debugKill(s *Session, c *textframe.Command) error {
	e, err := g.target(s, c)
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

// debugWanted sets your Wanted stars.
func (g *GameServer) debugWanted(s *Session, c *textframe.Command) error {
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

// debugGiveKey gives the target (default: your character) the level's key
// with tag Value: a gate whose rule names that tag opens for them at the
// wheel.
func (g *GameServer) debugGiveKey(s *Session, c *textframe.Command) error {
	if c.Value == "" {
		return errors.New("value is required (a key tag of this level)")
	}
	e, err := g.target(s, c)
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

// debugResetLevel resets the level at the next tick: the spawners park
// every bay and put their NPCs back, the gates shut.
func (g *GameServer) debugResetLevel(s *Session, c *textframe.Command) error {
	if !systems.ResetLevel(g.w) {
		return errors.New("not available: this room has no level to reset")
	}
	return nil
}

package server

import (
	"slices"

	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/systems"
	"github.com/fiveonit/engine/systems/signals"
	"github.com/fiveonit/engine/textframe"
)

// cityFeature tells each player the city's shared state: the room clock,
// the traffic signals held by hand, and in the welcome the level's zones
// and races.
type cityFeature struct {
	noCommands
	g    *GameServer
	sent perSession[citySent]

	sys    *signals.System // nil in a room whose level has no signals
	rev    uint32          // the revision frame was built of
	frame  []byte          // the signals frame, built once per change and sent to each player as is
	held   []signals.Held
	looked bool
}

// citySent is what a session was last told of the city.
type citySent struct {
	clock   uint32 // the clock's revision
	signals uint32 // the signals' revision
}

func newCityFeature(g *GameServer) *cityFeature {
	return &cityFeature{g: g, sent: newPerSession[citySent](g.cfg.MaxPlayers)}
}

func (c *cityFeature) enter(s *Session)  { c.sent.reset(s) }
func (c *cityFeature) resume(s *Session) { c.sent.reset(s) }
func (c *cityFeature) leave(*Session)    {}

func (c *cityFeature) welcome(_ *Session, f *textframe.Welcome) {
	f.Zones = welcomeZones(c.g.cfg.Level, c.g.w.Rules.SafeZones)
	f.Races = welcomeRaces(c.g.cfg.Level)
}

// notify sends s the clock when a mission or a debug command set it, and
// the signals held by hand when they changed (each once on joining, the
// signals where the level has some).
func (c *cityFeature) notify(s *Session) bool {
	g := c.g
	sent := c.sent.of(s)
	if rev := g.w.Clock.Revision(); rev != sent.clock {
		sent.clock = rev
		f := textframe.ClockFrame{Type: "clock", Minutes: g.w.Clock.Minutes(), Pace: g.w.Clock.Pace(), Tick: g.w.Tick()}
		g.text = f.AppendJSON(g.text[:0])
		if !g.sendTextBytes(s, g.text) {
			return false
		}
	}
	if !c.looked {
		c.sys, c.looked = systems.Signals(g.w), true
	}
	if c.sys == nil || c.sys.Revision() == sent.signals {
		return true
	}
	if rev := c.sys.Revision(); c.frame == nil || c.rev != rev {
		c.held = c.sys.Held(c.held[:0])
		f := textframe.SignalsFrame{Type: "signals", Held: make([]textframe.HeldSignal, 0, len(c.held))}
		for _, h := range c.held {
			f.Held = append(f.Held, textframe.HeldSignal{ID: h.ID, Phase: h.Phase})
		}
		c.frame, c.rev = textframe.Marshal(f), rev
	}
	sent.signals = c.rev
	return g.sendTextBytes(s, c.frame)
}

// welcomeZones lists the level's zones for the welcome; a zone the game's
// rules make safe (safe) is listed as safe.
func welcomeZones(l *levels.Level, safe []string) []textframe.WelcomeZone {
	var out []textframe.WelcomeZone
	for _, z := range l.Zones {
		wz := textframe.WelcomeZone{ID: z.ID, Kind: string(z.Kind)}
		if slices.Contains(safe, z.ID) {
			wz.Kind = string(levels.ZoneSafe)
		}
		for _, p := range z.Polygon {
			wz.Polygon = append(wz.Polygon, [2]float32{p.X, p.Y})
		}
		out = append(out, wz)
	}
	return out
}

// welcomeRaces lists the level's races for the welcome.
func welcomeRaces(l *levels.Level) []textframe.WelcomeRace {
	var out []textframe.WelcomeRace
	for _, r := range l.Races {
		wr := textframe.WelcomeRace{ID: r.ID, Loop: r.Loop, Gates: make([]textframe.WelcomeRaceGate, 0, len(r.Gates))}
		for _, gt := range r.Gates {
			wr.Gates = append(wr.Gates, textframe.WelcomeRaceGate{ID: gt.ID, Pos: [2]float32{gt.Pos.X, gt.Pos.Y}, Yaw: gt.Yaw, Width: gt.Width})
		}
		out = append(out, wr)
	}
	return out
}

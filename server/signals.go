package server

import (
	"errors"

	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/systems"
	"github.com/fiveonit/engine/systems/signals"
	"github.com/fiveonit/engine/textframe"
)

// signalNotes is what the server keeps to tell the players the traffic
// signals held by hand: the signals system and the frame of its last
// revision, built once per change and sent to each player as is.
type signalNotes struct {
	sys    *signals.System
	looked bool
	rev    uint32
	frame  []byte
	held   []signals.Held
}

// notifySignals sends s the signals held by hand when they changed since
// it was last told, and as it joins a room whose level has signals. It
// reports whether s is still connected.
func (g *GameServer) notifySignals(s *Session) bool {
	n := &g.signals
	if !n.looked {
		n.sys, n.looked = systems.Signals(g.w), true
	}
	if n.sys == nil || n.sys.Revision() == s.sent.signals {
		return true
	}
	if rev := n.sys.Revision(); n.frame == nil || n.rev != rev {
		n.held = n.sys.Held(n.held[:0])
		f := textframe.SignalsFrame{Type: "signals", Held: make([]textframe.HeldSignal, 0, len(n.held))}
		for _, h := range n.held {
			f.Held = append(f.Held, textframe.HeldSignal{ID: h.ID, Phase: h.Phase})
		}
		n.frame, n.rev = textframe.Marshal(f), rev
	}
	s.sent.signals = n.rev
	return g.sendTextBytes(s, n.frame)
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

// debugSignal holds a traffic signal (value: its id) on a phase (phase: its
// number, -1 for red on every lane), or releases it to its cycle when no
// phase is given.
func (g *GameServer) debugSignal(s *Session, c *textframe.Command) error {
	sg := systems.Signals(g.w)
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

package server

import (
	"math/bits"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/textframe"
)

// InputsEvery is the least ticks between two inputs frames to a client:
// one a second. The frame carries totals, so a slower pace loses nothing.
const InputsEvery = ecs.TickRate

// inputsFeature tells each player what became of its inputs (the inputs
// frame): how many ran, were guessed, came late, were dropped or never
// came, and the presses run.
type inputsFeature struct {
	noCommands
	g    *GameServer
	sent perSession[inputsSent]
}

// inputsSent is what a session last told its client of its inputs.
type inputsSent struct {
	at    uint64 // the tick of the last inputs frame, 0 none
	frame textframe.InputsFrame
}

func newInputsFeature(g *GameServer) *inputsFeature {
	return &inputsFeature{g: g, sent: newPerSession[inputsSent](g.cfg.MaxPlayers)}
}

func (f *inputsFeature) enter(s *Session)  { f.sent.reset(s) }
func (f *inputsFeature) resume(s *Session) { f.sent.reset(s) }
func (f *inputsFeature) leave(*Session)    {}

// countPresses counts the presses of the drive a session's tick runs.
func (s *Session) countPresses(d *components.Drive) {
	s.presses += uint64(bits.OnesCount16(uint16(d.Pressed)))
}

// notify sends s the inputs frame when a total other than the ticks taken
// changed (from zeros, for the first), at most every InputsEvery ticks.
func (f *inputsFeature) notify(s *Session) bool {
	g := f.g
	sent := f.sent.of(s)
	if !s.playing(g.w) || g.w.Tick()-sent.at < InputsEvery && sent.at != 0 {
		return true
	}
	st := s.queue.Stats()
	fr := textframe.InputsFrame{Type: "inputs", Seq: s.lastSeq, Taken: st.Taken, Guessed: st.Guessed, Late: st.Late,
		Dropped: st.Dropped, Missed: st.Missed, Presses: s.presses}
	old := sent.frame
	if fr.Guessed == old.Guessed && fr.Late == old.Late && fr.Dropped == old.Dropped && fr.Missed == old.Missed && fr.Presses == old.Presses {
		return true
	}
	sent.frame, sent.at = fr, g.w.Tick()
	g.text = fr.AppendJSON(g.text[:0])
	return g.sendTextBytes(s, g.text)
}

// InputStats returns what the session's input queue did. Room goroutine
// only.
func (s *Session) InputStats() InputStats { return s.queue.Stats() }

// InputBuffer returns the session's inputs waiting in its queue (what its
// snapshots' inputBuffer says when it is not negative). Room goroutine
// only.
func (s *Session) InputBuffer() int { return s.queue.Len() }

// Drive returns what s's character runs this tick (its input, or the
// guess), and false when s has no character in the world. Room goroutine
// only: for tests and tools that follow a client's inputs.
func (g *GameServer) Drive(s *Session) (components.Drive, bool) {
	if s.who.Spectate || !s.joined || !g.w.Arche.Alive(s.char) {
		return components.Drive{}, false
	}
	_, _, d := g.persons.Get(s.char)
	return *d, true
}

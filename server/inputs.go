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

// inputsState is what a session last told its client of its inputs.
type inputsState struct {
	presses uint64 // one-shot presses run, a button of a tick one
	sentAt  uint64 // the tick of the last inputs frame, 0 none
	sent    textframe.InputsFrame
}

// countPresses counts the presses of the drive a session's tick runs.
func (s *Session) countPresses(d *components.Drive) {
	s.inputs.presses += uint64(bits.OnesCount16(uint16(d.Pressed)))
}

// notifyInputs sends s the inputs frame when a total other than the ticks
// taken changed (from zeros, for the first), at most every InputsEvery
// ticks. It reports whether s is still connected.
func (g *GameServer) notifyInputs(s *Session) bool {
	if s.who.Spectate || g.w.Tick()-s.inputs.sentAt < InputsEvery && s.inputs.sentAt != 0 {
		return true
	}
	st := s.queue.Stats()
	f := textframe.InputsFrame{Type: "inputs", Seq: s.lastSeq, Taken: st.Taken, Guessed: st.Guessed, Late: st.Late,
		Dropped: st.Dropped, Missed: st.Missed, Presses: s.inputs.presses}
	old := s.inputs.sent
	if f.Guessed == old.Guessed && f.Late == old.Late && f.Dropped == old.Dropped && f.Missed == old.Missed && f.Presses == old.Presses {
		return true
	}
	s.inputs.sent, s.inputs.sentAt = f, g.w.Tick()
	g.text = f.AppendJSON(g.text[:0])
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

package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fiveonit/engine/textframe"

	"github.com/fiveonit/engine/control"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/netsync/wire"
)

// drain handles what s sent since the last tick, and its leaving.
func (g *GameServer) drain(s *Session) {
	if s.detached {
		return // nothing comes from a held place: its connection is gone
	}
	frames, bad, leaving := s.take()
	if bad != nil {
		g.kick(s, bad)
		return
	}
	if leaving {
		g.places.lost(s, "left")
		return
	}
	s.tokens = min(s.tokens+float32(TextPerSecond)/ecs.TickRate, TextBurst)
	defer s.recycle(frames)
	for _, f := range frames {
		s.stats.FramesIn++
		s.stats.BytesIn += uint64(len(f.data))
		var err error
		if f.text {
			err = g.command(s, f.data)
		} else {
			err = g.inputFrame(s, f.data)
		}
		if err != nil {
			g.kick(s, err)
			return
		}
		if s.closed { // a reply it could not take cut it off
			return
		}
	}
}

// kick closes s for what it sent; the room goes on.
func (g *GameServer) kick(s *Session, err error) {
	g.stats.Kicked++
	g.leave(s, err.Error())
}

// inputFrame takes an input frame: the ack, a resync request, the inputs
// and the ticks their client drew.
func (g *GameServer) inputFrame(s *Session, b []byte) error {
	f := &s.input
	if err := wire.DecodeInputFrame(b, f); err != nil {
		return fmt.Errorf("%w: %w", ErrMalformedFrame, err)
	}
	g.places.confirm(s)
	newAck := f.Ack > s.ack && f.Ack <= uint32(g.w.Tick())
	if newAck {
		s.rtt.samplePing(g.w.Tick(), f.Ack)
		s.ack = f.Ack
		if s.snap != nil {
			s.snap.Ack(f.Ack)
		}
	}
	s.measureRoundTrip(g.w.Tick(), f.Ack, newAck)
	if f.Flags&wire.InputResync != 0 {
		g.resync(s, f.Ack)
	}
	before := s.queue.Stats()
	for i := 0; i < f.Count; i++ {
		in := Input{Seq: f.FirstSeq + uint32(i), Drive: control.Drive(&f.Inputs[i])}
		if f.Flags&wire.InputView != 0 {
			in.Drive.View = viewOf(f.Ack, f.Inputs[i].View) // checked when it runs: applyInputs
		}
		if err := s.queue.Push(in); err != nil {
			return fmt.Errorf("%w: %w", ErrMalformedFrame, err)
		}
	}
	after := s.queue.Stats()
	g.stats.Late += after.Late - before.Late
	g.stats.Dropped += after.Dropped - before.Dropped
	g.stats.Stale += after.Stale - before.Stale
	return nil
}

// command handles a text frame: the feature that answers its type does
// it (the table of commands, feature.go), but "mode", which the core
// answers. A frame that is not a valid command is an error that
// disconnects the client; a valid command that cannot be done gets a reply
// saying why.
func (g *GameServer) command(s *Session, b []byte) error {
	if s.tokens < 1 {
		return fmt.Errorf("%w: more than %d commands a second", ErrFlood, TextPerSecond)
	}
	s.tokens--
	var c textframe.Command
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return fmt.Errorf("%w: %w", ErrMalformedFrame, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: more than one JSON value", ErrMalformedFrame)
	}
	f, ok := g.commands[c.Type]
	if !ok {
		return fmt.Errorf("%w: unknown frame type %q", ErrMalformedFrame, c.Type)
	}
	var err error
	switch {
	case f != nil:
		if err = f.command(s, &c); errors.Is(err, errReplyLater) {
			return nil // the reply goes with the verdict
		}
	case c.Type == "leave": // the core's own: the client goes, hold no place
		s.quit = true
	case c.Acked == nil: // "mode", the core's own
		err = errors.New(`mode needs "acked": true or false`)
	default:
		g.setAcked(s, *c.Acked)
	}
	r := textframe.ReplyFrame{Type: "reply", ID: c.ID, Cmd: c.Cmd, OK: err == nil}
	if err != nil {
		r.Error = err.Error()
	}
	g.sendText(s, r)
	return nil
}

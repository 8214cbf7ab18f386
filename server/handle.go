package server

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/fiveonit/engine/textframe"

	"github.com/fiveonit/engine/control"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/netsync"
	"github.com/fiveonit/engine/netsync/wire"
	"github.com/fiveonit/engine/systems/ai"
)

// drain handles what s sent since the last tick, and its leaving.
func (g *GameServer) drain(s *Session) {
	frames, bad, leaving := s.take()
	if bad != nil {
		g.kick(s, bad)
		return
	}
	if leaving {
		g.leave(s, "left")
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

// inputFrame takes an input frame: the ack, a resync request, the inputs.
func (g *GameServer) inputFrame(s *Session, b []byte) error {
	f := &s.input
	if err := wire.DecodeInputFrame(b, f); err != nil {
		return fmt.Errorf("%w: %v", ErrMalformedFrame, err)
	}
	newAck := f.Ack > s.ack && f.Ack <= uint32(g.w.Tick())
	if newAck {
		g.samplePing(s, f.Ack)
		s.ack = f.Ack
		if s.snap != nil {
			s.snap.Ack(f.Ack)
		}
	}
	g.measureRoundTrip(s, f.Ack, newAck)
	if f.Flags&wire.InputResync != 0 {
		g.resync(s, f.Ack)
	}
	before := s.queue.Stats()
	for i := 0; i < f.Count; i++ {
		in := Input{Seq: f.FirstSeq + uint32(i), Drive: control.Drive(&f.Inputs[i])}
		if err := s.queue.Push(in); err != nil {
			return fmt.Errorf("%w: %v", ErrMalformedFrame, err)
		}
	}
	after := s.queue.Stats()
	g.stats.Late += after.Late - before.Late
	g.stats.Dropped += after.Dropped - before.Dropped
	g.stats.Stale += after.Stale - before.Stale
	return nil
}

// requestKeyframe makes s's next frame a keyframe, for why.
func (s *Session) requestKeyframe(why KeyframeReason) {
	if !s.keyWanted {
		s.keyWanted, s.keyWhy = true, why
	}
	s.snap.RequestKeyframe()
}

// isKeyframe reports whether a snapshot frame applies onto nothing: an
// ordered keyframe, or an acked frame whose base tick is 0.
func isKeyframe(frame []byte) bool {
	if len(frame) < wire.HeaderBytes {
		return false
	}
	return frame[0] == wire.FrameKeyframe || frame[0] == wire.FrameAcked && binary.LittleEndian.Uint32(frame[5:]) == 0
}

// setAcked switches s between the ordered and the acked snapshots; the
// first frame of the new kind is a keyframe.
func (g *GameServer) setAcked(s *Session, acked bool) {
	if s.snap == nil || s.snap.Acked() == acked {
		return
	}
	s.acked = acked
	s.snap.SetAcked(acked)
	s.keyWanted, s.keyWhy = true, KeyframeSwitch
}

// ResyncTimeout is how long a keyframe sent to a client may take to be
// applied before a new request for one is honoured, until the client's
// round trip is measured (rtt.go): half a second, ten snapshots. After, it
// is the round trip and RoundTripMargin.
const ResyncTimeout = ecs.TickRate / 2

// resync honours a client's request for a keyframe (its decoder refused a
// frame). The client asks in every input frame until a keyframe applies, so
// a request is taken only when no keyframe is on its way: none was sent
// after the newest frame it applied (ack), or the last one had the time of
// a round trip to come and be applied (a request after that refuses the
// keyframe itself: its check failed, or it was lost). Each refusal counts
// once.
func (g *GameServer) resync(s *Session, ack uint32) {
	if s.snap == nil || s.keyWanted {
		return
	}
	inFlight := s.keySent != 0 && ack < s.keyTick && g.w.Tick()-s.keySent < s.rtt.wait()
	if inFlight {
		return
	}
	s.requestKeyframe(KeyframeResync)
	s.stats.Resyncs++
	g.stats.Resyncs++
}

// snapshot sends s its frame of this tick, encoded into s.frame. A frame the transport cannot
// queue is dropped: for the ordered snapshots the next one is a keyframe
// (the chain is broken), for the acked ones it is a lost frame like any
// other. A client whose queue stays full for SlowTicks is cut off.
func (g *GameServer) snapshot(s *Session) {
	frame := s.frame
	if isKeyframe(frame) {
		why := s.keyWhy
		if !s.keyWanted {
			why = KeyframeNoBase // the acked encoder's own: no acknowledged base
		}
		s.stats.Keyframes++
		g.stats.Keyframes++
		g.stats.KeyframesBy[why]++
		s.keyWanted, s.keySent, s.keyTick = false, g.w.Tick(), uint32(g.w.Tick())
	}
	err := s.conn.Send(frame, false, s.conn.Lossy() && len(frame) > wire.ReliableAbove)
	switch {
	case err == nil:
		s.slowSince = 0
		s.stats.FramesOut++
		s.stats.BytesOut += uint64(len(frame))
		g.stats.Snapshots++
		g.stats.SnapBytes += uint64(len(frame))
	case errors.Is(err, ErrSendFull):
		s.stats.SendFull++
		s.snap.Unsent()      // its events go in the next frame
		if !s.snap.Acked() { // the ordered chain is broken; an acked frame is only lost
			s.requestKeyframe(KeyframeSendFull)
		}
		if s.slowSince == 0 {
			s.slowSince = g.w.Tick()
		} else if g.w.Tick()-s.slowSince >= SlowTicks {
			g.kick(s, ErrTooSlow)
		}
	default:
		g.leave(s, "connection closed")
	}
}

// view is s's side of a frame: centred on its character, owning the
// character, the vehicle it sits in and that vehicle's trailer.
func (g *GameServer) view(s *Session) netsync.View {
	v := netsync.View{LastSeq: s.lastSeq, InputBuffer: s.queue.Lead()}
	char, ok := g.watched(s)
	if !ok {
		c := g.cfg.Level.Ground.Min.Add(g.cfg.Level.Ground.Max).Scale(0.5)
		v.Center = wire.Vec3{X: c.X, Y: c.Y}
		return v
	}
	v.Center = wire.Vec3(g.posOf(char).Pos)
	if s.who.Spectate {
		return v // a spectator owns nothing: every pose comes quantized
	}
	v.Own[0] = s.charWire
	_, in, _ := g.persons.Get(s.char)
	if veh := in.Vehicle; !veh.IsZero() && g.w.Arche.Alive(veh) {
		v.Own[1] = g.ids.Get(veh).WireID
		v.Own[2] = g.trailerOf(veh)
	}
	return v
}

// trailerOf returns the wire id of the trailer v tows, 0 for none.
func (g *GameServer) trailerOf(v ecs.Entity) uint16 {
	q := g.trailers.Query(g.w.Arche)
	for q.Next() {
		if q.Get().Tractor == v {
			id := g.ids.Get(q.Entity()).WireID
			q.Close()
			return id
		}
	}
	return 0
}

// ReadoutEvery is the ticks between two debug readouts: twice per second,
// often enough for a person watching the AI's numbers.
const ReadoutEvery = ecs.TickRate / 2

// readout sends a debug client the AI's readout, when the room runs an AI,
// and reports whether s is still connected.
func (g *GameServer) readout(s *Session) bool {
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
	f.Stealth = g.stealthReadout()
	return g.sendText(s, f)
}

// HeatEvery is the ticks between two Wanted frames that only carry a
// changed Heat: at most twice per second. Heat may change every tick, and a
// meter on the screen needs no more; a change of stars goes at once.
const HeatEvery = ecs.TickRate / 2

// notify sends s the text frames whose content changed: the clock, the
// signals held by hand, its Wanted level, what the guards and cameras see
// of it, its health and cash, and on its snapshot ticks what it holds
// (notifyItems).
func (g *GameServer) notify(s *Session) {
	if s.closed || !s.joined {
		return
	}
	w := g.w
	if s.debug && w.Tick()%ReadoutEvery == 0 && !g.readout(s) {
		return
	}
	if rev := w.Clock.Revision(); rev != s.sent.clock {
		s.sent.clock = rev
		f := textframe.ClockFrame{Type: "clock", Minutes: w.Clock.Minutes(), Pace: w.Clock.Pace(), Tick: w.Tick()}
		g.text = f.AppendJSON(g.text[:0])
		if !g.sendTextBytes(s, g.text) {
			return
		}
	}
	if !g.notifySignals(s) || !g.notifyMissions(s) {
		return
	}
	if s.who.Spectate || !w.Arche.Alive(s.char) {
		return
	}
	if !g.notifyInputs(s) || !g.notifyWanted(s) || !g.notifyStealth(s) {
		return
	}
	_, cash := g.wanted.Get(s.char)
	h := g.health.Get(s.char)
	if !s.sent.status || h.HP != s.sent.hp || (cash != nil && cash.Amount != s.sent.cash) {
		f := textframe.StatusFrame{Type: "status", HP: h.HP, MaxHP: h.Max, Dead: h.HP == 0}
		if cash != nil {
			f.Cash = cash.Amount
			s.sent.cash = cash.Amount
		}
		s.sent.status, s.sent.hp = true, h.HP
		g.text = f.AppendJSON(g.text[:0])
		if !g.sendTextBytes(s, g.text) {
			return
		}
	}
	if g.snapshotDue(s) && g.notifyItems(s) {
		g.notifyCars(s)
	}
}

// notifyWanted sends s its Wanted level when it changed (the Heat alone at
// most every HeatEvery ticks), with the fine of an arrest. It reports
// whether s is still connected.
func (g *GameServer) notifyWanted(s *Session) bool {
	wa, cash := g.wanted.Get(s.char)
	if wa == nil {
		return true
	}
	heatDue := wa.Heat != s.sent.heat && g.w.Tick()%HeatEvery == 0
	if s.sent.wanted && wa.Stars == s.sent.stars && wa.Arrests == s.sent.arrests && !heatDue {
		return true
	}
	f := textframe.WantedFrame{Type: "wanted", Stars: wa.Stars, Heat: wa.Heat, Cash: cash.Amount}
	if s.sent.wanted && wa.Arrests != s.sent.arrests {
		f.Arrested, f.Fine = true, wa.Fine
	}
	s.sent.wanted, s.sent.stars, s.sent.heat, s.sent.arrests = true, wa.Stars, wa.Heat, wa.Arrests
	g.text = f.AppendJSON(g.text[:0])
	return g.sendTextBytes(s, g.text)
}

// sendText sends s a JSON text frame on the reliable channel and reports
// whether s is still connected. A text frame that does not fit the queue is
// lost with the client: it is cut off (its character leaves the world, so
// the caller must not touch it again).
func (g *GameServer) sendText(s *Session, v any) bool {
	return g.sendTextBytes(s, textframe.Marshal(v))
}

// sendTextBytes is sendText for a frame already in JSON (b is only read
// during the call: the transport copies it).
func (g *GameServer) sendTextBytes(s *Session, b []byte) bool {
	if err := s.conn.Send(b, true, true); err != nil {
		if errors.Is(err, ErrSendFull) {
			g.kick(s, ErrTooSlow)
			return false
		}
		g.leave(s, "connection closed")
		return false
	}
	s.stats.FramesOut++
	s.stats.BytesOut += uint64(len(b))
	return true
}

// command handles a text frame. A frame that is not a valid command is an
// error that disconnects the client; a valid command that cannot be done
// gets a reply saying why.
func (g *GameServer) command(s *Session, b []byte) error {
	if s.tokens < 1 {
		return fmt.Errorf("%w: more than %d commands a second", ErrFlood, TextPerSecond)
	}
	s.tokens--
	var c textframe.Command
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return fmt.Errorf("%w: %v", ErrMalformedFrame, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: more than one JSON value", ErrMalformedFrame)
	}
	var err error
	switch c.Type {
	case "debug":
		err = g.debugCommand(s, &c)
	case "phone":
		err = g.phoneCommand(s, &c)
	case "chat", "quickchat", "emote", "vote", "party":
		if err = g.socialCommand(s, &c); errors.Is(err, errReplyLater) {
			return nil // the reply goes with the verdict
		}
	case "pickup", "drop", "use", "move", "open", "take", "put", "close", "buy":
		err = g.itemCommand(s, &c)
	case "lock", "unlock", "keep", "takeout":
		err = g.carCommand(s, &c)
	case "mode":
		if c.Acked == nil {
			err = errors.New(`mode needs "acked": true or false`)
		} else {
			g.setAcked(s, *c.Acked)
		}
	default:
		return fmt.Errorf("%w: unknown frame type %q", ErrMalformedFrame, c.Type)
	}
	r := textframe.ReplyFrame{Type: "reply", ID: c.ID, Cmd: c.Cmd, OK: err == nil}
	if err != nil {
		r.Error = err.Error()
	}
	g.sendText(s, r)
	return nil
}

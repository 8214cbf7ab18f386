package server

import (
	"encoding/binary"
	"errors"

	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/netsync"
	"github.com/fiveonit/engine/netsync/wire"
)

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
	key := isKeyframe(frame)
	if key {
		why := s.keyWhy
		if !s.keyWanted {
			why = KeyframeNoBase // the acked encoder's own: no acknowledged base
			if ack := s.snap.AckedEncoder(); ack != nil && ack.KeyframeForSize() {
				why = KeyframeSmaller
			}
		}
		s.stats.Keyframes++
		g.stats.Keyframes++
		g.stats.KeyframesBy[why]++
		s.keyWanted, s.keySent, s.keyTick = false, g.w.Tick(), uint32(g.w.Tick())
	}
	err := s.conn.Send(frame, false, s.conn.Lossy() && len(frame) > wire.ReliableAbove)
	switch {
	case err == nil:
		s.spend(len(frame), key && s.stats.Keyframes == 1) // the join's keyframe is free
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
		g.places.lost(s, "connection closed")
	}
}

// encodes reports whether s may be sent a frame of tick, the arena's. An
// acked client gets none of tick 0: its acknowledgement of tick 0 reads as
// none, so that frame would never be a base, and the keyframe after it
// would not be the join's free one.
func (s *Session) encodes(tick uint32) bool { return tick > 0 || !s.acked }

// view is s's side of a frame: centred on its character, owning the
// character, the vehicle it sits in and that vehicle's trailer.
func (g *GameServer) view(s *Session) netsync.View {
	v := netsync.View{LastSeq: s.lastSeq, InputBuffer: s.queue.Lead()}
	char, ok := g.watch.watched(s)
	if !ok {
		c := g.cfg.Level.Ground.Min.Add(g.cfg.Level.Ground.Max).Scale(0.5)
		v.Center = wire.Vec3{X: c.X, Y: c.Y}
		return v
	}
	v.Center = wire.Vec3(g.posOf(char).Pos)
	if s.who.Spectate || s.out {
		return v // a spectator owns nothing: every pose comes quantized
	}
	v.Own[0] = s.charWire
	_, in, _ := g.persons.Get(s.char)
	if veh := in.Vehicle; !veh.IsZero() && g.w.Arche.Alive(veh) {
		v.Own[1] = g.ids.Get(veh).WireID
		q := g.trailers.Query(g.w.Arche) // the trailer veh tows, if any
		for q.Next() {
			if q.Get().Tractor == veh {
				v.Own[2] = g.ids.Get(q.Entity()).WireID
				q.Close()
				break
			}
		}
	}
	return v
}

package netsync

import "github.com/fiveonit/engine/netsync/wire"

// Snapshotter is one client's snapshots, ordered (an Encoder, kinds 4 and 5)
// or acked (an AckedEncoder, kind 6), and the switch between the two: the
// server keeps one per session and calls the same methods whatever the
// transport. A switch (SetAcked) makes the next frame a keyframe of the new
// kind, so a client that switches its decoder with it starts whole; the
// events go on where the last frame left them (those the ordered frames
// had not carried yet with the acked ones; those the acked ones carried
// unacknowledged are the client's), and the acked serials go on from the
// last given.
//
// It is not safe for concurrent use; see Encoder.
type Snapshotter struct {
	arena    *Arena
	interest Interest
	acked    bool
	phase    uint32        // SetCheckPhase
	keyWait  uint32        // SetKeyframeWait, 0 for the default
	budget   int           // SetBudget
	ord      *Encoder      // when !acked
	ack      *AckedEncoder // when acked
}

// NewSnapshotter returns the snapshots of one client reading a, acked or
// ordered, with the game's interest. Its first frame is a keyframe.
func NewSnapshotter(a *Arena, acked bool) *Snapshotter {
	s := &Snapshotter{arena: a, interest: InterestFor(wire.AOIRadius), acked: acked}
	if acked {
		s.ack = NewAckedEncoder(a)
	} else {
		s.ord = NewEncoder(a)
	}
	return s
}

// MemBytes returns the bytes the current encoder holds for its client (see
// AckedEncoder.MemBytes).
func (s *Snapshotter) MemBytes() int {
	if s.acked {
		return s.ack.MemBytes()
	}
	return s.ord.MemBytes()
}

// Acked reports whether the frames are acked ones.
func (s *Snapshotter) Acked() bool { return s.acked }

// SetAcked switches to the acked snapshots (or back to the ordered ones): the
// next frame is a keyframe of the new kind. The encoder of the old kind is
// dropped (a switch allocates the new one). Setting the current kind does
// nothing.
func (s *Snapshotter) SetAcked(acked bool) {
	if acked == s.acked {
		return
	}
	s.acked = acked
	if acked {
		e := NewAckedEncoder(s.arena)
		e.evTick, e.started = s.ord.evTick, s.ord.started
		if s.ack != nil { // switched before: the serials go on
			e.serial, e.evAcked = s.ack.serial, s.ack.serial
		}
		// The events the ordered frames have not carried yet go on in
		// the acked ones.
		for _, ev := range s.ord.pending[s.ord.written:] {
			e.serial++
			e.pending = append(e.pending, pendingEvent{serial: e.serial, ev: ev})
		}
		s.ack, s.ord = e, nil
		s.settle()
		return
	}
	e := NewEncoder(s.arena)
	e.evTick, e.started = s.ack.evTick, s.ack.started
	s.ord = e
	// The acked encoder is kept only for its serials: its state goes.
	s.ack = &AckedEncoder{serial: s.ack.serial}
	s.settle()
}

// settle gives the current encoder the client's settings (interest, check
// phase): after each change of one, and to a new encoder at a switch.
func (s *Snapshotter) settle() {
	if s.acked {
		s.ack.SetInterest(s.interest)
		s.ack.SetCheckPhase(s.phase)
		s.ack.SetBudget(s.budget)
		if s.keyWait != 0 {
			s.ack.SetKeyframeWait(s.keyWait)
		}
		return
	}
	s.ord.SetInterest(s.interest)
	s.ord.SetCheckPhase(s.phase)
	s.ord.SetBudget(s.budget)
}

// SetBudget sets the bytes a frame's changes may take before the poses
// that may wait wait (Encoder.SetBudget), whichever the kind, from the
// next frame on.
func (s *Snapshotter) SetBudget(bytes int) {
	s.budget = bytes
	s.settle()
}

// SetInterest changes the client's interest from the next frame on.
func (s *Snapshotter) SetInterest(in Interest) {
	s.interest = in
	s.settle()
}

// SetCheckPhase sets which frames carry the check (Encoder.SetCheckPhase),
// whichever the kind, from the next frame on.
func (s *Snapshotter) SetCheckPhase(phase uint32) {
	s.phase = phase
	s.settle()
}

// SetKeyframeWait sets how many frames the acked snapshots wait for the
// acknowledgement of a keyframe before another (AckedEncoder.SetKeyframeWait);
// the ordered ones have no use for it.
func (s *Snapshotter) SetKeyframeWait(frames uint32) {
	s.keyWait = frames
	if s.acked {
		s.ack.SetKeyframeWait(frames)
	}
}

// Ack takes the client's acknowledgement (the input frame's ack); the
// ordered snapshots have no use for it.
func (s *Snapshotter) Ack(tick uint32) {
	if s.acked {
		s.ack.Ack(tick)
	}
}

// Unsent says the last frame Encode wrote was not sent (the send queue was
// full): the ordered snapshots carry its events in the next frame; for the
// acked ones it is a frame lost like any other (its events go again until
// one that held them is acknowledged).
func (s *Snapshotter) Unsent() {
	if !s.acked {
		s.ord.Unsent()
	}
}

// RequestKeyframe makes the next frame a keyframe (the client asked for a
// resync, or a frame could not be sent).
func (s *Snapshotter) RequestKeyframe() {
	if s.acked {
		s.ack.RequestKeyframe()
	} else {
		s.ord.RequestKeyframe()
	}
}

// Encode writes the client's frame of the arena's tick, as seen from v: a
// keyframe or delta (kinds 4, 5), or an acked frame (kind 6). It is valid
// until the next call.
func (s *Snapshotter) Encode(v *View) []byte {
	if s.acked {
		return s.ack.Encode(v)
	}
	return s.ord.Encode(v)
}

// State returns what the client holds after the last frame (for the acked
// snapshots, once it applied it).
func (s *Snapshotter) State() *wire.Store {
	if s.acked {
		return s.ack.State()
	}
	return s.ord.State()
}

// Last returns the last frame written (valid until the next Encode).
func (s *Snapshotter) Last() []byte {
	if s.acked {
		return s.ack.Last()
	}
	return s.ord.Last()
}

// AckedEncoder returns the acked encoder, nil when the frames are ordered.
func (s *Snapshotter) AckedEncoder() *AckedEncoder {
	if !s.acked {
		return nil
	}
	return s.ack
}

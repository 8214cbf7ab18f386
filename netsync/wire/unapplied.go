package wire

// A frame a decoder does not apply still carries events the client should
// show: over an ordered connection every frame comes once, so the events
// of a frame refused while the client waits for a keyframe are shown from
// it or never; an acked frame dropped (stale, onto a base not held) or
// refused carries events with serials, which show once whichever frame
// brings them first. The decoders read such a frame's events alone.

// frameEvents reads the events of a frame without applying it: its header
// (an acked frame's when acked), its removed list and its changes (each
// link's, in a chained frame) are checked and skipped. first is an acked
// frame's first serial.
func frameEvents(b []byte, acked bool, out []Event) (first uint32, events []Event, err error) {
	h, off, err := parseHeader(b, acked)
	if err != nil {
		return 0, out, err
	}
	if h.Flags&HeaderChain == 0 {
		if off, err = skipDelta(b, off, int(h.Removed), int(h.Changed)); err != nil {
			return 0, out, err
		}
	} else {
		prev := h.BaseTick
		for i := 0; i < int(h.Changed); i++ {
			tick, removed, changed, err := linkHead(b[off:], &h, i, prev)
			if err != nil {
				return 0, out, err
			}
			if off, err = skipDelta(b, off+linkHeadBytes, removed, changed); err != nil {
				return 0, out, err
			}
			prev = tick
		}
	}
	if len(b)-off < 1 {
		return 0, out, malformed("no event count")
	}
	nev := int(b[off])
	off++
	if acked && nev > 0 {
		if len(b)-off < SerialBytes {
			return 0, out, malformed("no first serial")
		}
		first = le.Uint32(b[off:])
		off += SerialBytes
	}
	for i := 0; i < nev; i++ {
		ev, n, err := ParseEvent(b[off:])
		if err != nil {
			return 0, out, err
		}
		off += n
		out = append(out, ev)
	}
	if off != len(b) {
		return 0, out, malformed("%d bytes after the events", len(b)-off)
	}
	return first, out, nil
}

// AckedFrameEvents returns the first serial and the events of an acked
// frame, read without applying it: a tool's or a test's view of what the
// frame carries. It allocates the slice.
func AckedFrameEvents(b []byte) (first uint32, events []Event, err error) {
	return frameEvents(b, true, nil)
}

// skipDelta skips, from off, a removed list of removed ids and changed
// changes, and returns the offset after them.
func skipDelta(b []byte, off, removed, changed int) (int, error) {
	if len(b)-off < 2*removed {
		return 0, malformed("removed list cut short")
	}
	off += 2 * removed
	for i := 0; i < changed; i++ {
		_, n, err := ParseChange(b[off:])
		if err != nil {
			return 0, err
		}
		off += n
	}
	return off, nil
}

// Events returns the events of an ordered frame Apply refused without
// applying it (its base not the last frame applied, or a delta while the
// decoder waits for a keyframe): the client shows them, so that none is
// lost while it waits. A frame whose check failed was applied, and its
// events are in what Apply returned. The slice is reused by the next call;
// a malformed frame is an error.
func (d *Decoder) Events(b []byte) ([]Event, error) {
	_, evs, err := frameEvents(b, false, d.unapplied[:0])
	d.unapplied = evs
	if err != nil {
		return nil, err
	}
	return evs, nil
}

// Events returns the events of an acked frame Apply did not show (stale,
// onto a base not held, or refused) whose serials are above the newest
// shown, and counts them shown: the next frames that carry them again show
// them no more. The slice is reused by the next call; a malformed frame is
// an error.
func (d *AckedDecoder) Events(b []byte) ([]Event, error) {
	first, evs, err := frameEvents(b, true, d.unapplied[:0])
	d.unapplied = evs[:0]
	if err != nil {
		return nil, err
	}
	for i := range evs {
		if s := first + uint32(i); int32(s-d.serial) > 0 {
			d.unapplied = append(d.unapplied, evs[i])
			d.serial = s
		}
	}
	return d.unapplied, nil
}

package client

import "github.com/fiveonit/engine/netsync/wire"

// Every press reaches the server once, or its input is guessed and the
// press handed on from the copy that comes late (server.InputQueue): none
// is lost unless every copy of its input is. Over an ordered transport an
// input goes once, and arrives. Over a lossy one each input goes in the
// frames of InputsLossy ticks, so that three frames in a row may be lost;
// an input that carries a press goes in the frames of MaxInputsPerFrame
// ticks, so that seven may. The inputs made just before a skip would get
// fewer copies, the frames after it carrying none of the ticks before: the
// client sends them again in frames of their own (tail) until each has its
// copies.
//
// A trigger tap (BtnFire held one tick) is a press too: the client sets
// BtnFire in the input's pressed buttons on the first tick it is held, and
// the server holds the trigger on whichever tick runs that press. A guess
// never holds it, so without the press a tap on a guessed tick would be
// lost.

// tail is the run of inputs before a skip, [start, end], of which the last
// owe copies: owed frames of their own are still to go.
type tail struct {
	start, end uint32
	owed       int
}

// maxTails is the runs before skips a client keeps sending at once: skips
// a tick or two apart (snapshots that came apart after a stall) each leave
// one.
const maxTails = 4

// sendInputs sends the input frame of the tick just made, and a frame of
// the inputs before the last skip while they owe copies.
func (c *Client) sendInputs() error {
	n := c.inputsFor(c.seq, c.resumed)
	if err := c.sendFrame(c.seq+1-n, n); err != nil {
		return err
	}
	c.sent = c.seq
	for i := range c.tails {
		t := &c.tails[i]
		if t.owed == 0 {
			continue
		}
		t.owed--
		n := c.inputsFor(t.end, t.start)
		if err := c.sendFrame(t.end+1-n, n); err != nil {
			return err
		}
	}
	return nil
}

// inputsFor returns how many inputs a frame ending with tick end carries,
// none before tick from: one over an ordered transport; over a lossy one
// wire.InputsLossy, and back to the oldest press of the last
// wire.MaxInputsPerFrame ticks.
func (c *Client) inputsFor(end, from uint32) uint32 {
	n := uint32(wire.InputsOrdered)
	if c.cfg.Lossy {
		n = wire.InputsLossy
		for k := uint32(wire.InputsLossy); k < wire.MaxInputsPerFrame && k < end; k++ {
			if h := &c.hist[(end-k)%HistoryLen]; h.seq == end-k && h.in.Pressed != 0 {
				n = k + 1
			}
		}
	}
	return min(n, end+1-from)
}

// sendFrame sends the inputs of the n ticks from first, with the ticks
// drawn when each was made (wire.InputView) when every one of them has
// one: as a count of ticks before the frame's ack, 255 at most (the
// server takes no rewind that long), 0 for a world drawn past the ack (a
// render clock run on past the newest snapshot).
func (c *Client) sendFrame(first, n uint32) error {
	f := &c.frame
	f.Ack, f.Flags, f.FirstSeq, f.Count = c.dec.Tick(), wire.InputView, first, int(n)
	if c.resync || !c.dec.Synced() && c.applied {
		f.Flags |= wire.InputResync
	}
	for i := uint32(0); i < n; i++ {
		h := &c.hist[(first+i)%HistoryLen]
		f.Inputs[i] = h.in
		f.Inputs[i].View = uint8(min(f.Ack-min(h.view, f.Ack), 255))
		if h.view == 0 {
			f.Flags &^= wire.InputView // nothing drawn yet: the present
		}
	}
	c.out = wire.AppendInputFrame(c.out[:0], f)
	return c.cfg.Send(c.out, false)
}

// tailOf keeps, at a skip from the client's next tick, the run of inputs
// sent before it, whose last owe copies: those of a lossy frame, and more
// back to a press. A skip right after another (snapshots that came
// together) keeps the run before the first.
func (c *Client) tailOf() {
	if !c.cfg.Lossy || c.sent == 0 || c.sent+1 != c.seq {
		return
	}
	t := tail{start: c.resumed, end: c.sent}
	// Tick k of the run went in the frames of ticks k to end: it owes the
	// rest of its copies, InputsLossy or, with a press, MaxInputsPerFrame.
	from := t.start
	if t.end >= wire.MaxInputsPerFrame {
		from = max(from, t.end+1-wire.MaxInputsPerFrame)
	}
	for k := from; k <= t.end; k++ {
		want := wire.InputsLossy
		if h := &c.hist[k%HistoryLen]; h.seq == k && h.in.Pressed != 0 {
			want = wire.MaxInputsPerFrame
		}
		t.owed = max(t.owed, want-int(t.end-k+1))
	}
	// Into a free slot, or over the one with the fewest frames owed.
	slot := 0
	for i := range c.tails {
		if c.tails[i].owed < c.tails[slot].owed {
			slot = i
		}
	}
	c.tails[slot] = t
}

// Package thin is a thin client: it decodes the server's snapshots (the
// ordered ones and the acked ones), acknowledges them, asks for a keyframe
// when it refuses a frame, and sends one input frame per client tick from a
// simple driver. It predicts nothing, reconciles nothing and interpolates
// nothing, so that its CPU and memory per client are small and one machine
// puts hundreds of clients on real sockets against a server. Unity's
// Netcode for Entities calls these thin clients. The bots of
// cmd/bots -thin are thin clients.
//
// To the server a thin client is a client like any other: its
// acknowledgements keep the acked snapshots' bases fresh, and its resync
// requests make the server's check mismatches count what the full client's
// would. Its inputs are paced as the full client's are, more simply: its
// ticks lengthen or shorten by a few percent while the server holds too many
// or too few of its inputs, and it skips ahead when it has fallen far behind
// (package client's pace.go tells why).
package thin

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/fiveonit/engine/client"
	"github.com/fiveonit/engine/netsync/wire"
	"github.com/fiveonit/engine/textframe"
)

// Stats counts what a thin client did.
type Stats struct {
	// What it received.
	FramesIn   uint64 // binary and text frames
	BytesIn    uint64
	TextFrames uint64
	Snapshots  uint64 // frames applied
	Keyframes  uint64 // of them, keyframes
	// JoinKeyframes counts the keyframes applied before the first delta:
	// what joining cost (1 when the first keyframe served).
	JoinKeyframes uint64
	Resyncs       uint64 // frames refused (a wrong check, a base not held, a malformed frame): check mismatches
	Dropped       uint64 // acked frames dropped: stale, or onto a base not held
	// What it sent.
	InputFrames uint64
	BytesOut    uint64
	Skipped     uint64 // client ticks skipped to catch up with the server
}

// Client is a thin client's protocol state: its snapshot decoders, what it
// acknowledges and asks for, its input frames and its counters. It has no
// socket: a caller feeds it the frames received (HandleFrame) and sends the
// input frames it makes (Tick); Run does both on a connection.
//
// One goroutine may receive (HandleFrame) while another sends (Tick,
// Period): the two share only atomic values, the newest snapshot tick
// applied, the resync request, the server's input buffer and the bytes
// received. Each side is for one goroutine at a time, and Stats wants both
// stopped.
type Client struct {
	lossy bool

	// The receiving side.
	ord     *wire.Decoder      // made on the first ordered frame
	ack     *wire.AckedDecoder // made on the first acked frame
	dec     decoder            // the decoder of the last frame applied (nil: none yet)
	refused bool               // the last frame was refused, and none applied since
	applied bool               // a snapshot was applied
	delta   bool               // a delta was applied: joining is done
	recv    Stats
	welcome textframe.Welcome
	inputs  textframe.InputsFrame // the server's last inputs frame
	// firstTick and lastTick are the ticks of the first and the last
	// snapshot applied.
	firstTick, lastTick uint32
	lastRefused         time.Time

	// Shared by the two sides.
	ackTick atomic.Uint32 // the input frames' ack: the newest snapshot tick applied
	resync  atomic.Bool   // the input frames ask for a keyframe
	pace    atomic.Uint64 // the last snapshot's lastSeq<<32 | uint8(inputBuffer)<<8 | 1 (0: none yet)
	joined  atomic.Bool   // the welcome came
	bytesIn atomic.Uint64

	// The sending side.
	seq     uint32 // the next client tick
	resumed uint32 // the first tick after the last skip: no frame carries a tick before it
	ring    [wire.MaxInputsPerFrame]wire.Input
	frame   wire.InputFrame
	out     []byte
	sent    Stats
}

// decoder is what the two snapshot decoders share that a thin client uses.
type decoder interface {
	Apply(b []byte) (*wire.DecodedFrame, error)
	Tick() uint32
	Synced() bool
}

// New returns a thin client. lossy makes each input frame carry the inputs
// of the last wire.InputsLossy ticks, as over a lossy transport.
func New(lossy bool) *Client {
	c := &Client{lossy: lossy, seq: 1, resumed: 1}
	c.out = make([]byte, 0, wire.InputHeaderBytes+wire.MaxInputsPerFrame*wire.InputBytes)
	return c
}

// HandleFrame takes a frame from the server: a snapshot (binary) or a text
// frame. A snapshot the decoder refuses makes the next input frames ask for
// a keyframe, until one applies; the error is returned for the caller's
// logs, but the client goes on.
func (c *Client) HandleFrame(data []byte, text bool) error {
	if text {
		_, err := c.HandleText(data)
		return err
	}
	return c.HandleSnapshot(data)
}

// received counts a frame of n bytes.
func (c *Client) received(n int) {
	c.recv.FramesIn++
	c.recv.BytesIn += uint64(n)
	c.bytesIn.Add(uint64(n))
}

// HandleSnapshot takes a binary frame: an ordered keyframe or delta, or an
// acked frame, each to its decoder (the server may switch a client from one
// kind to the other, with a keyframe of the new kind).
func (c *Client) HandleSnapshot(data []byte) error {
	c.received(len(data))
	var d decoder
	if len(data) > 0 && data[0] == wire.FrameAcked {
		if c.ack == nil {
			c.ack = wire.NewAckedDecoder()
		}
		d = c.ack
	} else {
		if c.ord == nil {
			c.ord = wire.NewDecoder()
		}
		d = c.ord
	}
	df, err := d.Apply(data)
	if err != nil {
		c.recv.Resyncs++
		c.refused = true
		c.lastRefused = time.Now()
		c.publish()
		return fmt.Errorf("thin: snapshot: %w", err)
	}
	if df == nil {
		c.recv.Dropped++ // an acked frame stale or onto a base not held: the next will come
		return nil
	}
	c.dec, c.refused, c.applied = d, false, true
	c.recv.Snapshots++
	if df.Kind == wire.FrameKeyframe || df.Kind == wire.FrameAcked && df.BaseTick == 0 {
		c.recv.Keyframes++
		if !c.delta {
			c.recv.JoinKeyframes++
		}
	} else {
		c.delta = true
	}
	if c.firstTick == 0 {
		c.firstTick = df.Tick
	}
	c.lastTick = df.Tick
	c.pace.Store(uint64(df.LastSeq)<<32 | uint64(uint8(df.InputBuffer))<<8 | 1)
	c.publish()
	return nil
}

// publish hands the sending side what the input frames say: the ack (the
// tick of the decoder that applied last, as the full client's), and the
// resync request, while the last frame was refused or that decoder waits
// for a keyframe.
func (c *Client) publish() {
	if c.dec == nil {
		c.resync.Store(c.refused)
		return
	}
	c.ackTick.Store(c.dec.Tick())
	c.resync.Store(c.refused || !c.dec.Synced() && c.applied)
}

// HandleText takes a text frame and returns its type: the welcome (the
// client may send inputs from then on) and the server's inputs frame are
// kept; the others are counted. Text frames are few (the welcome, an
// inputs frame a second at most, replies): decoding them allocates.
func (c *Client) HandleText(data []byte) (typ string, err error) {
	c.received(len(data))
	c.recv.TextFrames++
	typ = textframe.Type(data)
	switch typ {
	case "":
		return "", errors.New("thin: a text frame without a type")
	case "welcome":
		if err := json.Unmarshal(data, &c.welcome); err != nil {
			return typ, fmt.Errorf("thin: welcome: %w", err)
		}
		c.joined.Store(true)
	case "inputs":
		if err := json.Unmarshal(data, &c.inputs); err != nil {
			return typ, fmt.Errorf("thin: inputs: %w", err)
		}
	}
	return typ, nil
}

// Joined reports whether the welcome came: the client sends inputs from
// then on. Either side may call it.
func (c *Client) Joined() bool { return c.joined.Load() }

// BytesIn returns the bytes received so far. Either side may call it.
func (c *Client) BytesIn() uint64 { return c.bytesIn.Load() }

// Resyncing reports whether the next input frame asks for a keyframe.
// Either side may call it.
func (c *Client) Resyncing() bool { return c.resync.Load() }

// Ack returns the next input frame's ack: the newest snapshot tick
// applied (0: none). Either side may call it.
func (c *Client) Ack() uint32 { return c.ackTick.Load() }

// Tick makes the input frame of the client's next tick, whose input is in:
// the inputs of the last ticks (one; wire.InputsLossy over a lossy
// transport, none from before a skip), the newest snapshot tick applied as
// the ack, and InputResync while the client asks for a keyframe. A client
// far behind the server (the snapshots' input buffer SkipMin ticks or more
// below 0) first skips ahead by the shortfall. The frame is valid until the
// next call. Sending side.
func (c *Client) Tick(in wire.Input) []byte {
	c.skip()
	c.ring[c.seq%wire.MaxInputsPerFrame] = in
	n := uint32(wire.InputsOrdered)
	if c.lossy {
		n = wire.InputsLossy
	}
	n = min(n, c.seq+1-c.resumed)
	f := &c.frame
	f.Ack, f.Flags, f.FirstSeq, f.Count = c.ackTick.Load(), 0, c.seq+1-n, int(n)
	if c.resync.Load() {
		f.Flags = wire.InputResync
	}
	for i := uint32(0); i < n; i++ {
		f.Inputs[i] = c.ring[(f.FirstSeq+i)%wire.MaxInputsPerFrame]
	}
	c.out = wire.AppendInputFrame(c.out[:0], f)
	c.seq++
	c.sent.InputFrames++
	c.sent.BytesOut += uint64(len(c.out))
	return c.out
}

// Seq returns the client tick the next Tick makes. Sending side.
func (c *Client) Seq() uint32 { return c.seq }

// SkipMin is the shortfall, in ticks, from which a thin client skips ahead:
// client.SkipMin. A smaller one the period's dilation makes up.
const SkipMin = client.SkipMin

// buffer returns the last snapshot's input buffer, and whether it tells of
// the client's ticks after its last skip (an older one tells of the stream
// before it, which the skip made up).
func (c *Client) buffer() (b int, ok bool) {
	p := c.pace.Load()
	lastSeq := uint32(p >> 32)
	if p == 0 || lastSeq == 0 {
		return 0, false // the server has run none of the client's ticks yet
	}
	b = int(int8(p >> 8))
	return b, int64(lastSeq)+int64(b)+1 >= int64(c.resumed)
}

// band returns the inputs the client keeps waiting on the server: the full
// client's band.
func (c *Client) band() (low, high int) {
	if c.lossy {
		return client.BufferLowLossy, client.BufferHighLossy
	}
	return client.BufferLow, client.BufferHigh
}

// skip numbers the next tick past the shortfall when the server ran
// SkipMin ticks or more past the client's newest input: their inputs
// would come too late to run.
func (c *Client) skip() {
	b, ok := c.buffer()
	if !ok || b > -SkipMin {
		return
	}
	low, _ := c.band()
	n := uint32(low - b)
	c.seq += n
	c.resumed = c.seq
	c.sent.Skipped += uint64(n)
}

// Period returns how long the client waits before its next tick, given the
// nominal period: shorter while the server holds fewer of its inputs than
// the band's low, longer while it holds more than its high, by 3 % for a
// tick out of the band and 2 % more for each further tick, at most
// client.MaxDilation percent, as the full client's TickPeriod. Sending side.
func (c *Client) Period(nominal time.Duration) time.Duration {
	b, ok := c.buffer()
	if !ok {
		return nominal
	}
	low, high := c.band()
	switch {
	case b < low:
		return nominal * time.Duration(100-dilation(low-b)) / 100
	case b > high:
		return nominal * time.Duration(100+dilation(b-high)) / 100
	}
	return nominal
}

// dilation returns the percent a tick is shortened or lengthened by when
// the buffer is off ticks out of its band.
func dilation(off int) int { return min(1+2*off, client.MaxDilation) }

// Stats returns the client's counters. Call it with both sides stopped.
func (c *Client) Stats() Stats {
	s := c.recv
	s.InputFrames, s.BytesOut, s.Skipped = c.sent.InputFrames, c.sent.BytesOut, c.sent.Skipped
	return s
}

// Welcome returns the server's welcome, and whether it came. Receiving
// side.
func (c *Client) Welcome() (textframe.Welcome, bool) { return c.welcome, c.joined.Load() }

// ServerInputs returns the server's last inputs frame (what it did with
// the client's inputs, as totals), and whether one came. Receiving side.
func (c *Client) ServerInputs() (textframe.InputsFrame, bool) { return c.inputs, c.inputs.Type != "" }

// SnapshotTicks returns how many server ticks the snapshots applied
// spanned, from the first to the last. Receiving side.
func (c *Client) SnapshotTicks() uint32 { return c.lastTick - c.firstTick }

// LastRefused returns when the client last refused a frame (zero: never).
// Receiving side.
func (c *Client) LastRefused() time.Time { return c.lastRefused }

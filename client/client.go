// Package client is the engine's Go client: it decodes the server's
// snapshots, sends its inputs (one per client tick, numbered by it, with the
// newest snapshot tick applied), predicts its own character or car with the
// same physics code as the server and reconciles with the server's full pose
// at each snapshot's lastSeq, and interpolates everything else about 100 ms
// behind. It has no sockets: a transport feeds it frames (HandleFrame) and
// sends what it gives (Config.Send); after a drop the caller takes a new
// connection for the same place (Rejoin, Reconnect). Bots, tests and the
// browser's WebAssembly build use it alike.
package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"time"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/control"
	"github.com/fiveonit/engine/netsync/wire"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/textframe"
)

// HistoryLen is the client ticks of inputs and predictions kept for replay:
// 256, about 4 s, far more than any round trip the server waits for.
const HistoryLen = 256

// CorrectionEpsilon is the smallest difference (m) between a prediction
// and the server's pose counted as a correction: below it the two agree up
// to float rounding (they run the same code on the same inputs).
const CorrectionEpsilon = 1e-4

// InterpDelayTicks is how far behind the newest snapshot remote entities
// are drawn: 6 ticks, 100 ms, two snapshots' worth, so one late or lost
// snapshot still leaves two samples to interpolate between.
const InterpDelayTicks = 6

// Config makes a Client.
type Config struct {
	// Send hands a frame to the transport (text: JSON; else binary). It
	// must not block for long: the client calls it every tick.
	Send func(frame []byte, text bool) error
	// Lossy sends wire.InputsLossy inputs per frame (a lossy transport).
	Lossy bool
	// Static is the level's baked geometry, for the prediction's
	// collisions with buildings (nil: none).
	Static *phys.Static
	// Now, if set, timestamps inputs so that the client measures each
	// input's round trip (sent, run, its snapshot back): Stats.RTT.
	Now func() time.Time
}

// Stats counts what the client did.
type Stats struct {
	Snapshots      uint64
	Keyframes      uint64
	BytesIn        uint64
	Resyncs        uint64 // frames refused (a wrong check, a base not held, a malformed frame)
	Corrections    uint64 // reconciliations that moved the prediction by more than CorrectionEpsilon
	Reconciles     uint64 // reconciliations with a prediction to compare
	MaxCorrection  float32
	SumCorrection  float64
	LastCorrection float32 // the size of the last correction
	BigCorrections uint64  // corrections of 1 cm or more
	Events         uint64
	Dropped        uint64 // acked frames dropped: stale, or onto a base not held
	Skipped        uint64 // client ticks skipped to catch up with the server (see SkipMin)
	Skips          uint64 // times it skipped
	// Corr holds the size of every reconciliation's correction (0 when
	// the prediction agreed): its quantiles are the corrections' p99.
	Corr Hist
	// Jumps holds, for every client tick, how far the own body's drawn
	// position moved beyond the simulation's own motion: a correction
	// shown in one frame. Teleports counts the corrections over
	// TeleportDist, drawn at once (and not in Jumps).
	Jumps     Hist
	Teleports uint64
	// Tow holds the size of every reconciliation's correction of the own
	// car's trailer, predicted hitched to it.
	Tow Hist
	// JoinKeyframes counts the keyframes applied before the first delta:
	// what joining cost (1 when the first keyframe served), each join's
	// (a reconnection's too: Reconnect) added up.
	JoinKeyframes uint64
	// Presses counts the one-shot presses the client sent, a button of a
	// tick one press.
	Presses uint64
	// RTT holds the input round trips measured (Config.Now set), newest
	// last, up to RTTSamples; ClearRTT empties it.
	RTT []time.Duration
}

// RTTSamples bounds Stats.RTT.
const RTTSamples = 1 << 16

type histEntry struct {
	seq     uint32
	sent    time.Time
	in      wire.Input
	view    uint32 // the server tick drawn when it was made (0: none yet)
	presses uint64 // Stats.Presses after this tick
	wid     uint16 // the body predicted after this tick (0: none)
	pose    components.Pose
	vel     components.Velocity
	tow     uint16 // the trailer it towed (0: none), and where
	towPos  components.Vec3
}

// body is the client's own controlled body as it predicts it.
type body struct {
	wid   uint16
	car   bool
	model uint8
	ghost bool // just respawned: it collides with props and buildings only
	pose  components.Pose
	vel   components.Velocity
	tow   towed // the trailer it tows, if any
}

// towed is the trailer of the own car, predicted hitched to it.
type towed struct {
	wid   uint16 // 0: none
	model uint8
	pose  components.Pose
	vel   components.Velocity
}

// Client is one game client. It is not safe for concurrent use: one
// goroutine ticks it and hands it frames.
type Client struct {
	cfg     Config
	dec     Decoder // the decoder of the last frame applied: ord or ack
	ord     *wire.Decoder
	ack     *wire.AckedDecoder
	welcome textframe.Welcome
	joined  bool
	seq     uint32 // the next client tick
	resumed uint32 // the first tick after the last skip (pace): input frames carry none before it
	hist    [HistoryLen]histEntry
	frame   wire.InputFrame
	out     []byte
	resync  bool
	delta   bool           // a delta was applied: joining is done
	applied bool           // a snapshot was applied on this connection
	trigger bool           // the last tick held the trigger
	sent    uint32         // the last tick whose input was sent
	tails   [maxTails]tail // the inputs before the last skips that still owe copies
	pred    body
	near    []near // the bodies near the own one, stepped with it
	smooth  smoother
	bodies  phys.Bodies
	scratch phys.Scratch
	ent     wire.Entity
	stats   Stats
	remote  remotes
	texts   map[string][]byte
	rttSeq  uint32
	pacer   pacer
	events  []wire.Event
	inputs  textframe.InputsFrame // the server's last inputs frame
	made    uint64                // the presses sent up to its Seq
	// OnText, if set, is called with every text frame after the client
	// has read it.
	OnText func(typ string, frame []byte)
}

// New returns a client that sends through cfg.Send.
func New(cfg Config) *Client {
	c := &Client{cfg: cfg, ord: wire.NewDecoder(), ack: wire.NewAckedDecoder(), seq: 1, resumed: 1, texts: map[string][]byte{}}
	c.dec = c.ord
	c.pacer.buffer = c.target()
	c.smooth.reset(0)
	c.scratch.Reserve(maxNear + 1)
	c.near = make([]near, 0, maxNear)
	c.bodies.List = make([]phys.Body, 0, maxNear+1)
	c.events = make([]wire.Event, 0, 2*wire.MaxEvents) // a busy tick's frames without growing
	return c
}

// SetStatic sets the level's geometry the prediction collides with (once
// the welcome has said which level it is).
func (c *Client) SetStatic(st *phys.Static) { c.cfg.Static = st }

// Welcome returns the server's welcome, and whether it has come.
func (c *Client) Welcome() (textframe.Welcome, bool) { return c.welcome, c.joined }

// Stats returns the client's counters.
func (c *Client) Stats() Stats { return c.stats }

// Decoder is what the client's two snapshot decoders share: the ordered
// deltas' (wire.Decoder, kinds 4 and 5) and the acked ones' (wire.AckedDecoder,
// kind 6).
type Decoder interface {
	// Apply applies a frame; a nil frame with no error is one dropped.
	Apply(b []byte) (*wire.DecodedFrame, error)
	// Store is what the client holds after the last frame shown.
	Store() *wire.Store
	// Tick is the newest frame applied: the input frames' ack.
	Tick() uint32
	// Synced reports whether the decoder holds a state to apply onto.
	Synced() bool
	// Events returns the events of a frame Apply did not show, once.
	Events(b []byte) ([]wire.Event, error)
}

// Decoder returns the decoder of the last frame applied (what the client
// holds). The server decides which kind of snapshot a client gets (acked
// over a lossy transport or on request) and the client follows each frame's
// kind; a switch starts with a keyframe of the new kind.
func (c *Client) Decoder() Decoder { return c.dec }

// Text returns the last text frame of type typ received, or nil.
func (c *Client) Text(typ string) []byte { return c.texts[typ] }

// Seq returns the next client tick.
func (c *Client) Seq() uint32 { return c.seq }

// TakeEvents returns the events shown since the last call.
func (c *Client) TakeEvents() []wire.Event {
	ev := c.events
	c.events = c.events[:0]
	return ev
}

// HandleFrame takes a frame from the server. A snapshot the decoder refuses
// makes the next input frame ask for a keyframe; the error is returned for
// the caller's logs, but the client goes on.
func (c *Client) HandleFrame(data []byte, text bool) error {
	c.stats.BytesIn += uint64(len(data))
	if text {
		return c.handleText(data)
	}
	var d Decoder = c.ord
	if len(data) > 0 && data[0] == wire.FrameAcked {
		d = c.ack
	}
	df, err := d.Apply(data)
	if err != nil {
		c.stats.Resyncs++
		c.resync = true
		c.unappliedEvents(d, df, data)
		return fmt.Errorf("client: snapshot: %w", err)
	}
	if df == nil {
		c.stats.Dropped++ // an acked frame stale or onto a base not held: the next will come
		c.unappliedEvents(d, nil, data)
		return nil
	}
	c.dec, c.resync, c.applied = d, false, true
	c.stats.Snapshots++
	if isKeyframe(df) {
		c.stats.Keyframes++
		if !c.delta {
			c.stats.JoinKeyframes++
		}
	} else {
		c.delta = true
	}
	c.events = append(c.events, df.Events...)
	c.stats.Events += uint64(len(df.Events))
	c.remote.record(c.dec.Store(), df)
	c.roundTrip(df.LastSeq)
	c.reconcile(df.LastSeq, df.Tick)
	c.pace(df.LastSeq, df.InputBuffer)
	return nil
}

// unappliedEvents shows the events of a frame the decoder d did not show:
// those df holds (an ordered frame applied whose check failed), or those
// d reads from the frame alone (refused while it waits for a keyframe,
// or an acked frame dropped; the acked ones by their serials, once).
func (c *Client) unappliedEvents(d Decoder, df *wire.DecodedFrame, data []byte) {
	var evs []wire.Event
	if df != nil {
		evs = df.Events
	} else if e, err := d.Events(data); err == nil {
		evs = e
	}
	c.events = append(c.events, evs...)
	c.stats.Events += uint64(len(evs))
}

// isKeyframe reports whether df applied onto nothing: an ordered keyframe
// or an acked frame with no base.
func isKeyframe(df *wire.DecodedFrame) bool {
	return df.Kind == wire.FrameKeyframe || df.Kind == wire.FrameAcked && df.BaseTick == 0
}

// roundTrip records the round trip of input lastSeq the first time a
// snapshot says it was run.
func (c *Client) roundTrip(lastSeq uint32) {
	if c.cfg.Now == nil || lastSeq == 0 || lastSeq <= c.rttSeq {
		return
	}
	c.rttSeq = lastSeq
	h := &c.hist[lastSeq%HistoryLen]
	if h.seq != lastSeq || h.sent.IsZero() || len(c.stats.RTT) >= RTTSamples {
		return
	}
	c.stats.RTT = append(c.stats.RTT, c.cfg.Now().Sub(h.sent))
}

// ClearRTT empties Stats.RTT.
func (c *Client) ClearRTT() { c.stats.RTT = c.stats.RTT[:0] }

func (c *Client) handleText(data []byte) error {
	typ := textframe.Type(data)
	if typ == "" {
		return errors.New("client: a text frame without a type")
	}
	c.texts[typ] = append(c.texts[typ][:0], data...)
	switch typ {
	case "welcome":
		if err := json.Unmarshal(data, &c.welcome); err != nil {
			return fmt.Errorf("client: welcome: %w", err)
		}
		c.joined = true
	case "inputs":
		if err := json.Unmarshal(data, &c.inputs); err != nil {
			return fmt.Errorf("client: inputs: %w", err)
		}
		c.made, _ = c.PressesUpTo(c.inputs.Seq)
	}
	if c.OnText != nil {
		c.OnText(typ, data)
	}
	return nil
}

// ServerInputs returns the server's last inputs frame (what it did with
// the client's inputs, as totals), and whether one came.
func (c *Client) ServerInputs() (textframe.InputsFrame, bool) { return c.inputs, c.inputs.Type != "" }

// Presses returns the presses the client sent up to the tick of the
// server's last inputs frame, and those the server says it ran: equal
// when none was lost or doubled (a press handed on from a late input may
// run a tick or two after its own).
func (c *Client) Presses() (made, run uint64) { return c.made, c.inputs.Presses }

// PressesUpTo returns the presses the client sent in its ticks up to seq,
// and false when seq is not within the last HistoryLen ticks.
func (c *Client) PressesUpTo(seq uint32) (uint64, bool) {
	if seq >= c.seq {
		return c.stats.Presses, true
	}
	h := &c.hist[seq%HistoryLen]
	if h.seq != seq {
		return 0, false
	}
	return h.presses, true
}

// SendText sends a text frame (a command) to the server.
func (c *Client) SendText(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return c.cfg.Send(b, true)
}

// Tick runs one client tick with the player's controls d: it sends the
// input (with the last few, over a lossy transport), with the server tick
// of the world drawn until now (View: what d was chosen on, which the
// server rewinds the input's shots to), and predicts the own body one
// step.
func (c *Client) Tick(d components.Drive) error {
	in := control.Quantize(&d)
	if in.Held&uint16(components.BtnFire) != 0 && !c.trigger {
		in.Pressed |= uint16(components.BtnFire) // a tap is a press: see TriggerPress
	}
	c.trigger = in.Held&uint16(components.BtnFire) != 0
	c.stats.Presses += uint64(bits.OnesCount16(in.Pressed))
	h := &c.hist[c.seq%HistoryLen]
	*h = histEntry{seq: c.seq, in: in, presses: c.stats.Presses, view: c.remote.viewTick()}
	if c.cfg.Now != nil {
		h.sent = c.cfg.Now()
	}
	simBefore := c.pred.pose.Pos
	c.predict(h)
	c.smooth.tick(simBefore, &c.pred, &c.stats)
	c.remote.tick()
	err := c.sendInputs()
	c.seq++
	return err
}

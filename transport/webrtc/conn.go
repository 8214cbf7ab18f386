package webrtc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	pion "github.com/pion/webrtc/v4"

	"github.com/fiveonit/engine/server"
)

// ErrShutdown is returned by Accept once the transport is shutting down.
var ErrShutdown = errors.New("webrtc: shutting down")

// ErrBusy is returned by Accept while Options.MaxPending connections are
// being set up.
var ErrBusy = errors.New("webrtc: too many connections being set up")

// ErrBusyFrom is returned by Accept while Options.MaxPendingFrom
// connections from the same address are being set up.
var ErrBusyFrom = errors.New("webrtc: too many connections being set up from this address")

// ErrBadSignal is wrapped by the errors of an offer or answer that is not
// one (too big, not JSON, not the right type, an SDP pion refuses).
var ErrBadSignal = errors.New("webrtc: bad signal")

// Transport is the server's side of the WebRTC transport: it answers
// offers with connections and keeps track of them until they end, so that
// a shutdown can wait for them.
type Transport struct {
	api                    *pion.API
	wg                     sync.WaitGroup
	maxPending, maxPerFrom int

	mu          sync.Mutex
	conns       map[*Conn]struct{}
	pending     int            // Accepts under way, and connections answered and not yet open
	pendingFrom map[string]int // the same by address (Accept's from)
	closed      bool
}

// New returns the server's transport with o's ICE settings.
func New(o Options) (*Transport, error) {
	api, err := newAPI(o, MaxServerMessage)
	if err != nil {
		return nil, err
	}
	t := &Transport{api: api, conns: map[*Conn]struct{}{}, pendingFrom: map[string]int{},
		maxPending: o.MaxPending, maxPerFrom: o.MaxPendingFrom}
	if t.maxPending <= 0 {
		t.maxPending = MaxPending
	}
	if t.maxPerFrom <= 0 {
		t.maxPerFrom = MaxPendingFrom
	}
	return t, nil
}

// ReadOffer reads a client's offer from r's body: JSON
// {"type":"offer","sdp":...}, at most MaxSignal bytes.
func ReadOffer(r io.Reader) (pion.SessionDescription, error) {
	var d pion.SessionDescription
	b, err := io.ReadAll(io.LimitReader(r, MaxSignal+1))
	if err != nil {
		return d, fmt.Errorf("%w: %w", ErrBadSignal, err)
	}
	if len(b) > MaxSignal {
		return d, fmt.Errorf("%w: an offer over %d bytes", ErrBadSignal, MaxSignal)
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return d, fmt.Errorf("%w: %w", ErrBadSignal, err)
	}
	if d.Type != pion.SDPTypeOffer || d.SDP == "" {
		return d, fmt.Errorf("%w: want an offer, got a %q of %d bytes", ErrBadSignal, d.Type, len(d.SDP))
	}
	return d, nil
}

// WriteAnswer writes the answer as the response: JSON
// {"type":"answer","sdp":...}.
func WriteAnswer(w http.ResponseWriter, answer pion.SessionDescription) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(answer)
}

// Accept answers offer with a new connection. The caller sends the
// answer, and once Connected is closed joins the client to its room and
// calls Serve with the session: the frames the client sent in between go
// to the session first (a client that sends more than EarlyFrames or
// EarlyBytes in between is closed). ctx bounds the ICE gathering (and
// GatherTimeout). from is the client's address (its host),
// for Options.MaxPendingFrom ("": not counted by address). It fails with
// ErrBusy while Options.MaxPending connections are being set up, and with
// ErrBusyFrom while Options.MaxPendingFrom are from the same address.
func (t *Transport) Accept(ctx context.Context, offer pion.SessionDescription, from string) (*Conn, pion.SessionDescription, error) {
	var answer pion.SessionDescription
	if err := t.pend(from); err != nil {
		return nil, answer, err
	}
	pc, err := t.api.NewPeerConnection(pion.Configuration{})
	if err != nil {
		t.unpend(from)
		return nil, answer, fmt.Errorf("webrtc: peer connection: %w", err)
	}
	c := newConn(t, pc, from)
	if err := pc.SetRemoteDescription(offer); err != nil {
		pc.Close()
		t.unpend(from)
		return nil, answer, fmt.Errorf("%w: offer: %w", ErrBadSignal, err)
	}
	a, err := pc.CreateAnswer(nil)
	if err == nil {
		done := pion.GatheringCompletePromise(pc)
		if err = pc.SetLocalDescription(a); err == nil {
			err = gather(ctx, done)
		}
	}
	if err != nil {
		pc.Close()
		t.unpend(from)
		return nil, answer, fmt.Errorf("webrtc: answer: %w", err)
	}
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		pc.Close()
		t.unpend(from)
		return nil, answer, ErrShutdown
	}
	t.conns[c] = struct{}{}
	t.wg.Add(1)
	t.mu.Unlock()
	c.start()
	return c, *pc.LocalDescription(), nil
}

// Shutdown refuses new connections, closes those still open with reason
// (the rooms have closed their clients' already: this catches the ones not
// joined yet) and waits until every one has ended, or for ctx.
func (t *Transport) Shutdown(ctx context.Context, reason string) error {
	t.mu.Lock()
	t.closed = true
	for c := range t.conns {
		c.Close(reason)
	}
	t.mu.Unlock()
	done := make(chan struct{})
	go func() { t.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("webrtc: connections still open: %w", ctx.Err())
	}
}

// Open returns how many connections are open.
func (t *Transport) Open() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.conns)
}

// Pending returns how many connections are being set up: offers being
// answered, and connections answered whose data channels are not yet open.
func (t *Transport) Pending() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.pending
}

// pend counts a connection being set up from from, or says why not.
func (t *Transport) pend(from string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.closed:
		return ErrShutdown
	case t.pending >= t.maxPending:
		return fmt.Errorf("%w (%d)", ErrBusy, t.maxPending)
	case from != "" && t.pendingFrom[from] >= t.maxPerFrom:
		return fmt.Errorf("%w (%d)", ErrBusyFrom, t.maxPerFrom)
	}
	t.pending++
	if from != "" {
		t.pendingFrom[from]++
	}
	return nil
}

// unpend ends what pend counted: the connection opened, ended or was
// never made.
func (t *Transport) unpend(from string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pending--
	if from == "" {
		return
	}
	if t.pendingFrom[from]--; t.pendingFrom[from] <= 0 {
		delete(t.pendingFrom, from)
	}
}

func (t *Transport) ended(c *Conn) {
	t.mu.Lock()
	delete(t.conns, c)
	t.mu.Unlock()
	t.wg.Done()
}

// closeFrame is the last text frame of a connection the server closes.
type closeFrame struct {
	Type   string `json:"type"`
	Reason string `json:"reason"`
}

// maxReason bounds the reason a close frame carries.
const maxReason = 1024

// channel is one data channel's sending side.
type channel struct {
	dc    *pion.DataChannel
	q     chan outFrame
	low   chan struct{} // signalled when the buffered amount falls low
	lossy bool
}

// outFrame is a frame and its kind: one queued to send, or one the
// client sent before the connection had a session.
type outFrame struct {
	data []byte
	text bool
}

// Conn is the server's side of one client's peer connection. It implements
// server.Conn.
type Conn struct {
	t    *Transport
	pc   *pion.PeerConnection
	from string // the client's address, as Accept was given it

	lossy, reliable channel

	mu      sync.Mutex
	opened  int // data channels open
	sess    *server.Session
	early   []outFrame // received before Serve, handed to sess by Serve
	earlyN  int        // their bytes
	onEnd   func()
	isEnded bool

	open      chan struct{} // closed when both channels are open
	first     chan struct{} // closed when the reliable channel has sent its first frame
	firstOnce sync.Once
	done      chan struct{} // closed by Close
	gone      chan struct{} // closed when the client has gone
	ended     chan struct{} // closed when everything is torn down
	closeOnce sync.Once
	goneOnce  sync.Once
	closed    atomic.Bool
	reason    string
	closeSent atomic.Bool
	writers   sync.WaitGroup

	// Counters, for metrics. DroppedOut counts the lossy frames dropped
	// because SCTP still held MaxBuffered bytes.
	FramesOut, BytesOut, FramesIn, BytesIn, DroppedOut atomic.Uint64
}

func newConn(t *Transport, pc *pion.PeerConnection, from string) *Conn {
	c := &Conn{
		t: t, pc: pc, from: from,
		lossy:    channel{q: make(chan outFrame, SendQueue), low: make(chan struct{}, 1), lossy: true},
		reliable: channel{q: make(chan outFrame, SendQueue), low: make(chan struct{}, 1)},
		open:     make(chan struct{}), first: make(chan struct{}),
		done: make(chan struct{}), gone: make(chan struct{}), ended: make(chan struct{}),
	}
	pc.OnDataChannel(c.onDataChannel)
	pc.OnConnectionStateChange(func(s pion.PeerConnectionState) {
		if s == pion.PeerConnectionStateFailed || s == pion.PeerConnectionStateClosed {
			c.markGone()
		}
	})
	return c
}

// start runs the writers and the connection's life.
func (c *Conn) start() {
	c.writers.Add(2)
	go c.writer(&c.lossy)
	go c.writer(&c.reliable)
	go c.life()
}

// onDataChannel takes the client's channels: exactly one of each label,
// with the settings the package doc gives. Anything else ends the
// connection.
func (c *Conn) onDataChannel(dc *pion.DataChannel) {
	ch, err := c.check(dc)
	if err != nil {
		c.Close(err.Error())
		return
	}
	dc.SetBufferedAmountLowThreshold(MaxBuffered / 2)
	dc.OnBufferedAmountLow(func() {
		select {
		case ch.low <- struct{}{}:
		default:
		}
	})
	dc.OnMessage(func(m pion.DataChannelMessage) {
		c.FramesIn.Add(1)
		c.BytesIn.Add(uint64(len(m.Data)))
		c.mu.Lock()
		s := c.sess
		flood := false
		if s == nil {
			c.earlyN += len(m.Data)
			flood = len(c.early) >= EarlyFrames || c.earlyN > EarlyBytes
			if !flood {
				c.early = append(c.early, outFrame{bytes.Clone(m.Data), m.IsString})
			}
		}
		c.mu.Unlock()
		switch {
		case flood:
			c.Close(fmt.Sprintf("%v: more than %d frames or %d bytes before joining", server.ErrFlood, EarlyFrames, EarlyBytes))
		case s != nil:
			s.Receive(m.Data, m.IsString) // a refused frame closes the session at its next tick
		}
	})
	dc.OnClose(c.markGone)
	dc.OnOpen(func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.opened++; c.opened == 2 {
			close(c.open)
		}
	})
}

// check returns the channel dc is, or why it is refused.
func (c *Conn) check(dc *pion.DataChannel) (*channel, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var ch *channel
	switch dc.Label() {
	case LossyLabel:
		if mr := dc.MaxRetransmits(); dc.Ordered() || mr == nil || *mr != 0 || dc.MaxPacketLifeTime() != nil {
			return nil, errors.New("the lossy data channel must be unordered with maxRetransmits 0")
		}
		ch = &c.lossy
	case ReliableLabel:
		if !dc.Ordered() || dc.MaxRetransmits() != nil || dc.MaxPacketLifeTime() != nil {
			return nil, errors.New("the reliable data channel must be ordered and reliable")
		}
		ch = &c.reliable
	default:
		return nil, fmt.Errorf("unknown data channel %.32q", dc.Label())
	}
	if ch.dc != nil {
		return nil, fmt.Errorf("data channel %q opened twice", dc.Label())
	}
	ch.dc = dc
	return ch, nil
}

// Serve hands the client's frames to sess from now on, those received
// before it first; onEnd, if set, is called once the connection has ended
// (after sess.Leave). It returns at once.
func (c *Conn) Serve(sess *server.Session, onEnd func()) {
	c.mu.Lock()
	if !c.isEnded {
		c.sess, c.onEnd = sess, onEnd
		// Under the lock, so that no frame received after these
		// overtakes them.
		for _, f := range c.early {
			sess.Receive(f.data, f.text)
		}
		c.early, c.earlyN = nil, 0
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	sess.Leave()
	if onEnd != nil {
		onEnd()
	}
}

// Lossy implements server.Conn: the lossy channel loses frames.
func (c *Conn) Lossy() bool { return true }

// Send implements server.Conn: text frames and reliable ones go on the
// reliable channel, the others on the lossy one.
func (c *Conn) Send(frame []byte, text, reliable bool) error {
	if c.closed.Load() {
		return server.ErrClosed
	}
	ch := &c.lossy
	if text || reliable {
		ch = &c.reliable
	}
	select {
	case ch.q <- outFrame{append([]byte(nil), frame...), text}:
		return nil
	default:
		return server.ErrSendFull
	}
}

// Close implements server.Conn: the frames queued are sent, then the close
// frame with reason, then the peer connection closes.
func (c *Conn) Close(reason string) {
	c.closeOnce.Do(func() {
		c.reason = reason
		c.closed.Store(true)
		close(c.done)
	})
}

// Done is closed when Close has been called.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Connected is closed when both data channels are open.
func (c *Conn) Connected() <-chan struct{} { return c.open }

// Ended is closed when the connection has ended: the peer connection
// closed, the session told, and the transport no longer counting it in
// Open.
func (c *Conn) Ended() <-chan struct{} { return c.ended }

func (c *Conn) markGone() { c.goneOnce.Do(func() { close(c.gone) }) }

// life waits for the channels to open, then for the end (a Close or the
// client gone), then tears the peer connection down. After a Close it
// gives the client CloseTimeout to hang up first, so that the close frame
// is not lost in a closing association.
func (c *Conn) life() {
	defer func() {
		// The transport forgets the connection first, so that whoever
		// waits on Ended finds it no longer counted (Open) nor waited
		// for (Shutdown).
		c.t.ended(c)
		close(c.ended)
	}()
	connect := time.NewTimer(ConnectTimeout)
	select {
	case <-c.open:
	case <-connect.C:
		c.Close(fmt.Sprintf("no WebRTC connection within %s", ConnectTimeout))
	case <-c.gone:
		c.Close("left")
	case <-c.done:
	}
	connect.Stop()
	c.t.unpend(c.from)
	select {
	case <-c.gone:
		c.Close("left")
	case <-c.done:
	}
	c.writers.Wait()
	if c.closeSent.Load() {
		linger := time.NewTimer(CloseTimeout)
		select {
		case <-c.gone:
		case <-linger.C:
		}
		linger.Stop()
	}
	c.pc.GracefulClose()
	c.mu.Lock()
	c.isEnded = true
	sess, onEnd := c.sess, c.onEnd
	c.mu.Unlock()
	if sess != nil {
		sess.Leave()
	}
	if onEnd != nil {
		onEnd()
	}
}

// writer sends ch's frames once both channels are open; after a Close it
// sends those still queued and, on the reliable channel, the close frame.
//
// The lossy channel starts once the reliable one has sent its first frame:
// the game server queues the welcome before any snapshot, and a client
// mostly gets it first that way (mostly: the two channels are two SCTP
// streams, and nothing orders one against the other; a client must take a
// snapshot before its welcome).
func (c *Conn) writer(ch *channel) {
	defer c.writers.Done()
	start := c.open
	if ch.lossy {
		start = c.first
	}
	select {
	case <-start:
	case <-c.done:
		return // never connected: nobody to tell
	case <-c.gone:
		return
	}
	for {
		select {
		case f := <-ch.q:
			if !c.write(ch, f) {
				c.Close("write failed")
				return
			}
		case <-c.gone:
			return
		case <-c.done:
			if c.drain(ch) && !ch.lossy {
				c.sendClose(ch)
			}
			return
		}
	}
}

// drain sends the frames still queued on ch (the last snapshot, the reply
// that says why the client is closed) and reports whether every send
// worked.
func (c *Conn) drain(ch *channel) bool {
	for {
		select {
		case f := <-ch.q:
			if !c.write(ch, f) {
				return false
			}
		default:
			return true
		}
	}
}

// write sends one frame and reports whether the channel still works.
func (c *Conn) write(ch *channel, f outFrame) bool {
	if ch.dc.BufferedAmount() > MaxBuffered {
		if ch.lossy {
			c.DroppedOut.Add(1)
			return true
		}
		if !c.waitLow(ch) {
			return false
		}
	}
	var err error
	if f.text {
		err = ch.dc.SendText(string(f.data))
	} else {
		err = ch.dc.Send(f.data)
	}
	if err != nil {
		return false
	}
	c.FramesOut.Add(1)
	c.BytesOut.Add(uint64(len(f.data)))
	if !ch.lossy {
		c.firstOnce.Do(func() { close(c.first) })
	}
	return true
}

// waitLow waits, at most WriteTimeout, until ch's buffered amount is
// MaxBuffered or less.
func (c *Conn) waitLow(ch *channel) bool {
	t := time.NewTimer(WriteTimeout)
	defer t.Stop()
	for ch.dc.BufferedAmount() > MaxBuffered {
		select {
		case <-ch.low:
		case <-c.gone:
			return false
		case <-t.C:
			return false
		}
	}
	return true
}

// sendClose sends the close frame with the reason and waits, at most
// CloseTimeout, until SCTP has sent it.
func (c *Conn) sendClose(ch *channel) {
	reason := c.reason
	if len(reason) > maxReason {
		reason = reason[:maxReason]
	}
	b, _ := json.Marshal(closeFrame{Type: "close", Reason: reason})
	if !c.write(ch, outFrame{b, true}) {
		return
	}
	c.closeSent.Store(true)
	deadline := time.Now().Add(CloseTimeout)
	for ch.dc.BufferedAmount() > 0 && time.Now().Before(deadline) {
		select {
		case <-c.gone:
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
}

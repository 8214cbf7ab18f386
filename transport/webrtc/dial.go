package webrtc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	pion "github.com/pion/webrtc/v4"

	"github.com/fiveonit/engine/netsync/wire"
	"github.com/fiveonit/engine/textframe"
	"github.com/fiveonit/engine/transport/loss"
)

// ReadQueue is the frames the client holds for Read: 1,024, fifty seconds
// of snapshots. A lossy frame that finds it full is dropped; a reliable one
// waits (and so holds up its channel).
const ReadQueue = 1024

// DialOptions are the client's settings.
type DialOptions struct {
	Options
	// Loss drops that fraction (0..1) of the lossy channel's frames each
	// way, before they are sent and as they arrive: a lossy network on
	// loopback, for tests and the bots. The reliable channel loses
	// nothing.
	Loss float64
	// Seed seeds the loss.
	Seed uint64
	// HTTP is the client the offer is sent with (nil: one without
	// keep-alives, so that nothing outlives the dial).
	HTTP *http.Client
}

// CloseError is the server's close of the connection, with its reason.
type CloseError struct {
	Reason string
}

func (e *CloseError) Error() string { return "closed by the server: " + e.Reason }

// CloseReason returns the server's reason: a client that reconnects by
// itself (package bot) does not come back after a close that gives one.
func (e *CloseError) CloseReason() string { return e.Reason }

// ErrConnClosed is returned by Read and Send once the connection has closed
// without a close frame (the peer connection failed or was closed).
var ErrConnClosed = errors.New("webrtc: connection closed")

type inFrame struct {
	data  []byte
	text  bool
	close *CloseError
}

// ClientConn is a client's side of the peer connection, for the Go client
// and the bots (it implements bot.Conn). Send and Read may be called from
// different goroutines.
type ClientConn struct {
	pc              *pion.PeerConnection
	lossy, reliable *pion.DataChannel
	in              chan inFrame
	gone            chan struct{} // closed when the peer connection has gone
	goneOnce        sync.Once
	closing         chan struct{} // closed by Close
	closeOnce       sync.Once
	closeErr        error
	closedBy        atomic.Pointer[CloseError] // the close frame Read returned
	closeFrame      atomic.Pointer[CloseError] // the close frame, as it came
	sim             *loss.Sim                  // the simulated loss (DialOptions.Loss)

	// Counters. Lost counts the frames the simulated loss dropped, each
	// way.
	FramesOut, BytesOut, FramesIn, BytesIn, LostOut, LostIn atomic.Uint64
	// By channel, the binary frames (snapshots) that came on it, counted
	// before the simulated loss, and the largest of them: the server
	// sends a snapshot over wire.ReliableAbove on the reliable channel, so
	// LargestLossy stays at or below it.
	SnapshotsLossy, SnapshotsReliable, LargestLossy, LargestReliable atomic.Uint64
}

// countSnapshot counts a binary frame of n bytes that came on a channel.
func countSnapshot(frames, largest *atomic.Uint64, n int) {
	frames.Add(1)
	for {
		old := largest.Load()
		if uint64(n) <= old || largest.CompareAndSwap(old, uint64(n)) {
			return
		}
	}
}

// RTCURL returns the signalling URL of a room's URL: the scheme made
// http(s) (ws and wss map to them), "/rtc" added to the path unless it is
// there, the query kept.
func RTCURL(room string) (string, error) {
	u, err := url.Parse(room)
	if err != nil {
		return "", fmt.Errorf("webrtc: url %q: %w", room, err)
	}
	switch u.Scheme {
	case "ws", "http":
		u.Scheme = "http"
	case "wss", "https":
		u.Scheme = "https"
	default:
		return "", fmt.Errorf("webrtc: url %q: scheme %q is not http, https, ws or wss", room, u.Scheme)
	}
	if !strings.HasSuffix(u.Path, "/rtc") {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/rtc"
	}
	return u.String(), nil
}

// Dial joins a room over WebRTC: room is the room's URL (as a WebSocket
// join's, with its query; see RTCURL). It sends the offer, takes the answer
// and returns once both data channels are open, or fails when ctx ends.
// A server that closes the connection while it opens (its room filled
// after the answer) makes it fail with the *CloseError of its reason.
// Without o.IPs, a server on a loopback address is reached from loopback
// addresses only.
func Dial(ctx context.Context, room string, o DialOptions) (*ClientConn, error) {
	sig, err := RTCURL(room)
	if err != nil {
		return nil, err
	}
	if len(o.IPs) == 0 {
		if u, _ := url.Parse(sig); u != nil {
			if ip := net.ParseIP(u.Hostname()); (ip != nil && ip.IsLoopback()) || u.Hostname() == "localhost" {
				o.IPs = []net.IP{net.IPv4(127, 0, 0, 1)}
			}
		}
	}
	sim, err := loss.New(o.Loss, o.Seed)
	if err != nil {
		return nil, fmt.Errorf("webrtc: %w", err)
	}
	api, err := newAPI(o.Options, MaxClientMessage)
	if err != nil {
		return nil, err
	}
	pc, err := api.NewPeerConnection(pion.Configuration{})
	if err != nil {
		return nil, fmt.Errorf("webrtc: peer connection: %w", err)
	}
	c := &ClientConn{
		pc: pc, in: make(chan inFrame, ReadQueue), gone: make(chan struct{}), closing: make(chan struct{}),
		sim: sim,
	}
	if err := c.dial(ctx, sig, o.HTTP); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func (c *ClientConn) dial(ctx context.Context, sig string, hc *http.Client) error {
	var err error
	unordered, zero := false, uint16(0)
	if c.reliable, err = c.pc.CreateDataChannel(ReliableLabel, nil); err != nil {
		return fmt.Errorf("webrtc: data channel: %w", err)
	}
	if c.lossy, err = c.pc.CreateDataChannel(LossyLabel, &pion.DataChannelInit{Ordered: &unordered, MaxRetransmits: &zero}); err != nil {
		return fmt.Errorf("webrtc: data channel: %w", err)
	}
	var opened atomic.Int32
	open := make(chan struct{})
	for _, dc := range []*pion.DataChannel{c.reliable, c.lossy} {
		dc.OnOpen(func() {
			if opened.Add(1) == 2 {
				close(open)
			}
		})
		dc.OnClose(c.markGone)
	}
	c.lossy.OnMessage(c.onLossy)
	c.reliable.OnMessage(c.onReliable)
	c.pc.OnConnectionStateChange(func(s pion.PeerConnectionState) {
		if s == pion.PeerConnectionStateFailed || s == pion.PeerConnectionStateClosed {
			c.markGone()
		}
	})
	offer, err := c.pc.CreateOffer(nil)
	if err != nil {
		return fmt.Errorf("webrtc: offer: %w", err)
	}
	gathered := pion.GatheringCompletePromise(c.pc)
	if err := c.pc.SetLocalDescription(offer); err != nil {
		return fmt.Errorf("webrtc: offer: %w", err)
	}
	if err := gather(ctx, gathered); err != nil {
		return err
	}
	answer, err := signal(ctx, hc, sig, *c.pc.LocalDescription())
	if err != nil {
		return err
	}
	if err := c.pc.SetRemoteDescription(answer); err != nil {
		return fmt.Errorf("%w: answer: %w", ErrBadSignal, err)
	}
	select {
	case <-open:
		return nil
	case <-c.gone:
		if ce := c.closeFrame.Load(); ce != nil {
			return fmt.Errorf("webrtc: %s: %w", sig, ce) // a room that filled after its answer
		}
		return fmt.Errorf("webrtc: %s: the connection closed while opening", sig)
	case <-ctx.Done():
		return fmt.Errorf("webrtc: %s: data channels not open: %w", sig, ctx.Err())
	}
}

// signal POSTs the offer to sig and returns the answer.
func signal(ctx context.Context, hc *http.Client, sig string, offer pion.SessionDescription) (pion.SessionDescription, error) {
	var answer pion.SessionDescription
	if hc == nil {
		hc = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: GatherTimeout + 5*time.Second}
		defer hc.CloseIdleConnections()
	}
	body, _ := json.Marshal(offer)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, sig, bytes.NewReader(body))
	if err != nil {
		return answer, fmt.Errorf("webrtc: %s: %w", sig, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return answer, fmt.Errorf("webrtc: %s: %w", sig, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxSignal+1))
	if err != nil {
		return answer, fmt.Errorf("webrtc: %s: %w", sig, err)
	}
	if resp.StatusCode != http.StatusOK {
		return answer, fmt.Errorf("webrtc: %s: %s: %s", sig, resp.Status, strings.TrimSpace(string(b)))
	}
	if len(b) > MaxSignal {
		return answer, fmt.Errorf("%w: an answer over %d bytes", ErrBadSignal, MaxSignal)
	}
	if err := json.Unmarshal(b, &answer); err != nil || answer.Type != pion.SDPTypeAnswer {
		return answer, fmt.Errorf("%w: %s: not an answer: %.64q", ErrBadSignal, sig, b)
	}
	return answer, nil
}

func (c *ClientConn) onLossy(m pion.DataChannelMessage) {
	if !m.IsString {
		countSnapshot(&c.SnapshotsLossy, &c.LargestLossy, len(m.Data))
	}
	if c.sim.Drop() {
		c.LostIn.Add(1)
		return
	}
	c.FramesIn.Add(1)
	c.BytesIn.Add(uint64(len(m.Data)))
	select {
	case c.in <- inFrame{data: m.Data, text: m.IsString}:
	default: // the reader is far behind: a lossy frame may be lost
	}
}

func (c *ClientConn) onReliable(m pion.DataChannelMessage) {
	if !m.IsString {
		countSnapshot(&c.SnapshotsReliable, &c.LargestReliable, len(m.Data))
	}
	c.FramesIn.Add(1)
	c.BytesIn.Add(uint64(len(m.Data)))
	f := inFrame{data: m.Data, text: m.IsString}
	if m.IsString && textframe.Type(m.Data) == "close" {
		var cf closeFrame
		json.Unmarshal(m.Data, &cf)
		f = inFrame{close: &CloseError{Reason: cf.Reason}}
	}
	select {
	case c.in <- f:
	case <-c.closing:
		return
	}
	if f.close != nil {
		c.closeFrame.Store(f.close)
		go c.Close() // hang up at once: the server waits for it
	}
}

func (c *ClientConn) markGone() { c.goneOnce.Do(func() { close(c.gone) }) }

// Lossy reports true: the client sends several inputs per frame.
func (c *ClientConn) Lossy() bool { return true }

// Send sends one frame: a text frame, or a binary one over
// wire.ReliableAbove, on the reliable channel; the others (inputs) on the
// lossy one, where the simulated loss may drop them. Once the server's
// close frame has come it returns that *CloseError, so that a client that
// sends before it reads learns the reason all the same.
func (c *ClientConn) Send(ctx context.Context, frame []byte, text bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if ce := c.closeFrame.Load(); ce != nil {
		return ce
	}
	select {
	case <-c.gone:
		return ErrConnClosed
	case <-c.closing:
		return ErrConnClosed
	default:
	}
	var err error
	switch {
	case text:
		err = c.reliable.SendText(string(frame))
	case len(frame) > wire.ReliableAbove:
		err = c.reliable.Send(frame)
	case c.sim.Drop():
		c.LostOut.Add(1)
		return nil
	default:
		err = c.lossy.Send(frame)
	}
	if err != nil {
		return fmt.Errorf("webrtc: send: %w", err)
	}
	c.FramesOut.Add(1)
	c.BytesOut.Add(uint64(len(frame)))
	return nil
}

// Read returns the next frame. After the server's close frame it returns a
// *CloseError with the reason; after the connection went without one,
// ErrConnClosed.
func (c *ClientConn) Read(ctx context.Context) (frame []byte, text bool, err error) {
	select {
	case f := <-c.in:
		return c.frame(f)
	case <-ctx.Done():
		return nil, false, ctx.Err()
	case <-c.gone:
	case <-c.closing:
	}
	select { // the frames that came before the end first
	case f := <-c.in:
		return c.frame(f)
	default:
	}
	if ce := c.closedBy.Load(); ce != nil {
		return nil, false, ce
	}
	return nil, false, ErrConnClosed
}

func (c *ClientConn) frame(f inFrame) ([]byte, bool, error) {
	if ce := c.closedBy.Load(); ce != nil {
		return nil, false, ce // nothing after the close frame counts
	}
	if f.close != nil {
		c.closedBy.Store(f.close)
		return nil, false, f.close
	}
	return f.data, f.text, nil
}

// Close closes the peer connection and waits for pion's goroutines. It may
// be called more than once.
func (c *ClientConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closing)
		c.closeErr = c.pc.GracefulClose()
	})
	return c.closeErr
}

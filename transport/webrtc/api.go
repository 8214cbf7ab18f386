// Package webrtc is the lossy transport: a client's connection as a
// server.Conn over two WebRTC data channels (github.com/pion/webrtc/v4), and
// the client's side for the Go client and the bots.
//
// Signalling is one HTTP request, non-trickle: the client POSTs its offer
// (JSON {"type":"offer","sdp":...}) to /rooms/{name}/rtc with the query of a
// WebSocket join, and gets the answer back (JSON {"type":"answer","sdp":...})
// once the server has gathered its ICE candidates. There is no STUN server:
// the candidates are the hosts' own addresses (loopback ones included, so
// that tests run on one machine), mDNS is off.
//
// The client opens two data channels, which the server checks:
//
//   - "lossy" (LossyLabel): unordered, maxRetransmits 0. Snapshots and
//     inputs: a frame lost is never sent again, and a late one never holds
//     up the next.
//   - "reliable" (ReliableLabel): ordered and reliable. Text frames (JSON)
//     and snapshots over wire.ReliableAbove bytes.
//
// A data channel has no close reason, so the server's Close(reason) sends a
// last text frame on the reliable channel before the peer connection
// closes:
//
//	{"type":"close","reason":"..."}
//
// The client's side (Dial) turns it into a *CloseError from Read.
//
// The server's side never blocks the room: Send puts a copy of the frame in
// the bounded queue of its channel (SendQueue) that the channel's writer
// goroutine drains; a full queue is server.ErrSendFull.
package webrtc

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/pion/ice/v4"
	"github.com/pion/interceptor"
	"github.com/pion/logging"
	pion "github.com/pion/webrtc/v4"

	"github.com/fiveonit/engine/server"
)

// The data channels' labels.
const (
	LossyLabel    = "lossy"
	ReliableLabel = "reliable"
)

// Timeouts and limits. Each one bounds a wait that a silent or hostile
// peer could otherwise make last for ever.
const (
	// SendQueue is the frames a channel queues for a slow client before
	// Send returns server.ErrSendFull: 64, three seconds of snapshots at
	// 20 a second (as the WebSocket's queue).
	SendQueue = 64
	// MaxBuffered is the bytes a channel lets SCTP hold unsent (its
	// congestion window full): past it the lossy channel drops the frame
	// (a late snapshot is worth nothing) and the reliable one waits.
	MaxBuffered = 256 << 10
	// GatherTimeout bounds the ICE gathering before an offer or answer.
	GatherTimeout = 5 * time.Second
	// ConnectTimeout is how long the server waits, after its answer,
	// for both data channels to open before it gives the client up.
	ConnectTimeout = 10 * time.Second
	// WriteTimeout is the longest the reliable channel waits for its
	// buffer to drain before the connection is closed.
	WriteTimeout = 5 * time.Second
	// CloseTimeout bounds each step of a close: the close frame's flush,
	// then the wait for the client to hang up first.
	CloseTimeout = time.Second
	// MaxSignal is the largest offer or answer (JSON) read: 64 KiB.
	MaxSignal = 64 << 10
	// MaxServerMessage is the largest data channel message the server
	// takes (advertised in its SDP; a larger one breaks the channel and
	// ends the connection). The game server's own limits are lower
	// (server.MaxTextFrame); this bounds what pion reassembles first.
	MaxServerMessage = 16 << 10
	// MaxClientMessage is the largest message the client takes: a
	// keyframe of a crowded area, sent on the reliable channel.
	MaxClientMessage = 1 << 20
	// MaxPending bounds the connections being set up (offers being
	// answered, answers whose client has not connected yet): each holds a
	// peer connection, its UDP sockets and goroutines for up to
	// GatherTimeout + ConnectTimeout, and an offer costs its sender one
	// HTTP request, which can be replayed. A client's is pending well
	// under a second on a real network, so 256 admit hundreds of joins a
	// second; past it Accept fails with ErrBusy.
	MaxPending = 256
	// MaxPendingFrom bounds the connections being set up from one
	// address, so that one that floods offers holds that many of
	// MaxPending, not all: a browser makes one at a time, and bots on one
	// machine (cmd/bots dials every 20 ms) connect within ~100 ms on
	// loopback, so 8 leave room. Past it Accept fails with ErrBusyFrom.
	MaxPendingFrom = 8
	// EarlyFrames and EarlyBytes bound the frames kept that a client
	// sends after its channels open and before the connection has a
	// session (Serve), to be handed to the session in order: its inputs
	// start on its first tick, before the welcome, and a command or a
	// burst of them (server.TextBurst) may come at once; the room may be
	// a new one still being made. As many frames as the session itself
	// takes in a burst (server.FrameBurst), and each at most
	// server.MaxTextFrame on average; past either, the connection is
	// closed for flooding, as the session would have.
	EarlyFrames = server.FrameBurst
	EarlyBytes  = server.FrameBurst * server.MaxTextFrame
)

// ICE timeouts: a client silent for ICEDisconnected is disconnected, one
// silent for ICEFailed is gone (the session leaves). Keep-alives go every
// ICEKeepAlive, so a live client is never silent that long.
const (
	ICEDisconnected = 3 * time.Second
	ICEFailed       = 6 * time.Second
	ICEKeepAlive    = time.Second
)

// Options are the settings of the ICE agent of either side.
type Options struct {
	// IPs are the local addresses host candidates are gathered on (nil:
	// every interface's). When every one is a loopback address, remote
	// candidates are kept to loopback addresses too, so nothing is ever
	// sent off the machine (tests, a local server).
	IPs []net.IP
	// Loopback gathers loopback candidates as well (a client on the
	// same machine). It is implied when IPs has a loopback address.
	Loopback bool
	// PublicIPs are the addresses a server behind a 1:1 NAT announces
	// in place of its host candidates' (pion's NAT1To1IPs).
	PublicIPs []string
	// PortMin and PortMax bound the UDP ports (0, 0: ephemeral).
	PortMin, PortMax uint16
	// Log gets pion's own messages at debug level (nil: none).
	Log *slog.Logger
	// MaxPending and MaxPendingFrom bound the server's connections being
	// set up, in all and from one address (0: the constants of those
	// names). A client's side ignores them.
	MaxPending, MaxPendingFrom int
}

// newAPI builds a pion API for data channels only (no media engine, no
// interceptors) with o's ICE settings and maxMessage as the largest message
// taken.
func newAPI(o Options, maxMessage uint32) (*pion.API, error) {
	var se pion.SettingEngine
	se.LoggerFactory = logFactory{o.Log}
	se.SetNetworkTypes([]pion.NetworkType{pion.NetworkTypeUDP4})
	se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	se.SetICETimeouts(ICEDisconnected, ICEFailed, ICEKeepAlive)
	se.SetSTUNGatherTimeout(GatherTimeout)
	se.SetSCTPMaxMessageSize(maxMessage)
	loopbackOnly := len(o.IPs) > 0
	for _, ip := range o.IPs {
		if ip.IsLoopback() {
			o.Loopback = true
		} else {
			loopbackOnly = false
		}
	}
	se.SetIncludeLoopbackCandidate(o.Loopback)
	if len(o.IPs) > 0 {
		ips := append([]net.IP(nil), o.IPs...)
		se.SetIPFilter(func(ip net.IP) bool {
			for _, k := range ips {
				if k.Equal(ip) {
					return true
				}
			}
			return false
		})
	}
	if loopbackOnly {
		se.SetRemoteIPFilter(func(ip net.IP) bool { return ip.IsLoopback() })
	}
	if len(o.PublicIPs) > 0 {
		// Announce the public addresses in place of the host candidates'
		// (a server behind a 1:1 NAT).
		if err := se.SetICEAddressRewriteRules(pion.ICEAddressRewriteRule{
			External: o.PublicIPs, AsCandidateType: pion.ICECandidateTypeHost, Mode: pion.ICEAddressRewriteReplace,
		}); err != nil {
			return nil, fmt.Errorf("webrtc: public IPs %v: %w", o.PublicIPs, err)
		}
	}
	if o.PortMin != 0 || o.PortMax != 0 {
		if err := se.SetEphemeralUDPPortRange(o.PortMin, o.PortMax); err != nil {
			return nil, fmt.Errorf("webrtc: ports %d-%d: %w", o.PortMin, o.PortMax, err)
		}
	}
	return pion.NewAPI(pion.WithSettingEngine(se), pion.WithMediaEngine(&pion.MediaEngine{}),
		pion.WithInterceptorRegistry(&interceptor.Registry{})), nil
}

// gather waits for the ICE gathering that done ends (pion's
// GatheringCompletePromise), at most GatherTimeout or until ctx ends.
func gather(ctx context.Context, done <-chan struct{}) error {
	t := time.NewTimer(GatherTimeout)
	defer t.Stop()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("webrtc: ICE gathering: %w", ctx.Err())
	case <-t.C:
		return fmt.Errorf("webrtc: ICE gathering took more than %s", GatherTimeout)
	}
}

// logFactory hands pion's messages to a slog.Logger at debug level: pion
// reports a peer's every hiccup (a connection torn down mid-handshake, a
// late packet) as an error, which for a game server is a client's business.
type logFactory struct{ log *slog.Logger }

func (f logFactory) NewLogger(scope string) logging.LeveledLogger {
	if f.log == nil {
		return pionLog{}
	}
	return pionLog{f.log.With("pion", scope)}
}

type pionLog struct{ log *slog.Logger }

func (l pionLog) print(level, msg string) {
	if l.log != nil {
		l.log.Debug(msg, "level", level)
	}
}

func (l pionLog) printf(level, format string, args ...any) {
	if l.log != nil {
		l.log.Debug(fmt.Sprintf(format, args...), "level", level)
	}
}

func (l pionLog) Trace(string)                   {}
func (l pionLog) Tracef(string, ...any)          {}
func (l pionLog) Debug(string)                   {}
func (l pionLog) Debugf(string, ...any)          {}
func (l pionLog) Info(msg string)                { l.print("info", msg) }
func (l pionLog) Infof(format string, a ...any)  { l.printf("info", format, a...) }
func (l pionLog) Warn(msg string)                { l.print("warn", msg) }
func (l pionLog) Warnf(format string, a ...any)  { l.printf("warn", format, a...) }
func (l pionLog) Error(msg string)               { l.print("error", msg) }
func (l pionLog) Errorf(format string, a ...any) { l.printf("error", format, a...) }

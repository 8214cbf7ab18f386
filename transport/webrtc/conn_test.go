package webrtc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	pion "github.com/pion/webrtc/v4"
	"go.uber.org/goleak"

	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/netsync/wire"
	"github.com/fiveonit/engine/server"
)

var loopbackOnly = Options{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}}

// rawPeer is a client's peer connection made by hand, with the data
// channels a test asks for.
func rawPeer(t *testing.T, channels map[string]*pion.DataChannelInit) (*pion.PeerConnection, pion.SessionDescription) {
	t.Helper()
	pc, offer, _ := rawPeerChannels(t, channels)
	return pc, offer
}

// rawPeerChannels is rawPeer, with its data channels by label.
func rawPeerChannels(t *testing.T, channels map[string]*pion.DataChannelInit) (*pion.PeerConnection, pion.SessionDescription, map[string]*pion.DataChannel) {
	t.Helper()
	api, err := newAPI(loopbackOnly, MaxClientMessage)
	if err != nil {
		t.Fatal(err)
	}
	pc, err := api.NewPeerConnection(pion.Configuration{})
	if err != nil {
		t.Fatal(err)
	}
	dcs := map[string]*pion.DataChannel{}
	for label, init := range channels {
		dc, err := pc.CreateDataChannel(label, init)
		if err != nil {
			t.Fatal(err)
		}
		dcs[label] = dc
	}
	offer, err := pc.CreateOffer(nil)
	if err != nil {
		t.Fatal(err)
	}
	done := pion.GatheringCompletePromise(pc)
	if err := pc.SetLocalDescription(offer); err != nil {
		t.Fatal(err)
	}
	if err := gather(context.Background(), done); err != nil {
		t.Fatal(err)
	}
	return pc, *pc.LocalDescription(), dcs
}

func ptr[T any](v T) *T { return &v }

// TestDataChannelsChecked: the server takes exactly one unordered
// maxRetransmits-0 "lossy" channel and one ordered reliable "reliable"
// channel; any other set ends the connection.
func TestDataChannelsChecked(t *testing.T) {
	defer goleak.VerifyNone(t)
	good := &pion.DataChannelInit{Ordered: ptr(false), MaxRetransmits: ptr(uint16(0))}
	cases := []struct {
		name     string
		channels map[string]*pion.DataChannelInit
		ok       bool
	}{
		{"both right", map[string]*pion.DataChannelInit{LossyLabel: good, ReliableLabel: nil}, true},
		{"lossy ordered", map[string]*pion.DataChannelInit{LossyLabel: {MaxRetransmits: ptr(uint16(0))}, ReliableLabel: nil}, false},
		{"lossy retransmits", map[string]*pion.DataChannelInit{LossyLabel: {Ordered: ptr(false), MaxRetransmits: ptr(uint16(2))}, ReliableLabel: nil}, false},
		{"reliable unordered", map[string]*pion.DataChannelInit{LossyLabel: good, ReliableLabel: {Ordered: ptr(false)}}, false},
		{"unknown label", map[string]*pion.DataChannelInit{LossyLabel: good, ReliableLabel: nil, "extra": nil}, false},
	}
	tr, err := New(loopbackOnly)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pc, offer := rawPeer(t, c.channels)
			defer pc.Close()
			conn, answer, err := tr.Accept(context.Background(), offer, "")
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close("test over")
			if err := pc.SetRemoteDescription(answer); err != nil {
				t.Fatal(err)
			}
			select {
			case <-conn.open:
				if !c.ok {
					t.Fatal("the channels opened")
				}
			case <-conn.Done():
				if c.ok {
					t.Fatalf("closed: %s", conn.reason)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("neither open nor closed")
			}
		})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := tr.Shutdown(ctx, "test over"); err != nil {
		t.Fatal(err)
	}
}

// TestSendNeverBlocks: a client that never connects fills each channel's
// queue, then Send says so (server.ErrSendFull) at once; after Close it
// says ErrClosed, and the connection ends without waiting for anyone.
func TestSendNeverBlocks(t *testing.T) {
	defer goleak.VerifyNone(t)
	tr, err := New(loopbackOnly)
	if err != nil {
		t.Fatal(err)
	}
	pc, offer := rawPeer(t, map[string]*pion.DataChannelInit{ReliableLabel: nil})
	defer pc.Close()
	conn, _, err := tr.Accept(context.Background(), offer, "")
	if err != nil {
		t.Fatal(err)
	}
	frame := make([]byte, 100)
	for _, ch := range []struct {
		text, reliable bool
	}{{false, false}, {true, true}} { // the lossy queue, the reliable one
		var err error
		n := 0
		for ; n <= SendQueue && err == nil; n++ {
			err = conn.Send(frame, ch.text, ch.reliable)
		}
		if !errors.Is(err, server.ErrSendFull) || n != SendQueue+1 {
			t.Errorf("text=%v reliable=%v: %v after %d frames, want ErrSendFull after %d", ch.text, ch.reliable, err, n-1, SendQueue)
		}
	}
	conn.Close("bye")
	if err := conn.Send(frame, false, false); !errors.Is(err, server.ErrClosed) {
		t.Errorf("Send after Close: %v", err)
	}
	select {
	case <-conn.Ended():
	case <-time.After(5 * time.Second):
		t.Fatal("the connection did not end")
	}
	if n := tr.Open(); n != 0 {
		t.Errorf("%d connections open", n)
	}
}

// TestPendingBounded: offers answered whose clients never connect count
// as pending, up to Options.MaxPending in all (ErrBusy past it) and
// Options.MaxPendingFrom from one address (ErrBusyFrom); a pending
// connection that ends frees its place.
func TestPendingBounded(t *testing.T) {
	defer goleak.VerifyNone(t)
	o := loopbackOnly
	o.MaxPending, o.MaxPendingFrom = 3, 2
	tr, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	pc, offer := rawPeer(t, map[string]*pion.DataChannelInit{ReliableLabel: nil})
	defer pc.Close()
	var first *Conn
	for i, c := range []struct {
		from string
		want error
	}{{"a", nil}, {"a", nil}, {"a", ErrBusyFrom}, {"", nil}, {"b", ErrBusy}} {
		conn, _, err := tr.Accept(context.Background(), offer, c.from)
		if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
			t.Fatalf("offer %d from %q: %v, want %v", i+1, c.from, err, c.want)
		}
		if first == nil {
			first = conn
		}
	}
	if n := tr.Pending(); n != 3 {
		t.Errorf("%d pending, want 3", n)
	}
	first.Close("bye")
	deadline := time.Now().Add(5 * time.Second)
	for tr.Pending() != 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := tr.Pending(); n != 2 {
		t.Fatalf("%d pending after a close, want 2", n)
	}
	if _, _, err := tr.Accept(context.Background(), offer, "a"); err != nil {
		t.Fatalf("an offer from a after its place freed: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := tr.Shutdown(ctx, "test over"); err != nil {
		t.Fatal(err)
	}
	if n := tr.Pending(); n != 0 || len(tr.pendingFrom) != 0 {
		t.Errorf("%d pending, %d addresses after the shutdown, want none", n, len(tr.pendingFrom))
	}
}

// connectedPeer accepts a client made by hand and connects it: the
// server's connection once both channels are open, the client's reliable
// channel, open, and the client's peer connection (the caller closes it).
func connectedPeer(t *testing.T, tr *Transport) (*Conn, *pion.DataChannel, *pion.PeerConnection) {
	t.Helper()
	pc, offer, dcs := rawPeerChannels(t, map[string]*pion.DataChannelInit{
		LossyLabel:    {Ordered: ptr(false), MaxRetransmits: ptr(uint16(0))},
		ReliableLabel: nil,
	})
	rel := dcs[ReliableLabel]
	relOpen := make(chan struct{})
	rel.OnOpen(func() { close(relOpen) })
	conn, answer, err := tr.Accept(context.Background(), offer, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := pc.SetRemoteDescription(answer); err != nil {
		t.Fatal(err)
	}
	for _, ch := range []<-chan struct{}{relOpen, conn.Connected()} {
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
			t.Fatal("the channels did not open")
		}
	}
	return conn, rel, pc
}

// sendInputs sends n input frames on dc and waits until conn has them.
func sendInputs(t *testing.T, conn *Conn, dc *pion.DataChannel, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		in := wire.InputFrame{FirstSeq: uint32(i + 1), Count: 1}
		if err := dc.Send(wire.AppendInputFrame(nil, &in)); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for conn.FramesIn.Load() < uint64(n) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got := conn.FramesIn.Load(); got != uint64(n) {
		t.Fatalf("%d frames arrived, want %d", got, n)
	}
}

// TestEarlyFramesServed: the frames a client sends once its channels are
// open and before the connection has a session reach the session, all and
// in order, when Serve gives it one; one that sends more than EarlyFrames
// before is closed for flooding.
func TestEarlyFramesServed(t *testing.T) {
	defer goleak.VerifyNone(t)
	tr, err := New(loopbackOnly)
	if err != nil {
		t.Fatal(err)
	}
	l, err := levels.Load("test-flat")
	if err != nil {
		t.Fatal(err)
	}
	g, err := server.New(server.Config{Room: "early", Level: l, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	conn, rel, pc := connectedPeer(t, tr)
	defer pc.Close()
	const sent = 40 // more than a burst of commands (server.TextBurst)
	sendInputs(t, conn, rel, sent)
	sess, err := g.Join(conn, server.Who{})
	if err != nil {
		t.Fatal(err)
	}
	conn.Serve(sess, nil)
	g.Tick()
	if n, bad := sess.Stats().FramesIn, sess.Stats().BadInputs; n != sent || bad != 0 {
		t.Errorf("the session took %d frames (%d refused), want %d", n, bad, sent)
	}

	flood, rel2, pc2 := connectedPeer(t, tr)
	defer pc2.Close()
	sendInputs(t, flood, rel2, EarlyFrames+1)
	select {
	case <-flood.Done():
		if !strings.Contains(flood.reason, "flooding") {
			t.Errorf("closed with %q, want flooding", flood.reason)
		}
	case <-time.After(5 * time.Second):
		t.Error("a client that sent EarlyFrames+1 frames before joining was not closed")
	}

	g.Close("test over")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := tr.Shutdown(ctx, "test over"); err != nil {
		t.Fatal(err)
	}
}

// TestShutdownRefuses: after Shutdown, Accept refuses.
func TestShutdownRefuses(t *testing.T) {
	defer goleak.VerifyNone(t)
	tr, err := New(loopbackOnly)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Shutdown(context.Background(), "bye"); err != nil {
		t.Fatal(err)
	}
	pc, offer := rawPeer(t, map[string]*pion.DataChannelInit{ReliableLabel: nil})
	defer pc.Close()
	if _, _, err := tr.Accept(context.Background(), offer, ""); !errors.Is(err, ErrShutdown) {
		t.Fatalf("Accept after Shutdown: %v", err)
	}
}

func TestReadOffer(t *testing.T) {
	big, _ := json.Marshal(pion.SessionDescription{Type: pion.SDPTypeOffer, SDP: strings.Repeat("a", MaxSignal)})
	cases := []struct {
		name, body string
		ok         bool
	}{
		{"offer", `{"type":"offer","sdp":"v=0\r\n"}`, true},
		{"answer", `{"type":"answer","sdp":"v=0\r\n"}`, false},
		{"no sdp", `{"type":"offer"}`, false},
		{"unknown type", `{"type":"bogus","sdp":"v=0"}`, false},
		{"not json", `v=0`, false},
		{"too big", string(big), false},
		{"empty", ``, false},
	}
	for _, c := range cases {
		d, err := ReadOffer(strings.NewReader(c.body))
		if c.ok != (err == nil) {
			t.Errorf("%s: %v", c.name, err)
		}
		if err != nil && !errors.Is(err, ErrBadSignal) {
			t.Errorf("%s: %v is not ErrBadSignal", c.name, err)
		}
		if err == nil && (d.Type != pion.SDPTypeOffer || d.SDP == "") {
			t.Errorf("%s: %+v", c.name, d)
		}
	}
}

// FuzzReadOffer: any body is an offer or an ErrBadSignal, never a panic.
func FuzzReadOffer(f *testing.F) {
	f.Add([]byte(`{"type":"offer","sdp":"v=0\r\n"}`))
	f.Add([]byte(`{"type":"answer","sdp":""}`))
	f.Add([]byte(`{"type":1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := ReadOffer(bytes.NewReader(b))
		if err != nil {
			if !errors.Is(err, ErrBadSignal) {
				t.Fatalf("%v is not ErrBadSignal", err)
			}
			return
		}
		if d.Type != pion.SDPTypeOffer || d.SDP == "" || len(b) > MaxSignal {
			t.Fatalf("accepted %+v from %d bytes", d, len(b))
		}
	})
}

// FuzzAccept: any offer that ReadOffer lets through is answered or
// refused with an error by pion, never a panic, and nothing is left
// running.
func FuzzAccept(f *testing.F) {
	f.Add("v=0\r\n")
	f.Add("v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n")
	tr, err := New(loopbackOnly)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, sdp string) {
		conn, _, err := tr.Accept(context.Background(), pion.SessionDescription{Type: pion.SDPTypeOffer, SDP: sdp}, "")
		if err == nil {
			conn.Close("fuzz")
			<-conn.Ended()
		}
	})
}

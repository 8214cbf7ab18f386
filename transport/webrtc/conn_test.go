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

	"github.com/fiveonit/engine/server"
)

var loopbackOnly = Options{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}}

// rawPeer is a client's peer connection made by hand, with the data
// channels a test asks for.
func rawPeer(t *testing.T, channels map[string]*pion.DataChannelInit) (*pion.PeerConnection, pion.SessionDescription) {
	t.Helper()
	api, err := newAPI(loopbackOnly, MaxClientMessage)
	if err != nil {
		t.Fatal(err)
	}
	pc, err := api.NewPeerConnection(pion.Configuration{})
	if err != nil {
		t.Fatal(err)
	}
	for label, init := range channels {
		if _, err := pc.CreateDataChannel(label, init); err != nil {
			t.Fatal(err)
		}
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
	return pc, *pc.LocalDescription()
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
			conn, answer, err := tr.Accept(context.Background(), offer)
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
	conn, _, err := tr.Accept(context.Background(), offer)
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
	if _, _, err := tr.Accept(context.Background(), offer); !errors.Is(err, ErrShutdown) {
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
		conn, _, err := tr.Accept(context.Background(), pion.SessionDescription{Type: pion.SDPTypeOffer, SDP: sdp})
		if err == nil {
			conn.Close("fuzz")
			<-conn.Ended()
		}
	})
}

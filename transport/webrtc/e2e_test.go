package webrtc_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/fiveonit/engine/bot"

	"github.com/fiveonit/engine/netsync/wire"
	"github.com/fiveonit/engine/rooms"
	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/textframe"
	"github.com/fiveonit/engine/transport/webrtc"
)

var secret = []byte("webrtc-test-secret-0123456789")

var loopback = webrtc.Options{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}}

// stack is a rooms manager with its HTTP routes on a loopback httptest
// server, WebRTC on, and the default room's server stats read after every
// tick.
type stack struct {
	m     *rooms.Manager
	rtc   *webrtc.Transport
	url   string // http://127.0.0.1:port
	stats atomic.Pointer[server.Stats]
	close func()
}

func newStack(t *testing.T) *stack {
	t.Helper()
	st := &stack{}
	m, err := rooms.NewManager(rooms.Config{DefaultLevel: "test-flat", Grace: 200 * time.Millisecond,
		OnTick: func(r *rooms.Room) {
			if r.Name == "default" {
				s := r.Server().Stats()
				st.stats.Store(&s)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	rtc, err := webrtc.New(loopback)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler(rooms.HTTPConfig{Secret: secret, WebRTC: rtc}))
	st.m, st.rtc, st.url = m, rtc, srv.URL
	closed := false
	st.close = func() {
		if closed {
			return
		}
		closed = true
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := m.Shutdown(ctx, "test over"); err != nil {
			t.Errorf("rooms shutdown: %v", err)
		}
		if err := rtc.Shutdown(ctx, "test over"); err != nil {
			t.Errorf("webrtc shutdown: %v", err)
		}
		srv.Close()
	}
	t.Cleanup(st.close)
	return st
}

func (st *stack) Stats() server.Stats {
	if s := st.stats.Load(); s != nil {
		return *s
	}
	return server.Stats{}
}

func dial(t *testing.T, url string, o webrtc.DialOptions) *webrtc.ClientConn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := webrtc.Dial(ctx, url, o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestJoinAndClose joins over WebRTC: the welcome comes as a text frame
// (on the reliable channel), snapshots follow, the input frames the client
// sends are run by the server, and the server's close reaches the client
// as a *CloseError with the reason. Nothing is left running.
func TestJoinAndClose(t *testing.T) {
	defer goleak.VerifyNone(t)
	st := newStack(t)
	c := dial(t, st.url+"/rooms/default", webrtc.DialOptions{})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	frame, text, err := c.Read(ctx)
	if err != nil || !text || textframe.Type(frame) != "welcome" {
		t.Fatalf("first frame %q text=%v err=%v, want the welcome", frame, text, err)
	}
	var w textframe.Welcome
	if err := json.Unmarshal(frame, &w); err != nil {
		t.Fatal(err)
	}
	if !w.Acked || w.Consts.InputsPerFrame != wire.InputsLossy {
		t.Errorf("welcome acked=%v inputs/frame=%d, want a lossy client's", w.Acked, w.Consts.InputsPerFrame)
	}
	snaps := 0
	for seq := uint32(1); snaps < 10; seq++ {
		f := wire.InputFrame{FirstSeq: seq, Count: 1}
		if err := c.Send(ctx, wire.AppendInputFrame(nil, &f), false); err != nil {
			t.Fatal(err)
		}
		frame, text, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !text && len(frame) > 0 {
			snaps++
		}
	}
	if c.FramesOut.Load() == 0 || c.FramesIn.Load() < 11 {
		t.Errorf("client counted %d out, %d in", c.FramesOut.Load(), c.FramesIn.Load())
	}
	st.close()
	for {
		_, _, err := c.Read(ctx)
		if err == nil {
			continue
		}
		var ce *webrtc.CloseError
		if !errors.As(err, &ce) || ce.Reason != "test over" {
			t.Fatalf("read after the shutdown: %v, want a close with the reason", err)
		}
		break
	}
	c.Close()
	if n := st.rtc.Open(); n != 0 {
		t.Errorf("%d connections still open", n)
	}
}

func TestRTCURL(t *testing.T) {
	cases := []struct{ in, want, err string }{
		{"ws://127.0.0.1:8080/rooms/default", "http://127.0.0.1:8080/rooms/default/rtc", ""},
		{"wss://example.org/rooms/a?token=x&level=test-flat", "https://example.org/rooms/a/rtc?token=x&level=test-flat", ""},
		{"http://h/rooms/a/rtc?acked=1", "http://h/rooms/a/rtc?acked=1", ""},
		{"http://h/rooms/a/", "http://h/rooms/a/rtc", ""},
		{"ftp://h/rooms/a", "", "scheme"},
		{"://nope", "", "url"},
	}
	for _, c := range cases {
		got, err := webrtc.RTCURL(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("RTCURL(%q) = %q, %v; want an error with %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("RTCURL(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

// oneInput makes a bot send one input per frame over the lossy transport
// (its client believes the transport loses nothing): what the redundant
// inputs are measured against.
type oneInput struct{ *webrtc.ClientConn }

func (oneInput) Lossy() bool { return false }

// lossRun is what 8 bots saw in one configuration.
type lossRun struct {
	guesses, ticks uint64
	lostOut        uint64
	res            []bot.Result
}

// runBots runs 8 bots on WebRTC with loss each way for d, one input per
// frame when single is set, and returns the input ticks the server guessed
// meanwhile.
func runBots(t *testing.T, loss float64, single bool, d time.Duration) lossRun {
	st := newStack(t)
	ctx := context.Background()
	conns := make([]*webrtc.ClientConn, 8)
	for i := range conns {
		conns[i] = dial(t, st.url+"/rooms/default", webrtc.DialOptions{Loss: loss, Seed: uint64(i + 1)})
	}
	// Let the joins settle: a bot's first inputs race its welcome.
	before := st.Stats()
	var wg sync.WaitGroup
	out := lossRun{res: make([]bot.Result, len(conns))}
	for i, c := range conns {
		var bc bot.Conn = c
		if single {
			bc = oneInput{c}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			out.res[i] = bot.Run(ctx, bc, uint64(i), d)
		}()
	}
	wg.Wait()
	after := st.Stats()
	out.guesses = after.Guesses - before.Guesses
	out.ticks = (after.Ticks - before.Ticks) * uint64(len(conns))
	for _, c := range conns {
		out.lostOut += c.LostOut.Load()
	}
	st.close()
	return out
}

// TestEightBotsWithLoss runs the rooms' handler and 8 bots over real pion
// data channels on loopback for 5 s (2 s with -short) three times: without
// loss, with 10% of the lossy channel's frames lost each way, and with that
// loss but one input per frame. Every bot connects and gets its welcome
// and snapshots; at 10% loss the four inputs per frame cover the lost input
// frames (the server guesses about as often as without loss), while one
// input per frame leaves the server guessing a lost frame's tick.
func TestEightBotsWithLoss(t *testing.T) {
	defer goleak.VerifyNone(t)
	d := 5 * time.Second
	if testing.Short() {
		d = 2 * time.Second
	}
	clean := runBots(t, 0, false, d)
	lossy := runBots(t, 0.1, false, d)
	single := runBots(t, 0.1, true, d)
	for name, r := range map[string]lossRun{"clean": clean, "lossy": lossy, "single": single} {
		for i, b := range r.res {
			if b.Err != nil || b.Stats.Snapshots == 0 {
				t.Errorf("%s: bot %d: err %v, %d snapshots", name, i, b.Err, b.Stats.Snapshots)
			}
			if _, ok := textWelcome(b); !ok {
				t.Errorf("%s: bot %d got no welcome", name, i)
			}
		}
		t.Logf("%s: %d of %d input ticks guessed (%.2f%%), %d input frames lost", name, r.guesses, r.ticks,
			100*float64(r.guesses)/float64(max(r.ticks, 1)), r.lostOut)
	}
	if lossy.lostOut == 0 || single.lostOut == 0 {
		t.Fatal("the simulated loss lost nothing")
	}
	// Four inputs a frame: a tick is guessed only when four frames in a
	// row are lost (1 in 10,000) or the clock jitters, as without loss.
	if lossy.guesses > clean.guesses+lossy.ticks/200 {
		t.Errorf("4 inputs/frame at 10%% loss: %d guesses, %d without loss", lossy.guesses, clean.guesses)
	}
	// One input a frame: most lost frames are a guess.
	if single.guesses < single.lostOut/3 || single.guesses < 4*lossy.guesses {
		t.Errorf("1 input/frame at 10%% loss: %d guesses for %d frames lost (4 inputs/frame: %d)", single.guesses, single.lostOut, lossy.guesses)
	}
}

func textWelcome(r bot.Result) (string, bool) { return "", r.Stats.Snapshots > 0 }

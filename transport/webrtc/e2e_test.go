package webrtc_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	pion "github.com/pion/webrtc/v4"
	"go.uber.org/goleak"

	"github.com/fiveonit/engine/bot"

	"github.com/fiveonit/engine/netsync/wire"
	"github.com/fiveonit/engine/rooms"
	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/server/servertest"
	"github.com/fiveonit/engine/textframe"
	"github.com/fiveonit/engine/transport/webrtc"
)

var secret = []byte("webrtc-test-secret-0123456789")

var loopback = webrtc.Options{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}}

// stack is a rooms manager with its HTTP routes on a loopback httptest
// server, WebRTC on, and the default room's server stats read after every
// tick (then the hooks newStack was given are called with its game server,
// in the room's goroutine).
type stack struct {
	m     *rooms.Manager
	rtc   *webrtc.Transport
	url   string // http://127.0.0.1:port
	stats atomic.Pointer[server.Stats]
	// resyncs counts the keyframes the clients asked for (their decoder
	// refused a frame: a wrong check, a base it does not hold).
	resyncs atomic.Uint64
	close   func()
}

func newStack(t *testing.T, hooks ...func(*server.GameServer)) *stack {
	t.Helper()
	st := &stack{}
	seen := map[uint32]uint64{} // resyncs by session, room goroutine only
	ticked := func(r *rooms.Room) {
		s := r.Server().Stats()
		st.stats.Store(&s)
		for _, sess := range r.Server().Sessions() {
			n := sess.Stats().Resyncs
			st.resyncs.Add(n - seen[sess.ID()])
			seen[sess.ID()] = n
		}
		for _, h := range hooks {
			h(r.Server())
		}
	}
	m, err := rooms.NewManager(rooms.Config{DefaultLevel: "test-flat", Grace: 200 * time.Millisecond,
		Observe: func(r *rooms.Room) rooms.RoomObserver {
			if r.Name != "default" {
				return nil
			}
			return tickObserver(ticked)
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

// tickObserver is a rooms.RoomObserver that watches a room's ticks alone.
type tickObserver func(r *rooms.Room)

func (f tickObserver) Ticked(r *rooms.Room) { f(r) }
func (tickObserver) Closed(*rooms.Room)     {}

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
	// The welcome first, or after snapshots: the two channels are not
	// ordered one against the other.
	frame, text, err := c.Read(ctx)
	for err == nil && !text {
		frame, text, err = c.Read(ctx)
	}
	if err != nil || textframe.Type(frame) != "welcome" {
		t.Fatalf("first text frame %q err=%v, want the welcome", frame, err)
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

// lossRun is what the server counted of 8 bots' inputs in one
// configuration, over a window of steady play.
type lossRun struct {
	guesses, late, ticks uint64
	lostOut              uint64 // input frames the simulated loss dropped in the window
	res                  []bot.Result
}

// missing returns the input ticks whose input never came: each guessed
// tick whose input came later is counted late.
func (r lossRun) missing() int64 { return int64(r.guesses) - int64(r.late) }

// runBots runs 8 bots on WebRTC with loss each way, one input per frame
// when single is set, and counts the server's guesses over d of steady
// play (from half a second after the bots start, so that joins and leaves
// are out of it).
func runBots(t *testing.T, loss float64, single bool, d time.Duration) lossRun {
	t.Helper()
	st := newStack(t)
	ctx := context.Background()
	conns := make([]*webrtc.ClientConn, 8)
	for i := range conns {
		conns[i] = dial(t, st.url+"/rooms/default", webrtc.DialOptions{Loss: loss, Seed: uint64(i + 1)})
	}
	lost := func() (n uint64) {
		for _, c := range conns {
			n += c.LostOut.Load()
		}
		return n
	}
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
			out.res[i] = bot.Run(ctx, bc, uint64(i), d+time.Second)
		}()
	}
	time.Sleep(500 * time.Millisecond)
	before, lostBefore := st.Stats(), lost()
	time.Sleep(d)
	after, lostAfter := st.Stats(), lost()
	wg.Wait()
	out.guesses = after.Guesses - before.Guesses
	out.late = after.Late - before.Late
	out.ticks = (after.Ticks - before.Ticks) * uint64(len(conns))
	out.lostOut = lostAfter - lostBefore
	st.close()
	return out
}

// TestEightBotsWithLoss runs the rooms' handler and 8 bots over real pion
// data channels on loopback three times, 5 s each (2 s with -short):
// without loss, with 10% of the lossy channel's frames lost each way, and
// with that loss but one input per frame. Every bot connects, gets its
// welcome and its snapshots. With four inputs a frame the lost input
// frames cost nothing: every input reaches the server (a tick is run on a
// guess only when its input is late, as without loss); with one input a
// frame each lost frame's input never comes and its tick is a guess.
//
// It counts the inputs that never came (the guessed ticks less those
// whose input came late) rather than the guesses themselves: on a loaded
// machine the bots' clocks jitter and late inputs make guesses in every
// configuration, but they come in the end; a lost one does not.
func TestEightBotsWithLoss(t *testing.T) {
	defer goleak.VerifyNone(t)
	d := 5 * time.Second
	if testing.Short() {
		d = 2 * time.Second
	}
	clean := runBots(t, 0, false, d)
	lossy := runBots(t, 0.1, false, d)
	single := runBots(t, 0.1, true, d)
	for _, r := range []struct {
		name string
		r    lossRun
	}{{"no loss", clean}, {"10% loss, 4 inputs/frame", lossy}, {"10% loss, 1 input/frame", single}} {
		for i, b := range r.r.res {
			if b.Err != nil || b.Stats.Snapshots == 0 {
				t.Errorf("%s: bot %d: err %v, %d snapshots", r.name, i, b.Err, b.Stats.Snapshots)
			}
		}
		t.Logf("%s: %d input ticks, %d guessed (%.2f%%), %d late, %d never came; %d input frames lost",
			r.name, r.r.ticks, r.r.guesses, 100*float64(r.r.guesses)/float64(max(r.r.ticks, 1)), r.r.late, r.r.missing(), r.r.lostOut)
	}
	if lossy.lostOut < lossy.ticks/20 || single.lostOut < single.ticks/20 {
		t.Fatalf("the simulated loss lost %d and %d input frames of %d and %d", lossy.lostOut, single.lostOut, lossy.ticks, single.ticks)
	}
	// The counts below are of a window of wall time: under the race
	// detector they measure the machine (see raceDetector).
	if raceDetector {
		return
	}
	// Four inputs a frame: an input is lost only with four frames in a
	// row (1 in 10,000 at 10%).
	if m := lossy.missing(); m > 8+int64(lossy.lostOut/100) { // 8: a late input per bot at the window's edge
		t.Errorf("4 inputs/frame at 10%% loss: %d inputs never came of %d frames lost", m, lossy.lostOut)
	}
	if m := clean.missing(); m > 8 {
		t.Errorf("no loss: %d inputs never came", m)
	}
	// One input a frame: every lost frame's input is gone.
	if m := single.missing(); m < int64(single.lostOut)/2 {
		t.Errorf("1 input/frame at 10%% loss: %d inputs never came of %d frames lost", m, single.lostOut)
	}
}

// TestSignalErrors: a join the server refuses is an HTTP error with the
// reason, which Dial returns; nothing is left running.
func TestSignalErrors(t *testing.T) {
	defer goleak.VerifyNone(t)
	st := newStack(t)
	cases := []struct {
		name, path, want string
	}{
		{"bad token", "/rooms/default?token=xyz", "403 Forbidden: join token refused"},
		{"bad level", "/rooms/new?level=nowhere", "400 Bad Request: rooms: unknown level"},
		{"bad room name", "/rooms/BAD_NAME", "400 Bad Request: rooms: a room name"},
	}
	for _, c := range cases {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		conn, err := webrtc.Dial(ctx, st.url+c.path, webrtc.DialOptions{})
		cancel()
		if err == nil {
			conn.Close()
			t.Errorf("%s: joined", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	for _, body := range []string{"", "{", `{"type":"answer","sdp":"v=0"}`, `{"type":"offer","sdp":"garbage"}`} {
		code, text := post(t, st.url+"/rooms/default/rtc", body)
		if code != http.StatusBadRequest || !strings.Contains(text, "bad signal") {
			t.Errorf("offer %q: %d %q, want 400 bad signal", body, code, text)
		}
	}
	for origin, want := range map[string]int{"http://evil.example": http.StatusForbidden, "not a url": http.StatusForbidden, st.url: http.StatusBadRequest} {
		req, _ := http.NewRequest("POST", st.url+"/rooms/default/rtc", strings.NewReader("{"))
		req.Header.Set("Origin", origin)
		hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("origin %q: %d, want %d", origin, resp.StatusCode, want)
		}
	}
	// A server without WebRTC.
	m := st.m
	off := httptest.NewServer(m.Handler(rooms.HTTPConfig{Secret: secret}))
	defer off.Close()
	if code, _ := post(t, off.URL+"/rooms/default/rtc", `{"type":"offer","sdp":"v=0"}`); code != http.StatusNotFound {
		t.Errorf("WebRTC off: %d, want 404", code)
	}
	off.Close()
	st.close()
}

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
	defer hc.CloseIdleConnections()
	resp, err := hc.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestDialTimeout: a server that never answers the offer holds Dial only
// until its context ends, and Dial leaves nothing running.
func TestDialTimeout(t *testing.T) {
	defer goleak.VerifyNone(t)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	c, err := webrtc.Dial(ctx, srv.URL+"/rooms/default", webrtc.DialOptions{})
	if err == nil {
		c.Close()
		t.Fatal("joined a server that never answered")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Dial took %s to give up", d)
	}
}

// players returns the players of room name, or -1 if it is not open.
func (st *stack) players(name string) int {
	for _, r := range st.m.List() {
		if r.Name == name {
			return r.Players
		}
	}
	return -1
}

// ghostOffer returns an offer (JSON) of a client that never connects: its
// peer connection is closed once the offer is made.
func ghostOffer(t *testing.T) string {
	t.Helper()
	pc, err := pion.NewPeerConnection(pion.Configuration{})
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	if _, err := pc.CreateDataChannel(webrtc.LossyLabel, &pion.DataChannelInit{Ordered: new(false), MaxRetransmits: new(uint16(0))}); err != nil {
		t.Fatal(err)
	}
	if _, err := pc.CreateDataChannel(webrtc.ReliableLabel, nil); err != nil {
		t.Fatal(err)
	}
	offer, err := pc.CreateOffer(nil)
	if err != nil {
		t.Fatal(err)
	}
	body, err := json.Marshal(offer)
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}

// TestPendingPerAddress: the joins being set up from one address are
// bounded (webrtc.Options.MaxPendingFrom): past it an offer gets 429; a
// client that connected is no longer counted.
func TestPendingPerAddress(t *testing.T) {
	defer goleak.VerifyNone(t)
	st := newStack(t)
	o := loopback
	o.MaxPendingFrom = 2
	rtc, err := webrtc.New(o)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(st.m.Handler(rooms.HTTPConfig{Secret: secret, WebRTC: rtc}))
	defer srv.Close()
	c := dial(t, srv.URL+"/rooms/default", webrtc.DialOptions{})
	defer c.Close()
	// The client's channels are open; the server's may open a moment
	// later.
	deadline := time.Now().Add(5 * time.Second)
	for rtc.Pending() != 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := rtc.Pending(); n != 0 {
		t.Fatalf("%d pending after the client connected, want 0", n)
	}
	body := ghostOffer(t)
	for i, want := range []int{http.StatusOK, http.StatusOK, http.StatusTooManyRequests} {
		code, text := post(t, srv.URL+"/rooms/default/rtc", body)
		if code != want {
			t.Errorf("offer %d: %d %q, want %d", i+1, code, text, want)
		}
	}
	srv.Close()
	st.close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := rtc.Shutdown(ctx, "test over"); err != nil {
		t.Fatal(err)
	}
}

// TestOfferWithoutConnectTakesNoPlace: an offer answered whose client never
// connects (here one offer POSTed four times, as a replay would) neither
// takes a place in the room nor opens a room; it is pending until it
// connects or ConnectTimeout passes. A client that connects joins as ever.
func TestOfferWithoutConnectTakesNoPlace(t *testing.T) {
	defer goleak.VerifyNone(t)
	st := newStack(t)
	body := ghostOffer(t)
	for _, room := range []string{"default", "default", "default", "other"} {
		if code, text := post(t, st.url+"/rooms/"+room+"/rtc", body); code != http.StatusOK {
			t.Fatalf("offer to %s: %d %q", room, code, text)
		}
	}
	time.Sleep(200 * time.Millisecond) // a dozen ticks
	if n, other := st.players("default"), st.players("other"); n != 0 || other != -1 {
		t.Errorf("after 4 offers never connected: %d players in default, room other %d; want 0 and not open", n, other)
	}
	if n := st.rtc.Pending(); n != 4 {
		t.Errorf("%d connections pending, want 4", n)
	}
	c := dial(t, st.url+"/rooms/default", webrtc.DialOptions{})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, _, err := c.Read(ctx); err != nil {
		t.Fatal(err)
	}
	if n := st.players("default"); n != 1 {
		t.Errorf("%d players after a client connected, want 1", n)
	}
	st.close()
	if n := st.rtc.Pending(); n != 0 {
		t.Errorf("%d connections pending after the shutdown, want 0", n)
	}
}

// fillAfterPost is an HTTP transport that fills the room with players
// once the offer is answered, before the client connects.
type fillAfterPost struct {
	t    *testing.T
	m    *rooms.Manager
	room string
}

func (f fillAfterPost) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := (&http.Transport{DisableKeepAlives: true}).RoundTrip(r)
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	for {
		_, _, err := f.m.Join(f.room, rooms.Options{Level: "test-flat", Traffic: -1, Pedestrians: -1}, servertest.NewMemConn(false, 0), server.Who{})
		if errors.Is(err, server.ErrRoomFull) {
			return resp, nil
		}
		if err != nil {
			f.t.Errorf("filling the room: %v", err)
			return resp, nil
		}
	}
}

// TestRoomFilledBeforeConnect: a room that fills between the answer and the
// client's connecting closes the connection with the reason, and a full
// room refuses the offer itself with 503.
func TestRoomFilledBeforeConnect(t *testing.T) {
	defer goleak.VerifyNone(t)
	st := newStack(t)
	hc := &http.Client{Transport: fillAfterPost{t, st.m, "default"}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The close comes as the channels open: Dial fails with it, or it is
	// the first thing Read returns but frames.
	c, err := webrtc.Dial(ctx, st.url+"/rooms/default", webrtc.DialOptions{HTTP: hc})
	if err == nil {
		defer c.Close()
	}
	for err == nil {
		_, _, err = c.Read(ctx)
	}
	var ce *webrtc.CloseError
	if !errors.As(err, &ce) || ce.Reason != server.ErrRoomFull.Error() {
		t.Errorf("read: %v, want a close with %q", err, server.ErrRoomFull)
	}
	dctx, dcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer dcancel()
	if c2, err := webrtc.Dial(dctx, st.url+"/rooms/default", webrtc.DialOptions{}); err == nil || !strings.Contains(err.Error(), "503") {
		if err == nil {
			c2.Close()
		}
		t.Errorf("an offer to a full room: %v, want 503", err)
	}
	st.close()
}

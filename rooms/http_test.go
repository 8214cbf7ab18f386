package rooms

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	cws "github.com/coder/websocket"

	"github.com/fiveonit/engine/bot"
	"github.com/fiveonit/engine/jointoken"
	"github.com/fiveonit/engine/netsync/wire"
	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/textframe"
	"github.com/fiveonit/engine/transport/webrtc"
	"github.com/fiveonit/engine/transport/websocket"
)

var secret = []byte("rooms-test-secret-0123456789")

// newHTTP serves the rooms' handler of a manager on loopback; it returns
// the manager, the server's ws:// URL and a watch on every room.
func newHTTP(t *testing.T) (*Manager, string, *roomWatch) {
	t.Helper()
	watch := &roomWatch{}
	m, err := NewManager(Config{DefaultLevel: "test-flat", Grace: 200 * time.Millisecond,
		Observe: func(*Room) RoomObserver { return watch }})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler(HTTPConfig{Secret: secret}))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		m.Shutdown(ctx, "test over")
		srv.Close()
	})
	return m, "ws" + strings.TrimPrefix(srv.URL, "http"), watch
}

// smallBuffers shrinks the send buffer of every connection the server
// accepts. A client that never reads then stalls its connection's writer
// after a few kilobytes rather than the megabytes loopback's autotuned
// buffers take: the server's send queue fills within seconds. A client that
// reads is not slowed (loopback acknowledges at once).
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(4 << 10)
	}
	return c, err
}

// dialStalled joins url with a client that never reads, its receive
// buffer made small.
func dialStalled(t *testing.T, url string) {
	t.Helper()
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetReadBuffer(4 << 10)
		}
		return c, err
	}}}
	ws, _, err := cws.Dial(context.Background(), url, &cws.DialOptions{HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.CloseNow() })
}

// stalledWatch is what the room's goroutine saw of the client that never
// reads (the room's first session) and of the room; rooms lets the test
// wait for what it sees.
type stalledWatch struct {
	rooms     roomWatch
	mu        sync.Mutex
	id        uint32 // the stalled client's session
	sendFull  uint64 // its frames dropped on a full send queue
	firstFull uint64 // the tick of the first of them
	gone      uint64 // the tick it had left the room by, 0 while it is there
	room      server.Stats
}

// Ticked reads the default room's game server after each of its ticks,
// then tells the test.
func (w *stalledWatch) Ticked(r *Room) {
	w.see(r)
	w.rooms.Ticked(r)
}

// see notes what r's game server says of the stalled client.
func (w *stalledWatch) see(r *Room) {
	if r.Name != "default" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	g := r.Server()
	w.room = g.Stats()
	ss := g.Sessions()
	if w.id == 0 && len(ss) > 0 {
		w.id = ss[0].ID()
	}
	if w.id == 0 || w.gone != 0 {
		return
	}
	i := slices.IndexFunc(ss, func(s *server.Session) bool { return s.ID() == w.id })
	if i < 0 {
		w.gone = w.room.Ticks
		return
	}
	if w.sendFull = ss[i].Stats().SendFull; w.sendFull > 0 && w.firstFull == 0 {
		w.firstFull = w.room.Ticks
	}
}

// Closed does nothing: the test reads what the watch saw while the room
// ran.
func (w *stalledWatch) Closed(*Room) {}

func (w *stalledWatch) get() stalledWatch {
	w.mu.Lock()
	defer w.mu.Unlock()
	return stalledWatch{id: w.id, sendFull: w.sendFull, firstFull: w.firstFull, gone: w.gone, room: w.room}
}

// TestEightClientsOverWebSocket runs the rooms' handler on loopback with 8
// bot clients for 10 s (2 s with -short), and a ninth client that never
// reads: every bot gets its snapshots at the full rate, never refuses one,
// and the room never falls behind. The ninth client fills its send queue
// (its socket's buffers are made small) and is cut off as too slow, the one
// client kicked: a text frame that finds the queue full cuts it off at once
// (here its debug readout, twice a second in this test-* room, does so
// within half a second, before websocket.WriteTimeout would end the stalled
// connection), and in any case within server.SlowTicks of its first dropped
// snapshot; a snapshot dropped before then is followed by a keyframe
// (reason send-full).
func TestEightClientsOverWebSocket(t *testing.T) {
	d := 10 * time.Second
	if testing.Short() {
		d = 2 * time.Second
	}
	watch := &stalledWatch{}
	m, err := NewManager(Config{DefaultLevel: "test-flat", Grace: 200 * time.Millisecond,
		Observe: func(*Room) RoomObserver { return watch }})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(m.Handler(HTTPConfig{Secret: secret}))
	srv.Listener = smallBuffers{srv.Listener}
	srv.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		m.Shutdown(ctx, "test over")
		srv.Close()
	})
	url := "ws" + strings.TrimPrefix(srv.URL, "http") + "/rooms/default"
	start := time.Now()
	dialStalled(t, url)
	// The stalled client is the room's first session.
	if !watch.rooms.until("default", 5*time.Second, func(*Room) bool { return watch.get().id != 0 }) {
		t.Fatal("the stalled client did not join")
	}
	ctx := context.Background()
	conns := make([]bot.Conn, 8)
	for i := range conns {
		conn, err := websocket.Dial(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = conn
	}
	res := bot.RunAll(ctx, conns, d)
	want := uint64(d.Seconds()*20) * 8 / 10 // 20 snapshots a second, less joining
	for i, r := range res {
		if r.Err != nil || r.Stats.Resyncs != 0 || r.Desynced || r.Stats.Snapshots < want {
			t.Errorf("bot %d: err %v, %d snapshots (want %d), %d refused", i, r.Err, r.Stats.Snapshots, want, r.Stats.Resyncs)
		}
	}
	room := m.Rooms()[0]
	// A room stalled by its slow client would run nearly every tick late;
	// a loaded machine (the whole test suite on 2 cores) makes a few.
	if o, most := room.Overruns(), uint64(d.Seconds()*60)/10; o > most {
		t.Errorf("the room ran %d ticks late, want at most %d", o, most)
	}
	// The stalled client: its queue fills some 5 s after it joined (less
	// with more traffic), so with -short the test waits for it.
	watch.rooms.until("default", time.Until(start.Add(20*time.Second)), func(*Room) bool { return watch.get().gone != 0 })
	w := watch.get()
	t.Logf("the stalled client: %d snapshots dropped from tick %d, gone at tick %d; %d send-full keyframes, %d clients kicked",
		w.sendFull, w.firstFull, w.gone, w.room.KeyframesBy[server.KeyframeSendFull], w.room.Kicked)
	// It sent nothing, so a kick is for slowness; the bots were not kicked.
	if w.gone == 0 || w.room.Kicked != 1 {
		t.Fatal("the stalled client was not cut off as too slow")
	}
	if w.sendFull == 0 {
		return // a text frame found its queue full first: cut off at once
	}
	if w.gone-w.firstFull > server.SlowTicks {
		t.Errorf("cut off %d ticks after its first dropped snapshot, want at most SlowTicks (%d)", w.gone-w.firstFull, server.SlowTicks)
	}
	if w.gone-w.firstFull > wire.SnapshotEvery && w.room.KeyframesBy[server.KeyframeSendFull] == 0 {
		t.Error("a snapshot was dropped, and the next was not a keyframe (send-full)")
	}
}

// acked is a bot's connection that notes the welcome and counts the
// snapshots by kind as the bot reads them.
type acked struct {
	*websocket.ClientConn
	welcome atomic.Pointer[textframe.Welcome]
	kinds   [8]atomic.Uint64 // binary frames by their first byte (wire.Frame*)
}

func (a *acked) Read(ctx context.Context) ([]byte, bool, error) {
	frame, text, err := a.ClientConn.Read(ctx)
	switch {
	case err != nil:
	case text && textframe.Type(frame) == "welcome":
		var w textframe.Welcome
		if json.Unmarshal(frame, &w) == nil {
			a.welcome.Store(&w)
		}
	case !text && len(frame) > 0 && int(frame[0]) < len(a.kinds):
		a.kinds[frame[0]].Add(1)
	}
	return frame, text, err
}

// TestAckedJoinWithLoss: a client that joins over the WebSocket with
// acked=1 (ACKED_REQUEST) and its own simulated loss (10% of the binary
// frames each way, websocket.DialWith) gets the acked snapshots: its
// welcome says acked, every snapshot is of the acked kind, and for 3 s its
// acked decoder applies them without refusing one (no check fails, no base
// is missing), while frames were lost both ways.
func TestAckedJoinWithLoss(t *testing.T) {
	_, url, _ := newHTTP(t)
	ctx := context.Background()
	c, err := websocket.DialWith(ctx, url+"/rooms/default?acked=1", websocket.DialOptions{Loss: 0.1, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	conn := &acked{ClientConn: c}
	const d = 3 * time.Second
	r := bot.Run(ctx, conn, 1, d)
	w := conn.welcome.Load()
	if w == nil || !w.Acked {
		t.Fatalf("welcome %+v, want acked", w)
	}
	if n := conn.kinds[wire.FrameKeyframe].Load() + conn.kinds[wire.FrameDelta].Load(); n != 0 {
		t.Errorf("%d ordered snapshots", n)
	}
	// Half the 20 a second: 10% are lost, joining takes a moment, and a
	// loaded machine makes the room skip ticks.
	want := uint64(d.Seconds()*20) / 2
	if got := conn.kinds[wire.FrameAcked].Load(); got < want {
		t.Errorf("%d acked snapshots, want at least %d", got, want)
	}
	if r.Err != nil || r.Desynced || r.Stats.Resyncs != 0 || r.Stats.Snapshots < want {
		t.Errorf("bot: err %v, desynced %v, %d refused, %d snapshots applied (want %d)", r.Err, r.Desynced, r.Stats.Resyncs, r.Stats.Snapshots, want)
	}
	if c.LostIn.Load() == 0 || c.LostOut.Load() == 0 {
		t.Errorf("lost %d frames in and %d out: the loss did not run", c.LostIn.Load(), c.LostOut.Load())
	}
}

func TestJoinTokens(t *testing.T) {
	_, url, _ := newHTTP(t)
	ctx := context.Background()
	good, _ := jointoken.Sign(secret, jointoken.Claims{Account: "a1", Name: "Ada", Party: "crew-3", Expires: time.Now().Add(time.Hour).Unix()})
	expired, _ := jointoken.Sign(secret, jointoken.Claims{Account: "a1", Expires: time.Now().Add(-time.Minute).Unix()})
	forged, _ := jointoken.Sign([]byte("not-the-servers-secret-at-all"), jointoken.Claims{Account: "a1", Debug: true, Expires: time.Now().Add(time.Hour).Unix()})
	runSeat, _ := jointoken.Sign(secret, jointoken.Claims{Account: "a1", Run: "heist", Expires: time.Now().Add(time.Hour).Unix()})
	// The format before the JWTs: base64url claims, a dot, their HMAC.
	head := base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf(`{"acc":"a1","exp":%d}`, time.Now().Add(time.Hour).Unix())))
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(head))
	old := head + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
	cases := []struct {
		name, query, want string
	}{
		{"good", "?token=" + good, ""},
		{"expired", "?token=" + expired, "expired"},
		{"forged", "?token=" + forged, "bad signature"},
		{"garbage", "?token=xyz", "malformed"},
		{"old format", "?token=" + old, "old token format: send a JWT (HS256) from POST /tokens or the platform"},
		{"another room's seat", "?token=" + runSeat, "for another room: run room heist"},
		{"bad level", "?level=nowhere", "unknown level"},
		{"bad game", "?game=deathmatch", "unknown game \"deathmatch\" (games: city-jobs, free-roam)"},
		{"bad traffic", "?traffic=-3", "traffic must be"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			conn, err := websocket.Dial(ctx, url+"/rooms/tok"+c.query)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			rctx, cancel := context.WithTimeout(ctx, 3*time.Second)
			defer cancel()
			frame, text, err := conn.Read(rctx)
			var ce *websocket.CloseError
			if c.want == "" {
				if err != nil || !text || !strings.Contains(string(frame), `"name":"Ada"`) || !strings.Contains(string(frame), `"party":1`) { // the key's number in the room
					t.Fatalf("welcome %q %v", frame, err)
				}
				return
			}
			if !errors.As(err, &ce) || !strings.Contains(ce.Reason, c.want) {
				t.Fatalf("err %v, want a close with %q", err, c.want)
			}
		})
	}
}

func TestEmptyRoomCloses(t *testing.T) {
	m, url, _ := newHTTP(t)
	conn, err := websocket.Dial(context.Background(), url+"/rooms/brief?level=test-flat")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := conn.Read(context.Background()); err != nil { // the welcome: joined
		t.Fatal(err)
	}
	rooms := m.Rooms()
	if n := len(rooms); n != 2 {
		t.Fatalf("%d rooms, want 2", n)
	}
	brief := rooms[slices.IndexFunc(rooms, func(r *Room) bool { return r.Name == "brief" })]
	conn.Close()
	select {
	case <-brief.Done():
	case <-time.After(5 * time.Second):
		t.Fatalf("the empty room is still open: %+v", m.List())
	}
	if l := m.List(); len(l) != 1 || l[0].Name != "default" {
		t.Fatalf("rooms %+v once the empty room closed, want the default room alone", l)
	}
}

// loopbackRTC returns a WebRTC transport that answers on loopback only.
func loopbackRTC(t *testing.T) *webrtc.Transport {
	t.Helper()
	rtc, err := webrtc.New(webrtc.Options{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}})
	if err != nil {
		t.Fatal(err)
	}
	return rtc
}

// TestSlowOffer: a WebRTC offer whose body does not come whole within
// offerTimeout is answered 400 and its connection closed, not waited for
// for good (a body sent a byte at a time would hold the handler).
func TestSlowOffer(t *testing.T) {
	defer func(d time.Duration) { offerTimeout = d }(offerTimeout)
	offerTimeout = 300 * time.Millisecond
	m := newManager(t, Config{DefaultLevel: "test-flat"})
	rtc := loopbackRTC(t)
	srv := httptest.NewServer(m.Handler(HTTPConfig{WebRTC: rtc}))
	defer srv.Close()
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte("POST /rooms/default/rtc HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"type\":")); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	c.SetReadDeadline(start.Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer to a slow offer: %v (after %v)", err, time.Since(start))
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a slow offer: %s, want 400", resp.Status)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("answered after %v, want about %v", d, offerTimeout)
	}
}

// TestRefusedReasons: every refused join is told to HTTPConfig.Refused
// with its transport and why: a bad option, a bad room name, a join token
// refused, a page of another origin, a player past MaxPlayersFrom, an offer
// that is not one.
func TestRefusedReasons(t *testing.T) {
	m := newManager(t, Config{DefaultLevel: "test-flat", MaxPlayersFrom: 1})
	rtc := loopbackRTC(t)
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(m.Handler(HTTPConfig{Secret: secret, WebRTC: rtc, Refused: func(transport, reason string) {
		mu.Lock()
		got = append(got, transport+" "+reason)
		mu.Unlock()
	}}))
	defer srv.Close()
	ws := "ws" + strings.TrimPrefix(srv.URL, "http")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// dial joins over a WebSocket and reads until the server closes it
	// (a refusal) or a frame comes (a join): it returns the connection of
	// a join, to keep it open.
	dial := func(path string, h http.Header) *cws.Conn {
		t.Helper()
		c, _, err := cws.Dial(ctx, ws+path, &cws.DialOptions{HTTPHeader: h})
		if err != nil {
			return nil // refused at the handshake (another origin)
		}
		if _, _, err := c.Read(ctx); err != nil {
			return nil
		}
		return c
	}
	for _, c := range []struct {
		path   string
		header http.Header
		want   string
	}{
		{"/rooms/default?traffic=x", nil, "websocket bad_request"},
		{"/rooms/BAD", nil, "websocket bad_request"},
		{"/rooms/default?token=nope", nil, "websocket token"},
		{"/rooms/default", http.Header{"Origin": {"http://elsewhere.example"}}, "websocket origin"},
	} {
		if conn := dial(c.path, c.header); conn != nil {
			conn.CloseNow()
			t.Errorf("%s: joined, want refused (%s)", c.path, c.want)
		}
	}
	first := dial("/rooms/default", nil) // the address's one player
	if first == nil {
		t.Fatal("the first join was refused")
	}
	defer first.CloseNow()
	if conn := dial("/rooms/default", nil); conn != nil {
		conn.CloseNow()
		t.Error("a second player from the address joined with MaxPlayersFrom 1")
	}
	resp, err := http.Post(srv.URL+"/rooms/default/rtc", "application/json", strings.NewReader(`{"type":"answer"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	want := []string{"websocket bad_request", "websocket bad_request", "websocket token", "websocket origin",
		"websocket players_from", "webrtc bad_request"}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(got, want) {
		t.Errorf("refusals told:\n %q\nwant\n %q", got, want)
	}
	for _, r := range got {
		if !slices.Contains(RefusalReasons, strings.Fields(r)[1]) {
			t.Errorf("reason %q is not one of RefusalReasons", r)
		}
	}
}

// TestOfferAllowsItsOrigin: a WebRTC offer from a page of an origin the
// server lets join (another server of the fleet, whose 307 sent it here)
// is answered with Access-Control-Allow-Origin for that origin, even when
// it is refused, so that the page reads the answer or the reason. One
// from an origin not let join is refused without it.
func TestOfferAllowsItsOrigin(t *testing.T) {
	m := newManager(t, Config{DefaultLevel: "test-flat"})
	srv := httptest.NewServer(m.Handler(HTTPConfig{WebRTC: loopbackRTC(t), WebSocket: websocket.Options{OriginPatterns: []string{"game-*.example"}}}))
	defer srv.Close()
	for _, c := range []struct {
		origin, allow string
		status        int
	}{
		{"http://game-2.example", "http://game-2.example", http.StatusBadRequest}, // let in, a bad offer
		{"http://evil.example", "", http.StatusForbidden},
	} {
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/rooms/default/rtc", strings.NewReader(`{"type":"offer","sdp":"nonsense"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Origin", c.origin)
		req.Header.Set("Content-Type", "text/plain;charset=UTF-8")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Access-Control-Allow-Origin"); resp.StatusCode != c.status || got != c.allow {
			t.Errorf("an offer from %s: %s, Access-Control-Allow-Origin %q; want %d, %q", c.origin, resp.Status, got, c.status, c.allow)
		}
	}
}

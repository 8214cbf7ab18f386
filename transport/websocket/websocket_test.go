package websocket_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	cws "github.com/coder/websocket"

	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/rooms"
	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/transport/websocket"
)

// wsURL turns an httptest server's http:// URL into its ws:// one.
func wsURL(srv *httptest.Server) string { return "ws" + strings.TrimPrefix(srv.URL, "http") }

// newRooms runs a rooms manager (test-flat) behind its HTTP routes on
// loopback and returns the ws:// URL of its default room.
func newRooms(t *testing.T) (*rooms.Manager, string) {
	t.Helper()
	m, err := rooms.NewManager(rooms.Config{DefaultLevel: "test-flat", Grace: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler(rooms.HTTPConfig{Secret: []byte("websocket-test-secret-0123456789")}))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		m.Shutdown(ctx, "test over")
		srv.Close()
	})
	return m, wsURL(srv) + "/rooms/default"
}

// counter reads c until it ends, counting the binary frames (snapshots).
func counter(c *websocket.ClientConn) *atomic.Uint64 {
	var n atomic.Uint64
	go func() {
		for {
			_, text, err := c.Read(context.Background())
			if err != nil {
				return
			}
			if !text {
				n.Add(1)
			}
		}
	}()
	return &n
}

// readClose reads c until the server closes it and returns the close.
func readClose(t *testing.T, c *websocket.ClientConn) *websocket.CloseError {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for {
		_, _, err := c.Read(ctx)
		if err == nil {
			continue
		}
		var ce *websocket.CloseError
		if !errors.As(err, &ce) {
			t.Fatalf("read ended with %v, want the server's close", err)
		}
		return ce
	}
}

// TestReadLimit: a client's frame over ReadLimit closes its connection
// with code 1009 and a reason, before the game server sees it; a frame of
// ReadLimit bytes passes the transport and the session judges it (blank
// JSON is malformed; a binary frame that size is too big for it). Either way the room goes on: another
// client keeps getting its snapshots, and the bad client's player leaves.
func TestReadLimit(t *testing.T) {
	if websocket.ReadLimit != 4<<10 {
		t.Fatalf("ReadLimit %d, want 4 KiB", websocket.ReadLimit)
	}
	m, url := newRooms(t)
	ctx := context.Background()
	good, err := websocket.Dial(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer good.Close()
	frames := counter(good)
	cases := []struct {
		name   string
		frame  []byte
		text   bool
		code   cws.StatusCode
		reason string
	}{
		{"text over the limit", []byte(strings.Repeat(" ", websocket.ReadLimit+1)), true, cws.StatusMessageTooBig, "read limited"},
		{"binary over the limit", make([]byte, websocket.ReadLimit+1), false, cws.StatusMessageTooBig, "read limited"},
		{"text at the limit", []byte(strings.Repeat(" ", websocket.ReadLimit)), true, cws.StatusPolicyViolation, "malformed"},
		{"binary at the limit", make([]byte, websocket.ReadLimit), false, cws.StatusPolicyViolation, "frame too big"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bad, err := websocket.Dial(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			defer bad.Close()
			if _, _, err := bad.Read(ctx); err != nil { // the welcome: joined
				t.Fatal(err)
			}
			waitPlayers(t, m, 2)
			if err := bad.Send(ctx, c.frame, c.text); err != nil {
				t.Fatal(err)
			}
			ce := readClose(t, bad)
			if cws.StatusCode(ce.Code) != c.code || !strings.Contains(ce.Reason, c.reason) {
				t.Fatalf("closed with %d %q, want %d %q", ce.Code, ce.Reason, c.code, c.reason)
			}
			waitPlayers(t, m, 1)
			before := frames.Load()
			time.Sleep(500 * time.Millisecond) // ten snapshots' time
			if got := frames.Load() - before; got < 5 {
				t.Fatalf("the other client got %d snapshots in 0.5 s after the close, want about 10", got)
			}
		})
	}
}

// waitPlayers waits until the default room has n players.
func waitPlayers(t *testing.T, m *rooms.Manager, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		for _, r := range m.List() {
			if r.Name == "default" && r.Players == n {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("rooms %+v, want %d players in default", m.List(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestOriginPolicy: a browser's join from a page of another origin is
// refused (403) unless Options.OriginPatterns matches its host or
// Options.AnyOrigin is set; the server's own origin and a client without
// an Origin (not a browser) always pass. An accepted client gets what the
// server sends.
func TestOriginPolicy(t *testing.T) {
	cases := []struct {
		name   string
		o      websocket.Options
		origin string // "self": the server's own
		ok     bool
	}{
		{"foreign refused", websocket.Options{}, "http://evil.example", false},
		{"foreign refused by other patterns", websocket.Options{OriginPatterns: []string{"game.example:5173"}}, "http://evil.example", false},
		{"same origin", websocket.Options{}, "self", true},
		{"no origin", websocket.Options{}, "", true},
		{"pattern", websocket.Options{OriginPatterns: []string{"game.example:5173"}}, "http://game.example:5173", true},
		{"pattern wrong port", websocket.Options{OriginPatterns: []string{"game.example:5173"}}, "http://game.example:9999", false},
		{"wildcard pattern", websocket.Options{OriginPatterns: []string{"*.example.org"}}, "https://play.example.org", true},
		{"any origin", websocket.Options{AnyOrigin: true}, "http://evil.example", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				conn, err := websocket.Accept(w, r, c.o)
				if err != nil {
					return // Accept has answered 403
				}
				conn.Send([]byte(`{"type":"hello"}`), true, true)
				conn.Close("left")
				<-conn.Finished()
			}))
			defer srv.Close()
			h := http.Header{}
			switch c.origin {
			case "":
			case "self":
				h.Set("Origin", srv.URL)
			default:
				h.Set("Origin", c.origin)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			ws, resp, err := cws.Dial(ctx, wsURL(srv), &cws.DialOptions{HTTPHeader: h})
			if !c.ok {
				if err == nil {
					ws.CloseNow()
					t.Fatal("accepted, want refused")
				}
				if resp == nil || resp.StatusCode != http.StatusForbidden {
					t.Fatalf("refused with %v (%v), want 403", resp, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			defer ws.CloseNow()
			typ, data, err := ws.Read(ctx)
			if err != nil || typ != cws.MessageText || string(data) != `{"type":"hello"}` {
				t.Fatalf("read %v %q %v", typ, data, err)
			}
			_, _, err = ws.Read(ctx)
			if cws.CloseStatus(err) != cws.StatusNormalClosure {
				t.Fatalf("closed with %v, want a normal closure", err)
			}
		})
	}
}

// accepted runs a server whose every join is Accepted and handed to the
// test, and dials it: the server's side and the client's.
func accepted(t *testing.T) (*websocket.Conn, *websocket.ClientConn) {
	t.Helper()
	conns := make(chan *websocket.Conn, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := websocket.Accept(w, r, websocket.Options{})
		if err != nil {
			return
		}
		conns <- conn
		<-conn.Finished()
	}))
	t.Cleanup(srv.Close)
	c, err := websocket.Dial(context.Background(), wsURL(srv))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	select {
	case conn := <-conns:
		t.Cleanup(func() { conn.Close("test over") })
		return conn, c
	case <-time.After(5 * time.Second):
		t.Fatal("no connection accepted")
	}
	return nil, nil
}

// bigFrame is the size of the frames that fill the socket's buffers in a
// few dozen sends.
const bigFrame = 64 << 10

// flood calls conn.Send n times with frames numbered from first, within
// 2 s (well under WriteTimeout: a Send that blocked on the stalled writer
// would take that long), and returns the numbers of the frames it took.
// Every frame it refuses must be refused with server.ErrSendFull.
func flood(t *testing.T, conn *websocket.Conn, first, n int) []int {
	t.Helper()
	frame := make([]byte, bigFrame)
	var took []int
	done := make(chan error, 1)
	go func() {
		for i := first; i < first+n; i++ {
			binary.LittleEndian.PutUint32(frame, uint32(i))
			err := conn.Send(frame, false, false)
			switch {
			case err == nil:
				took = append(took, i)
			case !errors.Is(err, server.ErrSendFull):
				done <- err
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("send: %v, want nil or ErrSendFull", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Send blocked on a client that does not read")
	}
	return took
}

// stalled waits until the writer has stopped writing (the peer's socket is
// full): FramesOut still for half a second.
func stalled(t *testing.T, conn *websocket.Conn) {
	t.Helper()
	last := conn.FramesOut.Load()
	for still := 0; still < 10; {
		time.Sleep(50 * time.Millisecond)
		if n := conn.FramesOut.Load(); n != last {
			last, still = n, 0
			continue
		}
		still++
	}
}

// TestSendQueue: Send never blocks, however far behind the client is. The
// writer stalls on a client that does not read; Send then fills the queue
// to SendQueue frames and refuses every further one with
// server.ErrSendFull, dropping it: when the client reads again, it gets
// exactly the frames Send took, in order, and none of those it refused.
func TestSendQueue(t *testing.T) {
	conn, c := accepted(t)
	const n = 1000 // 64 MB: far more than the socket buffers and the queue
	took := flood(t, conn, 0, n)
	if len(took) < websocket.SendQueue || len(took) >= n {
		t.Fatalf("Send took %d of %d frames, want at least the queue (%d) and not all", len(took), n, websocket.SendQueue)
	}
	stalled(t, conn)
	// The writer is stuck: Send takes what room is left in the queue, then
	// nothing.
	more := flood(t, conn, n, websocket.SendQueue+10)
	for i, m := range more {
		if m != n+i {
			t.Fatalf("Send took %v: a frame after one it refused", more)
		}
	}
	took = append(took, more...)
	out := conn.FramesOut.Load()
	if queued := uint64(len(took)) - out; queued != websocket.SendQueue+1 {
		t.Fatalf("%d frames waiting (taken %d, written %d), want the queue's %d and the one being written", queued, len(took), out, websocket.SendQueue)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i, want := range took {
		frame, text, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("read frame %d of %d: %v", i, len(took), err)
		}
		if got := int(binary.LittleEndian.Uint32(frame)); text || len(frame) != bigFrame || got != want {
			t.Fatalf("frame %d is number %d (%d bytes, text %v), want number %d", i, got, len(frame), text, want)
		}
	}
	// The frames refused were dropped: after the last one taken comes the
	// close, nothing else.
	conn.Close("left")
	_, _, err := c.Read(ctx)
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Reason != "left" {
		t.Fatalf("read %v after the frames taken, want the close", err)
	}
}

// TestStalledClientCutOff: a client that never reads gets its connection
// closed once a write has waited WriteTimeout; from then on Send reports
// server.ErrClosed (the game server lets the client go), and the writer is
// finished.
func TestStalledClientCutOff(t *testing.T) {
	t.Parallel()
	conn, c := accepted(t)
	flood(t, conn, 0, 300)
	start := time.Now()
	select {
	case <-conn.Done():
	case <-time.After(websocket.WriteTimeout + 3*time.Second):
		t.Fatalf("the stalled connection is still open after %v", time.Since(start))
	}
	select {
	case <-conn.Finished():
	case <-time.After(time.Second):
		t.Fatal("the writer is still running")
	}
	if err := conn.Send([]byte{1}, false, false); !errors.Is(err, server.ErrClosed) {
		t.Fatalf("Send after the cut-off: %v, want ErrClosed", err)
	}
	// The client, reading at last, gets what reached its socket and then
	// the end of the connection.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for {
		if _, _, err := c.Read(ctx); err != nil {
			if ctx.Err() != nil {
				t.Fatal("the client's connection did not end")
			}
			break
		}
	}
}

// lossRun is what one TestDialLoss connection saw: the numbers of the
// binary frames the client read, its text frames, and what the server got
// from it.
type lossRun struct {
	binIn             []int
	textIn            int
	binOut, textOut   int
	lostIn, lostOut   uint64
	lossy, plainLossy bool
}

// lossFrames is the frames of each kind sent each way by TestDialLoss.
const lossFrames = 400

// runLoss dials a plain WebSocket server with o: the server sends
// lossFrames binary frames (numbered) and as many text frames, then "end";
// the client sends as many of each back, then "end".
func runLoss(t *testing.T, o websocket.DialOptions) lossRun {
	t.Helper()
	got := make(chan [2]int, 1) // binary, text frames the server read
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := cws.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer ws.CloseNow()
		ctx := r.Context()
		for i := 0; i < lossFrames; i++ {
			ws.Write(ctx, cws.MessageBinary, binary.LittleEndian.AppendUint32(nil, uint32(i)))
			ws.Write(ctx, cws.MessageText, []byte(`{"type":"t"}`))
		}
		ws.Write(ctx, cws.MessageText, []byte("end"))
		var n [2]int
		for {
			typ, data, err := ws.Read(ctx)
			if err != nil || string(data) == "end" {
				break
			}
			if typ == cws.MessageText {
				n[1]++
			} else {
				n[0]++
			}
		}
		got <- n
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := websocket.DialWith(ctx, wsURL(srv), o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var run lossRun
	for {
		frame, text, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if string(frame) == "end" {
			break
		}
		if text {
			run.textIn++
			continue
		}
		run.binIn = append(run.binIn, int(binary.LittleEndian.Uint32(frame)))
	}
	for i := 0; i < lossFrames; i++ {
		if err := c.Send(ctx, []byte{byte(i)}, false); err != nil {
			t.Fatal(err)
		}
		if err := c.Send(ctx, []byte(`{"type":"t"}`), true); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Send(ctx, []byte("end"), true); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-got:
		run.binOut, run.textOut = n[0], n[1]
	case <-ctx.Done():
		t.Fatal("the server did not get the client's frames")
	}
	run.lostIn, run.lostOut, run.lossy = c.LostIn.Load(), c.LostOut.Load(), c.Lossy()
	return run
}

// TestDialLoss: DialWith's simulated loss drops about Loss of the binary
// frames each way, counted in LostIn and LostOut, and never a text frame;
// the same seed drops the same frames; the connection then reports itself
// lossy (its client sends several inputs a frame). A loss outside 0..1 is
// refused.
func TestDialLoss(t *testing.T) {
	for _, l := range []float64{-0.1, 1.5, math.NaN()} {
		if _, err := websocket.DialWith(context.Background(), "ws://127.0.0.1:1/rooms/x", websocket.DialOptions{Loss: l}); err == nil || !strings.Contains(err.Error(), "loss") {
			t.Errorf("loss %v: %v, want refused", l, err)
		}
	}
	none := runLoss(t, websocket.DialOptions{})
	if len(none.binIn) != lossFrames || none.binOut != lossFrames || none.lostIn+none.lostOut != 0 || none.lossy {
		t.Fatalf("without loss: %d in, %d out, lost %d/%d, lossy %v", len(none.binIn), none.binOut, none.lostIn, none.lostOut, none.lossy)
	}
	o := websocket.DialOptions{Loss: 0.25, Seed: 7}
	a, b := runLoss(t, o), runLoss(t, o)
	for _, r := range []lossRun{a, b} {
		if r.textIn != lossFrames || r.textOut != lossFrames {
			t.Fatalf("text frames lost: %d in, %d out of %d", r.textIn, r.textOut, lossFrames)
		}
		if int(r.lostIn) != lossFrames-len(r.binIn) || int(r.lostOut) != lossFrames-r.binOut {
			t.Fatalf("lost %d in, %d out; %d and %d of %d binary frames came", r.lostIn, r.lostOut, len(r.binIn), r.binOut, lossFrames)
		}
		for _, lost := range []uint64{r.lostIn, r.lostOut} {
			if lost < lossFrames/8 || lost > lossFrames*3/8 { // 25%: 100 ± 5 sd
				t.Fatalf("lost %d of %d binary frames at 25%% loss", lost, lossFrames)
			}
		}
		if !r.lossy {
			t.Fatal("a connection with simulated loss is not Lossy")
		}
	}
	if !slices.Equal(a.binIn, b.binIn) || a.binOut != b.binOut {
		t.Fatal("the same seed lost different frames")
	}
	if c := runLoss(t, websocket.DialOptions{Loss: 0.25, Seed: 8}); slices.Equal(a.binIn, c.binIn) {
		t.Fatal("another seed lost the same frames")
	}
}

// serving runs a server whose every join is Accepted, joined to a game
// server (test-flat, never ticked) and Served, each connection handed to
// the test; it returns the server's ws:// URL.
func serving(t *testing.T) (string, <-chan *websocket.Conn) {
	t.Helper()
	l, err := levels.Load("test-flat")
	if err != nil {
		t.Fatal(err)
	}
	g, err := server.New(server.Config{Room: "t", Level: l})
	if err != nil {
		t.Fatal(err)
	}
	conns := make(chan *websocket.Conn, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := websocket.Accept(w, r, websocket.Options{})
		if err != nil {
			return
		}
		sess, err := g.Join(conn, server.Who{})
		if err != nil {
			conn.Close(err.Error())
			return
		}
		conns <- conn
		conn.Serve(r.Context(), sess)
		<-conn.Finished()
	}))
	t.Cleanup(srv.Close)
	return wsURL(srv), conns
}

// TestCloseReasonWhileServing: the server's close reaches the client with
// its reason while Serve is reading the client's frames (a room that kicks
// a client, a server that shuts down): the read must not end the
// connection before the writer's close frame is out. Many rounds, as it
// was a race.
func TestCloseReasonWhileServing(t *testing.T) {
	url, conns := serving(t)
	for i := 0; i < 40; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		c, err := websocket.Dial(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		conn := <-conns
		time.Sleep(time.Millisecond) // Serve is in its read
		reason := fmt.Sprintf("kicked %d", i)
		conn.Close(reason)
		_, _, err = c.Read(ctx)
		var ce *websocket.CloseError
		if !errors.As(err, &ce) || ce.Reason != reason || cws.StatusCode(ce.Code) != cws.StatusPolicyViolation {
			t.Fatalf("round %d: read %v, want the close with %q", i, err, reason)
		}
		c.Close()
		cancel()
	}
}

// TestClosedStalledClientEndsAfterGrace: a client that does not read, closed
// while its writer is stuck on a full socket, has its connection ended
// CloseGrace after the close, not WriteTimeout: a draining server does not
// wait on it.
func TestClosedStalledClientEndsAfterGrace(t *testing.T) {
	url, conns := serving(t)
	c, err := websocket.Dial(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	conn := <-conns
	flood(t, conn, 0, 300)
	stalled(t, conn)
	start := time.Now()
	conn.Close("server shutting down")
	select {
	case <-conn.Finished():
	case <-time.After(websocket.WriteTimeout):
		t.Fatal("the closed connection is still writing after WriteTimeout")
	}
	if d := time.Since(start); d < websocket.CloseGrace-50*time.Millisecond || d > websocket.CloseGrace+time.Second {
		t.Fatalf("ended %v after the close, want CloseGrace (%v)", d, websocket.CloseGrace)
	}
}

// TestReadInto: ReadInto returns each frame whole into the caller's buffer,
// grown as a frame needs and reused after, text and binary told apart; the
// simulated loss drops binary frames as Read's does; the server's close
// comes with its reason.
func TestReadInto(t *testing.T) {
	sizes := []int{0, 1, 5000, 100}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := cws.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer ws.CloseNow()
		ctx := r.Context()
		for i, n := range sizes {
			b := make([]byte, n)
			for k := range b {
				b[k] = byte(i + k)
			}
			ws.Write(ctx, cws.MessageBinary, b)
		}
		ws.Write(ctx, cws.MessageText, []byte(`{"type":"t"}`))
		ws.Close(cws.StatusPolicyViolation, "kicked")
	}))
	defer srv.Close()
	for _, loss := range []float64{0, 1} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		c, err := websocket.DialWith(ctx, wsURL(srv), websocket.DialOptions{Loss: loss, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 0, 16)
		var big []byte
		for i, n := range sizes {
			if loss == 1 {
				break
			}
			frame, text, err := c.ReadInto(ctx, buf)
			if err != nil || text || len(frame) != n {
				t.Fatalf("frame %d: %d bytes, text %v, %v; want %d binary", i, len(frame), text, err, n)
			}
			for k, b := range frame {
				if b != byte(i+k) {
					t.Fatalf("frame %d: byte %d is %d, want %d", i, k, b, byte(i+k))
				}
			}
			if n == 5000 {
				big = frame
			}
			if n == 100 && &frame[0] != &big[0] {
				t.Error("the frame after the large one did not reuse its room")
			}
			buf = frame[:0]
		}
		frame, text, err := c.ReadInto(ctx, buf)
		if err != nil || !text || string(frame) != `{"type":"t"}` {
			t.Fatalf("loss %v: %q, text %v, %v; want the text frame", loss, frame, text, err)
		}
		if loss == 1 && c.LostIn.Load() != uint64(len(sizes)) {
			t.Errorf("loss 1: %d frames lost in, want %d", c.LostIn.Load(), len(sizes))
		}
		var ce *websocket.CloseError
		if _, _, err := c.ReadInto(ctx, buf); !errors.As(err, &ce) || ce.Reason != "kicked" {
			t.Errorf("loss %v: the close read %v, want the server's with its reason", loss, err)
		}
		cancel()
	}
}

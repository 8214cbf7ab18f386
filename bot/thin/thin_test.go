package thin

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fiveonit/engine/bot"
	"github.com/fiveonit/engine/netsync/wire"
	"github.com/fiveonit/engine/rooms"
	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/transport/websocket"
)

// serverStats keeps a room's game server counters, read in the room's
// goroutine after each tick.
type serverStats struct {
	mu sync.Mutex
	s  server.Stats
}

func (o *serverStats) Ticked(r *rooms.Room) {
	o.mu.Lock()
	o.s = r.Server().Stats()
	o.mu.Unlock()
}

func (o *serverStats) Closed(*rooms.Room) {}

func (o *serverStats) get() server.Stats {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.s
}

// serve runs a rooms manager on test-flat over HTTP and returns the ws://
// URL of its default room and the room's server counters.
func serve(t *testing.T) (string, *serverStats) {
	t.Helper()
	st := &serverStats{}
	m, err := rooms.NewManager(rooms.Config{DefaultLevel: "test-flat", Grace: 200 * time.Millisecond,
		Observe: func(*rooms.Room) rooms.RoomObserver { return st }})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler(rooms.HTTPConfig{Secret: []byte("thin-test-secret-0123456789")}))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		m.Shutdown(ctx, "test over")
		srv.Close()
	})
	return "ws" + strings.TrimPrefix(srv.URL, "http") + "/rooms/default", st
}

// TestRunOverWebSocket: thin bots on real WebSockets, ordered and acked
// (acked=1, the frames losing 10 % each way): each joins, gets the
// snapshots the server sent in the ticks it spanned, refuses none, and
// sends about an input frame per tick. Acked, the server's keyframes for
// want of an acknowledged base stop once the bots' acks come: a bot that
// acknowledged nothing would get a keyframe every frame.
func TestRunOverWebSocket(t *testing.T) {
	for _, tc := range []struct {
		name  string
		query string
		loss  float64
	}{
		{"ordered", "", 0},
		{"acked, 10% loss", "?acked=1", 0.1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, st := serve(t)
			const n, d = 4, 3 * time.Second
			res := make([]Result, n)
			var wg sync.WaitGroup
			for i := range n {
				conn, err := websocket.DialWith(context.Background(), url+tc.query, websocket.DialOptions{Loss: tc.loss, Seed: uint64(i)})
				if err != nil {
					t.Fatal(err)
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					res[i] = Run(context.Background(), conn, uint64(i), d)
				}()
			}
			wg.Wait()
			for i, r := range res {
				s := r.Stats
				sent := uint64(r.SnapshotTicks/wire.SnapshotEvery + 1)
				want := sent * 95 / 100
				if tc.loss > 0 {
					want = sent * 9 / 10 * 8 / 10 // a margin for the draw of the loss
				}
				ticks := uint64(r.Seconds * 60)
				if r.Err != nil || r.Welcome.Player == 0 || r.Desynced || s.Resyncs != 0 || sent < 20 || s.Snapshots < want ||
					s.InputFrames < ticks*7/10 || s.InputFrames > ticks+30 || len(r.BytesPerSecond) < 2 {
					t.Errorf("bot %d: err %v, player %d, desynced %v, %d refused, %d snapshots of %d sent (want >= %d), %d input frames in %.1f s, %d seconds of bytes",
						i, r.Err, r.Welcome.Player, r.Desynced, s.Resyncs, s.Snapshots, sent, want, s.InputFrames, r.Seconds, len(r.BytesPerSecond))
				}
				if tc.loss == 0 && (s.Keyframes != 1 || s.JoinKeyframes != 1) || tc.loss > 0 && s.Keyframes > 4 {
					t.Errorf("bot %d: %d keyframes, %d joining", i, s.Keyframes, s.JoinKeyframes)
				}
			}
			ss := st.get()
			noBase := ss.KeyframesBy[server.KeyframeNoBase]
			if ss.Resyncs != 0 || noBase > 4*n {
				t.Errorf("server: %d check mismatches, %d keyframes for want of a base", ss.Resyncs, noBase)
			}
			t.Logf("bot 0: %+v; server: %d keyframes (%v), %d guesses, %d late", res[0].Stats, ss.Keyframes, ss.KeyframesBy, ss.Guesses, ss.Late)
		})
	}
}

// recorder is a connection that keeps a copy of each binary frame read.
type recorder struct {
	bot.Conn
	mu     sync.Mutex
	frames [][]byte
}

func (r *recorder) Read(ctx context.Context) ([]byte, bool, error) {
	b, text, err := r.Conn.Read(ctx)
	if err == nil && !text {
		r.mu.Lock()
		r.frames = append(r.frames, append([]byte(nil), b...))
		r.mu.Unlock()
	}
	return b, text, err
}

// record plays a thin bot on the server at url for d and returns the
// binary frames it got.
func record(t *testing.T, url string, d time.Duration) [][]byte {
	t.Helper()
	conn, err := websocket.Dial(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{Conn: conn}
	if r := Run(context.Background(), rec, 1, d); r.Err != nil || r.Stats.Resyncs != 0 {
		t.Fatalf("recording: %v, %d refused", r.Err, r.Stats.Resyncs)
	}
	if len(rec.frames) < 30 || rec.frames[0][0] != wire.FrameKeyframe {
		t.Fatalf("recorded %d frames, the first of kind %d", len(rec.frames), rec.frames[0][0])
	}
	return rec.frames
}

// inputFrame decodes an input frame the client made.
func inputFrame(t *testing.T, b []byte) wire.InputFrame {
	t.Helper()
	var f wire.InputFrame
	if err := wire.DecodeInputFrame(b, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestResyncAndSteadyState replays a real server's ordered frames into a
// thin client: each input frame acknowledges the newest tick applied; a
// frame refused (cut short) makes the input frames ask for a keyframe, as
// does each delta after it, until a keyframe applies; and handling a delta
// and making an input frame allocate nothing.
func TestResyncAndSteadyState(t *testing.T) {
	url, _ := serve(t)
	frames := record(t, url, 2*time.Second)
	c := New(false)
	drv := NewDriver(7)
	half := len(frames) / 2
	for i, b := range frames[:half] {
		if err := c.HandleSnapshot(b); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		f := inputFrame(t, c.Tick(drv.Next()))
		tick, _, _ := wire.ParseHeader(b)
		if f.Ack != tick.Tick || f.Flags != 0 || f.Count != 1 || f.FirstSeq != uint32(i+1) {
			t.Fatalf("frame %d of tick %d: input frame %+v", i, tick.Tick, f)
		}
	}
	// The steady state: a delta and an input frame, no allocation.
	i := half
	allocs := testing.AllocsPerRun(len(frames)-half-3, func() {
		c.HandleSnapshot(frames[i])
		c.Tick(drv.Next())
		i++
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per frame and tick, want 0", allocs)
	}
	if s := c.Stats(); s.Resyncs != 0 || s.Snapshots != uint64(i) || s.Keyframes != 1 {
		t.Fatalf("before the refusal: %+v", s)
	}
	ack := c.Ack()
	// A frame cut short is refused: the input frames ask for a keyframe
	// and acknowledge the last frame applied.
	cut := frames[i]
	if err := c.HandleSnapshot(cut[:len(cut)-1]); err == nil {
		t.Fatal("a frame cut short applied")
	}
	if f := inputFrame(t, c.Tick(drv.Next())); f.Flags != wire.InputResync || f.Ack != ack {
		t.Errorf("after a refused frame: %+v, want the resync flag and ack %d", f, ack)
	}
	// The next delta does not apply onto nothing: still asking.
	if err := c.HandleSnapshot(frames[i+1]); err == nil {
		t.Fatal("a delta applied after a refused frame")
	}
	if f := inputFrame(t, c.Tick(drv.Next())); f.Flags != wire.InputResync {
		t.Errorf("after a delta refused: %+v, want the resync flag", f)
	}
	// A keyframe applies: the asking stops, its tick acknowledged.
	if err := c.HandleSnapshot(frames[0]); err != nil {
		t.Fatal(err)
	}
	key, _, _ := wire.ParseHeader(frames[0])
	if f := inputFrame(t, c.Tick(drv.Next())); f.Flags != 0 || f.Ack != key.Tick {
		t.Errorf("after the keyframe: %+v, want no flag and ack %d", f, key.Tick)
	}
	if s := c.Stats(); s.Resyncs != 2 || s.Keyframes != 2 || s.JoinKeyframes != 1 {
		t.Errorf("after: %d refused, %d keyframes, %d joining; want 2, 2, 1", s.Resyncs, s.Keyframes, s.JoinKeyframes)
	}
	if !c.LastRefused().After(time.Now().Add(-time.Minute)) {
		t.Error("no refusal time")
	}
}

// TestLossyFrames: over a lossy transport each input frame carries the
// last wire.InputsLossy ticks (fewer at the start, and none from before a
// skip), oldest first.
func TestLossyFrames(t *testing.T) {
	c := New(true)
	var drv Driver = NewDriver(3)
	var made []wire.Input
	for seq := uint32(1); seq <= 10; seq++ {
		in := drv.Next()
		made = append(made, in)
		f := inputFrame(t, c.Tick(in))
		n := min(seq, wire.InputsLossy)
		if f.FirstSeq != seq+1-n || f.Count != int(n) {
			t.Fatalf("tick %d: first %d, count %d; want %d, %d", seq, f.FirstSeq, f.Count, seq+1-n, n)
		}
		for k := range f.Count {
			if f.Inputs[k] != made[f.FirstSeq-1+uint32(k)] {
				t.Fatalf("tick %d: input %d is %+v, want %+v", seq, k, f.Inputs[k], made[f.FirstSeq-1+uint32(k)])
			}
		}
	}
	// The server ran the client's tick 22 on a guess, its newest input
	// (10) 12 ticks behind: the client skips 14 ticks (the 12 and the
	// band's low, 2) past its next, 11; the frames then carry none of the
	// ticks before the skip.
	c.pace.Store(paced(22, -12))
	f := inputFrame(t, c.Tick(drv.Next()))
	if f.FirstSeq != 25 || f.Count != 1 || c.Stats().Skipped != 14 {
		t.Errorf("after the skip: first %d, count %d, %d skipped; want 25, 1, 14", f.FirstSeq, f.Count, c.Stats().Skipped)
	}
	// The same snapshot's news again does not skip again: it tells of the
	// ticks before the skip.
	if f := inputFrame(t, c.Tick(drv.Next())); f.FirstSeq != 25 || f.Count != 2 {
		t.Errorf("next: first %d, count %d; want 25, 2", f.FirstSeq, f.Count)
	}
}

// paced is what a snapshot of lastSeq and inputBuffer b tells the sending
// side.
func paced(lastSeq uint32, b int8) uint64 { return uint64(lastSeq)<<32 | uint64(uint8(b))<<8 | 1 }

// TestPeriod: the ticks lengthen or shorten as the full client's do, by the
// server's input buffer for the ticks after the last skip.
func TestPeriod(t *testing.T) {
	const nominal = 1000 * time.Microsecond
	for _, tc := range []struct {
		lossy   bool
		lastSeq uint32
		buffer  int8
		want    time.Duration
		resumed uint32 // the first tick after the last skip (0: 1, none)
	}{
		{false, 0, 0, nominal, 0}, // nothing run yet
		{false, 10, 1, nominal, 0},
		{false, 10, 3, nominal, 0},
		{false, 10, 0, 970 * time.Microsecond, 0},
		{false, 10, -2, 930 * time.Microsecond, 0},
		{false, 200, -100, 900 * time.Microsecond, 0}, // at most 10 %
		{false, 12, -3, nominal, 15},                  // of the ticks before a skip to 15
		{false, 10, 4, 1030 * time.Microsecond, 0},
		{false, 10, 6, 1070 * time.Microsecond, 0},
		{true, 10, 1, 970 * time.Microsecond, 0}, // the lossy band is one higher
		{true, 10, 4, nominal, 0},
		{true, 10, 5, 1030 * time.Microsecond, 0},
	} {
		c := New(tc.lossy)
		c.seq, c.resumed = 20, max(tc.resumed, 1)
		if tc.lastSeq != 0 {
			c.pace.Store(paced(tc.lastSeq, tc.buffer))
		}
		if got := c.Period(nominal); got != tc.want {
			t.Errorf("lossy %v, buffer %d: %s, want %s", tc.lossy, tc.buffer, got, tc.want)
		}
	}
}

// TestDriver: a seed's controls are the same each run and another seed's
// differ; the throttle is steady, the steering a wave both ways.
func TestDriver(t *testing.T) {
	a, b, other := NewDriver(5), NewDriver(5), NewDriver(6)
	differ := false
	left, right := false, false
	for i := 0; i < 12*60; i++ {
		x, y, z := a.Next(), b.Next(), other.Next()
		if x != y {
			t.Fatalf("tick %d: %+v and %+v from one seed", i, x, y)
		}
		differ = differ || x != z
		if x.Throttle < 100 || x.Throttle != y.Throttle || x.MoveY != 127 {
			t.Fatalf("tick %d: %+v", i, x)
		}
		left, right = left || x.Steer > 20, right || x.Steer < -20
	}
	if !differ || !left || !right {
		t.Errorf("seeds differ %v; steered left %v, right %v", differ, left, right)
	}
}

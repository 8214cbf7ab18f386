package main

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fiveonit/engine/bot/thin"
	"github.com/fiveonit/engine/netsync/wire"
	"github.com/fiveonit/engine/rooms"
	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/textframe"
)

// serverStats keeps a room's game server counters and its most players,
// read in the room's goroutine after each tick.
type serverStats struct {
	mu      sync.Mutex
	s       server.Stats
	players int
}

func (o *serverStats) Ticked(r *rooms.Room) {
	o.mu.Lock()
	o.s = r.Server().Stats()
	o.players = max(o.players, r.Info().Players)
	o.mu.Unlock()
}

func (o *serverStats) Closed(*rooms.Room) {}

func (o *serverStats) get() (server.Stats, int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.s, o.players
}

// TestThinBots: 16 thin bots for 3 s over WebSockets losing 10 % of the
// binary frames each way, so that they join with acked=1 and the server's
// acked encoders need their acknowledgements: every bot joins (16 players at
// once, each its own), gets most of the snapshots sent in the ticks it
// spanned, refuses none, and needs few keyframes. The server counts no
// check mismatch, and its keyframes for want of an acknowledged base stop
// once the acks come: without them every frame would be one. The summary
// reports the bytes per client per second's median and p99.
func TestThinBots(t *testing.T) {
	st := &serverStats{}
	_, base := serveRooms(t, rooms.Config{DefaultLevel: "test-flat", Grace: 200 * time.Millisecond,
		Observe: func(*rooms.Room) rooms.RoomObserver { return st }})
	c := config{url: base + "/rooms/default", n: 16, duration: 3 * time.Second, transport: "ws", loss: 0.1, seed: 2, thin: true}
	res, failed := runThin(context.Background(), c)
	if failed != 0 || len(res) != c.n {
		t.Fatalf("%d failed, %d results", failed, len(res))
	}
	players := map[uint16]bool{}
	for i, r := range res {
		s := r.Stats
		sent := uint64(r.SnapshotTicks/wire.SnapshotEvery + 1)
		want := sent * 9 / 10 * 8 / 10 // 90 % kept, and a margin for the draw of the loss
		if r.Err != nil || r.Desynced || s.Resyncs != 0 || s.Keyframes > 4 || sent < 20 || s.Snapshots < want ||
			!r.Welcome.Acked || players[r.Welcome.Player] || s.InputFrames < 60 {
			t.Errorf("bot %d: err %v, desynced %v, %d refused, %d keyframes, %d snapshots of %d sent (want >= %d), acked %v, player %d, %d input frames",
				i, r.Err, r.Desynced, s.Resyncs, s.Keyframes, s.Snapshots, sent, want, r.Welcome.Acked, r.Welcome.Player, s.InputFrames)
		}
		players[r.Welcome.Player] = true
	}
	ss, most := st.get()
	noBase := ss.KeyframesBy[server.KeyframeNoBase]
	if ss.Resyncs != 0 || noBase > 3*uint64(c.n) || most != c.n {
		t.Errorf("server: %d check mismatches, %d keyframes for want of a base, at most %d players", ss.Resyncs, noBase, most)
	}
	line := thinSummary(res, failed)
	t.Log(line)
	m := regexp.MustCompile(`bytes/client/s-p50=(\d+) bytes/client/s-p99=(\d+)`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("summary %q: no bytes per client per second p50 and p99", line)
	}
	p50, _ := strconv.Atoi(m[1])
	p99, _ := strconv.Atoi(m[2])
	if p50 < 1000 || p99 < p50 || !strings.Contains(line, "clients=16 failed=0 ended-early=0 ") || !strings.Contains(line, " check-mismatches=0 desynced=0 ") {
		t.Errorf("summary %q", line)
	}
}

// TestThinSummary: the summary adds up the thin bots' counters.
func TestThinSummary(t *testing.T) {
	res := []thin.Result{
		{Stats: thin.Stats{Snapshots: 50, Keyframes: 2, JoinKeyframes: 1, Resyncs: 1, BytesIn: 40000, InputFrames: 300, Skipped: 12},
			Seconds: 5, BytesPerSecond: []uint32{9000, 7000, 8000, 7500, 8500}, Inputs: textframe.InputsFrame{Guessed: 4, Late: 3, Missed: 1}},
		{Stats: thin.Stats{Snapshots: 10, Keyframes: 1, JoinKeyframes: 1, BytesIn: 20000, InputFrames: 60},
			Seconds: 5, BytesPerSecond: []uint32{20000}, Desynced: true, Err: errors.New("dropped")},
	}
	want := "clients=2 failed=1 ended-early=1 snapshots=60 bytes/client/s=6000 bytes/client/s-p50=8500 bytes/client/s-p99=20000 keyframes=3 keyframes/join=1.00" +
		" check-mismatches=1 desynced=1 input-frames=360 skipped-ticks=12 inputs-guessed=4 inputs-late=3 inputs-missed=1"
	if got := thinSummary(res, 1); got != want {
		t.Errorf("summary\n %s\nwant\n %s", got, want)
	}
}

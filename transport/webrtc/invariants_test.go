package webrtc_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/chewxy/math32"
	"github.com/mlange-42/arche/generic"
	"go.uber.org/goleak"

	"github.com/fiveonit/engine/bot"
	"github.com/fiveonit/engine/client"
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/netsync/wire"
	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/systems/weapons"
	"github.com/fiveonit/engine/textframe"
	"github.com/fiveonit/engine/transport/webrtc"
)

// sentLog is what the server sent each session, recorded in the room's
// goroutine after every tick: by the tick of each acked frame, the check of
// S(N) (what an ordered client holds at that tick); by serial, each event
// the frames carried; and how many events the encoder let expire.
type sentLog struct {
	mu      sync.Mutex
	checks  map[uint32]map[uint32]uint32     // session, tick: S(N)'s check
	events  map[uint32]map[uint32]wire.Event // session, serial: the event
	expired map[uint32]uint64                // session: events expired (wire.EventTTL)
	last    map[uint32]uint32                // session: the tick of the last frame recorded
	errs    []string                         // frames that did not parse, serials given twice
}

func newSentLog() *sentLog {
	return &sentLog{checks: map[uint32]map[uint32]uint32{}, events: map[uint32]map[uint32]wire.Event{},
		expired: map[uint32]uint64{}, last: map[uint32]uint32{}}
}

// record takes, for every session whose snapshotter encoded a frame since
// the last call, that frame's tick, S(N)'s check and the events it carried.
// Room goroutine only (a stack hook).
func (l *sentLog) record(g *server.GameServer) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range g.Sessions() {
		sn := s.Snapshotter()
		if sn == nil || sn.AckedEncoder() == nil {
			continue
		}
		f := sn.Last()
		if len(f) < wire.HeaderBytes || f[0] != wire.FrameAcked {
			continue
		}
		id, tick := s.ID(), binary.LittleEndian.Uint32(f[1:])
		if l.checks[id] == nil {
			l.checks[id], l.events[id] = map[uint32]uint32{}, map[uint32]wire.Event{}
		} else if l.last[id] == tick {
			continue
		}
		l.last[id] = tick
		l.checks[id][tick] = sn.State().Check()
		l.expired[id] = sn.AckedEncoder().Stats().EventsExpired
		first, evs, err := wire.AckedFrameEvents(f)
		if err != nil {
			l.errs = append(l.errs, fmt.Sprintf("session %d tick %d: %v", id, tick, err))
			continue
		}
		for i, ev := range evs {
			serial := first + uint32(i)
			if old, ok := l.events[id][serial]; ok && old != ev {
				l.errs = append(l.errs, fmt.Sprintf("session %d: serial %d given to %+v and %+v", id, serial, old, ev))
			}
			l.events[id][serial] = ev
		}
	}
}

// armPlayers gives every player's character the pistol in hand and rounds
// enough, so that the clients' trigger fires rounds: shots, and the hits
// they make, are the events. Room goroutine only (a stack hook).
func armPlayers(g *server.GameServer) {
	w := g.World()
	pistol, _ := w.Items.ByName("pistol")
	ammo, _ := w.Items.ByName("pistol-ammo")
	f := generic.NewFilter3[components.PersonAction, components.Player, components.Inventory]()
	q := f.Query(w.Arche)
	for q.Next() {
		act, _, inv := q.Get()
		act.Weapon = weapons.Pistol
		if inv.Count(pistol) == 0 {
			w.Items.Add(inv, pistol, 1, false)
			w.Items.Add(inv, ammo, 9999, false)
		}
	}
}

// shownFrame is a frame a client showed: its tick and the check of what
// the client held once it was applied.
type shownFrame struct{ tick, check uint32 }

// shownEvent is an event a client showed, with its serial.
type shownEvent struct {
	serial uint32
	ev     wire.Event
}

// shooter is a Go client over WebRTC that gets out of its car and walks
// away from the others firing its pistol, and records every frame and
// event it shows.
type shooter struct {
	conn    *webrtc.ClientConn
	c       *client.Client
	away    float32 // the heading it walks and fires along
	t       int
	ent     wire.Entity
	frames  []shownFrame
	events  []shownEvent
	refused []error
	notAck  int // frames shown by the ordered decoder (none over WebRTC)
	err     error
}

type readFrame struct {
	data []byte
	text bool
}

// play runs s for d: a 60 Hz client tick paced by the client (as a bot's),
// the frames received handed to the client between ticks.
func (s *shooter) play(ctx context.Context, d time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	frames := make(chan readFrame, webrtc.ReadQueue)
	readErr := make(chan error, 1)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		for {
			data, text, err := s.conn.Read(ctx)
			if err != nil {
				readErr <- err
				return
			}
			select {
			case frames <- readFrame{data, text}:
			case <-ctx.Done():
				return
			}
		}
	}()
	defer func() { <-readDone }()
	defer s.conn.Close()
	s.c = client.New(client.Config{Lossy: true, Send: func(b []byte, text bool) error {
		sctx, scancel := context.WithTimeout(ctx, time.Second)
		defer scancel()
		return s.conn.Send(sctx, b, text)
	}})
	const nominal = time.Second / 60
	timer := time.NewTimer(nominal)
	defer timer.Stop()
	next := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case err := <-readErr:
			if ctx.Err() == nil {
				s.err = err
			}
			return
		case <-timer.C:
		}
		next = next.Add(s.c.TickPeriod(nominal))
		if now := time.Now(); next.Before(now.Add(-time.Second / 2)) {
			next = now // far behind: skip the rest, as a bot does
		}
		timer.Reset(time.Until(next)) // behind: at once, one tick at a time
		for n := len(frames); n > 0; n-- {
			s.handle(<-frames)
		}
		w, ok := s.c.Welcome()
		if !ok {
			continue
		}
		if s.t == 0 {
			_, st, err := bot.StaticOf(w.Level)
			if err != nil {
				s.err = err
				return
			}
			s.c.SetStatic(st)
		}
		if err := s.c.Tick(s.controls(w.Character)); err != nil && ctx.Err() == nil {
			s.err = err
			return
		}
	}
}

// handle gives the client one frame and records what it showed.
func (s *shooter) handle(f readFrame) {
	if f.text {
		s.c.HandleFrame(f.data, true)
		return
	}
	before := s.c.Stats().Snapshots
	if err := s.c.HandleFrame(f.data, false); err != nil {
		s.refused = append(s.refused, err)
		return
	}
	if s.c.Stats().Snapshots == before {
		return // dropped: stale, or onto a base it does not hold
	}
	ad, ok := s.c.Decoder().(*wire.AckedDecoder)
	if !ok {
		s.notAck++
		return
	}
	s.frames = append(s.frames, shownFrame{ad.Tick(), ad.Store().Check()})
	evs := s.c.TakeEvents() // this frame's: taken after every frame
	last := ad.Serial()
	for i, ev := range evs {
		s.events = append(s.events, shownEvent{last - uint32(len(evs)-1-i), ev})
	}
}

// controls gets out of the car (Use, again if the first press did not
// take), then walks away along s.away with the trigger held, sweeping its
// aim a little.
func (s *shooter) controls(char uint16) components.Drive {
	s.t++
	h := s.c.Decoder().Store().Get(char)
	if h == nil {
		return components.Drive{}
	}
	h.Rec.Decode(&s.ent, h.PoseFull)
	switch s.ent.Act {
	case wire.ActDriving:
		if s.t%90 == 1 { // a snapshot's round trip between two presses
			return components.Drive{Pressed: components.BtnUse}
		}
	case wire.ActOnFoot:
		return components.Drive{MoveY: 0.4, LookYaw: s.away + 0.3*math32.Sin(float32(s.t)/20), Held: components.BtnFire}
	}
	return components.Drive{}
}

// TestAckedInvariantsOverLossyWebRTC is the acked snapshots' end-to-end
// test: 8 Go clients over real pion data channels, with 10% of the lossy
// channel's frames lost each way, get out of their cars and fire their
// pistols (the room arms them) for 5 s (2 s with -short). It asserts the
// acked invariants on every frame, not only on those that carry a check:
//
//   - every frame a client shows equals the ordered state at its tick: the
//     FNV-1a check of what the client's AckedDecoder holds after the frame
//     equals the check of S(N), what the server's encoder computed an
//     ordered client holds at that tick (recorded in the room's goroutine
//     after every tick);
//   - every event once: each client shows the events in serial order, none
//     twice, each equal to the event the server's frames carried under that
//     serial, and every serial up to its last shown is shown unless the
//     server let it expire (wire.EventTTL frames unacknowledged);
//   - no frame is refused, no keyframe asked for, and each client gets 1 to
//     3 keyframes (the join's round trip) and most of its snapshots.
func TestAckedInvariantsOverLossyWebRTC(t *testing.T) {
	defer goleak.VerifyNone(t)
	d := 5 * time.Second
	if testing.Short() {
		d = 2 * time.Second
	}
	log := newSentLog()
	st := newStack(t, armPlayers, log.record)
	ss := make([]*shooter, 8)
	var wg sync.WaitGroup
	// Each plays from its dial until d after the last dial: the dials take
	// a while (seconds under -race), and a player that stopped before the
	// last came in would see few shots.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := range ss {
		c := dial(t, st.url+"/rooms/default", webrtc.DialOptions{Loss: 0.1, Seed: uint64(100 + i)})
		ss[i] = &shooter{conn: c, away: float32(i) * 2 * math32.Pi / float32(len(ss))}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ss[i].play(ctx, time.Minute)
		}()
	}
	time.AfterFunc(d, cancel)
	wg.Wait()
	st.close() // no tick after this: the log is complete
	log.mu.Lock()
	defer log.mu.Unlock()
	for _, e := range log.errs {
		t.Error(e)
	}
	want := uint64(d.Seconds()*20) * 8 / 10 * 9 / 10 // 20 a second, less joining, less the loss
	var lost, shown, compared, events, expired, missing int
	for i, s := range ss {
		lost += int(s.conn.LostIn.Load())
		w, _ := s.c.Welcome()
		id := w.Session
		stats := s.c.Stats()
		// The counts are rates, not checked under the race detector (see
		// raceDetector).
		counts := stats.Snapshots < want || stats.Keyframes < 1 || stats.Keyframes > 3
		if s.err != nil || len(s.refused) != 0 || s.notAck != 0 || counts && !raceDetector {
			t.Errorf("client %d (session %d): err %v, refused %v, %d frames not acked, %d snapshots (want %d), %d keyframes (want 1 to 3)",
				i, id, s.err, s.refused, s.notAck, stats.Snapshots, want, stats.Keyframes)
		}
		// Every frame shown: the ordered state at its tick.
		for _, f := range s.frames {
			shown++
			check, ok := log.checks[id][f.tick]
			if !ok {
				t.Errorf("client %d shows tick %d, which the server never encoded for session %d", i, f.tick, id)
				continue
			}
			if f.check != check {
				t.Errorf("client %d shows tick %d with check %08x; S(N) at that tick is %08x", i, f.tick, f.check, check)
			}
			compared++
		}
		// Every event once, in serial order; a serial skipped must have
		// expired.
		var prev uint32
		skipped := 0
		for _, e := range s.events {
			if e.serial <= prev {
				t.Errorf("client %d shows serial %d after %d", i, e.serial, prev)
				continue
			}
			skipped += int(e.serial - prev - 1)
			prev = e.serial
			if sent, ok := log.events[id][e.serial]; !ok || sent != e.ev {
				t.Errorf("client %d shows serial %d as %+v; the server sent %+v (%v)", i, e.serial, e.ev, sent, ok)
			}
		}
		if uint64(skipped) > log.expired[id] {
			t.Errorf("client %d never showed %d events of serials up to %d; the server let %d expire", i, skipped, prev, log.expired[id])
		}
		if len(s.events) < 10 && !raceDetector {
			t.Errorf("client %d showed %d events, want some shots (each of 8 players fires 4 a second)", i, len(s.events))
		}
		events += len(s.events)
		expired += int(log.expired[id])
		missing += skipped
	}
	gs := st.Stats()
	t.Logf("%d frames shown, %d compared with S(N) at their tick (every one); %d snapshots lost on the way; %d events shown once each, %d never shown, %d expired; server: %d input ticks guessed, %d of them late",
		shown, compared, lost, events, missing, expired, gs.Guesses, gs.Late)
	if lost == 0 {
		t.Error("the simulated loss lost no snapshot")
	}
	if compared != shown || shown == 0 {
		t.Errorf("%d of %d frames compared", compared, shown)
	}
	if n := st.resyncs.Load(); n != 0 {
		t.Errorf("the clients asked for %d keyframes", n)
	}
}

// TestBigFramesTakeReliableChannel: a snapshot over wire.ReliableAbove
// goes on the reliable channel, every other on the lossy one. A first
// client parks 32 cars near the spawn (spawn-car, a test-* room's debug
// command); a second client joining then gets a keyframe of all of them,
// over 1,100 bytes: it comes on the reliable channel, the deltas after it
// (the client acknowledges the frames it applies) on the lossy one, and no
// frame on the lossy channel is over the limit.
func TestBigFramesTakeReliableChannel(t *testing.T) {
	defer goleak.VerifyNone(t)
	st := newStack(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	a := dial(t, st.url+"/rooms/default", webrtc.DialOptions{})
	defer a.Close()
	const cars = 32 // about 40 B each in a keyframe
	for i := 0; i < cars; i++ {
		if i >= server.TextBurst { // past the burst, within the command rate
			time.Sleep(time.Second/server.TextPerSecond + 10*time.Millisecond)
		}
		x, y := float32(-30+10*(i%7)), float32(40+10*(i/7))
		b, _ := json.Marshal(textframe.Command{Type: "debug", ID: uint32(i + 1), Cmd: "spawn-car", X: &x, Y: &y})
		if err := a.Send(ctx, b, true); err != nil {
			t.Fatal(err)
		}
	}
	for ok := 0; ok < cars; {
		frame, text, err := a.Read(ctx)
		if err != nil {
			t.Fatalf("waiting for the spawn-car replies (%d ok): %v", ok, err)
		}
		if !text || textframe.Type(frame) != "reply" {
			continue
		}
		var r textframe.ReplyFrame
		if err := json.Unmarshal(frame, &r); err != nil || !r.OK {
			t.Fatalf("spawn-car: %s (%v)", frame, err)
		}
		ok++
	}
	b := dial(t, st.url+"/rooms/default", webrtc.DialOptions{})
	defer b.Close()
	// The joining client acknowledges what it applies (an input frame
	// after each snapshot), so that the frames after the keyframe are
	// small deltas.
	c := client.New(client.Config{Lossy: true, Send: func(f []byte, text bool) error { return b.Send(ctx, f, text) }})
	biggest, snaps := 0, 0
	for snaps < 20 {
		frame, text, err := b.Read(ctx)
		if err != nil {
			t.Fatalf("after %d snapshots: %v", snaps, err)
		}
		if err := c.HandleFrame(frame, text); err != nil {
			t.Fatalf("the joining client refused a frame: %v", err)
		}
		if text {
			continue
		}
		snaps++
		biggest = max(biggest, len(frame))
		if err := c.Tick(components.Drive{}); err != nil {
			t.Fatal(err)
		}
	}
	a.Close()
	b.Close()
	t.Logf("the joining client's biggest snapshot %d B; %d snapshots came on the reliable channel (largest %d B), %d on the lossy one (largest %d B)",
		biggest, b.SnapshotsReliable.Load(), b.LargestReliable.Load(), b.SnapshotsLossy.Load(), b.LargestLossy.Load())
	if biggest <= wire.ReliableAbove {
		t.Fatalf("no snapshot over %d B (biggest %d): the test made no big frame", wire.ReliableAbove, biggest)
	}
	if b.SnapshotsReliable.Load() == 0 || b.LargestReliable.Load() < uint64(biggest) {
		t.Errorf("the %d B snapshot did not come on the reliable channel (%d there, largest %d B)",
			biggest, b.SnapshotsReliable.Load(), b.LargestReliable.Load())
	}
	for name, c := range map[string]*webrtc.ClientConn{"parking": a, "joining": b} {
		if n := c.LargestLossy.Load(); n > wire.ReliableAbove {
			t.Errorf("%s client: a %d B snapshot came on the lossy channel", name, n)
		}
		if c.SnapshotsLossy.Load() == 0 {
			t.Errorf("%s client: no snapshot came on the lossy channel", name)
		}
	}
	st.close()
}

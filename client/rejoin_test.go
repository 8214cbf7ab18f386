package client

import (
	"errors"
	"testing"
	"time"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/netsync/wire"
	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/server/servertest"
	"github.com/fiveonit/engine/systems/motion"
)

// rejoinRig is a room that holds dropped players' places and one client
// wired to it in the same goroutine, through one connection at a time.
type rejoinRig struct {
	t     *testing.T
	g     *server.GameServer
	c     *Client
	s     *server.Session
	conn  *servertest.MemConn
	gone  bool              // the connection dropped: what the client sends goes nowhere
	first []wire.InputFrame // the input frames sent on the current connection
}

var errGone = errors.New("the connection dropped")

func newRejoinRig(t *testing.T, lossy bool) *rejoinRig {
	t.Helper()
	l, err := levels.Load("test-flat")
	if err != nil {
		t.Fatal(err)
	}
	st, err := motion.BakeLevel(l)
	if err != nil {
		t.Fatal(err)
	}
	g, err := server.New(server.Config{Room: "t", Level: l, Static: st, Seed: 1, Rules: ecs.FreeRoam(), RejoinWindow: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close("test over") })
	r := &rejoinRig{t: t, g: g}
	r.c = New(Config{Lossy: lossy, Static: st, Send: func(b []byte, text bool) error {
		if r.gone {
			return errGone
		}
		if !text && len(r.first) < 4 {
			var f wire.InputFrame
			if err := wire.DecodeInputFrame(b, &f); err != nil {
				t.Fatal(err)
			}
			r.first = append(r.first, f)
		}
		return r.s.Receive(b, text)
	}})
	r.join(server.Who{Name: "Ada"})
	return r
}

// join connects the client as who.
func (r *rejoinRig) join(who server.Who) {
	r.t.Helper()
	r.conn = servertest.NewMemConn(r.c.cfg.Lossy, 0)
	s, err := r.g.Join(r.conn, who)
	if err != nil {
		r.t.Fatal(err)
	}
	r.s, r.gone, r.first = s, false, nil
}

// step runs n server ticks, the client ticking before each with d once it
// has its welcome, and handed the frames after.
func (r *rejoinRig) step(n int, d components.Drive) {
	r.t.Helper()
	for range n {
		if _, ok := r.c.Welcome(); ok {
			if err := r.c.Tick(d); err != nil && !r.gone {
				r.t.Fatal(err)
			}
		}
		r.g.Tick()
		if r.gone {
			continue
		}
		for _, f := range r.conn.Recv() {
			if err := r.c.HandleFrame(f.Data, f.Text); err != nil {
				r.t.Fatalf("tick %d: %v", r.g.World().Tick(), err)
			}
		}
	}
}

// carAt returns where the client holds the own car, from the server's
// frames.
func (r *rejoinRig) carAt(car uint16) wire.Vec3 {
	r.t.Helper()
	h := r.c.Decoder().Store().Get(car)
	if h == nil {
		r.t.Fatalf("the client does not hold car %d", car)
	}
	var e wire.Entity
	h.Rec.Decode(&e, h.PoseFull)
	return e.Pos
}

// TestReconnectFollowsTheNewKeyframe: a client whose connection drops
// while it drives, and that takes its place back on a new connection with
// its reconnect token (Reconnect, then the new connection's frames),
// starts over as on a first join: its first input frame is tick 1 and
// acknowledges no snapshot, the new welcome gives the same character and a
// new token, the keyframe applies, and it drives on predicting its car
// with no frame refused and no correction of 1 cm or more, over the
// ordered snapshots and the acked ones alike.
func TestReconnectFollowsTheNewKeyframe(t *testing.T) {
	for _, lossy := range []bool{false, true} {
		name := "ordered"
		if lossy {
			name = "acked"
		}
		t.Run(name, func(t *testing.T) {
			r := newRejoinRig(t, lossy)
			c := r.c
			throttle := components.Drive{Throttle: 1}
			r.step(3, components.Drive{})
			w1, ok := c.Welcome()
			if !ok || w1.Rejoin == "" || w1.Car == 0 {
				t.Fatalf("welcome %+v", w1)
			}
			if tok, ok := c.Rejoin(); !ok || tok != w1.Rejoin {
				t.Fatalf("Rejoin() = %q, %v; want the welcome's %q", tok, ok, w1.Rejoin)
			}
			r.step(120, throttle)
			if _, _, _, ok := c.Predicted(); !ok {
				t.Fatal("no prediction before the drop")
			}
			before := c.Stats()

			// The connection drops: the room holds the place; the client
			// goes on ticking into nothing for half a second.
			r.s.Leave()
			r.gone = true
			r.step(30, throttle)

			c.Reconnect()
			if _, ok := c.Welcome(); ok {
				t.Fatal("Welcome reports the old connection's welcome after Reconnect")
			}
			if tok, ok := c.Rejoin(); !ok || tok != w1.Rejoin {
				t.Fatalf("after Reconnect, Rejoin() = %q, %v; want the old token for another try", tok, ok)
			}
			if wid, _, _ := c.Controlled(); wid != 0 || c.Seq() != 1 || c.Decoder().Synced() || c.Decoder().Tick() != 0 {
				t.Fatalf("after Reconnect: controls %d, seq %d, synced %v at tick %d", wid, c.Seq(), c.Decoder().Synced(), c.Decoder().Tick())
			}
			if _, _, _, ok := c.Predicted(); ok {
				t.Fatal("a prediction survives Reconnect")
			}
			if made, _ := c.PressesUpTo(0); made != before.Presses {
				t.Fatalf("presses up to tick 0 of the new connection %d, want the %d made before", made, before.Presses)
			}

			r.join(server.Who{Rejoin: w1.Rejoin})
			r.step(2, throttle)
			w2, ok := c.Welcome()
			if !ok || w2.Character != w1.Character || w2.Car != w1.Car || w2.Session != w1.Session {
				t.Fatalf("back as %+v, want character %d, car %d, session %d", w2, w1.Character, w1.Car, w1.Session)
			}
			if tok, _ := c.Rejoin(); tok == w1.Rejoin || tok != w2.Rejoin {
				t.Fatalf("Rejoin() %q after the new welcome, want its new token %q", tok, w2.Rejoin)
			}
			at := r.carAt(w1.Car)
			r.step(120, throttle)
			after := c.Stats()

			if len(r.first) == 0 {
				t.Fatal("no input frame on the new connection")
			}
			if f := r.first[0]; f.FirstSeq != 1 || f.Ack != 0 || f.Flags&wire.InputResync != 0 {
				t.Fatalf("the new connection's first input frame: from tick %d, ack %d, flags %b; want tick 1, no ack, no resync", f.FirstSeq, f.Ack, f.Flags)
			}
			if after.Resyncs != 0 || after.Dropped != 0 {
				t.Fatalf("%d frames refused, %d dropped", after.Resyncs, after.Dropped)
			}
			keys := after.Keyframes - before.Keyframes
			if keys < 1 || keys > 3 || after.JoinKeyframes-before.JoinKeyframes != keys {
				t.Fatalf("%d keyframes after the rejoin (%d counted as the join's), want 1 to 3, all the join's", keys, after.JoinKeyframes-before.JoinKeyframes)
			}
			if after.Reconciles < before.Reconciles+100/wire.SnapshotEvery {
				t.Fatalf("%d reconciliations after the rejoin: the client hardly predicted", after.Reconciles-before.Reconciles)
			}
			if after.BigCorrections != before.BigCorrections {
				t.Fatalf("%d corrections of 1 cm or more after the rejoin (largest %.3f m)", after.BigCorrections-before.BigCorrections, after.MaxCorrection)
			}
			if wid, car, _ := c.Controlled(); wid != w1.Car || !car {
				t.Fatalf("controls %d (a car: %v), want the car %d", wid, car, w1.Car)
			}
			now := r.carAt(w1.Car)
			if dx, dy := now.X-at.X, now.Y-at.Y; dx*dx+dy*dy < 4 {
				t.Fatalf("the car moved %v m in 2 s after the rejoin", [2]float32{dx, dy})
			}
			if _, pose, _, ok := c.Predicted(); !ok || pose.Pos.X == 0 && pose.Pos.Y == 0 {
				t.Fatal("no prediction after the rejoin")
			}
			t.Logf("%s: %d keyframes at the rejoin, %d reconciliations after, largest correction %.4f m", name, keys, after.Reconciles-before.Reconciles, after.MaxCorrection)
		})
	}
}

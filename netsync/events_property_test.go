package netsync

import (
	"math/rand/v2"
	"testing"

	"github.com/fiveonit/engine/client"
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/netsync/wire"
)

// TestPropertyEventsShownOnce: every event the server made for a client
// is shown by the Go client exactly once, whatever its send queue and its
// link do: frames the queue refuses (their events go in the next frame
// sent), frames lost on the way and acknowledgements lost (the acked
// snapshots), frames a client refuses while it waits for a keyframe, and
// ticks of more events than a frame holds (255). Ordered and acked.
func TestPropertyEventsShownOnce(t *testing.T) {
	for _, acked := range []bool{false, true} {
		made, shown, frames := eventsRun(t, acked, 3)
		if len(made) < 3000 {
			t.Fatalf("acked %v: %d events made: too few to tell", acked, len(made))
		}
		for id, n := range shown {
			if !made[id] {
				t.Fatalf("acked %v: event %d shown but never made for the client", acked, id)
			}
			if n != 1 {
				t.Fatalf("acked %v: event %d shown %d times", acked, id, n)
			}
		}
		if len(shown) != len(made) {
			t.Fatalf("acked %v: %d events made, %d shown", acked, len(made), len(shown))
		}
		t.Logf("acked %v: %d events made and shown once, over %d frames", acked, len(made), frames)
	}
}

// eventsRun runs a world of events for one client and returns the ids of
// the events made for it, how often each id was shown, and the frames
// sent.
func eventsRun(t *testing.T, acked bool, seed uint64) (map[uint32]bool, map[uint32]int, int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 5))
	a := NewArena()
	snap := NewSnapshotter(a, acked)
	var ack uint32
	var resync bool
	c := client.New(client.Config{Lossy: acked, Send: func(b []byte, text bool) error {
		var f wire.InputFrame
		if err := wire.DecodeInputFrame(b, &f); err != nil {
			t.Fatal(err)
		}
		ack, resync = f.Ack, f.Flags&wire.InputResync != 0
		return nil
	}})
	me := wire.Entity{Kind: wire.KindCharacter, Player: 1, Rot: wire.Quat{W: 1}, HP: 100, MaxHP: 100}
	view := View{Own: [3]uint16{1}}
	made, shown := map[uint32]bool{}, map[uint32]int{}
	id := uint32(0)
	const ticks = 3000
	frames, refused := 0, 0
	for tick := uint32(1); tick <= ticks+300; tick++ {
		a.Begin(tick)
		a.Put(1, &me, true)
		n := 0
		switch {
		case tick > ticks: // the last 5 s: no events, no loss, all shown
		case rng.IntN(200) == 0:
			n = 300 + rng.IntN(400) // a tick of more than a frame holds
		default:
			n = rng.IntN(4)
		}
		for range n {
			id++
			near := rng.IntN(4) != 0
			pos := wire.Vec3{X: 20 + rng.Float32()*100, Y: rng.Float32() * 50}
			if !near {
				pos.X += 2000
			}
			a.AddEvent(wire.Event{Kind: wire.EventHit, Source: uint16(id), Target: uint16(id >> 16), Amount: 1, Pos: pos})
			if near {
				made[id] = true
			}
		}
		a.End()
		lossy := tick <= ticks
		if tick%wire.SnapshotEvery == 0 {
			frame := snap.Encode(&view)
			switch {
			case lossy && rng.Float64() < 0.15: // the send queue was full
				snap.Unsent()
				if !acked {
					snap.RequestKeyframe()
				}
			case lossy && acked && rng.Float64() < 0.1: // lost on the way
				frames++
			default:
				frames++
				if lossy && frame[14]&wire.HeaderCheck != 0 && rng.IntN(3) == 0 {
					// A check that fails: the client refuses the frames
					// after it until a keyframe comes.
					frame[wire.HeaderBytes] ^= 1
					refused++
				}
				c.HandleFrame(frame, false)
				for _, ev := range c.TakeEvents() {
					shown[uint32(ev.Source)|uint32(ev.Target)<<16]++
				}
			}
		}
		if err := c.Tick(components.Drive{}); err != nil {
			t.Fatal(err)
		}
		if !lossy || rng.Float64() >= 0.1 { // an input frame lost: its ack with it
			snap.Ack(ack)
			if resync && rng.IntN(10) == 0 { // the server honours it in its own time
				snap.RequestKeyframe()
			}
		}
	}
	if refused == 0 || c.Stats().Resyncs == 0 {
		t.Fatalf("acked %v: no frame refused", acked)
	}
	return made, shown, frames
}

package server

import (
	"testing"
	"time"

	"github.com/fiveonit/engine/client"
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/netsync/wire"
)

// TestClientCatchesUpAfterStall: a client that stops ticking for a second
// while the server goes on (a frozen tab, a lag spike) comes back with its
// clock a second behind: every input it sends is for a tick the server ran
// already on a guess. The client skips ticks: from the first snapshot after
// the stall, it numbers its ticks past the server's, and within a few ticks
// its inputs steer again (none late, none guessed) and its round trips are
// measured again. Over both transports.
func TestClientCatchesUpAfterStall(t *testing.T) {
	for _, lossy := range []bool{false, true} {
		g := newServer(t)
		p := newInproc(t, g, lossy)
		clock := time.Unix(0, 0)
		// [skipped, resumed) are the ticks the client skipped: no input
		// frame may carry one (it made no input for them, and their ticks
		// are spent). The inputs it made before may go again, for their
		// copies.
		var skipped, resumed uint32
		var f wire.InputFrame
		p.c = client.New(client.Config{Lossy: lossy, Static: g.static, Now: func() time.Time { return clock }, Send: func(b []byte, text bool) error {
			if !text {
				if err := wire.DecodeInputFrame(b, &f); err != nil {
					t.Fatal(err)
				}
				if last := f.FirstSeq + uint32(f.Count) - 1; f.Count > 0 && last >= skipped && f.FirstSeq < resumed {
					t.Errorf("lossy %v: an input frame carries ticks %d to %d, skipped (from %d to %d)", lossy, f.FirstSeq, last, skipped, resumed-1)
				}
			}
			return p.s.Receive(b, text)
		}})
		run := func(ticks int, stalled bool) {
			for range ticks {
				if !stalled {
					if err := p.c.Tick(components.Drive{Throttle: 1}); err != nil {
						t.Fatal(err)
					}
				}
				g.Tick()
				clock = clock.Add(time.Second / 60)
				if !stalled {
					seq := p.c.Seq()
					p.deliver(t)
					if p.c.Seq() != seq {
						skipped, resumed = seq, p.c.Seq()
					}
				}
			}
		}
		run(120, false)
		run(60, true)
		run(30, false) // the first snapshot after the stall, and a few ticks
		p.c.ClearRTT()
		before := g.Stats()
		run(120, false)
		after := g.Stats()
		if late, guessed := after.Late-before.Late, after.Guesses-before.Guesses; late != 0 || guessed != 0 {
			t.Errorf("lossy %v: over the last 120 ticks %d inputs came late and %d ticks ran on a guess, want none", lossy, late, guessed)
		}
		if n := len(p.c.Stats().RTT); n == 0 {
			t.Errorf("lossy %v: no round trip measured after the stall", lossy)
		}
		if p.c.Stats().Skipped == 0 {
			t.Errorf("lossy %v: the client skipped no tick", lossy)
		}
		g.Close("test over")
	}
}

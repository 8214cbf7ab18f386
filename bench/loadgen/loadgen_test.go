package loadgen

import (
	"slices"
	"testing"
	"time"

	"github.com/chewxy/math32"
	"github.com/mlange-42/arche/generic"

	"github.com/fiveonit/engine/client"
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/transport/link"
)

// TestBotsDriveWalkAndGetBackIn: a bot plays a day as the bot package says:
// it drives off along the roads, stops, gets out, walks away and back, and
// gets in again; its client applies every snapshot (no refused frame, no
// resync) and never needs a correction over 1 cm.
func TestBotsDriveWalkAndGetBackIn(t *testing.T) {
	if testing.Short() {
		t.Skip("a minute of ticks on main-city")
	}
	l, err := levels.Load("main-city")
	if err != nil {
		t.Fatal(err)
	}
	g, err := server.New(server.Config{Room: "bots", Level: l, Seed: 7, Rules: ecs.Rules{}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := New(g, 3, 11)
	if err != nil {
		t.Fatal(err)
	}
	w := g.World()
	acts := generic.NewMap1[components.PersonAction](w.Arche)
	poses := generic.NewMap1[components.Pose](w.Arche)
	type day struct {
		driven            float32 // metres its car went while it drove
		walked            bool    // it was on foot, out of its car
		backIn            bool    // and then drove again
		last              components.Vec3
		lastAct           components.Action
		started           bool
		onFootAfterDriven bool
	}
	days := make([]day, len(f.Bots))
	for tick := 0; tick < 60*ecs.TickRate; tick++ {
		if err := f.Step(); err != nil {
			t.Fatal(err)
		}
		for i, b := range f.Bots {
			wel, ok := b.Client.Welcome()
			if !ok {
				continue
			}
			char, ok := w.ByWireID(wel.Character)
			if !ok {
				t.Fatalf("bot %d: its character %d is gone", i, wel.Character)
			}
			d := &days[i]
			act := acts.Get(char).Act
			pos := poses.Get(char).Pos
			if act == components.ActDriving {
				if car, ok := w.ByWireID(wel.Car); ok {
					pos = poses.Get(car).Pos
				}
			}
			if d.started && act == components.ActDriving && d.lastAct == components.ActDriving {
				d.driven += math32.Hypot(pos.X-d.last.X, pos.Y-d.last.Y)
			}
			if act == components.ActOnFoot && d.driven > 50 {
				d.walked = true
			}
			if d.walked && act == components.ActDriving {
				d.backIn = true
			}
			d.last, d.lastAct, d.started = pos, act, true
		}
	}
	for i, b := range f.Bots {
		d := days[i]
		st0 := b.Client.Stats()
		t.Logf("bot %d: drove %.0f m, walked %v, back in %v; %d snapshots, %d reconciles, %d corrections", i, d.driven, d.walked, d.backIn, st0.Snapshots, st0.Reconciles, st0.Corrections)
		if d.driven < 150 {
			t.Errorf("bot %d drove %.0f m in a minute, want at least 150 (it cruises at %d m/s for 20 to 35 s)", i, d.driven, 11)
		}
		if !d.walked || !d.backIn {
			t.Errorf("bot %d: walked %v, back in its car %v: want both in a minute", i, d.walked, d.backIn)
		}
		if b.Err != nil {
			t.Errorf("bot %d: %v", i, b.Err)
		}
		st := b.Client.Stats()
		if st.Resyncs != 0 || st.Snapshots < 60*ecs.TickRate/3-2 {
			t.Errorf("bot %d: %d resyncs, %d snapshots in a minute", i, st.Resyncs, st.Snapshots)
		}
		// In lockstep with no loss the client predicts its own body
		// exactly, unless it pushes something: a bot that walked into its
		// car pushed it along and was corrected every snapshot.
		if st.BigCorrections != 0 {
			t.Errorf("bot %d: %d corrections over 1 cm (largest %.3f m)", i, st.BigCorrections, st.MaxCorrection)
		}
	}
}

// TestPacedOverLink: paced on the simulated clock over a link of 50 ms each
// way, the bots apply every snapshot, measure round trips of about 100 ms,
// and a bot frozen for a second leaves the server a second of its ticks to
// guess; the same seed gives the same run.
func TestPacedOverLink(t *testing.T) {
	run := func() (client.Stats, server.InputStats, client.Stats) {
		l, _ := levels.Load("test-flat")
		g, err := server.New(server.Config{Room: "paced", Level: l, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close("test over")
		ln := link.Config{Delay: 50 * time.Millisecond, Jitter: 5 * time.Millisecond}
		f, err := NewWith(g, 2, 1, Options{Up: ln, Down: ln})
		if err != nil {
			t.Fatal(err)
		}
		f.Bots[1].Freeze(3*time.Second, 4*time.Second)
		if err := f.Advance(6 * time.Second); err != nil {
			t.Fatal(err)
		}
		if f.Now != 6*time.Second {
			t.Fatalf("the clock at %v after 6 s", f.Now)
		}
		return f.Bots[0].Client.Stats(), f.Bots[1].Session.InputStats(), f.Bots[1].Client.Stats()
	}
	a, frozenQ, frozen := run()
	t.Logf("bot 0: %d snapshots, %d round trips; frozen bot: %+v, skipped %d", a.Snapshots, len(a.RTT), frozenQ, frozen.Skipped)
	if a.Resyncs != 0 || a.Snapshots < 6*20-10 || len(a.RTT) == 0 {
		t.Fatalf("bot 0: %d resyncs, %d snapshots, %d round trips", a.Resyncs, a.Snapshots, len(a.RTT))
	}
	slices.Sort(a.RTT)
	if med := a.RTT[len(a.RTT)/2]; med < 100*time.Millisecond || med > 200*time.Millisecond {
		t.Fatalf("median round trip %v over 50 ms each way", med)
	}
	if frozenQ.Guessed < 55 {
		t.Fatalf("the frozen bot's ticks guessed: %d, want a second's", frozenQ.Guessed)
	}
	b, _, frozen2 := run()
	if b.Snapshots != a.Snapshots || b.BytesIn != a.BytesIn || frozen2.Skipped != frozen.Skipped {
		t.Fatalf("two runs of one seed differ: %d/%d snapshots, %d/%d bytes", a.Snapshots, b.Snapshots, a.BytesIn, b.BytesIn)
	}
}

package loadgen

import (
	"testing"

	"github.com/chewxy/math32"
	"github.com/mlange-42/arche/generic"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/server"
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
		t.Logf("bot %d: drove %.0f m, walked %v, back in %v; %+v", i, d.driven, d.walked, d.backIn, b.Client.Stats())
		if d.driven < 150 {
			t.Errorf("bot %d drove %.0f m in a minute, want at least 150 (it cruises at %d m/s for 20 to 35 s)", i, d.driven, 11)
		}
		if !d.walked || !d.backIn {
			t.Errorf("bot %d: walked %v, back in its car %v: want both in a minute", i, d.walked, d.backIn)
		}
		if b.err != nil {
			t.Errorf("bot %d: %v", i, b.err)
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

package loadgen

import (
	"runtime"
	"testing"
	"time"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/internal/race"
	"github.com/fiveonit/engine/netsync/wire"
)

// TestPredictionPushesNearCar: over 50 ms each way, a bot drives into
// another's parked car and pushes it along for seconds. Its client steps
// the parked car with its own (a near body), so its prediction holds: no
// correction of 1 cm or more. A client that stepped its car against the
// buildings alone was corrected a dozen times, by up to 8 cm.
func TestPredictionPushesNearCar(t *testing.T) {
	f := newFarm(t, "test-flat", ecs.Rules{}, 2, each(50*time.Millisecond, 5*time.Millisecond, 0))
	a, b := f.Bots[0], f.Bots[1]
	b.Controls = func(uint32) components.Drive { return components.Drive{} }
	var e wire.Entity
	var start wire.Vec3
	a.Controls = func(uint32) components.Drive {
		wb, ok := b.Client.Welcome()
		_, pose, _, ok2 := a.Client.Predicted()
		h := a.Client.Decoder().Store().Get(wb.Car)
		if !ok || !ok2 || h == nil {
			return components.Drive{}
		}
		h.Rec.Decode(&e, h.PoseFull)
		if start == (wire.Vec3{}) {
			start = e.Pos
		}
		turn := math32.Atan2(e.Pos.Y-pose.Pos.Y, e.Pos.X-pose.Pos.X) - pose.Rot.Yaw()
		turn = math32.Remainder(turn, 2*math32.Pi)
		return components.Drive{Throttle: 0.7, Steer: max(-1, min(1, turn*2))}
	}
	if err := f.Advance(15 * time.Second); err != nil {
		t.Fatal(err)
	}
	if moved := math32.Hypot(e.Pos.X-start.X, e.Pos.Y-start.Y); moved < 2 {
		t.Fatalf("the parked car moved %.2f m: no push to predict", moved)
	}
	st := a.Client.Stats()
	t.Logf("%d reconciles, %d corrections of 1 cm or more, the largest %.4f m", st.Reconciles, st.BigCorrections, st.MaxCorrection)
	if st.BigCorrections != 0 || st.Reconciles < 250 {
		t.Fatalf("%d corrections of 1 cm or more in %d reconciles (largest %.3f m)", st.BigCorrections, st.Reconciles, st.MaxCorrection)
	}
}

// TestClientTickAllocatesNothing: once warm, the clients' side of a tick
// (the snapshots that came, reconciled with the near bodies, a tick
// predicted, drawn and sent) allocates nothing: 4 bots on main-city in
// free roam over 50 ms each way. The text frames (a few a second, JSON)
// are read outside the count.
func TestClientTickAllocatesNothing(t *testing.T) {
	race.Solo(t)
	f := newFarm(t, "main-city", ecs.FreeRoam(), 4, each(50*time.Millisecond, 5*time.Millisecond, 0))
	for range 20 * ecs.TickRate {
		if err := f.Step(); err != nil {
			t.Fatal(err)
		}
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var ms runtime.MemStats
	var total uint64
	const n = 5 * ecs.TickRate
	for range n {
		for _, b := range f.Bots {
			b.Client.ClearRTT()
			b.due = b.down.Pop(f.Now, b.due[:0])
			for _, fr := range b.due {
				if fr.Text {
					b.Client.HandleFrame(fr.Data, true)
				}
			}
			runtime.ReadMemStats(&ms)
			m0 := ms.Mallocs
			for _, fr := range b.due {
				if !fr.Text {
					b.Client.HandleFrame(fr.Data, false)
				}
			}
			b.Client.TakeEvents()
			runtime.ReadMemStats(&ms)
			total += ms.Mallocs - m0
			d := b.Brain.Controls() // the bot's, not the client's: not counted
			runtime.ReadMemStats(&ms)
			m0 = ms.Mallocs
			if err := b.Client.Tick(d); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&ms)
			total += ms.Mallocs - m0
			b.down.Release(b.due)
		}
		f.deliverUp()
		f.tick()
		f.Now = serverAt(f.ticks)
	}
	if total != 0 {
		t.Fatalf("the clients allocated %d times in %d ticks, want 0", total, n)
	}
}

package client

import (
	"testing"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/netsync"
	"github.com/fiveonit/engine/netsync/wire"
	phys "github.com/fiveonit/engine/physics"
)

// farCar runs a server's arena and encoder in lockstep with a client: the
// client's character stands at the origin, a car drives at speed (m/s) in
// a straight line from start, and turn (rad/s) turns it after tick turnAt.
// It returns the car's drawn position at every client tick, and the tier
// of the car's last change.
func farCar(t *testing.T, start wire.Vec3, speed, turn float32, turnAt, ticks int) ([]wire.Vec3, uint8) {
	t.Helper()
	a := netsync.NewArena()
	enc := netsync.NewEncoder(a)
	c := New(Config{Send: func([]byte, bool) error { return nil }})
	view := netsync.View{Own: [3]uint16{1}}
	me := wire.Entity{Kind: wire.KindCharacter, Player: 1, Rot: wire.Quat{W: 1}, HP: 100, MaxHP: 100}
	car := wire.Entity{Kind: wire.KindCar, Pos: start, Rot: wire.Quat{W: 1}, Lin: wire.Vec3{X: speed}, HP: 100, MaxHP: 100}
	var drawn []wire.Vec3
	var vis []Visible
	for tick := 1; tick <= ticks; tick++ {
		if tick > turnAt {
			yaw := yawOfQ(car.Rot) + turn*phys.Dt
			car.Rot = wire.Quat(components.YawQuat(yaw))
			car.Ang.Z = turn
			s, co := math32.Sincos(yaw)
			car.Lin = wire.Vec3{X: speed * co, Y: speed * s}
		}
		car.Pos.X += car.Lin.X * phys.Dt
		car.Pos.Y += car.Lin.Y * phys.Dt
		a.Begin(uint32(tick))
		a.Put(1, &me, true)
		a.Put(2, &car, false)
		a.End()
		if tick%wire.SnapshotEvery == 0 {
			view.LastSeq = uint32(tick)
			if err := c.HandleFrame(enc.Encode(&view), false); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.Tick(components.Drive{}); err != nil {
			t.Fatal(err)
		}
		vis = c.View(vis[:0])
		for _, v := range vis {
			if v.EID == 2 {
				drawn = append(drawn, v.Pos)
			}
		}
	}
	h := c.Decoder().Store().Get(2)
	if h == nil {
		t.Fatal("the client does not hold the car")
	}
	return drawn, h.Tier
}

// TestFarCarDrawnMoving: a car 220 m away (the farthest tier: a pose every
// 8 snapshots) driving at a constant 12 m/s is drawn moving every client
// tick, each tick within 10 % of its speed; and one that turns is drawn
// with no jump over MaxDrawnStep beyond its motion.
func TestFarCarDrawnMoving(t *testing.T) {
	const speed = 12
	drawn, tier := farCar(t, wire.Vec3{X: -60, Y: 212}, speed, 0, 1<<30, 6*60)
	if tier != wire.TierCount-1 {
		t.Fatalf("the car is of tier %d, want the farthest, %d", tier, wire.TierCount-1)
	}
	want := float32(speed) * phys.Dt
	var worst float32
	for i := 60; i < len(drawn); i++ {
		step := math32.Hypot(drawn[i].X-drawn[i-1].X, drawn[i].Y-drawn[i-1].Y)
		if math32.Abs(step-want) > want/10 {
			t.Fatalf("tick %d: drawn %.3f m on, want %.3f (±10 %%)", i, step, want)
		}
		worst = max(worst, math32.Abs(step-want)/want)
	}
	// Before, it stood for 8 snapshots, then jumped: an error of 1700 %.
	t.Logf("a far car at %d m/s: drawn speed error at most %.1f %% a tick", speed, 100*worst)

	// Turning at 0.5 rad/s from tick 120: the velocity of each pose is
	// off by the time the next comes, and the drawn pose eases.
	drawn, _ = farCar(t, wire.Vec3{X: -60, Y: 212}, speed, 0.5, 120, 6*60)
	for i := 60; i < len(drawn); i++ {
		step := math32.Hypot(drawn[i].X-drawn[i-1].X, drawn[i].Y-drawn[i-1].Y)
		if step < want/2 || step > want+MaxDrawnStep+0.01 {
			t.Fatalf("tick %d: a turning car drawn %.3f m on, its own motion %.3f", i, step, want)
		}
	}
}

// TestTracksFollowWhatIsHeld: a server gives wire ids round its whole
// space, so a world that churns reaches every id. The tracks grow with
// the entities held, not with the highest id: 100 held at a time while
// the ids go round twice allocate nothing after the first hundred.
func TestTracksFollowWhatIsHeld(t *testing.T) {
	var r remotes
	const held = 100
	var ring [held]uint16
	id := uint16(0)
	for k := range ring {
		id++
		ring[k] = id
		r.get(id).n = int(id)
	}
	k := 0
	allocs := testing.AllocsPerRun(2*(1<<16), func() {
		r.drop(ring[k])
		if id++; id == 0 {
			id = 1
		}
		ring[k], k = id, (k+1)%held
		r.get(id).n = int(id)
	})
	if allocs != 0 {
		t.Errorf("%.3f allocations per new id", allocs)
	}
	if len(r.tracks) > held+1 {
		t.Errorf("%d tracks for %d held", len(r.tracks), held)
	}
	if tr := r.track(id); tr == nil || tr.n != int(id) {
		t.Errorf("the track of %d is %+v", id, tr)
	}
	if tr := r.track(id - held); tr != nil {
		t.Errorf("the track of %d, let go, is %+v", id-held, tr)
	}
}

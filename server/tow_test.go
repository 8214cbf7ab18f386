package server

import (
	"math"
	"testing"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/client"
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	phys "github.com/fiveonit/engine/physics"
)

// TestTrailerPredicted: a player drives a car with a trailer hitched for
// 20 s, turning. Its client steps the trailer hitched to the car in its
// prediction, with the server's physics, as it steps the car: neither is
// corrected by as much as a millimetre, and the trailer is drawn where
// the server has it. A client that stepped the car alone was corrected
// at every snapshot.
func TestTrailerPredicted(t *testing.T) {
	g := newServer(t, "test-flat")
	p := newInproc(t, g, false)
	g.Tick()
	p.deliver(t)
	pose := g.posOf(p.s.car)
	yaw := pose.Rot.Yaw()
	back := phys.TrailerLength(phys.ModelTrailer)
	at := components.Vec3{X: pose.Pos.X - back*math32.Cos(yaw), Y: pose.Pos.Y - back*math32.Sin(yaw), Z: pose.Pos.Z}
	trailer, err := g.pf.Vehicle(components.KindTrailer, phys.ModelTrailer, at, yaw, p.s.car)
	if err != nil {
		t.Fatal(err)
	}
	tid := g.ids.Get(trailer).WireID
	var vis []client.Visible
	for tick := 0; tick < 20*ecs.TickRate; tick++ {
		d := components.Drive{Throttle: 0.5, Steer: float32(math.Sin(float64(tick)/80)) * 0.6}
		if err := p.c.Tick(d); err != nil {
			t.Fatal(err)
		}
		g.Tick()
		p.deliver(t)
		if tick == 10*ecs.TickRate {
			vis = p.c.View(vis[:0])
		}
	}
	st := p.c.Stats()
	if st.Tow.Count < 300 || st.Reconciles < 300 {
		t.Fatalf("%d trailer reconciles, %d car reconciles: the trailer was not predicted", st.Tow.Count, st.Reconciles)
	}
	t.Logf("%d reconciles: car corrections max %.5f m, trailer max %.5f m", st.Reconciles, st.MaxCorrection, st.Tow.MaxVal)
	if st.MaxCorrection > 0.001 || st.Tow.MaxVal > 0.001 {
		t.Fatalf("corrections while towing: car up to %.4f m, trailer up to %.4f m", st.MaxCorrection, st.Tow.MaxVal)
	}
	if moved := g.posOf(trailer).Pos; math32.Hypot(moved.X-at.X, moved.Y-at.Y) < 20 {
		t.Fatalf("the trailer moved %.1f m: it was not towed", math32.Hypot(moved.X-at.X, moved.Y-at.Y))
	}
	found := false
	for _, v := range vis {
		if v.EID == tid {
			found = v.Predicted
		}
	}
	if !found {
		t.Fatal("the own trailer is not drawn predicted")
	}
}

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
// corrected by as much as a millimetre, and the trailer is drawn hitched
// to the drawn car, their pivots within 5 cm. A client that stepped the
// car alone was corrected at every snapshot.
func TestTrailerPredicted(t *testing.T) {
	g := newServer(t)
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
	tid, cid := g.ids.Get(trailer).WireID, g.ids.Get(p.s.car).WireID
	var vis []client.Visible
	var hitch float32 // the largest error of the drawn hitch's length
	predicted := true
	for tick := 0; tick < 20*ecs.TickRate; tick++ {
		d := components.Drive{Throttle: 0.5, Steer: float32(math.Sin(float64(tick)/80)) * 0.6}
		if err := p.c.Tick(d); err != nil {
			t.Fatal(err)
		}
		g.Tick()
		p.deliver(t)
		if tick < 2*ecs.TickRate {
			continue
		}
		vis = p.c.View(vis[:0])
		var car, tow *client.Visible
		for i := range vis {
			switch vis[i].EID {
			case cid:
				car = &vis[i]
			case tid:
				tow = &vis[i]
			}
		}
		if car == nil || tow == nil {
			t.Fatalf("tick %d: the car or the trailer is not drawn", tick)
		}
		predicted = predicted && tow.Predicted
		hitch = max(hitch, hitchError(car, tow, back))
	}
	st := p.c.Stats()
	if st.Tow.Count < 300 || st.Reconciles < 300 {
		t.Fatalf("%d trailer reconciles, %d car reconciles: the trailer was not predicted", st.Tow.Count, st.Reconciles)
	}
	// Before, the trailer was drawn as a remote entity, behind the
	// predicted car: its hitch pivot was drawn up to 1.7 m off the car's.
	t.Logf("%d reconciles: car corrections max %.5f m, trailer max %.5f m; the drawn hitch off by at most %.4f m",
		st.Reconciles, st.MaxCorrection, st.Tow.MaxVal, hitch)
	if st.MaxCorrection > 0.001 || st.Tow.MaxVal > 0.001 || hitch > 0.05 {
		t.Fatalf("corrections while towing: car up to %.4f m, trailer up to %.4f m; the drawn hitch off by %.3f m", st.MaxCorrection, st.Tow.MaxVal, hitch)
	}
	if moved := g.posOf(trailer).Pos; math32.Hypot(moved.X-at.X, moved.Y-at.Y) < 20 {
		t.Fatalf("the trailer moved %.1f m: it was not towed", math32.Hypot(moved.X-at.X, moved.Y-at.Y))
	}
	if !predicted {
		t.Fatal("the own trailer is not drawn predicted")
	}
}

// hitchError returns how far apart the drawn car's and trailer's hitch
// pivots are: the car's at its rear bumper, the trailer's length less that
// ahead of its centre (physics.Bodies.AddHitch).
func hitchError(car, tow *client.Visible, length float32) float32 {
	bumper := phys.CarModel(car.Model).HalfX
	cy, ty := components.Quat(car.Rot).Yaw(), components.Quat(tow.Rot).Yaw()
	ax, ay := car.Pos.X-bumper*math32.Cos(cy), car.Pos.Y-bumper*math32.Sin(cy)
	bx, by := tow.Pos.X+(length-bumper)*math32.Cos(ty), tow.Pos.Y+(length-bumper)*math32.Sin(ty)
	return math32.Hypot(ax-bx, ay-by)
}

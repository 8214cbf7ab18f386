package client

import (
	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/control"
	"github.com/fiveonit/engine/netsync/wire"
	phys "github.com/fiveonit/engine/physics"
)

// Controlled returns the wire id of the body the client controls (its car
// while it drives, its character on foot), 0 when it controls none (getting
// in or out, a passenger, dead), and whether it is a car.
func (c *Client) Controlled() (wid uint16, car bool, model uint8) {
	if !c.joined || c.welcome.Character == 0 {
		return 0, false, 0
	}
	st := c.dec.Store()
	h := st.Get(c.welcome.Character)
	if h == nil {
		return 0, false, 0
	}
	h.Rec.Decode(&c.ent, h.PoseFull)
	switch c.ent.Act {
	case wire.ActOnFoot:
		return c.welcome.Character, false, 0
	case wire.ActDriving:
		v := st.Get(c.ent.Vehicle)
		if v == nil {
			return 0, false, 0
		}
		return c.ent.Vehicle, true, v.Rec[wire.ModelAt]
	}
	return 0, false, 0
}

// Predicted returns the own body's predicted pose and velocity after the
// last client tick, and false when the client predicts nothing.
func (c *Client) Predicted() (wid uint16, pose components.Pose, vel components.Velocity, ok bool) {
	return c.pred.wid, c.pred.pose, c.pred.vel, c.pred.wid != 0
}

// predict steps the own body with h's input and records the result in h.
func (c *Client) predict(h *histEntry) {
	if c.pred.wid == 0 {
		return
	}
	c.step(&c.pred, &h.in)
	h.wid, h.pose, h.vel = c.pred.wid, c.pred.pose, c.pred.vel
}

// step is one tick of the server's physics for a lone body: the driving
// model, then the collision step against the static world, exactly as the
// server's physics system runs it.
func (c *Client) step(b *body, in *wire.Input) {
	d := control.Drive(in)
	var cb components.Body
	if b.car {
		spec := phys.CarModel(b.model)
		phys.DriveCar(&b.pose, &b.vel, &d, spec, phys.Dt)
		cb = spec.Body()
	} else {
		phys.DriveWalker(&b.pose, &b.vel, &d, &phys.DefaultWalker, phys.Dt)
		cb = phys.DefaultWalker.Body()
	}
	c.bodies.Reset()
	c.bodies.Add(b.pose, b.vel, &cb)
	phys.Step(c.cfg.Static, &c.bodies, &c.scratch, phys.Dt)
	b.pose, b.vel = c.bodies.List[0].Pose, c.bodies.List[0].Vel
}

// reconcile takes the server's full pose of the own body at lastSeq,
// measures how far the prediction for that tick was from it, and replays
// the inputs after it.
func (c *Client) reconcile(lastSeq uint32) {
	wid, car, model := c.Controlled()
	if wid == 0 {
		c.pred.wid = 0
		return
	}
	h := c.dec.Store().Get(wid)
	h.Rec.Decode(&c.ent, h.PoseFull)
	server := body{wid: wid, car: car, model: model,
		pose: components.Pose{Pos: components.Vec3(c.ent.Pos), Rot: components.Quat(c.ent.Rot)},
		vel:  components.Velocity{Lin: components.Vec3(c.ent.Lin), Ang: components.Vec3(c.ent.Ang)},
	}
	if lastSeq != 0 {
		if p := &c.hist[lastSeq%HistoryLen]; p.seq == lastSeq && p.wid == wid {
			c.measure(p.pose.Pos, server.pose.Pos)
		}
	}
	c.pred = server
	start := lastSeq + 1
	if lastSeq == 0 && c.seq > HistoryLen {
		start = c.seq - HistoryLen
	}
	for s := max(start, 1); s < c.seq; s++ {
		if e := &c.hist[s%HistoryLen]; e.seq == s {
			c.predict(e)
		}
	}
}

func (c *Client) measure(pred, server components.Vec3) {
	dx, dy, dz := pred.X-server.X, pred.Y-server.Y, pred.Z-server.Z
	d := math32.Sqrt(dx*dx + dy*dy + dz*dz)
	c.stats.Reconciles++
	c.stats.Corr.Add(d)
	if d > CorrectionEpsilon {
		c.stats.Corrections++
		c.stats.LastCorrection = d
		if d >= 0.01 {
			c.stats.BigCorrections++
		}
		c.stats.SumCorrection += float64(d)
		c.stats.MaxCorrection = max(c.stats.MaxCorrection, d)
	}
}

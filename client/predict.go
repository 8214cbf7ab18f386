package client

import (
	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/control"
	"github.com/fiveonit/engine/netsync/wire"
	phys "github.com/fiveonit/engine/physics"
)

// NearRadius is how far (m) from the own body the client takes the bodies
// it holds into its prediction: 40 m, more than a car at 30 m/s covers in
// the ticks of a 300 ms round trip with a car's length to spare, and within
// the first tier (50 m), whose poses come every snapshot.
const NearRadius = 40

// maxNear bounds the bodies taken into the prediction: a crowd beyond it
// is far enough that the nearest suffice.
const maxNear = 32

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
	switch {
	case onFoot(c.ent.Act):
		return c.welcome.Character, false, 0
	case c.ent.Act == wire.ActDriving:
		v := st.Get(c.ent.Vehicle)
		if v == nil {
			return 0, false, 0
		}
		return c.ent.Vehicle, true, v.Rec[wire.ModelAt]
	}
	return 0, false, 0
}

// onFoot reports whether a person with the action act stands on its own
// feet: on foot, or playing an emote (which the next move ends).
func onFoot(act uint8) bool { return act == wire.ActOnFoot || act >= wire.ActEmote }

// Predicted returns the own body's predicted pose and velocity after the
// last client tick, and false when the client predicts nothing. It is the
// simulation's: a correction moves it at once (Drawn eases it).
func (c *Client) Predicted() (wid uint16, pose components.Pose, vel components.Velocity, ok bool) {
	return c.pred.wid, c.pred.pose, c.pred.vel, c.pred.wid != 0
}

// Drawn returns the own body's pose as drawn: the prediction, with the
// error of the last corrections easing out (see SmoothKeep); false when
// the client predicts nothing.
func (c *Client) Drawn() (wid uint16, pose components.Pose, ok bool) {
	return c.pred.wid, c.smooth.drawn(c.pred.pose), c.pred.wid != 0
}

// near is a body the client holds near its own, taken into the prediction:
// another car or a person on foot, stepped with its last measured pose and
// velocity (a car with its last drive) beside the own body.
type near struct {
	wid     uint16
	car     bool
	trailer bool
	model   uint8
	ghost   bool
	pose    components.Pose
	vel     components.Velocity
	drive   components.Drive
	body    components.Body
}

// gatherNear takes the bodies the client holds within NearRadius of the own
// body's server pose at tick (the frame's), each moved on to tick from
// when its pose was measured.
func (c *Client) gatherNear(own *body, tick uint32) {
	c.near = c.near[:0]
	if own.ghost {
		return // a ghost collides with props and buildings only
	}
	st := c.dec.Store()
	char := c.welcome.Character
	for i := 0; i < st.Slots() && len(c.near) < maxNear; i++ {
		eid := st.Owner(i)
		if eid == 0 || eid == own.wid || eid == char {
			continue
		}
		h := st.At(i)
		k := h.Rec[wire.KindAt]
		vehicle := k == wire.KindCar || k == wire.KindPoliceCar || k == wire.KindTrailer
		person := k == wire.KindCharacter || k == wire.KindPedestrian || k == wire.KindOfficer || k == wire.KindGuard
		if !vehicle && !person {
			continue
		}
		h.Rec.Decode(&c.ent, h.PoseFull)
		e := &c.ent
		if person && !onFoot(e.Act) && e.Act != wire.ActDead {
			continue // a seated person rides their vehicle: no body of its own
		}
		if e.Tractor == own.wid {
			continue // the own trailer: hitched, it never collides with its car
		}
		dx, dy := e.Pos.X-own.pose.Pos.X, e.Pos.Y-own.pose.Pos.Y
		if dx*dx+dy*dy > NearRadius*NearRadius || e.Flags&wire.FlagGhost != 0 {
			continue
		}
		n := near{wid: eid, car: vehicle, trailer: k == wire.KindTrailer, model: e.Model,
			pose: components.Pose{Pos: components.Vec3(e.Pos), Rot: components.Quat(e.Rot)},
			vel:  components.Velocity{Lin: components.Vec3(e.Lin), Ang: components.Vec3(e.Ang)},
		}
		if vehicle {
			spec := phys.CarModel(e.Model)
			n.body = spec.Body()
			n.drive = components.Drive{Throttle: e.Throttle, Brake: e.Brake, Steer: e.Steer, Held: components.Buttons(e.Held)}
		} else {
			n.body = phys.DefaultWalker.Body()
			if e.Act == wire.ActDead {
				n.vel = components.Velocity{}
			}
		}
		if late := int(tick) - int(h.PoseTick); late > 0 && late < 64 {
			// Measured before the frame (a far tier's turn): on at its
			// velocity to the frame's tick.
			dt := float32(late) * phys.Dt
			n.pose.Pos.X += n.vel.Lin.X * dt
			n.pose.Pos.Y += n.vel.Lin.Y * dt
		}
		c.near = append(c.near, n)
	}
}

// predict steps the own body with h's input and records the result in h.
func (c *Client) predict(h *histEntry) {
	if c.pred.wid == 0 {
		return
	}
	c.step(&c.pred, &h.in)
	h.wid, h.pose, h.vel = c.pred.wid, c.pred.pose, c.pred.vel
	h.tow, h.towPos = c.pred.tow.wid, c.pred.tow.pose.Pos
}

// step is one tick of the server's physics for the own body and the bodies
// near it: the driving models, then the collision step against each other
// and the static world, exactly as the server's physics system runs it. The
// near bodies run on their last drive (a car) or their velocity (a person):
// what the client holds of them, moved on.
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
	first := int32(1) // the near bodies' first index
	if t := &b.tow; t.wid != 0 {
		// The trailer, hitched as the server hitches it.
		spec := phys.CarModel(t.model)
		phys.DriveTrailer(&t.pose, &t.vel, spec, phys.Dt)
		tb := spec.Body()
		c.bodies.AddHitch(0, c.bodies.Add(t.pose, t.vel, &tb), phys.TrailerLength(t.model))
		first = 2
	}
	for i := range c.near {
		n := &c.near[i]
		switch {
		case n.trailer:
			phys.DriveTrailer(&n.pose, &n.vel, phys.CarModel(n.model), phys.Dt)
		case n.car:
			phys.DriveCar(&n.pose, &n.vel, &n.drive, phys.CarModel(n.model), phys.Dt)
		}
		c.bodies.Add(n.pose, n.vel, &n.body)
	}
	phys.Step(c.cfg.Static, &c.bodies, &c.scratch, phys.Dt)
	b.pose, b.vel = c.bodies.List[0].Pose, c.bodies.List[0].Vel
	if first == 2 {
		b.tow.pose, b.tow.vel = c.bodies.List[1].Pose, c.bodies.List[1].Vel
	}
	for i := range c.near {
		n := &c.near[i]
		n.pose, n.vel = c.bodies.List[int(first)+i].Pose, c.bodies.List[int(first)+i].Vel
	}
}

// towOf returns the trailer the own car wid tows, as the server's last
// frame holds it (its full pose: the own trailer's), or none.
func (c *Client) towOf(wid uint16) towed {
	st := c.dec.Store()
	for i := 0; i < st.Slots(); i++ {
		eid := st.Owner(i)
		if eid == 0 {
			continue
		}
		h := st.At(i)
		if h.Rec[wire.KindAt] != wire.KindTrailer || !h.PoseFull {
			continue
		}
		h.Rec.Decode(&c.ent, true)
		if c.ent.Tractor == wid {
			return towed{wid: eid, model: c.ent.Model,
				pose: components.Pose{Pos: components.Vec3(c.ent.Pos), Rot: components.Quat(c.ent.Rot)},
				vel:  components.Velocity{Lin: components.Vec3(c.ent.Lin), Ang: components.Vec3(c.ent.Ang)},
			}
		}
	}
	return towed{}
}

// reconcile takes the server's full pose of the own body at lastSeq,
// measures how far the prediction for that tick was from it, and replays
// the inputs after it with the bodies near it. The drawn pose keeps where
// it was (Drawn eases it to the new prediction).
func (c *Client) reconcile(lastSeq, tick uint32) {
	wid, car, model := c.Controlled()
	if wid == 0 {
		c.pred.wid = 0
		c.near = c.near[:0]
		return
	}
	h := c.dec.Store().Get(wid)
	h.Rec.Decode(&c.ent, h.PoseFull)
	server := body{wid: wid, car: car, model: model, ghost: c.ent.Flags&wire.FlagGhost != 0,
		pose: components.Pose{Pos: components.Vec3(c.ent.Pos), Rot: components.Quat(c.ent.Rot)},
		vel:  components.Velocity{Lin: components.Vec3(c.ent.Lin), Ang: components.Vec3(c.ent.Ang)},
	}
	if car {
		server.tow = c.towOf(wid)
	}
	if lastSeq != 0 {
		if p := &c.hist[lastSeq%HistoryLen]; p.seq == lastSeq && p.wid == wid {
			c.measure(p.pose.Pos, server.pose.Pos)
			if t := server.tow.wid; t != 0 && p.tow == t {
				c.stats.Tow.Add(len3(sub3(p.towPos, server.tow.pose.Pos)))
			}
		}
	}
	before := c.pred
	c.gatherNear(&server, tick)
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
	c.smooth.corrected(&before, &c.pred, &c.stats)
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

package netsync

import (
	"github.com/fiveonit/engine/netsync/wire"
)

// Dead reckoning. A client draws a remote entity on at its velocity past
// the newest pose it holds (client.View), so a new pose that this
// extrapolation already comes within a tolerance of tells the client
// nothing worth its bytes. A client with a budget (SetBudget) is sent a
// quantized pose only when the pose it holds, drawn on to now, is off by
// more than its tier's tolerance (ReckonTolerance), its velocity is off by
// more than ReckonVelocity, the pose is older than ReckonAge, or, in tier
// 0, its heading changed. Stops and starts go at once as ever. A car that
// cruises costs a few poses a second, a turning one every turn.

// A person seated in a vehicle (driving or a passenger) rides it: a client
// draws them at their vehicle, not at their own pose, so with a budget
// their pose is never worth sending while they sit; it goes with the
// state when they get out.

// rides reports whether the record of wid is a person sitting in a
// vehicle.
func (a *Arena) rides(wid uint16) bool {
	act := a.recs[wid][wire.ActAt]
	return act == wire.ActDriving || act == wire.ActPassenger
}

// ReckonTolerance (m), ReckonVelocity (m/s) and ReckonAge (ticks) are the
// tolerances of dead reckoning, by tier: tight near, loose far, where an
// error of a metre is a pixel.
var (
	ReckonTolerance = [wire.TierCount]float32{0.05, 0.25, 0.75, 2}
	ReckonVelocity  = [wire.TierCount]float32{0.5, 1, 2, 4}
	ReckonAge       = [wire.TierCount]uint32{6, 15, 30, 60}
)

// reckoned reports whether the quantized pose q, at tick, is close enough
// to p, the pose a client holds (measured at p.tick), drawn on at its
// velocity, for an entity in tier to send nothing.
func reckoned(q, p *poseWords, tick uint32, tier uint8) bool {
	t := tier & (wire.TierCount - 1)
	age := tick - p.tick
	if age > ReckonAge[t] || t == 0 && uint32(q.b>>32) != uint32(p.b>>32) {
		return false
	}
	dt := float32(age) * (1.0 / 60)
	const pos, vel = 1.0 / wire.PositionScale, 1.0 / wire.VelocityScale
	hvx, hvy, hvz := float32(int16(p.c))*vel, float32(int16(p.c>>16))*vel, float32(int16(p.c>>32))*vel
	ex := float32(int32(q.a)-int32(p.a))*pos - hvx*dt
	ey := float32(int32(q.a>>32)-int32(p.a>>32))*pos - hvy*dt
	ez := float32(int32(q.b)-int32(p.b))*pos - hvz*dt
	tol := ReckonTolerance[t]
	if ex*ex+ey*ey+ez*ez > tol*tol {
		return false
	}
	dvx := float32(int16(q.c)-int16(p.c)) * vel
	dvy := float32(int16(q.c>>16)-int16(p.c>>16)) * vel
	dvz := float32(int16(q.c>>32)-int16(p.c>>32)) * vel
	v := ReckonVelocity[t]
	return dvx*dvx+dvy*dvy+dvz*dvz <= v*v
}

package main

import (
	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/client"
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/netsync/wire"
	"github.com/fiveonit/engine/prefab"
	"github.com/fiveonit/engine/systems/cars"
	"github.com/fiveonit/engine/systems/seats"
)

// The cars within your reach, as the prompts name them: the one E gets
// you into (the nearest with a seat, not wrecked, whose body is within
// seats.Reach of you: the seats system's own test) and the one L locks or
// unlocks (the nearest within cars.LockReach of its body). The prompt
// shows exactly where the key works, measured the server's way, from the
// draw list of the last View.

// CarToEnter returns the wire id of the car E would get you into from
// where you stand on foot, 0 for none (or in a car).
func (p *Page) CarToEnter() uint16 {
	return p.nearCar(seats.Reach, true)
}

// CarToLock returns the wire id of the car L would lock or unlock: the
// one you sit in, else the nearest within cars.LockReach; 0 for none.
func (p *Page) CarToLock() uint16 {
	if _, car := p.me(); car != 0 {
		return car
	}
	return p.nearCar(cars.LockReach, false)
}

// nearCar returns the vehicle of the last View whose body is nearest your
// predicted body on foot, within reach; to enter, one with a seat and not
// wrecked.
func (p *Page) nearCar(reach float32, enter bool) uint16 {
	var me *wire.Entity
	for i := range p.vis {
		if p.vis[i].Predicted && p.vis[i].Kind == wire.KindCharacter && p.vis[i].Act == wire.ActOnFoot {
			me = &p.vis[i].Entity
		}
	}
	if me == nil {
		return 0
	}
	// Where the prediction has you, not where a correction easing out
	// draws you: the server measures from your body.
	at := me.Pos
	if _, pose, _, ok := p.c.Predicted(); ok {
		at = wire.Vec3(pose.Pos)
	}
	best, bestD := uint16(0), reach
	for i := range p.vis {
		v := &p.vis[i]
		if !components.Kind(v.Kind).IsVehicle() {
			continue
		}
		if enter && (prefab.Seats(v.Model) == 0 || v.Flags&wire.FlagWrecked != 0) {
			continue
		}
		if d := bodyDistance(at, v); d <= bestD {
			best, bestD = v.EID, d
		}
	}
	return best
}

// bodyDistance returns how far point q is from vehicle v's box, on the
// ground: 0 inside it.
func bodyDistance(q wire.Vec3, v *client.Visible) float32 {
	hx, hy := extent(v.Kind, v.Model)
	yaw := yawOf(v.Rot)
	s, c := math32.Sincos(yaw)
	dx, dy := q.X-v.Pos.X, q.Y-v.Pos.Y
	lx, ly := dx*c+dy*s, -dx*s+dy*c
	ex := math32.Max(math32.Abs(lx)-hx, 0)
	ey := math32.Max(math32.Abs(ly)-hy, 0)
	return math32.Sqrt(ex*ex + ey*ey)
}

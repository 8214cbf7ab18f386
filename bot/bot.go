// Package bot is a bot player: a client.Client with a brain that drives
// plausibly on the level's road graph (it follows the lanes and turns at
// the intersections), stops now and then, gets out, walks away and back,
// and gets in again. cmd/bots runs many of them against a server; the load
// tests and benchmarks run them in memory.
package bot

import (
	"math/rand/v2"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/client"
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/netsync/wire"
)

// Cruise is the speed the bots drive at, m/s.
const Cruise = 11

// Timings of the bot's day, in client ticks.
const (
	driveMin, driveMax = 20 * 60, 35 * 60 // then it stops and gets out
	walkAway           = 3 * 60           // it walks away this long, then back
	stuckTicks         = 3 * 60           // stopped with the throttle down: back off
	reverseTicks       = 90
	giveUp             = 20 * 60 // a walk back that takes longer: try again later
	useEvery           = 6       // near its car, it presses Use every useEvery ticks
)

// useFrom is how near its car's centre (m) a bot walking back starts
// pressing Use.
const useFrom = 4

type phase uint8

const (
	driving phase = iota
	reversing
	stopping
	leaving
	walkingAway
	walkingBack
)

// Brain decides a bot's controls from what its client holds.
type Brain struct {
	c     *client.Client
	l     *levels.Level
	rng   *rand.Rand
	ph    phase
	timer int
	lane  int
	car   uint16 // the car it gets back into
	away  float32
	stuck int
	ent   wire.Entity
}

// NewBrain returns the brain of a bot playing c on level l, seeded.
func NewBrain(c *client.Client, l *levels.Level, seed uint64) *Brain {
	return &Brain{c: c, l: l, rng: rand.New(rand.NewPCG(seed, 99)), lane: -1}
}

// Controls returns the bot's controls for its next client tick.
func (b *Brain) Controls() components.Drive {
	w, ok := b.c.Welcome()
	if !ok {
		return components.Drive{}
	}
	if b.car == 0 {
		b.car = w.Car
		b.timer = b.driveTime()
	}
	me, ok := b.entity(w.Character)
	if !ok {
		return components.Drive{}
	}
	b.timer--
	switch me.Act {
	case wire.ActDriving:
		b.car = me.Vehicle
		if b.ph >= leaving {
			b.ph, b.timer = driving, b.driveTime()
		}
		return b.drive()
	case wire.ActOnFoot:
		return b.walk(me)
	}
	return components.Drive{}
}

func (b *Brain) driveTime() int { return driveMin + b.rng.IntN(driveMax-driveMin) }

// entity decodes what the client holds of eid.
func (b *Brain) entity(eid uint16) (wire.Entity, bool) {
	h := b.c.Decoder().Store().Get(eid)
	if h == nil {
		return wire.Entity{}, false
	}
	h.Rec.Decode(&b.ent, h.PoseFull)
	return b.ent, true
}

// body returns the bot's predicted body (or what it holds of it).
func (b *Brain) body() (pos components.Vec3, yaw, speed float32, ok bool) {
	_, pose, vel, ok := b.c.Predicted()
	if !ok {
		return pos, 0, 0, false
	}
	co, si := pose.Rot.Heading()
	return pose.Pos, pose.Rot.Yaw(), vel.Lin.X*co + vel.Lin.Y*si, true
}

func (b *Brain) drive() components.Drive {
	pos, yaw, speed, ok := b.body()
	if !ok {
		return components.Drive{}
	}
	switch b.ph {
	case stopping:
		if math32.Abs(speed) < 0.3 {
			b.ph = leaving
			return components.Drive{Pressed: components.BtnUse}
		}
		return components.Drive{Brake: 1}
	case leaving:
		return components.Drive{}
	case reversing:
		if b.timer <= 0 {
			b.ph, b.timer, b.stuck = driving, b.driveTime(), 0
		}
		return components.Drive{Brake: 1, Steer: 0.5}
	}
	if b.timer <= 0 {
		b.ph = stopping
		return components.Drive{Brake: 1}
	}
	target := b.follow(levels.Vec2{X: pos.X, Y: pos.Y})
	want := math32.Atan2(target.Y-pos.Y, target.X-pos.X)
	turn := wrap(want - yaw)
	d := components.Drive{Steer: clamp(turn*1.5, -1, 1)}
	limit := float32(Cruise)
	if math32.Abs(turn) > 0.5 {
		limit = 5
	}
	switch {
	case speed < limit-1:
		d.Throttle = 0.8
	case speed > limit+1:
		d.Brake = 0.6
	}
	if speed < 0.5 && d.Throttle > 0 {
		b.stuck++
		if b.stuck > stuckTicks {
			b.ph, b.timer = reversing, reverseTicks
		}
	} else {
		b.stuck = 0
	}
	return d
}

// follow returns a point about 12 m ahead on the bot's lane, moving on to
// a next lane (not straight back) near the lane's end.
func (b *Brain) follow(p levels.Vec2) levels.Vec2 {
	lanes := len(b.l.Roads.Lanes)
	if lanes == 0 {
		return p.Add(levels.Vec2{X: 10})
	}
	if b.lane < 0 {
		b.lane, _ = b.l.NearestLane(p)
	}
	a, z := b.l.LaneLine(b.lane)
	if z.Sub(p).Len() < 10 {
		b.lane = b.nextLane(b.lane)
		a, z = b.l.LaneLine(b.lane)
	}
	dir := z.Sub(a)
	n := dir.Len()
	if n == 0 {
		return z
	}
	dir = dir.Scale(1 / n)
	along := clamp(p.Sub(a).Dot(dir)+12, 0, n)
	return a.Add(dir.Scale(along))
}

func (b *Brain) nextLane(lane int) int {
	from, to := b.l.LaneNodes(lane)
	out := b.l.LanesOut(to)
	// The choices are the lanes out but the one back, or all of them at a
	// dead end; counted, then the k-th taken, so that nothing is built.
	n := 0
	for _, o := range out {
		if _, t := b.l.LaneNodes(int(o)); t != from {
			n++
		}
	}
	all := n == 0
	if all {
		n = len(out)
	}
	if n == 0 {
		return lane
	}
	k := b.rng.IntN(n)
	for _, o := range out {
		if _, t := b.l.LaneNodes(int(o)); all || t != from {
			if k == 0 {
				return int(o)
			}
			k--
		}
	}
	return lane
}

func (b *Brain) walk(me wire.Entity) components.Drive {
	switch b.ph {
	case driving, stopping, leaving, reversing:
		b.ph, b.timer = walkingAway, walkAway
		b.away = b.awayFrom(me)
	case walkingAway:
		if b.timer <= 0 {
			b.ph, b.timer = walkingBack, giveUp
		}
		return components.Drive{MoveY: 1, LookYaw: b.away}
	case walkingBack:
		car, ok := b.entity(b.car)
		if !ok || b.timer <= 0 {
			b.ph, b.timer = walkingAway, walkAway // lost it: wander on
			b.away = b.rng.Float32()*2*math32.Pi - math32.Pi
			return components.Drive{}
		}
		dx, dy := car.Pos.X-me.Pos.X, car.Pos.Y-me.Pos.Y
		d := components.Drive{MoveY: 1, LookYaw: math32.Atan2(dy, dx), Held: components.BtnSprint}
		if dx*dx+dy*dy < useFrom*useFrom {
			// Near: walk on into reach (seats.Reach from the body, which
			// is nearer the centre beside the car than at its ends),
			// pressing Use every few ticks until the seat is taken.
			d.Held = 0
			if b.timer%useEvery == 0 {
				d.Pressed = components.BtnUse
			}
		}
		return d
	}
	return components.Drive{}
}

// awayFrom returns a heading that takes me away from its car, within 60°
// of straight away: a bot that walked into its car would push it along.
func (b *Brain) awayFrom(me wire.Entity) float32 {
	spread := (b.rng.Float32()*2 - 1) * math32.Pi / 3
	car, ok := b.entity(b.car)
	if !ok {
		return spread * 3
	}
	return wrap(math32.Atan2(me.Pos.Y-car.Pos.Y, me.Pos.X-car.Pos.X) + spread)
}

func wrap(a float32) float32 {
	for a > math32.Pi {
		a -= 2 * math32.Pi
	}
	for a < -math32.Pi {
		a += 2 * math32.Pi
	}
	return a
}

func clamp(x, lo, hi float32) float32 { return math32.Min(math32.Max(x, lo), hi) }

package netsync

import (
	"math"
	"math/rand/v2"

	"github.com/fiveonit/engine/netsync/wire"
)

// simWorld is a random replicated world for the tests: spawns, despawns, id
// reuse with new generations (a FIFO free list, as ecs.WireIDs), near and far
// moves, stops and starts, and every group changing now and then.
type simWorld struct {
	rng   *rand.Rand
	size  float32 // the world is [0, size) on X and Y
	ents  []simEnt
	free  []uint16 // FIFO of free wire ids
	gen   []uint8
	alive []uint16 // wire ids alive, in spawn order
	tick  uint32
	fixed bool // no spawns, no despawns: the steady state
}

type simEnt struct {
	e      wire.Entity
	always bool
	alive  bool
}

func newSimWorld(seed uint64, maxIDs int, size float32) *simWorld {
	w := &simWorld{
		rng:  rand.New(rand.NewPCG(seed, seed^0xabcdef)),
		size: size,
		ents: make([]simEnt, maxIDs+1),
		gen:  make([]uint8, maxIDs+1),
	}
	for i := 1; i <= maxIDs; i++ {
		w.free = append(w.free, uint16(i))
	}
	return w
}

func (w *simWorld) f(lo, hi float32) float32 { return lo + (hi-lo)*w.rng.Float32() }

func (w *simWorld) chance(p float64) bool { return w.rng.Float64() < p }

func yawQuat(yaw float32) wire.Quat {
	s, c := math.Sincos(float64(yaw) / 2)
	return wire.Quat{Z: float32(s), W: float32(c)}
}

// spawn makes a new entity, or nothing when no wire id is free.
func (w *simWorld) spawn() {
	if len(w.free) == 0 {
		return
	}
	// Mostly the id freed longest ago (as ecs.WireIDs), sometimes the
	// one freed last: an id back in the same tick with a new generation.
	wid := w.free[0]
	if k := len(w.free) - 1; w.chance(0.2) {
		wid = w.free[k]
		w.free = w.free[:k]
	} else {
		w.free = w.free[1:]
	}
	se := &w.ents[wid]
	*se = simEnt{alive: true, always: w.chance(0.08)}
	e := &se.e
	e.Kind = uint8(1 + w.rng.IntN(10))
	e.Model = uint8(w.rng.IntN(8))
	e.Gen = w.gen[wid]
	e.Pos = wire.Vec3{X: w.f(0, w.size), Y: w.f(0, w.size), Z: w.f(0, 2)}
	e.Rot = yawQuat(w.f(-math.Pi, math.Pi))
	if w.chance(0.7) {
		e.Lin = wire.Vec3{X: w.f(-15, 15), Y: w.f(-15, 15)}
		e.Ang = wire.Vec3{Z: w.f(-1, 1)}
	}
	e.HP, e.MaxHP = 100, 100
	w.alive = append(w.alive, wid)
}

func (w *simWorld) despawn(k int) {
	wid := w.alive[k]
	w.alive = append(w.alive[:k], w.alive[k+1:]...)
	w.ents[wid].alive = false
	w.gen[wid]++
	w.free = append(w.free, wid)
}

// step advances the world one tick.
func (w *simWorld) step() {
	w.tick++
	for k := len(w.alive) - 1; k >= 0 && !w.fixed; k-- {
		if w.chance(0.004) {
			w.despawn(k)
		}
	}
	for n := w.rng.IntN(4); n > 0 && !w.fixed; n-- {
		if w.chance(0.5) {
			w.spawn()
		}
	}
	const dt = 1.0 / 60
	for _, wid := range w.alive {
		e := &w.ents[wid].e
		switch {
		case w.chance(0.002): // far: a teleport beyond small steps
			e.Pos = wire.Vec3{X: w.f(0, w.size), Y: w.f(0, w.size)}
		case w.chance(0.01): // a stop
			e.Lin, e.Ang = wire.Vec3{}, wire.Vec3{}
		case w.chance(0.01): // a start
			e.Lin = wire.Vec3{X: w.f(-20, 20), Y: w.f(-20, 20), Z: w.f(-1, 1)}
			e.Ang = wire.Vec3{Z: w.f(-2, 2)}
		}
		e.Pos.X += e.Lin.X * dt
		e.Pos.Y += e.Lin.Y * dt
		e.Pos.Z += e.Lin.Z * dt
		if e.Ang.Z != 0 {
			yaw := 2*float32(math.Atan2(float64(e.Rot.Z), float64(e.Rot.W))) + e.Ang.Z*dt
			e.Rot = yawQuat(yaw)
		}
		if w.chance(0.02) {
			e.Throttle, e.Steer, e.Brake = w.f(0, 1), w.f(-1, 1), w.f(0, 1)
			e.Held = uint16(w.rng.IntN(1 << 10))
		}
		if w.chance(0.005) {
			e.HP = uint16(w.rng.IntN(101))
		}
		if w.chance(0.01) {
			e.Act, e.Weapon = uint8(w.rng.IntN(6)), uint8(w.rng.IntN(4))
			e.AimYaw, e.AimPitch, e.Timer = w.f(-4, 4), w.f(-1, 1), uint16(w.rng.IntN(60))
		}
		if w.chance(0.005) {
			e.Flags ^= 1 << w.rng.IntN(10)
		}
		if w.chance(0.002) && !w.fixed {
			e.Vehicle, e.Seat = w.alive[w.rng.IntN(len(w.alive))], uint8(w.rng.IntN(4))
			e.Tractor = w.alive[w.rng.IntN(len(w.alive))]
		}
	}
}

// fill puts the world's tick into a.
func (w *simWorld) fill(a *Arena) {
	a.Begin(w.tick)
	for _, wid := range w.alive {
		se := &w.ents[wid]
		a.Put(wid, &se.e, se.always)
	}
	if w.chance(0.3) && len(w.alive) > 0 {
		a.AddEvent(wire.Event{
			Kind:   uint8(1 + w.rng.IntN(4)),
			Source: w.alive[w.rng.IntN(len(w.alive))],
			Target: w.alive[w.rng.IntN(len(w.alive))],
			Pos:    wire.Vec3{X: w.f(0, w.size), Y: w.f(0, w.size)},
			Dir:    wire.Vec3{X: 1},
			Amount: w.f(0, 50),
		})
	}
	a.End()
}

package stealth

import (
	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/nav"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems/stealth/book"
)

// CameraMount (m) is how high above the ground a camera hangs.
const CameraMount = 3

// makeCameras puts the level's cameras in the world, facing their yaw. A
// camera that cannot have a wire id is left out (a room that full has no
// eyes to spare).
func (s *System) makeCameras() {
	s.cams = s.cams[:0]
	for i := range s.level.Cameras {
		c := &s.level.Cameras[i]
		pos := components.Vec3{X: c.Pos.X, Y: c.Pos.Y, Z: s.level.Ground.Height + CameraMount}
		e, err := s.build.Camera(int16(i), pos, c.Yaw)
		if err != nil {
			e = ecs.Entity{}
		}
		s.cams = append(s.cams, e)
	}
}

// repairCameras puts every camera back on, whole and facing its yaw, for a
// level reset; one that is gone is made again.
func (s *System) repairCameras(w *ecs.World) {
	if !s.started {
		return // the first Update makes them
	}
	for i, e := range s.cams {
		if e.IsZero() || !w.Arche.Alive(e) {
			c := &s.level.Cameras[i]
			pos := components.Vec3{X: c.Pos.X, Y: c.Pos.Y, Z: s.level.Ground.Height + CameraMount}
			if ne, err := s.build.Camera(int16(i), pos, c.Yaw); err == nil {
				s.cams[i] = ne
			}
			continue
		}
		h := s.health.Get(e)
		h.HP = h.Max
		s.flags.Get(e).Bits = 0
		*s.camera.Get(e) = components.Camera{Index: int16(i)}
		s.poses.Get(e).Rot = components.YawQuat(s.level.Cameras[i].Yaw)
	}
}

// CameraYaw returns the heading camera c faces ticks after the room began:
// its yaw, turned by its sweep either way along a sine of its period.
func CameraYaw(c *levels.Camera, ticks uint64) float32 {
	if c.Sweep <= 0 || c.Period <= 0 {
		return c.Yaw
	}
	period := uint64(math32.Round(c.Period * ecs.TickRate))
	phase := float32(ticks%max(period, 1)) / float32(max(period, 1))
	return c.Yaw + c.Sweep*math32.Sin(2*math32.Pi*phase)
}

// runCameras turns every working camera and runs its look when due, its
// FlagAlert on while its last look had a player in view. A camera shot out
// (Health 0) is still, blind and FlagWrecked; its break goes in the book
// once (its Spot is -1 from then until a reset).
func (s *System) runCameras(w *ecs.World) {
	tick := w.Tick()
	for i, e := range s.cams {
		if e.IsZero() || !w.Arche.Alive(e) {
			continue
		}
		lc := &s.level.Cameras[i]
		cam := s.camera.Get(e)
		fl := s.flags.Get(e)
		if s.health.Get(e).HP == 0 {
			fl.Bits = components.FlagWrecked
			if cam.Spot >= 0 { // not booked yet
				s.book.Add(book.Entry{Tick: tick, What: book.Broken, Pos: s.poses.Get(e).Pos, By: s.ids.Get(e).WireID, Camera: int16(i)})
				*cam = components.Camera{Index: int16(i), Spot: -1}
			}
			continue
		}
		yaw := CameraYaw(lc, tick)
		pose := s.poses.Get(e)
		pose.Rot = components.YawQuat(yaw)
		if (tick+uint64(i))%max(s.Tuning.LookEvery, 1) != 0 {
			continue
		}
		s.cameraLook(w, i, e, cam, phys.Flat(pose.Pos), yaw)
		if cam.Seen == tick+1 {
			fl.Bits |= components.FlagAlert
		} else {
			fl.Bits &^= components.FlagAlert
		}
	}
}

// cameraLook runs one camera's look: the player most in view builds its
// Spot up; at 1 the player is spotted (once while kept in view): the
// book, the room's alert, and the sentries within CameraCall of the player
// called to it.
func (s *System) cameraLook(w *ecs.World, i int, e ecs.Entity, cam *components.Camera, eye phys.Vec, yaw float32) {
	tick := w.Tick()
	t := &s.Tuning
	lc := &s.level.Cameras[i]
	dt := float32(t.LookEvery) * ecs.Dt
	fwd := phys.Vec{X: math32.Cos(yaw), Y: math32.Sin(yaw)}
	var best *target
	bestRate, cut := float32(0), false
	r := lc.Range
	x0, y0, x1, y1 := s.targets.Range(eye.Sub(nav.Vec{X: r, Y: r}), eye.Add(nav.Vec{X: r, Y: r}))
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			for _, k := range s.targets.Cell(x, y) {
				tg := &s.players[k]
				if s.sheltered(tg, false) {
					continue
				}
				dist := tg.pos.Sub(eye).Len()
				if dist > r || !inCone(eye, fwd, tg.pos, lc.Arc/2) {
					continue
				}
				vis, ok := s.sight(w, eye, tg, e, false)
				if !ok {
					cut = true
					break // no rays left this tick
				}
				rate := t.CameraRate / t.BaseRate * t.Rate(dist, r, s.light, vis)
				if rate <= 0 {
					continue
				}
				s.stateOf(tg.e).cameraUntil = tick + t.LookEvery + 1
				if !tg.entering.IsZero() && s.inBay(tg.entering) {
					s.theft(w, tg, tg.entering, s.ids.Get(e).WireID, int16(i))
				}
				if rate > bestRate || (rate == bestRate && tg.e == cam.Target) {
					best, bestRate = tg, rate
				}
			}
		}
	}
	if best == nil && cut {
		return // a look that saw nothing for want of rays is no look
	}
	if best == nil {
		cam.Spot = max(cam.Spot-t.CameraDecay*dt, 0)
		if cam.Spot == 0 {
			cam.Target = ecs.Entity{}
		}
		return
	}
	cam.Seen = tick + 1
	if best.e != cam.Target {
		cam.Target, cam.Spot = best.e, 0
	}
	was := cam.Spot
	cam.Spot = min(cam.Spot+bestRate*dt, 1)
	if cam.Spot >= 1 && was < 1 {
		s.record(w, book.Spotted, best, s.ids.Get(e).WireID, int16(i))
		s.raise(w, best)
		s.call(w, best.pos, t.CameraCall, best, ecs.Entity{})
	}
}

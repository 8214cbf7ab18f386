package stealth

import (
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
)

// Readout is what the stealth tells a debug client: the room's alert and
// the light, and every sentry and camera with what it sees.
type Readout struct {
	Tick uint64
	// Alert is the room's alert, up since AlertSince.
	Alert      bool
	AlertSince uint64
	// Light is the light the sentries see by (1 by day).
	Light float32
	// Entries is how many entries the book was ever written (book.Total).
	Entries uint64
	// Sentries are the sentries by wire id, Cameras the level's cameras
	// in its order.
	Sentries []SentryState
	Cameras  []CameraState
}

// SentryState is one sentry in the readout.
type SentryState struct {
	WireID    uint16
	Phase     components.SentryPhase
	Suspicion float32
	Target    uint16 // its target's wire id, 0 none
	// X, Y and Yaw are where it stands and faces; Range (m) and Cone
	// (rad, half its field of view) what it sees now.
	X, Y, Yaw   float32
	Range, Cone float32
}

// CameraState is one camera in the readout.
type CameraState struct {
	WireID uint16 // 0 when the room had no wire id to give it
	ID     string // the level's id
	// X, Y and Yaw are where it hangs and faces now; Arc (rad) and Range
	// (m) what it sees.
	X, Y, Yaw, Arc, Range float32
	Broken                bool
	Target                uint16  // the player in view, 0 none
	Spot                  float32 // how near it is to spotting them (1)
}

// Readout fills r with the state after the last tick, reusing r's lists.
func (s *System) Readout(r *Readout) {
	w := s.world
	r.Tick = w.Tick()
	r.Alert, r.AlertSince = s.book.Alert()
	r.Light = s.light
	r.Entries = s.book.Total()
	r.Sentries = r.Sentries[:0]
	for _, sn := range s.sentries {
		if !w.Arche.Alive(sn.e) {
			continue
		}
		se := s.sentryOf.Get(sn.e)
		p := s.poses.Get(sn.e)
		r.Sentries = append(r.Sentries, SentryState{
			WireID: sn.wid, Phase: se.Phase, Suspicion: se.Suspicion, Target: s.wireOf(w, se.Target),
			X: p.Pos.X, Y: p.Pos.Y, Yaw: p.Rot.Yaw(), Range: s.Tuning.RangeAt(s.light), Cone: s.Tuning.ConeHalf,
		})
	}
	r.Cameras = r.Cameras[:0]
	for i, e := range s.cams {
		lc := &s.level.Cameras[i]
		c := CameraState{ID: lc.ID, X: lc.Pos.X, Y: lc.Pos.Y, Yaw: lc.Yaw, Arc: lc.Arc, Range: lc.Range}
		if !e.IsZero() && w.Arche.Alive(e) {
			cam := s.camera.Get(e)
			c.WireID = s.ids.Get(e).WireID
			c.Yaw = s.poses.Get(e).Rot.Yaw()
			c.Broken = s.health.Get(e).HP == 0
			c.Target, c.Spot = s.wireOf(w, cam.Target), max(cam.Spot, 0)
		}
		r.Cameras = append(r.Cameras, c)
	}
}

// wireOf returns e's wire id, 0 when it is gone.
func (s *System) wireOf(w *ecs.World, e ecs.Entity) uint16 {
	if e.IsZero() || !w.Arche.Alive(e) {
		return 0
	}
	if id := s.ids.Get(e); id != nil {
		return id.WireID
	}
	return 0
}

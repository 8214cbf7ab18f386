package stealth

import (
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/prefab"
	"github.com/fiveonit/engine/systems/stealth/book"
	"github.com/mlange-42/arche/generic"
)

// crimesOf steps r n ticks and returns the CrimeRestricted crimes of p.
func crimesOf(r *rig, p ecs.Entity, n int) int {
	k := 0
	for range n {
		r.Step(1)
		for _, c := range r.W.Crimes {
			if c.Kind == components.CrimeRestricted && c.Offender == p {
				k++
			}
		}
	}
	return k
}

// TestCameraSpots: a player kept in a camera's view is spotted: the book,
// the room's alert, the guard near them called, their crime (the lot is a
// watched restricted zone) filed once; the camera shows it has them in
// view. A player out of its arc is not seen.
func TestCameraSpots(t *testing.T) {
	r := newRig(t, 12)
	g := r.guard(35, 20, -1.57) // in the lot, facing away from the player
	far := r.guard(-80, -80, 0)
	hidden := r.player(50, 20) // north of the camera, out of its arc
	p := r.player(40, 0)       // west of it, in its arc, 18 m off
	if n := crimesOf(r, p, 3*ecs.TickRate); n != 1 {
		t.Fatalf("%d crimes filed, want 1", n)
	}
	e, ok := r.s.book.Last(p, book.Spotted)
	if !ok || e.Camera != 0 || e.By == 0 {
		t.Fatalf("spotted entry %+v", e)
	}
	if on, _ := r.s.book.Alert(); !on {
		t.Error("the room's alert is down")
	}
	if se := r.sentryOf.Get(g); se.Phase != components.SentryAlert || !se.Called || se.Target != p {
		t.Errorf("the guard near: %+v", *se)
	}
	if se := r.sentryOf.Get(far); se.Phase != components.SentryIdle {
		t.Errorf("the guard far: %s", se.Phase)
	}
	if _, camera, _ := r.s.PlayerSeen(p); !camera {
		t.Error("the player is not seen by the camera")
	}
	if _, camera, _ := r.s.PlayerSeen(hidden); camera || r.s.book.SeenSince(hidden, 0) {
		t.Error("the player out of the arc is seen")
	}
	flags := generic.NewMap1[components.Flags](r.W.Arche)
	if flags.Get(r.s.cams[0]).Bits&components.FlagAlert == 0 {
		t.Error("the camera does not show it has someone in view")
	}
}

// TestCameraBreaks: a camera at 0 health (shot out) is blind and still,
// its break booked once; a level reset puts it back whole and on, empties
// the book and makes the sentries idle.
func TestCameraBreaks(t *testing.T) {
	r := newRig(t, 12)
	g := r.guard(35, 20, 1.57) // faces away from the player
	r.Step(1)
	cam := r.s.cams[0]
	health := generic.NewMap1[components.Health](r.W.Arche)
	flags := generic.NewMap1[components.Flags](r.W.Arche)
	health.Get(cam).HP = 0
	r.Step(1)
	pose, _ := r.poses.Get(cam)
	still := pose.Rot
	p := r.player(40, 0)
	r.Step(3 * ecs.TickRate)
	if flags.Get(cam).Bits != components.FlagWrecked {
		t.Errorf("broken camera flags %#x", flags.Get(cam).Bits)
	}
	if pose.Rot != still {
		t.Error("a broken camera turns")
	}
	if _, camera, _ := r.s.PlayerSeen(p); camera || r.s.book.SeenSince(p, 0) {
		t.Error("a broken camera sees")
	}
	broken := 0
	for i := range r.s.book.Len() {
		if e := r.s.book.At(i); e.What == book.Broken && e.Camera == 0 {
			broken++
		}
	}
	if broken != 1 {
		t.Fatalf("%d breaks booked, want 1", broken)
	}

	// The guard is sent after the player, the book fills; then a reset.
	r.s.book.Raise(r.W.Tick())
	se := r.sentryOf.Get(g)
	se.Phase, se.Target = components.SentryAlert, p
	r.s.book.MarkStolen(p)
	r.s.ResetLevel()
	r.move(p, -90, -90)
	r.Step(1)
	if h := health.Get(cam); h.HP != prefab.CameraHP || flags.Get(cam).Bits != 0 {
		t.Errorf("after the reset: camera health %d, flags %#x", h.HP, flags.Get(cam).Bits)
	}
	if r.s.book.Len() != 0 || r.s.book.Stolen(p) {
		t.Error("the book is not empty")
	}
	if on, _ := r.s.book.Alert(); on {
		t.Error("the alert is up")
	}
	if se := r.sentryOf.Get(g); se.Phase != components.SentryIdle || !se.Target.IsZero() {
		t.Errorf("sentry after the reset %+v", *se)
	}
	r.Step(int(r.Level.Cameras[0].Period * ecs.TickRate / 4))
	if pose.Rot == still {
		t.Error("the camera does not turn after the reset")
	}
	r.move(p, 40, 0)
	r.Step(3 * ecs.TickRate)
	if _, ok := r.s.book.Last(p, book.Spotted); !ok {
		t.Error("the repaired camera does not see")
	}
}

package prefab_test

import (
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/prefab"
)

// TestGuardSees: a guard comes with a Sentry, idle at its home, and a
// Chaser with no target; other NPC people have neither.
func TestGuardSees(t *testing.T) {
	w, b := newNPCWorld(t)
	pos := components.Vec3{X: 3, Y: 4}
	g, err := b.NPCPerson(components.KindGuard, components.RoleGuard, 2, pos, 1.5)
	if err != nil {
		t.Fatal(err)
	}
	s := comp[components.Sentry](w, g)
	if s == nil || s.Phase != components.SentryIdle || s.Home != pos || s.HomeYaw != 1.5 || !s.Target.IsZero() {
		t.Fatalf("sentry %+v", s)
	}
	if c := comp[components.Chaser](w, g); c == nil || !c.Target.IsZero() {
		t.Fatalf("chaser %+v", c)
	}
	if !comp[components.Replicated](w, g).Always {
		t.Error("a guard is not sent to every client")
	}
	civ, err := b.NPCPerson(components.KindPedestrian, components.RoleCivilian, 1, pos, 0)
	if err != nil {
		t.Fatal(err)
	}
	if comp[components.Sentry](w, civ) != nil || comp[components.Chaser](w, civ) != nil {
		t.Error("a civilian sees")
	}
}

// TestCamera: a camera is a replicated entity of its kind, facing its yaw,
// whole, and a body the rounds find but nothing collides with.
func TestCamera(t *testing.T) {
	w, b := newNPCWorld(t)
	e, err := b.Camera(3, components.Vec3{X: 10, Y: -2, Z: 0}, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if *comp[components.Kind](w, e) != components.KindCamera || comp[components.Identity](w, e).WireID == 0 {
		t.Fatal("not a replicated camera")
	}
	if c := comp[components.Camera](w, e); c == nil || c.Index != 3 {
		t.Fatalf("camera %+v", c)
	}
	if y := comp[components.Pose](w, e).Rot.Yaw(); y < 0.49 || y > 0.51 {
		t.Errorf("faces %g, want 0.5", y)
	}
	if h := comp[components.Health](w, e); h.HP != prefab.CameraHP || h.Max != prefab.CameraHP {
		t.Errorf("health %+v", *h)
	}
	if body := comp[components.Body](w, e); body.Mask != 0 || body.Radius != prefab.CameraRadius {
		t.Errorf("body %+v", *body)
	}
	if comp[components.Drive](w, e) != nil || comp[components.Seats](w, e) != nil || comp[components.SeatedIn](w, e) != nil {
		t.Error("a camera has what the physics steps")
	}
}

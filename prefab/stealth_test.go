package prefab_test

import (
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs/ecstest"
	"github.com/fiveonit/engine/prefab"
)

// TestGuardSees: a guard comes with a Sentry, idle at its home, and a
// Chaser with no target; other NPC people have neither.
func TestGuardSees(t *testing.T) {
	w, b := world(t)
	pos := components.Vec3{X: 3, Y: 4}
	g, err := b.NPCPerson(components.KindGuard, components.RoleGuard, 2, pos, 1.5)
	if err != nil {
		t.Fatal(err)
	}
	s := ecstest.Get[components.Sentry](w, g)
	if s == nil || s.Phase != components.SentryIdle || s.Home != pos || s.HomeYaw != 1.5 || !s.Target.IsZero() {
		t.Fatalf("sentry %+v", s)
	}
	if c := ecstest.Get[components.Chaser](w, g); c == nil || !c.Target.IsZero() {
		t.Fatalf("chaser %+v", c)
	}
	if !ecstest.Get[components.Replicated](w, g).Always {
		t.Error("a guard is not sent to every client")
	}
	civ, err := b.NPCPerson(components.KindPedestrian, components.RoleCivilian, 1, pos, 0)
	if err != nil {
		t.Fatal(err)
	}
	if ecstest.Get[components.Sentry](w, civ) != nil || ecstest.Get[components.Chaser](w, civ) != nil {
		t.Error("a civilian sees")
	}
}

// TestCamera: a camera is a replicated entity of its kind, facing its yaw,
// whole, and a body the rounds find but nothing collides with.
func TestCamera(t *testing.T) {
	w, b := world(t)
	e, err := b.Camera(3, components.Vec3{X: 10, Y: -2, Z: 0}, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if *ecstest.Get[components.Kind](w, e) != components.KindCamera || ecstest.Get[components.Identity](w, e).WireID == 0 {
		t.Fatal("not a replicated camera")
	}
	if c := ecstest.Get[components.Camera](w, e); c == nil || c.Index != 3 {
		t.Fatalf("camera %+v", c)
	}
	if y := ecstest.Get[components.Pose](w, e).Rot.Yaw(); y < 0.49 || y > 0.51 {
		t.Errorf("faces %g, want 0.5", y)
	}
	if h := ecstest.Get[components.Health](w, e); h.HP != prefab.CameraHP || h.Max != prefab.CameraHP {
		t.Errorf("health %+v", *h)
	}
	if body := ecstest.Get[components.Body](w, e); body.Mask != 0 || body.Radius != prefab.CameraRadius {
		t.Errorf("body %+v", *body)
	}
	if ecstest.Get[components.Drive](w, e) != nil || ecstest.Get[components.Seats](w, e) != nil || ecstest.Get[components.SeatedIn](w, e) != nil {
		t.Error("a camera has what the physics steps")
	}
}

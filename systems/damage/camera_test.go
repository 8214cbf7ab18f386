package damage_test

import (
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/ecs/ecstest"
	"github.com/fiveonit/engine/prefab"
)

// TestShootOutCamera: a player's rounds find a camera; at 0 health it is
// marked wrecked (shot out), and it does not blow up as a wrecked car does.
func TestShootOutCamera(t *testing.T) {
	r := rig(t, ecs.FreeRoam())
	cam, err := r.B.Camera(0, components.Vec3{X: 20, Y: 0, Z: 3}, 3.14)
	if err != nil {
		t.Fatal(err)
	}
	p := r.Character(t, 0, 0, 0)
	r.Inputs = append(r.Inputs, p)
	r.Give(t, p, "pistol", 1)
	r.Give(t, p, "pistol-ammo", 60)
	r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) {
		if tick == 1 {
			d.Pressed |= components.BtnWeapon
		}
		if tick > 2 {
			d.Held |= components.BtnFire
		}
	}
	var hits int
	for range 3 * ecs.TickRate {
		r.W.Step()
		for _, ev := range r.W.Events {
			if ev.Kind == components.EventHit && ev.Target == cam {
				hits++
			}
		}
	}
	if h := ecstest.Get[components.Health](r.W, cam); h.HP != 0 {
		t.Fatalf("the camera has %d of %d hp after %d hits", h.HP, prefab.CameraHP, hits)
	}
	if f := ecstest.Get[components.Flags](r.W, cam); f.Bits&components.FlagWrecked == 0 {
		t.Error("a camera shot out is not marked wrecked")
	}
	if r.Damage.Pending() != 0 {
		t.Error("a camera shot out waits to explode")
	}
}

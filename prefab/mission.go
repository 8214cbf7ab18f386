package prefab

import (
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
)

// ChaserCar makes a mission's enemy car: a car (KindCar) of model at pos
// facing yaw, headlights on, with a guard (KindGuard) at the wheel, chasing
// target (a player's character) from tick on. The car carries the Chaser
// the AI drives after target, and both carry NPC{RoleGuard}. It has the
// police car's archetype, so that the AI and the warm-up treat it alike.
func (b *Builder) ChaserCar(model uint8, pos components.Vec3, yaw float32, target ecs.Entity, tick uint64) (car, driver ecs.Entity, err error) {
	e := b.newVehicle(b.arch.of[Vehicle], components.KindCar, model, pos, yaw, components.FlagHeadlights, true)
	b.police.Assign(e, &components.NPC{Role: components.RoleGuard, Spawner: -1, Lane: -1},
		&components.Chaser{Target: target, Since: tick})
	if car, err = b.replicate(e); err != nil {
		return ecs.Entity{}, ecs.Entity{}, err
	}
	driver, err = b.NPCPerson(components.KindGuard, components.RoleGuard, -1, pos, yaw)
	if err != nil {
		b.w.Despawn(car)
		return ecs.Entity{}, ecs.Entity{}, err
	}
	b.seatDriver(car, driver)
	return car, driver, nil
}

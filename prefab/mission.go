package prefab

import (
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/physics"
)

// ChaserCar makes a mission's enemy car: a car (KindCar) of model at pos
// facing yaw, headlights on, with a guard (KindGuard) at the wheel, chasing
// target (a player's character) from tick on. The car carries the Chaser
// the AI drives after target, and both carry NPC{RoleGuard}. It has the
// police car's archetype, so that the AI and the warm-up treat it alike.
func (b *Builder) ChaserCar(model uint8, pos components.Vec3, yaw float32, target ecs.Entity, tick uint64) (car, driver ecs.Entity, err error) {
	spec := physics.CarModel(model)
	body := spec.Body()
	kind := components.KindCar
	e := b.vehicle.NewWith(&kind, &components.Identity{Model: model}, &components.Pose{Pos: pos, Rot: components.YawQuat(yaw)},
		&components.Velocity{}, &components.Drive{}, &components.Health{HP: VehicleHP, Max: VehicleHP},
		&components.Flags{Bits: components.FlagHeadlights}, &body,
		&components.Seats{Count: Seats(model)}, &components.Replicated{Always: true}, &components.CarLock{})
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

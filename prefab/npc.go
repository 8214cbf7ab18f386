package prefab

import (
	"fmt"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
)

// The NPCs the AI world runs are the entities above with a components.NPC
// added (one Assign, so every NPC of a kind has the same archetype):
//
//	traffic car:    the vehicle's and NPC
//	traffic driver: the person's and NPC, seated in its car's seat 0
//	pedestrian:     the person's and NPC
//
// NPC.Spawner is -1 on all of them: the AI keeps their numbers itself.

// TrafficCar makes an ambient car of car model model at pos facing yaw,
// with an NPC driver (a KindPedestrian of RoleTraffic, model driverModel)
// seated at its wheel, and gives both wire ids. Both carry an NPC of
// RoleTraffic following lane (an index into the level's Roads.Lanes, -1
// none). If the driver cannot be made the car is removed again.
func (b *Builder) TrafficCar(model, driverModel uint8, pos components.Vec3, yaw float32, lane int32) (car, driver ecs.Entity, err error) {
	car, err = b.Vehicle(components.KindCar, model, pos, yaw, ecs.Entity{})
	if err != nil {
		return ecs.Entity{}, ecs.Entity{}, err
	}
	driver, err = b.Person(components.KindPedestrian, driverModel, pos, yaw)
	if err != nil {
		b.w.Despawn(car)
		return ecs.Entity{}, ecs.Entity{}, err
	}
	b.npc.Assign(car, &components.NPC{Role: components.RoleTraffic, Spawner: -1, Lane: lane})
	b.npc.Assign(driver, &components.NPC{Role: components.RoleTraffic, Spawner: -1, Lane: lane})
	b.seatDriver(car, driver)
	return car, driver, nil
}

// Pedestrian makes an ambient pedestrian (KindPedestrian) of role (a
// walker, jogger, idler or civilian) and model on foot at pos facing yaw,
// following pavement pav (an index into the level's Pavements, -1 none)
// from along metres along it, and gives it a wire id.
func (b *Builder) Pedestrian(role components.NPCRole, model uint8, pos components.Vec3, yaw float32, pav int32, along float32) (ecs.Entity, error) {
	switch role {
	case components.RoleWalker, components.RoleJogger, components.RoleIdler, components.RoleCivilian:
	default:
		return ecs.Entity{}, fmt.Errorf("prefab: NPC role %d is not a pedestrian's", role)
	}
	e, err := b.Person(components.KindPedestrian, model, pos, yaw)
	if err != nil {
		return ecs.Entity{}, err
	}
	b.npc.Assign(e, &components.NPC{Role: role, Spawner: -1, Lane: pav, Along: along})
	return e, nil
}

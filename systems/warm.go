package systems

import (
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/prefab"
	"github.com/fiveonit/engine/systems/ai"
	arche "github.com/mlange-42/arche/ecs"
)

// warmCrowd is how many NPC people Warm makes room for: more than a city
// room's pedestrians, traffic drivers and spawned NPCs together (city-64
// has about 250).
const warmCrowd = 512

// warmKind is one of prefab's archetypes (see package prefab) with the
// components the systems add to and remove from its entities while the game
// runs.
type warmKind struct {
	base  []arche.ID
	extra []arche.ID
}

// Warm makes in w, before its first tick, every archetype the systems move
// entities between, and arche's steps from each to the next. arche makes an
// archetype (and its storage) the first time an entity needs it, and caches
// each step (one component added or removed) the first time it is taken:
// in play that is in the middle of a tick, minutes in (the first police car
// recalled, the first carjacked traffic car, the first player ghost who
// holds a key, the first grenade thrown), and each is an allocation. Warm
// takes them all up front: for each of prefab's archetypes and each
// combination of the components the systems add and remove on it (the AI's
// NPC and Route, the police's Chaser on a vehicle; a trailer's TrailerLink;
// the gates' Keys and the respawn's Ghost on a character; none on a loose
// item, a container or a thrown grenade), it makes a bare entity, adds and
// removes each of those components once, and removes the entity; so too a
// guard (an NPC person given its Sentry and Chaser in one step) and a
// camera. No
// entity, wire id or event stays; what stays is about 20 archetypes'
// storage (arche's first capacity, 128 entities, each), most of which a
// city room makes anyway.
func Warm(w *ecs.World) {
	a := w.Arche
	id := func(ids ...arche.ID) []arche.ID { return ids }
	// prefab's lists: a component added to a kind there is warmed here.
	vehicle := prefab.Components(w, prefab.Vehicle)
	person := prefab.Components(w, prefab.Person)
	character := prefab.Components(w, prefab.Character)
	item := prefab.Components(w, prefab.Item)
	thrown := prefab.Components(w, prefab.Thrown)
	container := prefab.Components(w, prefab.Container)
	npc, route := arche.ComponentID[components.NPC](a), arche.ComponentID[ai.Route](a)
	kinds := []warmKind{
		{base: vehicle, extra: id(npc, route, arche.ComponentID[components.Chaser](a))},
		{base: vehicle, extra: id(arche.ComponentID[components.TrailerLink](a))},
		{base: person, extra: id(npc)},
		{base: character, extra: id(arche.ComponentID[components.Keys](a), arche.ComponentID[components.Ghost](a))},
		{base: item}, {base: thrown}, {base: container},
	}
	// A guard is made an NPC person, then given its Sentry and Chaser in
	// one step; a camera is made whole.
	guard := append(id(npc), person...)
	e := a.NewEntity(guard...)
	a.Add(e, arche.ComponentID[components.Sentry](a), arche.ComponentID[components.Chaser](a))
	a.RemoveEntity(e)
	camera := prefab.Components(w, prefab.Camera)
	a.RemoveEntity(a.NewEntity(camera...))
	// The crowd (pedestrians, traffic drivers, the spawners' NPCs) shares
	// one archetype, and a busy city's grows past arche's doubling steps
	// in play: its storage is made for warmCrowd of them now.
	crowd := make([]arche.Entity, warmCrowd)
	for i := range crowd {
		crowd[i] = a.NewEntity(append(id(npc), person...)...)
	}
	for _, e := range crowd {
		a.RemoveEntity(e)
	}
	var ids []arche.ID
	for _, k := range kinds {
		for set := 0; set < 1<<len(k.extra); set++ {
			ids = append(ids[:0], k.base...)
			for i, c := range k.extra {
				if set&(1<<i) != 0 {
					ids = append(ids, c)
				}
			}
			e := a.NewEntity(ids...)
			for i, c := range k.extra {
				if set&(1<<i) == 0 {
					a.Add(e, c)
					a.Remove(e, c)
				}
			}
			a.RemoveEntity(e)
		}
	}
}

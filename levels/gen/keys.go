package main

import "github.com/fiveonit/engine/levels"

// keys puts the yard's keys where players find them in play: one on the
// park's grass (the way into the yard from outside), one in a yard crate
// and one on each yard guard (dropped where the guard falls), so the yard's
// gate, locker and vans are reachable without debug commands.
func (b *builder) keys() {
	p := lotArea(parkBlock[0], parkBlock[1])
	b.l.Pickups = append(b.l.Pickups, levels.Pickup{Item: "yard-key", Count: 1, Pos: v(p.x1-10, p.y1-10)})
	key := []levels.Stack{{Item: "yard-key", Count: 1}}
	for i := range b.l.Containers {
		if c := &b.l.Containers[i]; c.ID == "yard-crate-2" {
			c.Items = append(c.Items, key...)
		}
	}
	for i := range b.l.NPCSpawners {
		if n := &b.l.NPCSpawners[i]; n.ID == "yard-guards" {
			n.Items = key
		}
	}
}

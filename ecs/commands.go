package ecs

import arche "github.com/mlange-42/arche/ecs"

// Commands records structural changes (creating or removing entities,
// adding or removing components) for later, because arche panics on them
// while a query is open. The schedule applies the buffer after each system
// (Schedule.Run); World.Step applies it once more at the end of the tick.
//
// Recorded changes apply in the order they were recorded. A function run by
// Apply may record more; they apply in the same Apply. Recording a removal
// allocates nothing once the buffer has grown; Do stores a func value, so a
// closure that captures variables allocates: use it for rare events (a
// spawn, a carjack), not for every entity every tick.
type Commands struct {
	ops []command
}

type command struct {
	remove arche.Entity
	fn     func(*World)
}

// Remove records the removal of e (World.Despawn: its wire id is freed).
// Removing an entity already gone does nothing.
func (c *Commands) Remove(e arche.Entity) {
	c.ops = append(c.ops, command{remove: e})
}

// Do records fn, to run with the world unlocked.
func (c *Commands) Do(fn func(w *World)) {
	c.ops = append(c.ops, command{fn: fn})
}

// Len returns the number of changes waiting.
func (c *Commands) Len() int { return len(c.ops) }

// Apply makes the recorded changes, in order, and empties the buffer. It
// must be called with no query open.
func (c *Commands) Apply(w *World) {
	for i := 0; i < len(c.ops); i++ {
		op := c.ops[i]
		if op.fn != nil {
			op.fn(w)
			continue
		}
		w.Despawn(op.remove)
	}
	clear(c.ops) // drop the func values for the garbage collector
	c.ops = c.ops[:0]
}

// Package ecs is the engine's simulation world: an arche ECS world
// (github.com/mlange-42/arche, generic API) with the resources every system
// shares (the level, the rules, the room clock, a seeded random source), the
// wire id allocator, a command buffer for structural changes and the ordered
// schedule of systems.
//
// # Two rules of arche every system must keep
//
//  1. Structural changes while a query is open panic ("locked world"):
//     creating or removing an entity, adding or removing a component. A system
//     that wants one while it iterates records it in [World.Cmd]; the schedule
//     applies the buffer after each system returns (see [Schedule.Run]). A
//     system that finishes its loops first may make the change directly.
//  2. A pointer from Get (or a query's Get) is stale after any structural
//     change: read it, use it, and fetch it again after a change.
//
// Close a query you leave early (q.Close()); a query run to its end closes
// itself. Removing an entity moves another into its slot: iteration order is
// stable for the same operations, but it is not creation order. Where order
// changes the outcome, sort by wire id. Never iterate a Go map in simulation
// code. A World is not safe for concurrent use: one room, one goroutine.
package ecs

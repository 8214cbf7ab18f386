// Package physics is the engine's physics: the vehicle, walking and collision
// models and the fixed 1/60 s step, in float32, with no ECS.
//
// It is stateless in the manner of Unity Physics: a body is components, not
// an object living inside an engine. Its components are a
// [components.Pose], a [components.Velocity] and a [components.Body]. Each
// tick an adapter (systems/motion) gathers the bodies into a flat [Bodies]
// list. The models ([DriveCar], [DriveTrailer], [DriveWalker]) turn each
// body's Drive into velocity. [Step] collides and solves the whole list and
// integrates it, and the adapter writes the poses and velocities back.
// Nothing is remembered between steps except reused buffers ([Scratch]), so
// a client replays its own inputs with the same functions.
//
// The world is a plane: Z is up, and only a heading (yaw about +Z) rotates a
// body. So collision is two-dimensional on the ground ([Vec]). Static level
// geometry, the convex building polygons and the walls at the level's edge,
// is baked once into a [Static] with its own grid.
//
// # Determinism
//
// Every step is a fixed sequence of float32 operations over bodies in index
// order: no maps, no goroutines, and contacts generated and solved in the
// order of their body index pairs. The same inputs give bit-identical
// results on one architecture. Across architectures, the Go compiler may
// fuse x*y+z into one FMA instruction, which rounds differently. It does so
// on arm64, ppc64 and s390x, and on amd64 with GOAMD64=v3. The server and
// the clients, built with the default GOAMD64=v1 and for wasm, do not fuse.
//
// # The step
//
// [Step] runs, in order:
//  1. A broad phase: a uniform grid, hashed into a table sized by the body
//     count, with a list per bucket filed in one pass into reused buffers.
//     The pairs found are ordered by a counting sort. The static level's
//     grid is baked once.
//  2. A narrow phase: oriented boxes and circles against each other, and
//     against the static convex polygons and the level's edge. Speculative
//     contacts keep fast bodies from tunnelling.
//  3. A sequential-impulse solver: friction, restitution, and accumulated
//     impulses clamped. Split impulses remove overlap: they move positions
//     without adding kinetic energy. Trailer hitches are point constraints.
//  4. The integration.
//
// It allocates nothing once its buffers have grown.
package physics

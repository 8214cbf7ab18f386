// Package components holds the engine's component types: plain data with no
// pointers and no logic. Systems (package systems/...) hold the logic. The
// physics models (package physics) read and write [Pose], [Velocity] and
// [Drive].
//
// Conventions, used by every package:
//   - Units are metres, seconds, radians and kilograms.
//   - Z is up, and the ground is a plane. X is east and Y is north.
//   - A heading (yaw) of 0 faces +X and grows counter-clockwise seen from
//     above. Every rotation in the simulation is a rotation about +Z, so a
//     [Quat] is (0, 0, sin(yaw/2), cos(yaw/2)). [YawQuat] builds one.
//   - A link to another entity is an arche [ecs.Entity], never a Go
//     pointer. An Entity is a value of index and generation, and the zero
//     Entity means none.
package components

// Package levels is the level format of the engine: the Go types of a level
// (ground, buildings, road graph, pavements, spawn points, zones, gates,
// spawners, shops, containers), a strict JSON loader whose errors name the
// file, the JSON path and the problem, the levels shipped with the engine
// (embedded: main-city and test-flat) and small deterministic lookups for
// the systems (lanes out of a node, the nearest lane or spawn point, the
// building or zone at a point).
//
// FORMAT.md in this directory describes every field of the JSON format.
//
// Conventions are the engine's (package components): metres, seconds and
// radians; X east, Y north; a yaw of 0 faces +X (east) and grows
// counter-clockwise seen from above. Positions on the ground are Vec2
// (float32); the height of everything is the ground's plus its own.
//
// main-city.json is written by the generator in gen/ (go generate
// ./levels); do not edit it by hand. A test fails when the committed file
// differs from the generator's output.
//
// The package imports only the standard library, so the client, the bots
// and the tools can read levels without the server.
package levels

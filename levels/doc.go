// Package levels is the level format of the engine. It holds:
//   - the Go types of a [Level]: ground, buildings, road graph and its
//     traffic signals, pavements, spawn points, zones, gates, races,
//     spawners, shops and containers;
//   - a strict JSON loader whose errors name the file, the JSON path and the
//     problem;
//   - the levels shipped with the engine, embedded: main-city and
//     test-flat;
//   - small deterministic lookups for the systems: the lanes out of a node,
//     the nearest lane or spawn point, the building or zone at a point;
//   - the traffic signals' plan ([SignalPlan]): what a signal shows at a
//     tick, worked out alike by the server's signals system and the page.
//
// FORMAT.md in this directory describes every field of the JSON format.
//
// The conventions are the engine's, from package components: metres,
// seconds and radians, X east and Y north. A yaw of 0 faces +X (east) and
// grows counter-clockwise seen from above. Positions on the ground are
// float32 [Vec2]. The height of everything is the ground's plus its own.
//
// The generator in gen/ writes main-city.json (go generate ./levels): do
// not edit it by hand. A test fails when the committed file differs from
// the generator's output.
//
// The package imports only the standard library, so the client, the bots
// and the tools can read levels without the server.
package levels

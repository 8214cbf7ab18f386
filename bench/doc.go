// Package bench holds the engine's benchmark suite: the ECS, the physics
// step, whole ticks, netsync, and the peer replay. Figures and the exact
// commands that gave them are in RESULTS.md.
//
//	go test ./bench -run '^$' -bench . -benchmem
package bench

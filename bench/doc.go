// Package bench holds the engine's benchmark suite: the ECS, the physics
// step, whole ticks, the server with 64 clients, city-64, netsync, the
// peer replay and the account store. RESULTS.md gives the current figures and the command that
// gives each. EXPERIMENTS.md lists what was tried and dropped.
//
//	go test ./bench -run '^$' -bench . -benchmem
package bench

//go:build !race

// Package race says whether the race detector is built in. Tests that
// count allocations or play long on one goroutine skip under it: it has
// nothing to find there, and the pass without it runs them.
package race

// Enabled is true in a build with -race.
const Enabled = false

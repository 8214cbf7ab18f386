// Package headroom grows slices ahead of need, so that lists whose length
// creeps up to a new high now and then stop allocating in steady play.
package headroom

import "slices"

// Ahead returns s with room for n more elements. When it must grow, it
// grows by twice the room needed, past its length: a list whose length
// creeps up to a new high now and then (a client's entities, a frame's
// removals, a crowded physics step's contacts) then allocates again only
// once that length has grown as much again, not at every new high as
// append's smaller steps would.
func Ahead[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	return slices.Grow(s, len(s)+2*n)
}

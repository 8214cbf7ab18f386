package netsync

import "slices"

// ahead returns s with room for n more elements. When it must grow, it
// grows to twice the length needed: a list whose length creeps up to a new
// high now and then (a client's entities, a frame's removals, a tick's
// events) then allocates again only once that length has doubled, not at
// every new high as append's smaller steps would, so that a server in
// steady play stops allocating.
func ahead[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	return slices.Grow(s, len(s)+2*n)
}

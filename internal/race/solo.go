package race

import "testing"

// Solo skips t under the race detector. A test calls it first when it
// runs the module's code on its own goroutine alone: no encode workers,
// no transport, no goroutine of its own. The race detector has nothing to
// find there and slows such a test several times over; the pass without
// -race runs it.
func Solo(t testing.TB) {
	t.Helper()
	if Enabled {
		t.Skip("one goroutine: the pass without -race runs it")
	}
}

//go:build !race

package webrtc_test

// raceDetector reports whether the tests run under the race detector,
// which runs the code several times slower: a count of what happened in a
// window of wall time then measures the machine, not the code. The tests
// that count so check their counts only without it, and check the rest
// (every frame, every event, no error) with it too.
const raceDetector = false

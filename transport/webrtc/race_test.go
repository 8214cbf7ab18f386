//go:build race

package webrtc_test

// raceDetector reports whether the tests run under the race detector.
const raceDetector = true

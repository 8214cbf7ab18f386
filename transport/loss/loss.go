// Package loss simulates a lossy network for the client transports' tests
// and the bots: each frame is dropped at random with a fixed probability,
// from a seeded generator, so that a run can be repeated.
package loss

import (
	"fmt"
	"math/rand/v2"
	"sync"
)

// Sim drops frames with probability P. It is safe for concurrent use: a
// connection's reads and sends may run on two goroutines.
type Sim struct {
	p   float64
	mu  sync.Mutex
	rng *rand.Rand
}

// New returns a Sim that drops a frame with probability p, seeded by seed.
// p must be within 0..1 (not NaN).
func New(p float64, seed uint64) (*Sim, error) {
	if !(p >= 0 && p <= 1) {
		return nil, fmt.Errorf("loss %v is not within 0..1", p)
	}
	return &Sim{p: p, rng: rand.New(rand.NewPCG(seed, 0x5eed))}, nil
}

// P returns the probability of a drop (0 for a nil Sim).
func (s *Sim) P() float64 {
	if s == nil {
		return 0
	}
	return s.p
}

// Drop reports whether the next frame is dropped. With P 0 (or a nil Sim)
// it is always false and takes no lock.
func (s *Sim) Drop() bool {
	if s == nil || s.p <= 0 {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rng.Float64() < s.p
}

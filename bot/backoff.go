package bot

import (
	"context"
	"math/rand/v2"
	"time"
)

// Backoff is the schedule of a bot's tries to come back after its
// connection drops: Tries tries, try k (from 0) after a wait of Min·2^k, at
// most Max, less a random share of it up to Jitter, so that bots that
// dropped together do not all dial again at once. The tries count from the
// drop; a new welcome ends them.
type Backoff struct {
	Tries  int
	Min    time.Duration
	Max    time.Duration
	Jitter float64 // 0..1
}

// DefaultBackoff is the schedule of Colyseus's client, 15 tries between
// 0.1 s and 5 s (51 s in all, longer than the 30 s a room holds a place),
// with up to a quarter of each wait taken off at random.
var DefaultBackoff = Backoff{Tries: 15, Min: 100 * time.Millisecond, Max: 5 * time.Second, Jitter: 0.25}

// Delay returns the wait before try k (from 0), its jitter drawn from rng
// (nil: none).
func (b Backoff) Delay(k int, rng *rand.Rand) time.Duration {
	d := b.Min
	for i := 0; i < k && d < b.Max; i++ {
		d *= 2
	}
	d = min(d, b.Max)
	if rng != nil && b.Jitter > 0 {
		d -= time.Duration(rng.Float64() * b.Jitter * float64(d))
	}
	return d
}

// sleep waits d, or until ctx ends with its error.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

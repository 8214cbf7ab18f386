package bot

import (
	"slices"
	"testing"
	"time"
)

// TestRate: each whole second gets the bytes received in it; a second not
// over yet counts for nothing, and a stall across seconds puts its bytes in
// the first of them.
func TestRate(t *testing.T) {
	ms := time.Millisecond
	var r Rate
	steps := []struct {
		now   time.Duration
		total uint64
		due   bool
	}{
		{100 * ms, 500, false},
		{999 * ms, 1000, false},
		{1000 * ms, 1200, true}, // second 0: 1,200
		{1500 * ms, 2000, false},
		{2001 * ms, 3000, true},  // second 1: 1,800
		{5300 * ms, 9000, true},  // a stall: second 2 gets 6,000, seconds 3 and 4 nothing
		{5900 * ms, 9900, false}, // second 5 never closes
	}
	for _, s := range steps {
		if got := r.Due(s.now); got != s.due {
			t.Errorf("at %s: due %v, want %v", s.now, got, s.due)
		}
		r.Add(s.now, s.total)
	}
	if want := []uint32{1200, 1800, 6000, 0, 0}; !slices.Equal(r.Seconds, want) {
		t.Errorf("seconds %v, want %v", r.Seconds, want)
	}
}

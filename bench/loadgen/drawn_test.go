package loadgen

import (
	"testing"
	"time"

	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/internal/race"
)

// TestDrawn: eight bots drive main-city over a 25 ms link for 25 s and
// Drawn samples what they draw every half second. Every band gets
// samples; the p50s are within about five times what they were when the
// test was written (0.20, 0.21 and 0.77 m near, mid and far); no moving
// entity goes 5 s without a pose (1 s then).
func TestDrawn(t *testing.T) {
	race.Solo(t)
	f := newFarm(t, "main-city", ecs.FreeRoam(), 8, each(25*time.Millisecond, 2*time.Millisecond, 0))
	if err := f.Advance(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	var d Drawn
	for range 40 {
		if err := f.Advance(500 * time.Millisecond); err != nil {
			t.Fatal(err)
		}
		f.SampleDrawn(&d)
	}
	near, mid, far := Quantile(d.Near, 0.5), Quantile(d.Mid, 0.5), Quantile(d.Far, 0.5)
	t.Logf("samples %d near, %d mid, %d far; p50 %.2f, %.2f, %.2f m; p99 %.2f, %.2f, %.2f m; gap %.2f s",
		len(d.Near), len(d.Mid), len(d.Far), near, mid, far,
		Quantile(d.Near, 0.99), Quantile(d.Mid, 0.99), Quantile(d.Far, 0.99), d.GapSeconds())
	if len(d.Near) == 0 || len(d.Mid) == 0 || len(d.Far) == 0 {
		t.Fatalf("a band got no samples: %d near, %d mid, %d far", len(d.Near), len(d.Mid), len(d.Far))
	}
	if near > 1 || mid > 1.5 || far > 3 {
		t.Errorf("drawn p50 %.2f, %.2f, %.2f m: want within 1, 1.5 and 3 m", near, mid, far)
	}
	if d.GapSeconds() >= 5 {
		t.Errorf("a moving entity went %.1f s without a pose", d.GapSeconds())
	}
}

package metrics

import (
	"strings"
	"testing"
	"time"

	"github.com/fiveonit/engine/store"
)

// TestStore: the writer's hook and the Accounts' stats come out as the
// foi_store_* series.
func TestStore(t *testing.T) {
	m := New()
	written, stats := m.Store()
	written(3, 80*time.Millisecond, 2*time.Millisecond)
	written(2, 120*time.Millisecond, 3*time.Millisecond)
	stats(func() store.AccountsStats {
		return store.AccountsStats{Held: 7, Pending: 2, Failures: 4, Lost: 1, Invalid: 1}
	})
	body := gather(t, m)
	for _, want := range []string{
		"foi_store_writes_total 5",
		"foi_store_write_wait_seconds_count 2",
		`foi_store_write_wait_seconds_bucket{le="0.1"} 1`,
		"foi_store_save_seconds_count 2",
		"foi_store_held 7",
		"foi_store_pending 2",
		"foi_store_failures_total 4",
		"foi_store_lost_total 2",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("no %q in\n%s", want, body)
		}
	}
}

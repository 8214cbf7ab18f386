package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/fiveonit/engine/store"
)

// StoreBuckets are the account store histograms' buckets (seconds): a
// change waits for the writer's next batch (every 100 ms) and its write.
var StoreBuckets = []float64{.001, .005, .01, .025, .05, .1, .15, .25, .5, 1, 2.5, 5, 10}

// Store publishes the account store's metrics:
//
//	foi_store_write_wait_seconds  histogram  per batch: how long its oldest change waited from its post to its write
//	foi_store_save_seconds        histogram  per batch: how long the store's Save took
//	foi_store_writes_total        counter    account states written
//	foi_store_held                gauge      accounts this process holds
//	foi_store_pending             gauge      accounts with changes not yet written
//	foi_store_failures_total      counter    store calls that failed (each retried)
//	foi_store_lost_total          counter    account states dropped: their lease was lost
//
// It returns the hook for store.AccountsConfig.Written; stats (the
// Accounts' Stats, read when scraped) may be set once the Accounts exist.
func (m *Metrics) Store() (written func(accounts int, oldest, took time.Duration), stats func(func() store.AccountsStats)) {
	wait := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "foi_store_write_wait_seconds",
		Help: "Per batch of the account store's writer: how long its oldest change waited from its post to its write.", Buckets: StoreBuckets})
	save := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "foi_store_save_seconds",
		Help: "Per batch of the account store's writer: how long the store's Save took.", Buckets: StoreBuckets})
	writes := prometheus.NewCounter(prometheus.CounterOpts{Name: "foi_store_writes_total", Help: "Account states written to the account store."})
	m.reg.MustRegister(wait, save, writes)
	written = func(n int, oldest, took time.Duration) {
		wait.Observe(oldest.Seconds())
		save.Observe(took.Seconds())
		writes.Add(float64(n))
	}
	stats = func(read func() store.AccountsStats) {
		m.reg.MustRegister(
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "foi_store_held", Help: "Accounts this process holds: playing, or left with their last state not yet written."},
				func() float64 { return float64(read().Held) }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "foi_store_pending", Help: "Accounts with changes not yet written to the account store."},
				func() float64 { return float64(read().Pending) }),
			prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "foi_store_failures_total", Help: "Account store calls of the writer that failed, each retried."},
				func() float64 { return float64(read().Failures) }),
			prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "foi_store_lost_total", Help: "Account states dropped: their lease was lost to another server, or they broke the store's bounds."},
				func() float64 { s := read(); return float64(s.Lost + s.Invalid) }),
		)
	}
	return written, stats
}

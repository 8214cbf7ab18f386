package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/fiveonit/engine/bench/loadgen"
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/internal/pgtest"
	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/store"
	"github.com/fiveonit/engine/store/postgres"
	"github.com/fiveonit/engine/store/sqlite"
	"github.com/mlange-42/arche/generic"
)

// The PostgreSQL server of the store benchmarks: started by the first that
// needs it, stopped by TestMain.
var pg struct {
	once sync.Once
	srv  *pgtest.Server
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if pg.srv != nil {
		pg.srv.Stop()
	}
	os.Exit(code)
}

// openStore opens a new, empty store of kind (sqlite, postgres), or skips
// where PostgreSQL is missing.
func openStore(b testing.TB, kind string) store.Store {
	b.Helper()
	ctx := context.Background()
	var st store.Store
	var err error
	switch kind {
	case "sqlite":
		st, err = sqlite.Open(ctx, filepath.Join(b.TempDir(), "accounts.db"))
	case "postgres":
		pg.once.Do(func() { pg.srv, pg.err = pgtest.Start() })
		if errors.Is(pg.err, pgtest.ErrMissing) {
			b.Skip(pg.err)
		}
		if pg.err != nil {
			b.Fatal(pg.err)
		}
		var url string
		if url, err = pg.srv.NewDatabase(ctx); err == nil {
			st, err = postgres.Open(ctx, url)
		}
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return st
}

// BenchmarkStoreSave is one batch of 64 accounts written by Save, each with
// its Cash, 2 cars and 8 item stacks: what the writer of a full city-64
// room writes at most once per second.
func BenchmarkStoreSave(b *testing.B) {
	for _, kind := range []string{"sqlite", "postgres"} {
		b.Run(kind, func(b *testing.B) {
			st := openStore(b, kind)
			ctx := context.Background()
			batch := make([]store.Account, 64)
			for i := range batch {
				a, err := st.Claim(ctx, fmt.Sprint("player-", i), "bench", time.Hour)
				if err != nil {
					b.Fatal(err)
				}
				a.Cars = []store.Car{{Garage: "garage-1", Bay: 0, Model: 1}, {Garage: "garage-1", Bay: 1, Model: 2}}
				for s := range 8 {
					a.Items = append(a.Items, store.Item{Slot: uint8(s), Item: "item", Count: 1})
				}
				batch[i] = a
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for j := range batch {
					batch[j].Cash = int64(i + j)
				}
				if err := st.Save(ctx, "bench", batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*len(batch))/b.Elapsed().Seconds(), "accounts/s")
		})
	}
}

// BenchmarkStoreCity64 plays city-64 (BenchmarkCity64's room) with an
// account per bot, in real time (60 ticks per second: one op is one second
// of play), every bot's Cash changing every tick: the worst case, each
// account posted once per second. It reports the writes per second, how
// long a change waited from its post to the end of its write (p50, p99,
// the largest), how long a batch's Save took, and the tick's p99; "none"
// is the same room without a store, the tick's baseline on the same
// machine at the same time.
//
//	go test ./bench -run '^$' -bench StoreCity64 -benchtime 10x
func BenchmarkStoreCity64(b *testing.B) {
	for _, kind := range []string{"none", "sqlite", "postgres"} {
		b.Run(kind, func(b *testing.B) {
			var mu sync.Mutex
			var waits, tooks []time.Duration
			written := 0
			var acc *store.Accounts
			if kind != "none" {
				acc = store.NewAccounts(openStore(b, kind), store.AccountsConfig{Holder: "bench", Written: func(n int, oldest, took time.Duration) {
					mu.Lock()
					written += n
					waits, tooks = append(waits, oldest), append(tooks, took)
					mu.Unlock()
				}})
				defer acc.Close(context.Background())
			}
			f := city64Accounts(b, acc)
			w := f.G.World()
			cash := generic.NewFilter1[components.Cash]()
			cash.Register(w.Arche)
			mu.Lock()
			written, waits, tooks = 0, nil, nil
			mu.Unlock()
			f.Record = true
			f.TickTimes = f.TickTimes[:0]
			b.ResetTimer()
			t := time.NewTicker(time.Second / ecs.TickRate)
			defer t.Stop()
			start := time.Now()
			for i := 0; i < b.N*ecs.TickRate; i++ {
				<-t.C
				for q := cash.Query(w.Arche); q.Next(); {
					q.Get().Amount++
				}
				if err := f.Step(); err != nil {
					b.Fatal(err)
				}
			}
			elapsed := time.Since(start)
			b.StopTimer()
			mu.Lock()
			defer mu.Unlock()
			b.ReportMetric(float64(loadgen.Percentile(f.TickTimes, 0.99).Microseconds()), "tick-p99-us")
			if acc == nil {
				return
			}
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			b.ReportMetric(float64(written)/elapsed.Seconds(), "writes/s")
			b.ReportMetric(float64(len(tooks))/elapsed.Seconds(), "batches/s")
			b.ReportMetric(ms(loadgen.Percentile(waits, 0.5)), "wait-p50-ms")
			b.ReportMetric(ms(loadgen.Percentile(waits, 0.99)), "wait-p99-ms")
			b.ReportMetric(ms(loadgen.Percentile(waits, 1)), "wait-max-ms")
			b.ReportMetric(ms(loadgen.Percentile(tooks, 0.5)), "save-p50-ms")
			b.ReportMetric(ms(loadgen.Percentile(tooks, 0.99)), "save-p99-ms")
		})
	}
}

// city64Accounts is newCity64 with an account per bot, claimed in acc
// (nil: anonymous bots).
func city64Accounts(b testing.TB, acc *store.Accounts) *loadgen.Farm {
	b.Helper()
	if acc == nil {
		return newCity64(b)
	}
	return newCity64As(b, func(i int) server.Who {
		who := server.Who{Account: fmt.Sprint("player-", i)}
		var err error
		if who.Keep, err = acc.Claim(context.Background(), who.Account, "city-64"); err != nil {
			b.Fatal(err)
		}
		return who
	})
}

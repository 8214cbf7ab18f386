package bench

import (
	"testing"
	"time"

	"github.com/fiveonit/engine/bench/loadgen"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/server"
)

// BenchmarkServer64 runs the server with 64 in-memory bot clients driving
// on main-city (free roam: police on) and reports the tick's p50 and p99,
// each system's p50 and p99, and the bytes sent per client per second. One op is
// one tick; run it with -benchtime 3600x for a minute of ticks.
func BenchmarkServer64(b *testing.B) {
	l, err := levels.Load("main-city")
	if err != nil {
		b.Fatal(err)
	}
	g, err := server.New(server.Config{Room: "bench", Level: l, Seed: 7, Rules: ecs.FreeRoam(), EncodeWorkers: 2})
	if err != nil {
		b.Fatal(err)
	}
	f, err := loadgen.New(g, 64, 1)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 300; i++ { // join, get in, spread out
		if err := f.Step(); err != nil {
			b.Fatal(err)
		}
	}
	var before uint64
	for _, bt := range f.Bots {
		before += bt.Session.Stats().BytesOut
	}
	f.Record = true
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := f.Step(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	var after uint64
	for _, bt := range f.Bots {
		after += bt.Session.Stats().BytesOut
	}
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 }
	b.ReportMetric(us(loadgen.Percentile(f.TickTimes, 0.5)), "p50-us/tick")
	b.ReportMetric(us(loadgen.Percentile(f.TickTimes, 0.99)), "p99-us/tick")
	for i, e := range g.World().Sched.Entries() {
		b.ReportMetric(us(loadgen.Percentile(f.SystemTimes[i], 0.5)), e.Name+"-p50-us")
		b.ReportMetric(us(loadgen.Percentile(f.SystemTimes[i], 0.99)), e.Name+"-p99-us")
	}
	b.ReportMetric(float64(after-before)/64/(float64(b.N)/60), "B/client/s")
}

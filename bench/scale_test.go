package bench

import (
	"flag"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fiveonit/engine/bench/loadgen"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/server"
)

var scalePlayers = flag.String("scale.players", "64,128,256,512,1024", "BenchmarkServerScale's room sizes, comma-separated")

// newScaleFarm makes a free-roam room on main-city for n players, n
// in-memory bots joined to it (every fourth on the acked snapshots when
// acked is set: a WebRTC client's), and plays warm ticks.
func newScaleFarm(tb testing.TB, n int, acked bool, workers int, warm int) *loadgen.Farm {
	tb.Helper()
	l, err := levels.Load("main-city")
	if err != nil {
		tb.Fatal(err)
	}
	rules := ecs.FreeRoam()
	rules.Traffic, rules.Pedestrians = 40, 200
	g, err := server.New(server.Config{Room: "scale", Level: l, Seed: 35, Rules: rules, MaxPlayers: n, EncodeWorkers: workers, ClientKbps: *budgetKbps})
	if err != nil {
		tb.Fatal(err)
	}
	f, err := loadgen.New(g, 0, 1)
	if err != nil {
		tb.Fatal(err)
	}
	for i := range n {
		if _, err := f.AddAs(uint64(1+i), server.Who{Acked: acked && i%4 == 3}); err != nil {
			tb.Fatal(err)
		}
	}
	for range warm {
		if err := f.Step(); err != nil {
			tb.Fatal(err)
		}
	}
	return f
}

// BenchmarkServerScale is one room of n players on main-city, n from
// -scale.players, all on the ordered snapshots and with a quarter on the
// acked ones: 300 ticks of warm-up, then each op one server tick timed
// with the server's own tick times. It reports the tick's p50 and p99,
// the server's allocations per tick, each client's downstream bytes per
// second (p50 and p99 over the clients) and the drawn error by band
// (loadgen.Drawn, sampled every 30 ticks). GOMAXPROCS sets the cores; the
// room encodes on as many.
func BenchmarkServerScale(b *testing.B) {
	for _, s := range strings.Split(*scalePlayers, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			b.Fatalf("-scale.players: %v", err)
		}
		for _, acked := range []bool{false, true} {
			name := fmt.Sprintf("players=%d/ordered", n)
			if acked {
				name = fmt.Sprintf("players=%d/quarter-acked", n)
			}
			b.Run(name, func(b *testing.B) { benchScale(b, n, acked) })
		}
	}
}

func benchScale(b *testing.B, n int, acked bool) {
	b.Helper()
	f := newScaleFarm(b, n, acked, runtime.GOMAXPROCS(0), 300)
	before := make([]uint64, len(f.Bots))
	for i, bt := range f.Bots {
		before[i] = bt.Session.Stats().BytesOut
	}
	f.Record = true
	var d loadgen.Drawn
	b.ResetTimer()
	for i := range b.N {
		if err := f.Step(); err != nil {
			b.Fatal(err)
		}
		if i%30 == 0 {
			b.StopTimer()
			f.SampleDrawn(&d)
			b.StartTimer()
		}
	}
	b.StopTimer()
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 }
	b.ReportMetric(us(loadgen.Percentile(f.TickTimes, 0.5)), "p50-us/tick")
	b.ReportMetric(us(loadgen.Percentile(f.TickTimes, 0.99)), "p99-us/tick")
	rates := make([]float64, len(f.Bots))
	secs := float64(b.N) / ecs.TickRate
	for i, bt := range f.Bots {
		rates[i] = float64(bt.Session.Stats().BytesOut-before[i]) / secs
	}
	slices.Sort(rates)
	b.ReportMetric(rates[len(rates)/2]*8/1000, "p50-kbps/client")
	b.ReportMetric(rates[len(rates)*99/100]*8/1000, "p99-kbps/client")
	b.ReportMetric(serverAllocs(f), "server-allocs/tick")
	reportDrawn(b, &d)
}

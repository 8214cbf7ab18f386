package bench

import (
	"flag"
	"fmt"
	"runtime"
	"testing"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/fiveonit/engine/bench/loadgen"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/server"
)

var city64Plot = flag.String("city64.plot", "", "write the city-64 plot of tick time per system to this file (.svg or .png)")

// newCity64 makes the city-64 room: main-city in free roam (police on),
// 40 traffic cars, 200 pedestrians, 64 in-memory bot players, warmed up
// for 20 s so that the traffic and the crowd are out and the police have
// had crimes to chase.
func newCity64(b testing.TB) *loadgen.Farm {
	b.Helper()
	return newCity64As(b, nil)
}

// newCity64As is newCity64 with bot i joined as who(i) (nil: anonymous).
func newCity64As(b testing.TB, who func(i int) server.Who) *loadgen.Farm {
	b.Helper()
	l, err := levels.Load("main-city")
	if err != nil {
		b.Fatal(err)
	}
	rules := ecs.FreeRoam()
	rules.Traffic, rules.Pedestrians = 40, 200
	g, err := server.New(server.Config{Room: "city-64", Level: l, Seed: 64, Rules: rules, EncodeWorkers: 2})
	if err != nil {
		b.Fatal(err)
	}
	return city64Farm(b, g, who)
}

// city64Farm joins city-64's 64 bots to g, bot i as who(i) (nil:
// anonymous), and plays 20 s of warm-up.
func city64Farm(b testing.TB, g *server.GameServer, who func(i int) server.Who) *loadgen.Farm {
	b.Helper()
	f, err := loadgen.New(g, 0, 1)
	if err != nil {
		b.Fatal(err)
	}
	for i := range 64 {
		var w server.Who
		if who != nil {
			w = who(i)
		}
		if _, err := f.AddAs(uint64(1+i), w); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; i < 20*ecs.TickRate; i++ {
		if err := f.Step(); err != nil {
			b.Fatal(err)
		}
	}
	return f
}

// BenchmarkCity64 is the city-64: one op is one server tick (the
// bots' own client work is outside the timings reported). Run it on one
// core: GOMAXPROCS=1. It reports the server tick's p50 and p99 in total
// and per system, the server's allocations per tick, and the bytes sent
// per client per second; with -city64.plot it draws each system's p50 and
// p99.
func BenchmarkCity64(b *testing.B) {
	f := newCity64(b)
	g := f.G
	var before uint64
	for _, bt := range f.Bots {
		before += bt.Session.Stats().BytesOut
	}
	f.Record = true
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
	reportTicks(b, f)
	b.ReportMetric(float64(after-before)/64/(float64(b.N)/ecs.TickRate), "B/client/s")
	b.ReportMetric(serverAllocs(f), "server-allocs/tick")
	entries := g.World().Sched.Entries()
	if *city64Plot != "" {
		if err := plotSystems(*city64Plot, f, entries); err != nil {
			b.Fatal(err)
		}
	}
}

// reportTicks reports the recorded server ticks' p50 and p99, in total and
// per system, and the snapshots' p99.
func reportTicks(b *testing.B, f *loadgen.Farm) {
	b.Helper()
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 }
	b.ReportMetric(us(loadgen.Percentile(f.TickTimes, 0.5)), "p50-us/tick")
	b.ReportMetric(us(loadgen.Percentile(f.TickTimes, 0.99)), "p99-us/tick")
	for i, e := range f.G.World().Sched.Entries() {
		b.ReportMetric(us(loadgen.Percentile(f.SystemTimes[i], 0.5)), e.Name+"-p50-us")
		b.ReportMetric(us(loadgen.Percentile(f.SystemTimes[i], 0.99)), e.Name+"-p99-us")
	}
	b.ReportMetric(us(loadgen.Percentile(f.SnapshotTimes, 0.99)), "snapshots-p99-us")
}

// TestCity64TickAllocatesNothing checks that once city-64 has played for a
// minute and a half, its server tick allocates nothing, tick after tick.
// By then the traffic, the crowd and the police are out, and every client's
// lists have grown to their size. No list may grow at a new high, no
// archetype be made mid-tick, and no buffer be made per event. Should it
// fail, a memory profile shows where: set runtime.MemProfileRate = 1, write
// the "allocs" profile before and after, and compare them with pprof
// -diff_base and -focus='GameServer..Tick'.
func TestCity64TickAllocatesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("city-64 for a minute and a half: not in -short")
	}
	f := newCity64(t)
	for i := 0; i < 70*ecs.TickRate; i++ {
		if err := f.Step(); err != nil {
			t.Fatal(err)
		}
	}
	// Every tick of half a minute counted (serverAllocs counts every
	// other): spawns and blasts come a few a minute.
	const n = 30 * ecs.TickRate
	if total := tickAllocs(t, f, n, nil); total != 0 {
		t.Errorf("city-64's server tick allocated %d times in %d ticks, want 0", total, n)
	}
}

// tickAllocs counts the allocations of n server ticks of f (the bots' client
// ticks run between them, uncounted, and then between(i) when given).
func tickAllocs(t *testing.T, f *loadgen.Farm, n int, between func(i int)) uint64 {
	t.Helper()
	// One processor, as testing.AllocsPerRun: the process's mallocs are
	// counted, and no other goroutine should run beside the tick.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var ms runtime.MemStats
	var total uint64
	for i := 0; i < n; i++ {
		if err := f.StepClients(); err != nil {
			t.Fatal(err)
		}
		if between != nil {
			between(i)
		}
		runtime.ReadMemStats(&ms)
		m0 := ms.Mallocs
		f.G.Tick()
		runtime.ReadMemStats(&ms)
		total += ms.Mallocs - m0
	}
	return total
}

// serverAllocs measures the server's own allocations per tick over 300
// ticks (the bots' are left out).
func serverAllocs(f *loadgen.Farm) float64 {
	const n = 300
	f.Record = false
	var ms runtime.MemStats
	var total uint64
	for i := 0; i < n; i++ {
		f.Step() // the bots and a tick, to keep the load going
		f.StepClients()
		runtime.ReadMemStats(&ms)
		m0 := ms.Mallocs
		f.G.Tick()
		runtime.ReadMemStats(&ms)
		total += ms.Mallocs - m0
	}
	return float64(total) / float64(n)
}

// plotSystems draws each system's p50 and p99 tick time as bars.
func plotSystems(path string, f *loadgen.Farm, entries []ecs.Entry) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("city-64: server tick time per system (p50 %.0f us, p99 %.0f us a tick)",
		float64(loadgen.Percentile(f.TickTimes, 0.5).Nanoseconds())/1000, float64(loadgen.Percentile(f.TickTimes, 0.99).Nanoseconds())/1000)
	p.Y.Label.Text = "microseconds per tick"
	var p50, p99 plotter.Values
	var names []string
	for i, e := range entries {
		p50 = append(p50, float64(loadgen.Percentile(f.SystemTimes[i], 0.5).Nanoseconds())/1000)
		p99 = append(p99, float64(loadgen.Percentile(f.SystemTimes[i], 0.99).Nanoseconds())/1000)
		names = append(names, e.Name)
	}
	p50 = append(p50, float64(loadgen.Percentile(f.SnapshotTimes, 0.5).Nanoseconds())/1000)
	p99 = append(p99, float64(loadgen.Percentile(f.SnapshotTimes, 0.99).Nanoseconds())/1000)
	names = append(names, "snapshots (1/3 of clients a tick)")
	w := vg.Points(8)
	b50, err := plotter.NewBarChart(p50, w)
	if err != nil {
		return err
	}
	b99, err := plotter.NewBarChart(p99, w)
	if err != nil {
		return err
	}
	b50.Color, b99.Color = plotutil.Color(0), plotutil.Color(1)
	b50.Offset, b99.Offset = -w/2, w/2
	p.Add(b50, b99)
	p.Legend.Add("p50", b50)
	p.Legend.Add("p99", b99)
	p.Legend.Top, p.Legend.Left = true, true
	p.NominalX(names...)
	p.X.Tick.Label.Rotation = 0.6
	p.X.Tick.Label.XAlign = -0.9
	return p.Save(10*vg.Inch, 5*vg.Inch, path)
}

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
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

var (
	scalePlayers = flag.String("scale.players", "64,128,256,512,1024", "BenchmarkServerScale's room sizes, comma-separated")
	scalePlot    = flag.String("scale.plot", "", "write BenchmarkServerScale's plot of tick time and bytes against players to this file (.svg or .png)")
)

// scalePoint is one room size's figures, for the plot.
type scalePoint struct {
	players        int
	acked          bool
	p50, p99       float64 // tick, ms
	kbps50, kbps99 float64 // per client
}

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
	var points []scalePoint
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
			b.Run(name, func(b *testing.B) {
				pt := benchScale(b, n, acked)
				if i := slices.IndexFunc(points, func(q scalePoint) bool { return q.players == n && q.acked == acked }); i >= 0 {
					points[i] = pt // the last run of a size is the timed one
				} else {
					points = append(points, pt)
				}
			})
		}
	}
	if *scalePlot != "" && len(points) > 0 {
		if err := plotScale(*scalePlot, points); err != nil {
			b.Fatal(err)
		}
	}
}

func benchScale(b *testing.B, n int, acked bool) scalePoint {
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
	var mem int
	for _, bt := range f.Bots {
		mem += bt.Session.Snapshotter().MemBytes()
	}
	b.ReportMetric(float64(mem)/float64(len(f.Bots))/1024, "KB-encoder/client")
	reportDrawn(b, &d)
	return scalePoint{
		players: n, acked: acked,
		p50: us(loadgen.Percentile(f.TickTimes, 0.5)) / 1000, p99: us(loadgen.Percentile(f.TickTimes, 0.99)) / 1000,
		kbps50: rates[len(rates)/2] * 8 / 1000, kbps99: rates[len(rates)*99/100] * 8 / 1000,
	}
}

// plotScale draws the tick's p50 and p99 and each client's downstream
// p50 against the players, ordered and with a quarter acked, on a log
// scale of players.
func plotScale(path string, points []scalePoint) error {
	p := plot.New()
	p.Title.Text = "one room on main-city: server tick time and downstream per client against players"
	p.X.Label.Text = "players"
	p.Y.Label.Text = "tick, ms; downstream per client, kbps / 10"
	p.X.Scale = plot.LogScale{}
	var ticks []plot.Tick
	var lines []any
	for _, acked := range []bool{false, true} {
		var p50, p99, kbps plotter.XYs
		for _, q := range points {
			if q.acked == acked {
				x := float64(q.players)
				if !acked || !slices.ContainsFunc(ticks, func(t plot.Tick) bool { return t.Value == x }) {
					ticks = append(ticks, plot.Tick{Value: x, Label: strconv.Itoa(q.players)})
				}
				p50 = append(p50, plotter.XY{X: x, Y: q.p50})
				p99 = append(p99, plotter.XY{X: x, Y: q.p99})
				kbps = append(kbps, plotter.XY{X: x, Y: q.kbps50 / 10})
			}
		}
		if len(p50) == 0 {
			continue
		}
		mode := "ordered"
		if acked {
			mode = "quarter acked"
		}
		lines = append(lines, "tick p50, "+mode, p50, "tick p99, "+mode, p99, "kbps p50 / 10, "+mode, kbps)
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	if err := plotutil.AddLinePoints(p, lines...); err != nil {
		return err
	}
	p.Legend.Top, p.Legend.Left = true, true
	return p.Save(9*vg.Inch, 5*vg.Inch, path)
}

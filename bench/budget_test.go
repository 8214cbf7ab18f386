package bench

import (
	"flag"
	"testing"

	"github.com/fiveonit/engine/bench/loadgen"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/server"
)

var budgetKbps = flag.Int("budget.kbps", server.DefaultClientKbps, "the client budget in kbps of BenchmarkCity64Budget and BenchmarkServerScale (8000: as good as none)")

// BenchmarkCity64Budget is city-64 with each client's budget at
// -budget.kbps: one op is one server tick. It reports each client's
// downstream (p50 and p99 over the clients), the drawn error by distance
// band (p50 and p99: what a client draws against where the server has the
// entity at that moment, sampled every 10 ticks) and the longest a moving
// entity a client held went without a new pose. Run it at 8000 (no
// budget to speak of) and at the default to compare.
func BenchmarkCity64Budget(b *testing.B) {
	l, err := levels.Load("main-city")
	if err != nil {
		b.Fatal(err)
	}
	rules := ecs.FreeRoam()
	rules.Traffic, rules.Pedestrians = 40, 200
	g, err := server.New(server.Config{Room: "city-64", Level: l, Seed: 64, Rules: rules, EncodeWorkers: 2, ClientKbps: *budgetKbps})
	if err != nil {
		b.Fatal(err)
	}
	f := city64Farm(b, g, nil)
	before := clientBytes(f)
	var d loadgen.Drawn
	b.ResetTimer()
	for i := range b.N {
		if err := f.Step(); err != nil {
			b.Fatal(err)
		}
		if i%10 == 0 {
			f.SampleDrawn(&d)
		}
	}
	b.StopTimer()
	reportRates(b, f, before)
	reportDrawn(b, &d)
}

// clientBytes returns each bot's bytes sent so far.
func clientBytes(f *loadgen.Farm) []uint64 {
	out := make([]uint64, len(f.Bots))
	for i, bt := range f.Bots {
		out[i] = bt.Session.Stats().BytesOut
	}
	return out
}

// reportRates reports each client's downstream since before over b.N
// ticks: the p50 and p99 over the clients, in kbps.
func reportRates(b *testing.B, f *loadgen.Farm, before []uint64) {
	b.Helper()
	rates := make([]float32, len(f.Bots))
	secs := float32(b.N) / ecs.TickRate
	for i, bt := range f.Bots {
		rates[i] = float32(bt.Session.Stats().BytesOut-before[i]) * 8 / 1000 / secs
	}
	b.ReportMetric(float64(loadgen.Quantile(rates, 0.5)), "p50-kbps/client")
	b.ReportMetric(float64(loadgen.Quantile(rates, 0.99)), "p99-kbps/client")
}

// reportDrawn reports d's errors by band, p50 and p99 in metres, and its
// longest gap in seconds.
func reportDrawn(b *testing.B, d *loadgen.Drawn) {
	b.Helper()
	for _, band := range []struct {
		name string
		errs []float32
	}{{"near", d.Near}, {"mid", d.Mid}, {"far", d.Far}} {
		b.ReportMetric(float64(loadgen.Quantile(band.errs, 0.5)), band.name+"-p50-m")
		b.ReportMetric(float64(loadgen.Quantile(band.errs, 0.99)), band.name+"-p99-m")
	}
	b.ReportMetric(d.GapSeconds(), "max-gap-s")
}

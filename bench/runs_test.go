package bench

import (
	"encoding/json"
	"fmt"
	"runtime"
	"testing"

	"github.com/fiveonit/engine/bench/loadgen"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/games"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/runs"
	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/textframe"
)

// newRunFarm makes a run room of city-jobs' run mission on main-city
// played by in-memory bots, one per seat of roster (their accounts).
func newRunFarm(tb testing.TB, room, mission string, roster runs.Roster) *loadgen.Farm {
	tb.Helper()
	l, err := levels.Load("main-city")
	if err != nil {
		tb.Fatal(err)
	}
	game, err := games.Lookup("city-jobs")
	if err != nil {
		tb.Fatal(err)
	}
	def, ok := game.Run(mission)
	if !ok {
		tb.Fatalf("city-jobs has no run mission %q", mission)
	}
	rules := game.ForLevel(l)
	rules.Traffic, rules.Pedestrians = 0, 0 // the city-64 room next door has the crowd
	g, err := server.New(server.Config{Room: room, Level: l, Seed: 7, Game: game, Rules: rules,
		Run: &server.RunConfig{Mission: def, Roster: roster}})
	if err != nil {
		tb.Fatal(err)
	}
	f, err := loadgen.New(g, 0, 3)
	if err != nil {
		tb.Fatal(err)
	}
	for i, s := range roster.Seats {
		if _, err := f.AddAs(uint64(100+i), server.Who{Account: s.Account, Name: s.Account}); err != nil {
			tb.Fatal(err)
		}
	}
	return f
}

// city64Runs is city-64 and two runs in other rooms of the process: the
// versus chase (2 v 2) and the co-op yard heist (a crew of 2), both live.
type city64Runs struct {
	city, chase, heist *loadgen.Farm
}

func newCity64Runs(tb testing.TB) *city64Runs {
	tb.Helper()
	seats := func(prefix string, teams ...int) runs.Roster {
		var r runs.Roster
		for i, t := range teams {
			r.Seats = append(r.Seats, runs.Seat{Account: fmt.Sprintf("%s%d", prefix, i), Team: t})
		}
		return r
	}
	c := &city64Runs{
		city:  newCity64(tb),
		chase: newRunFarm(tb, "chase", "chase", seats("chase-", 0, 0, 1, 1)),
		heist: newRunFarm(tb, "heist", "yard-heist", seats("heist-", 0, 0)),
	}
	// Past the countdown, and a while into the runs.
	for range runs.CountdownTicks + 10*ecs.TickRate {
		c.step(tb)
	}
	for _, f := range []*loadgen.Farm{c.chase, c.heist} {
		if f.G.Over() || runPhase(f) != "live" {
			tb.Fatalf("room %s: the run is not live after the warm-up", f.G.Level().Name)
		}
	}
	return c
}

// runPhase returns the run's phase as the run frame of its first
// bot last told it.
func runPhase(f *loadgen.Farm) string {
	var run textframe.RunFrame
	if json.Unmarshal(f.Bots[0].Client.Text("run"), &run) != nil {
		return ""
	}
	return run.Phase
}

func (c *city64Runs) step(tb testing.TB) {
	tb.Helper()
	for _, f := range []*loadgen.Farm{c.city, c.chase, c.heist} {
		if err := f.Step(); err != nil {
			tb.Fatal(err)
		}
	}
}

// TestCity64WithRunsAllocatesNothing: city-64 with two runs going in other
// rooms of the process, every room's tick allocates nothing, tick after
// tick (issue 34's bench).
func TestCity64WithRunsAllocatesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("city-64 and two runs for a minute: not in -short")
	}
	c := newCity64Runs(t)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var ms runtime.MemStats
	var total uint64
	const n = 20 * ecs.TickRate
	for range n {
		for _, f := range []*loadgen.Farm{c.city, c.chase, c.heist} {
			if err := f.StepClients(); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&ms)
			m0 := ms.Mallocs
			f.G.Tick()
			runtime.ReadMemStats(&ms)
			total += ms.Mallocs - m0
		}
	}
	if total != 0 {
		t.Errorf("city-64 and two runs allocated %d times in %d ticks of each room, want 0", total, n)
	}
	for _, f := range []*loadgen.Farm{c.chase, c.heist} {
		if p := runPhase(f); p != "live" {
			t.Errorf("a run ended during the count (%s): the test proved less", p)
		}
	}
}

// BenchmarkCity64Runs is BenchmarkCity64 with the two runs going in other
// rooms of the process, stepped between city-64's ticks: city-64's tick
// figures and its server's allocations per tick, with the runs' tick
// p99 beside them.
func BenchmarkCity64Runs(b *testing.B) {
	c := newCity64Runs(b)
	c.city.Record, c.chase.Record, c.heist.Record = true, true, true
	b.ResetTimer()
	for range b.N {
		c.step(b)
	}
	b.StopTimer()
	reportTicks(b, c.city)
	us := func(f *loadgen.Farm) float64 {
		return float64(loadgen.Percentile(f.TickTimes, 0.99).Nanoseconds()) / 1000
	}
	b.ReportMetric(us(c.chase), "chase-p99-us/tick")
	b.ReportMetric(us(c.heist), "heist-p99-us/tick")
	b.ReportMetric(serverAllocs(c.city), "server-allocs/tick")
}

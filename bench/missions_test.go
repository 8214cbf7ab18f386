package bench

import (
	"cmp"
	"slices"
	"testing"

	"github.com/fiveonit/engine/bench/loadgen"
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/games"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/systems"
	"github.com/mlange-42/arche/generic"
)

// jobBots is how many of city-64's bots are on a mission, and jobKinds
// the missions they are sent on, in turn: the delivery, the getaway (two
// chasers after each), the race and the theft.
const jobBots = 16

var jobKinds = [...]string{"delivery", "getaway", "race", "theft"}

// newCity64Jobs is city-64 (newCity64's traffic, crowd and bots) playing
// city-jobs, where every character carries a phone, with jobBots of its
// bots sent on a mission each (the host's Accept, as their phone command
// does) and ten seconds run since.
func newCity64Jobs(tb testing.TB) *loadgen.Farm {
	tb.Helper()
	l, err := levels.Load("main-city")
	if err != nil {
		tb.Fatal(err)
	}
	gm, err := games.Lookup("city-jobs")
	if err != nil {
		tb.Fatal(err)
	}
	rules := gm.ForLevel(l)
	rules.Traffic, rules.Pedestrians = 40, 200
	g, err := server.New(server.Config{Room: "city-64-jobs", Level: l, Seed: 64, Game: gm, Rules: rules, EncodeWorkers: 2})
	if err != nil {
		tb.Fatal(err)
	}
	f := city64Farm(tb, g, nil)
	w := g.World()
	h := systems.Missions(w)
	pf := generic.NewFilter2[components.Player, components.Identity]()
	q := pf.Query(w.Arche)
	type bot struct {
		session uint32
		e       ecs.Entity
		wid     uint16
	}
	var bots []bot
	for q.Next() {
		pl, id := q.Get()
		bots = append(bots, bot{pl.Session, q.Entity(), id.WireID})
	}
	slices.SortFunc(bots, func(a, b bot) int { return cmp.Compare(a.session, b.session) })
	for i, bt := range bots[:jobBots] {
		e := bt.e
		ph := h.PhoneOf(e, bt.wid)
		if ph == nil {
			tb.Fatalf("bot %d has no phone", i)
		}
		for _, m := range ph.Messages() {
			if m.Open && m.Mission == jobKinds[i%len(jobKinds)] {
				if err := h.Accept(w, e, m.Offer); err != nil {
					tb.Fatalf("bot %d: %s: %v", i, m.Mission, err)
				}
				break
			}
		}
	}
	if h.Running() != jobBots {
		tb.Fatalf("%d missions running, want %d", h.Running(), jobBots)
	}
	for i := 0; i < 10*ecs.TickRate; i++ {
		if err := f.Step(); err != nil {
			tb.Fatal(err)
		}
	}
	return f
}

// BenchmarkCity64Missions is BenchmarkCity64 playing city-jobs with
// jobBots missions running (newCity64Jobs): compare its p99 with
// BenchmarkCity64's. It reports the same tick figures, the missions still
// running at the end and the server's allocations per tick.
func BenchmarkCity64Missions(b *testing.B) {
	f := newCity64Jobs(b)
	f.Record = true
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := f.Step(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	reportTicks(b, f)
	b.ReportMetric(float64(systems.Missions(f.G.World()).Running()), "missions")
	b.ReportMetric(serverAllocs(f), "server-allocs/tick")
}

// TestCity64MissionsAllocateNothing is TestCity64TickAllocatesNothing with
// jobBots missions running: their steps, the chasers the AI drives, the
// trackers, notices and phones sent allocate nothing, tick after tick.
func TestCity64MissionsAllocateNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("city-64 for a minute: not in -short")
	}
	f := newCity64Jobs(t)
	const n = 30 * ecs.TickRate
	if total := tickAllocs(t, f, n, nil); total != 0 {
		t.Errorf("city-64's server tick with %d missions allocated %d times in %d ticks, want 0", jobBots, total, n)
	}
	h := systems.Missions(f.G.World())
	if h.Running() < jobBots/2 {
		t.Fatalf("only %d missions still running: the test proved little", h.Running())
	}
	t.Logf("%d missions running at the end", h.Running())
}

package bench

import (
	"slices"
	"testing"

	"github.com/fiveonit/engine/bench/loadgen"
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/systems/stealth/book"
	"github.com/mlange-42/arche/generic"
)

// yardBots is how many of city-64's bots keep the yard busy.
const yardBots = 8

// yardBusy keeps main-city's yard busy in city-64: it puts the first
// yardBots players on foot in the yard, spread over its open ground, each
// time one of them is not there (a dead one comes back at a hospital, and
// is brought in again): the guards see them, go alert, call each other,
// chase and fire, and the cameras spot them. It runs between the ticks,
// outside what they time and count.
type yardBusy struct {
	w     *ecs.World
	yard  []levels.Vec2
	spots []phys.Vec
	q     *generic.Filter5[components.Player, components.Pose, components.Health, components.PersonAction, components.SeatedIn]
	seats generic.Map1[components.Seats]
	vel   generic.Map1[components.Velocity]
}

func newYardBusy(tb testing.TB, f *loadgen.Farm) *yardBusy {
	tb.Helper()
	w := f.G.World()
	y := &yardBusy{
		w:     w,
		q:     generic.NewFilter5[components.Player, components.Pose, components.Health, components.PersonAction, components.SeatedIn](),
		seats: generic.NewMap1[components.Seats](w.Arche),
		vel:   generic.NewMap1[components.Velocity](w.Arche),
	}
	for _, z := range f.G.Level().Zones {
		if z.ID == "yard" {
			y.yard = z.Polygon
		}
	}
	if y.yard == nil {
		tb.Fatal("main-city has no yard")
	}
	// The yard's open ground south of the warehouse, where the guards
	// patrol and the cameras look: a grid of spots 8 m apart.
	for k := range yardBots {
		y.spots = append(y.spots, phys.Vec{X: 212 + float32(k%4)*16, Y: 210 + float32(k/4)*20})
	}
	return y
}

// step brings into the yard, on foot, every one of the first yardBots
// players who is alive and not there.
func (y *yardBusy) step() {
	q := y.q.Query(y.w.Arche)
	for q.Next() {
		pl, pose, hp, act, in := q.Get()
		if pl.Session >= yardBots || hp.HP == 0 {
			continue
		}
		if !in.Vehicle.IsZero() {
			if st := y.seats.Get(in.Vehicle); st != nil && st.Occupant[in.Seat] == q.Entity() {
				st.Occupant[in.Seat] = ecs.Entity{}
			}
			*in = components.SeatedIn{}
		}
		act.Act, act.Timer = components.ActOnFoot, 0
		if levels.PointInPolygon(levels.Vec2{X: pose.Pos.X, Y: pose.Pos.Y}, y.yard) {
			continue
		}
		s := y.spots[pl.Session]
		pose.Pos.X, pose.Pos.Y = s.X, s.Y
		*y.vel.Get(q.Entity()) = components.Velocity{}
	}
}

// newCity64Yard is city-64 with the yard kept busy from its start.
func newCity64Yard(tb testing.TB) (*loadgen.Farm, *yardBusy) {
	tb.Helper()
	return yardFrom(tb, newCity64(tb))
}

// yardFrom keeps the yard of f's room busy for ten seconds.
func yardFrom(tb testing.TB, f *loadgen.Farm) (*loadgen.Farm, *yardBusy) {
	tb.Helper()
	y := newYardBusy(tb, f)
	for i := 0; i < 10*ecs.TickRate; i++ {
		if i%30 == 0 {
			y.step()
		}
		if err := f.Step(); err != nil {
			tb.Fatal(err)
		}
	}
	return f, y
}

// benchYard times b.N ticks of f with the yard kept busy, bringing the
// bots back in between the timed ticks; after is called after each tick.
func benchYard(b *testing.B, f *loadgen.Farm, y *yardBusy, after func()) {
	b.Helper()
	f.Record = true
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%30 == 0 {
			b.StopTimer()
			y.step()
			b.StartTimer()
		}
		if err := f.Step(); err != nil {
			b.Fatal(err)
		}
		if after != nil {
			after()
		}
	}
	b.StopTimer()
	reportTicks(b, f)
}

// BenchmarkCity64YardUnwatched is BenchmarkCity64Yard on a main-city
// without guards and cameras: the same eight bots kept in the yard, with
// nobody to see them. It is the control that tells the stealth's cost
// from the cost of eight players packed in one yard (their contacts, the
// crowd walking around them).
func BenchmarkCity64YardUnwatched(b *testing.B) {
	l, err := levels.Load("main-city")
	if err != nil {
		b.Fatal(err)
	}
	l.Cameras = nil
	l.NPCSpawners = slices.DeleteFunc(slices.Clone(l.NPCSpawners), func(n levels.NPCSpawner) bool { return n.Role == levels.NPCGuard })
	rules := ecs.FreeRoam()
	rules.Traffic, rules.Pedestrians = 40, 200
	g, err := server.New(server.Config{Room: "city-64-unwatched", Level: l, Seed: 64, Rules: rules, EncodeWorkers: 2})
	if err != nil {
		b.Fatal(err)
	}
	f, y := yardFrom(b, city64Farm(b, g, nil))
	benchYard(b, f, y, nil)
	b.ReportMetric(serverAllocs(f), "server-allocs/tick")
}

// BenchmarkCity64Yard is BenchmarkCity64 with eight of its bots kept on
// foot in the yard (yardBusy): the yard's three guards and two cameras
// busy seeing, alarming, chasing and firing. It reports the same tick
// figures, and how busy the stealth was: the book's entries a minute and
// the share of ticks with the room's alert up.
func BenchmarkCity64Yard(b *testing.B) {
	f, y := newCity64Yard(b)
	g := f.G
	bk := book.Of(g.World())
	entries0 := bk.Total()
	alertTicks := 0
	benchYard(b, f, y, func() {
		if on, _ := bk.Alert(); on {
			alertTicks++
		}
	})
	b.ReportMetric(float64(bk.Total()-entries0)/(float64(b.N)/ecs.TickRate/60), "book-entries/min")
	b.ReportMetric(float64(alertTicks)/float64(b.N), "alert-share")
	b.ReportMetric(serverAllocs(f), "server-allocs/tick")
}

// TestCity64YardAllocatesNothing is TestCity64TickAllocatesNothing with the
// yard kept busy: the guards' looks, alarms, calls, chases and shots and
// the cameras' sweeps and spots allocate nothing, tick after tick. And the
// yard was busy: the book was written and a guard was alert.
func TestCity64YardAllocatesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("city-64 for a minute and a half: not in -short")
	}
	f, y := newCity64Yard(t)
	for i := 0; i < 60*ecs.TickRate; i++ {
		if i%30 == 0 {
			y.step()
		}
		if err := f.Step(); err != nil {
			t.Fatal(err)
		}
	}
	bk := book.Of(f.G.World())
	entries0 := bk.Total()
	const n = 30 * ecs.TickRate
	alert := 0
	total := tickAllocs(t, f, n, func(i int) {
		if i%30 == 0 {
			y.step()
		}
		if on, _ := bk.Alert(); on {
			alert++
		}
	})
	if total != 0 {
		t.Errorf("city-64's server tick with the yard busy allocated %d times in %d ticks, want 0", total, n)
	}
	if bk.Total() == entries0 || alert == 0 {
		t.Fatalf("the yard was not busy: %d entries, the alert up %d ticks of %d", bk.Total()-entries0, alert, n)
	}
	t.Logf("%d book entries in 30 s, the alert up %d ticks of %d", bk.Total()-entries0, alert, n)
}

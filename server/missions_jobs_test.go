package server

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/internal/race"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/missions/cityjobs"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems/stealth/book"
	"github.com/mlange-42/arche/generic"
)

// waitNotice runs up to n ticks, every player sending drive(i) (nil:
// nothing), until p gets a notice of kind whose text contains text; it
// returns that text, "" when none came.
func waitNotice(g *GameServer, ps []*probe, p *probe, n int, kind, text string, drive func(i int) components.Drive) string {
	from := len(p.texts)
	for range n {
		run(g, ps, 1, drive)
		for _, m := range p.texts[from:] {
			if m["type"] == "notice" && m["kind"] == kind && strings.Contains(m["text"].(string), text) {
				return m["text"].(string)
			}
		}
		from = len(p.texts)
	}
	return ""
}

// ended checks that p's mission ended with a notice of kind containing
// text and that p's tracker is cleared.
func ended(t *testing.T, p *probe, kind, text string) {
	t.Helper()
	n := p.notices(kind)
	if len(n) == 0 || !strings.Contains(n[len(n)-1], text) {
		t.Fatalf("%s notices %q, want one with %q (all: %q)", kind, n, text, p.notices(""))
	}
	if tr := p.lastText("tracker"); tr == nil || tr["mission"] != "" {
		t.Fatalf("tracker %v after the end", tr)
	}
}

// slotOf returns the slot of p's inventory holding the item named name,
// -1 for none.
func slotOf(g *GameServer, p *probe, name string) int {
	id, _ := g.World().Items.ByName(name)
	for i, st := range g.inv.Get(p.s.char).Slots {
		if st.Item == id {
			return i
		}
	}
	return -1
}

// TestGetaway plays the getaway: the room's clock goes to night for every
// player, the guards' cars come after the player; once on the player's
// tail, the player gets away (a teleport far off stands for the drive) and
// is paid. The failure: the player stands and waits, and the chasers box
// them in, kill them or the time runs out.
func TestGetaway(t *testing.T) {
	race.Solo(t)
	t.Run("success", func(t *testing.T) {
		g, ps := newJobs(t, 2)
		p, other := ps[0], ps[1]
		before := cash(g, p)
		accept(t, g, ps, p, "getaway")
		run(g, ps, 1, nil)
		for _, q := range ps {
			if c := q.lastText("clock"); c == nil || math.Abs(c["minutes"].(float64)-cityjobs.GetawayNight) > 1 {
				t.Fatalf("player %d's clock %v, want 23:00", q.s.id, c)
			}
		}
		if other.lastText("tracker")["mission"] != "" {
			t.Fatal("the other player got the getaway's tracker")
		}
		if waitNotice(g, ps, p, 40*ecs.TickRate, "info", "on your tail", nil) == "" {
			t.Fatalf("the chasers never came near; the player is at %v", at(g, p))
		}
		h := g.missions.host
		var far levels.Vec2
		best := float32(0)
		for _, i := range g.Level().SpawnsOf(levels.RolePlayer) {
			c := g.Level().Spawns[i].Pos
			d := float32(math.MaxFloat32)
			f := generic.NewFilter3[components.Chaser, components.Seats, components.Pose]()
			q := f.Query(g.World().Arche)
			for q.Next() {
				_, _, pose := q.Get()
				d = min(d, levels.Vec2{X: pose.Pos.X, Y: pose.Pos.Y}.Sub(c).Len())
			}
			if d > best {
				best, far = d, c
			}
		}
		moveTo(t, g, ps, p, far.X, far.Y, 0)
		if waitNotice(g, ps, p, (cityjobs.GetawayClear+2)*ecs.TickRate, "success", "lost them", nil) == "" {
			t.Fatalf("not lost; notices %q", p.notices(""))
		}
		ended(t, p, "success", "lost them")
		if cash(g, p) != before+cityjobs.GetawayReward {
			t.Fatalf("cash %d, was %d", cash(g, p), before)
		}
		if n := h.Running(); n != 0 {
			t.Fatalf("%d missions running", n)
		}
		f := generic.NewFilter2[components.Chaser, components.Seats]() // the cars: the yard's guards chase on foot
		q := f.Query(g.World().Arche)
		if q.Count() != 0 {
			t.Fatal("the chasers' cars are still in the world after the end")
		}
		q.Close()
	})
	t.Run("caught", func(t *testing.T) {
		g, ps := newJobs(t, 1)
		p := ps[0]
		before := cash(g, p)
		accept(t, g, ps, p, "getaway")
		if waitNotice(g, ps, p, (cityjobs.GetawaySeconds+1)*ecs.TickRate, "failure", "", nil) == "" {
			t.Fatal("standing still never failed")
		}
		t.Logf("failure: %q", p.notices("failure"))
		if cash(g, p) != before {
			t.Fatalf("paid %d for a failure", cash(g, p)-before)
		}
	})
}

// TestRace plays the avenue sprint: at the wheel, through the start (the
// signals on the avenue held green, every player told) and every gate to
// the finish at full throttle, paid, the signals let go; and the failure,
// a driver who stops after the start and runs out of time.
func TestRace(t *testing.T) {
	start := func(t *testing.T) (*GameServer, []*probe, *probe) {
		t.Helper()
		g, ps := newJobs(t, 1)
		p := ps[0]
		accept(t, g, ps, p, "race")
		race, _ := g.Level().Race(cityjobs.RaceID)
		s := race.Gates[0].Pos
		if m := p.lastText("tracker")["marker"].([]any); float32(m[0].(float64)) != s.X || float32(m[1].(float64)) != s.Y {
			t.Fatalf("marker %v, the start is at %v", m, s)
		}
		moveTo(t, g, ps, p, s.X+1.75, s.Y-15, math.Pi/2)
		return g, ps, p
	}
	t.Run("success", func(t *testing.T) {
		g, ps, p := start(t)
		before := cash(g, p)
		full := func(int) components.Drive { return components.Drive{Throttle: 1} }
		if waitNotice(g, ps, p, 5*ecs.TickRate, "info", "Go!", full) == "" {
			t.Fatal("no start")
		}
		if tr := p.lastText("tracker"); !strings.Contains(tr["objective"].(string), "gate 1 of 4") {
			t.Fatalf("tracker after the start %v", tr)
		}
		run(g, ps, 1, full)
		held, _ := p.lastText("signals")["held"].([]any)
		if len(held) < 3 {
			t.Fatalf("the signals on the avenue are not held green: %v", p.lastText("signals"))
		}
		l := g.Level()
		for _, x := range held {
			id := x.(map[string]any)["id"].(string)
			for _, sg := range l.Roads.Signals {
				if sg.ID != id {
					continue
				}
				if n, _ := l.NodeIndex(sg.Node); l.Roads.Nodes[n].Pos.X != 0 {
					t.Errorf("signal %s held, off the avenue at %v", id, l.Roads.Nodes[n].Pos)
				}
				north := false
				for _, lid := range sg.Phases[int(x.(map[string]any)["phase"].(float64))].Lanes {
					li, _ := l.LaneIndex(lid)
					a, b := l.LaneLine(li)
					north = north || b.Y-a.Y > 0.9*b.Sub(a).Len()
				}
				if !north {
					t.Errorf("signal %s held on a phase with no northbound lane", id)
				}
			}
		}
		if waitNotice(g, ps, p, cityjobs.RaceSeconds*ecs.TickRate, "success", "in time", full) == "" {
			t.Fatalf("not through the finish in time: at %v, tracker %v", at(g, p), p.lastText("tracker"))
		}
		ended(t, p, "success", "in time")
		if cash(g, p) != before+cityjobs.RaceReward {
			t.Fatalf("cash %d, was %d", cash(g, p), before)
		}
		run(g, ps, 1, nil)
		if held, _ := p.lastText("signals")["held"].([]any); len(held) != 0 {
			t.Fatalf("signals still held after the race: %v", held)
		}
	})
	t.Run("out of time", func(t *testing.T) {
		g, ps, p := start(t)
		before := cash(g, p)
		if waitNotice(g, ps, p, 5*ecs.TickRate, "info", "Go!", func(int) components.Drive { return components.Drive{Throttle: 1} }) == "" {
			t.Fatal("no start")
		}
		brake := func(int) components.Drive { return components.Drive{Brake: 1} }
		run(g, ps, ecs.TickRate, brake)
		if waitNotice(g, ps, p, (cityjobs.RaceSeconds+1)*ecs.TickRate, "failure", "Out of time", func(int) components.Drive { return components.Drive{} }) == "" {
			t.Fatalf("no failure; notices %q", p.notices(""))
		}
		ended(t, p, "failure", "Out of time")
		if cash(g, p) != before {
			t.Fatal("paid for a lost race")
		}
	})
}

// party makes ps[0] and ps[1] one party with the social commands.
func party(t *testing.T, g *GameServer, ps []*probe) {
	t.Helper()
	ok(t, do(g, ps, ps[0], `{"type":"party","cmd":"invite","session":%d}`, ps[1].s.id))
	ok(t, do(g, ps, ps[1], `{"type":"party","cmd":"accept","session":%d}`, ps[0].s.id))
	run(g, ps, 2, nil)
}

// TestPickup plays the party job: two players of one party; the one who
// accepted drives, the other collects the three bags, gets in beside the
// driver, and the car reaches the drop; both see the tracker and both are
// paid. Alone, the job is refused. The failure: the collector leaves the
// party, the mission hears it and ends for the driver.
func TestPickup(t *testing.T) {
	setup := func(t *testing.T) (*GameServer, []*probe) {
		t.Helper()
		g, ps := newJobs(t, 2)
		refused(t, do(g, ps, ps[0], `{"type":"phone","cmd":"accept","offer":%d}`, ps[0].offer("pickup")), "takes a party")
		party(t, g, ps)
		accept(t, g, ps, ps[0], "pickup")
		run(g, ps, 1, nil)
		if tr := ps[1].lastText("tracker"); tr["mission"] != "pickup" || !strings.Contains(tr["objective"].(string), "1 of 3") {
			t.Fatalf("the collector's tracker %v", tr)
		}
		if o := ps[1].offer("pickup"); o != 0 {
			t.Fatal("the offer is still open on the collector's phone")
		}
		return g, ps
	}
	t.Run("success", func(t *testing.T) {
		g, ps := setup(t)
		drv, col := ps[0], ps[1]
		b0, b1 := cash(g, drv), cash(g, col)
		leaveCar(t, g, ps, col)
		for k := range 3 {
			pickUp(t, g, ps, col, cityjobs.Bag)
			run(g, ps, 1, nil)
			if k < 2 {
				if tr := drv.lastText("tracker"); !strings.Contains(tr["objective"].(string), []string{"2 of 3", "3 of 3"}[k]) {
					t.Fatalf("the driver's tracker after bag %d: %v", k+1, tr)
				}
			}
		}
		if tr := col.lastText("tracker"); !strings.Contains(tr["objective"].(string), "Both of you") {
			t.Fatalf("tracker after the bags %v", tr)
		}
		moveTo(t, g, ps, drv, 0, -190.25, 0) // the car out in a street, facing east
		car := at(g, drv)
		moveTo(t, g, ps, col, car.X, car.Y+2.2, 0)
		col.send(components.Drive{Pressed: components.BtnUse})
		run(g, ps, ecs.TickRate, nil)
		_, dIn, _ := g.persons.Get(drv.s.char)
		if _, cIn, _ := g.persons.Get(col.s.char); cIn.Vehicle != dIn.Vehicle || cIn.Seat == 0 {
			t.Fatalf("the collector is not beside the driver: %+v, %+v", cIn, dIn)
		}
		moveTo(t, g, ps, drv, -156, -190.25, 0) // by the garage's drop
		run(g, ps, 2, nil)
		ended(t, drv, "success", "All three bags")
		ended(t, col, "success", "All three bags")
		if cash(g, drv) != b0+cityjobs.PickupReward || cash(g, col) != b1+cityjobs.PickupReward {
			t.Fatalf("cash %d %d, was %d %d", cash(g, drv), cash(g, col), b0, b1)
		}
		if inventoryCount(g, col, cityjobs.Bag) != 0 {
			t.Fatal("the collector keeps bags")
		}
	})
	t.Run("partner leaves", func(t *testing.T) {
		g, ps := setup(t)
		drv, col := ps[0], ps[1]
		leaveCar(t, g, ps, col)
		pickUp(t, g, ps, col, cityjobs.Bag)
		ok(t, do(g, ps, col, `{"type":"party","cmd":"leave"}`))
		run(g, ps, 2, nil)
		ended(t, drv, "failure", "partner left")
		if tr := col.lastText("tracker"); tr["mission"] != "" {
			t.Fatalf("the collector's tracker %v after leaving", tr)
		}
		if inventoryCount(g, col, cityjobs.Bag) != 0 || looseItem(g, cityjobs.Bag) != 0 {
			t.Fatal("bags left about after the job")
		}
		if g.missions.host.Running() != 0 {
			t.Fatal("the job runs on")
		}
	})
}

// sentryNear reports whether a live guard could see q soon: within its
// range at this hour and a margin, in its cone and a margin or close, with
// a clear line.
func sentryNear(g *GameServer, q phys.Vec) bool {
	tu := &g.stealth.sys.Tuning
	rng := tu.RangeAt(tu.Light(float32(g.World().Clock.Minutes() / 60)))
	for _, s := range sentriesOf(g) {
		d := q.Sub(s.pos)
		if s.dead || d.Len() > rng+4 || !clearTo(g, s.pos, q) {
			continue
		}
		if d.Len() < tu.CloseRange+4 || angleBetween(d, s.fwd) < tu.ConeHalf+0.5 {
			return true
		}
	}
	return false
}

// theftToLedger plays the theft up to the ledger in hand, unseen at
// night: the laptop's key and crowbar bought with the screen's phone
// commands, the car through the keyed gate, a wait in the car for the
// guards to be away, the crate forced and the ledger taken. It returns
// the cash p had before buying.
func theftToLedger(t *testing.T, g *GameServer, ps []*probe, p *probe) int64 {
	t.Helper()
	before := cash(g, p)
	// The fence's laptop, outside the yard's gate.
	moveTo(t, g, ps, p, 226, 193.75, 0)
	leaveCar(t, g, ps, p)
	refused(t, do(g, ps, p, `{"type":"phone","cmd":"screen","choice":0}`), "no screen")
	moveTo(t, g, ps, p, 228, 199.25, 0)
	run(g, ps, 2, nil)
	sc, _ := p.lastText("phone")["screen"].(map[string]any)
	if sc == nil || sc["title"] != "Fence's laptop" {
		t.Fatalf("no laptop screen: %v", p.lastText("phone"))
	}
	refused(t, do(g, ps, p, `{"type":"phone","cmd":"screen","choice":7}`), "no such option")
	ok(t, do(g, ps, p, `{"type":"phone","cmd":"screen","choice":0}`))
	ok(t, do(g, ps, p, `{"type":"phone","cmd":"screen","choice":1}`))
	ok(t, do(g, ps, p, `{"type":"phone","cmd":"screen","choice":2}`))
	if slotOf(g, p, cityjobs.YardKey) < 0 || slotOf(g, p, "crowbar") < 0 || cash(g, p) != before-cityjobs.KeyPrice-cityjobs.CrowbarPrice {
		t.Fatalf("after buying: key slot %d, crowbar slot %d, cash %d (was %d)", slotOf(g, p, cityjobs.YardKey), slotOf(g, p, "crowbar"), cash(g, p), before)
	}
	if p.lastText("phone")["screen"] != nil {
		t.Fatal(`the screen is still open after "not now"`)
	}
	// Back in the car, and through the gate with the key.
	moveTo(t, g, ps, p, 226, 195.6, 0)
	p.send(components.Drive{Pressed: components.BtnUse})
	run(g, ps, ecs.TickRate, nil)
	moveTo(t, g, ps, p, 241.75, 194, math.Pi/2)
	slow := func(int) components.Drive { return components.Drive{Throttle: 0.4} }
	for range 8 * ecs.TickRate {
		if at(g, p).Y > 210 {
			break
		}
		run(g, ps, 1, slow)
	}
	if y := at(g, p).Y; y <= 210 {
		t.Fatalf("the car did not get through the keyed gate: at %v", at(g, p))
	}
	// Into the yard's west side (a short drive stands for it), and wait
	// in the car, where the guards pay no heed, for the coast to clear.
	moveTo(t, g, ps, p, 214, 228, math.Pi/2)
	crateSide := phys.Vec{X: 207, Y: 233.5}
	clear := 0
	for range 90 * ecs.TickRate {
		if clear >= ecs.TickRate/2 {
			break
		}
		if sentryNear(g, crateSide) || sentryNear(g, phys.Vec{X: 214, Y: 228}) {
			clear = 0
		} else {
			clear++
		}
		run(g, ps, 1, func(int) components.Drive { return components.Drive{Brake: 0} })
	}
	if clear < ecs.TickRate/2 {
		t.Fatal("the guards never left the west crate")
	}
	leaveCar(t, g, ps, p)
	moveTo(t, g, ps, p, crateSide.X, crateSide.Y, 0)
	ok(t, do(g, ps, p, `{"type":"use","slot":%d}`, slotOf(g, p, "crowbar")))
	ledger, _ := g.World().Items.ByName(cityjobs.Ledger)
	box := -1
	f := generic.NewFilter1[components.Container]()
	q := f.Query(g.World().Arche)
	for q.Next() {
		c := q.Get()
		for k, st := range c.Slots {
			if st.Item == ledger {
				box = k
			}
		}
	}
	if box < 0 {
		t.Fatal("no ledger in any container")
	}
	ok(t, do(g, ps, p, `{"type":"take","slot":%d}`, box))
	run(g, ps, 1, nil)
	if tr := p.lastText("tracker"); !strings.Contains(tr["objective"].(string), "drop") {
		t.Fatalf("tracker with the ledger %v", tr)
	}
	return before
}

// beforeGuard returns a spot in the open d metres before a guard's eyes.
func beforeGuard(g *GameServer, d float32) phys.Vec {
	for _, s := range sentriesOf(g) {
		if q := s.pos.Add(s.fwd.Scale(d)); !g.static.Overlaps(q, 2.5) {
			return q
		}
	}
	return phys.Vec{}
}

// TestTheft plays the yard theft. Unseen, at night: the player buys the
// gate key and a crowbar at the fence's laptop (the screen's phone
// commands), drives through the keyed gate, waits in the car for the
// guards to be away, forces the crate, takes the ledger and drives it to
// the drop; nobody saw them: the book has nothing, the pay has the bonus.
// Seen with the ledger in hand: the alarm, the guards' cars after the
// player, the pay without the bonus. Seen before, by day: the player steps
// out before a guard; the guards raise the alarm and go after them, and
// the mission fails, its ledger taken back.
func TestTheft(t *testing.T) {
	race.Solo(t)
	t.Run("unseen", func(t *testing.T) {
		g, ps := newJobs(t, 1)
		p := ps[0]
		ok(t, do(g, ps, p, `{"type":"debug","cmd":"clock","minutes":60,"pace":0}`))
		accept(t, g, ps, p, "theft")
		before := theftToLedger(t, g, ps, p)
		moveTo(t, g, ps, p, 214, 226.5, 0)
		p.send(components.Drive{Pressed: components.BtnUse})
		run(g, ps, ecs.TickRate, nil)
		if _, in, _ := g.persons.Get(p.s.char); in.Vehicle.IsZero() {
			t.Fatal("not back in the car")
		}
		moveTo(t, g, ps, p, -156, -190.25, 0) // out, by the garage's drop
		run(g, ps, 2, nil)
		if b := book.Of(g.World()); b.SeenSince(p.s.char, 0) {
			e, _ := b.Last(p.s.char)
			t.Fatalf("the guards saw the player: %+v", e)
		}
		ended(t, p, "success", "clean job")
		if want := before - cityjobs.KeyPrice - cityjobs.CrowbarPrice + cityjobs.TheftReward + cityjobs.TheftClean; cash(g, p) != want {
			t.Fatalf("cash %d, want %d", cash(g, p), want)
		}
		if slotOf(g, p, cityjobs.YardKey) >= 0 || slotOf(g, p, cityjobs.Ledger) >= 0 {
			t.Fatal("the mission's key or ledger is left with the player")
		}
	})
	t.Run("seen with the ledger", func(t *testing.T) {
		g, ps := newJobs(t, 1)
		p := ps[0]
		ok(t, do(g, ps, p, `{"type":"debug","cmd":"clock","minutes":60,"pace":0}`))
		accept(t, g, ps, p, "theft")
		before := theftToLedger(t, g, ps, p)
		cars := generic.NewFilter2[components.Chaser, components.Seats]()
		count := func() int {
			q := cars.Query(g.World().Arche)
			n := q.Count()
			q.Close()
			return n
		}
		if count() != 0 {
			t.Fatal("chasers before the alarm")
		}
		// Out before a guard, standing, until the alarm.
		front := beforeGuard(g, 5)
		moveTo(t, g, ps, p, front.X, front.Y, 0)
		if waitNotice(g, ps, p, 30*ecs.TickRate, "info", "alarm is up", nil) == "" {
			t.Fatalf("no alarm; notices %q", p.notices(""))
		}
		if n := count(); n != cityjobs.TheftChasers {
			t.Fatalf("%d chaser cars after the alarm, want %d", n, cityjobs.TheftChasers)
		}
		moveTo(t, g, ps, p, -156, -190.25, 0) // away to the drop
		run(g, ps, 2, nil)
		ended(t, p, "success", "$600")
		if want := before - cityjobs.KeyPrice - cityjobs.CrowbarPrice + cityjobs.TheftReward; cash(g, p) != want {
			t.Fatalf("cash %d, want %d (no bonus once seen)", cash(g, p), want)
		}
		if count() != 0 {
			t.Fatal("the chasers' cars are still about after the end")
		}
	})
	t.Run("seen", func(t *testing.T) {
		g, ps := newJobs(t, 1)
		p := ps[0]
		ok(t, do(g, ps, p, `{"type":"debug","cmd":"clock","minutes":720,"pace":0}`))
		accept(t, g, ps, p, "theft")
		leaveCar(t, g, ps, p)
		front := beforeGuard(g, 8)
		moveTo(t, g, ps, p, front.X, front.Y, 0)
		if waitNotice(g, ps, p, 20*ecs.TickRate, "failure", "alarm", nil) == "" {
			t.Fatalf("no alarm; notices %q", p.notices(""))
		}
		ended(t, p, "failure", "alarm")
		b := book.Of(g.World())
		if on, _ := b.Alert(); !on {
			t.Fatal("the room's alert is down")
		}
		chaser := generic.NewMap1[components.Chaser](g.World().Arche)
		chased := false
		for _, s := range sentriesOf(g) {
			chased = chased || s.se.Phase == components.SentryAlert && chaser.Get(s.e).Target == p.s.char
		}
		if !chased {
			t.Fatal("no guard is after the player")
		}
		ledger, _ := g.World().Items.ByName(cityjobs.Ledger)
		f := generic.NewFilter1[components.Container]()
		q := f.Query(g.World().Arche)
		for q.Next() {
			for _, st := range q.Get().Slots {
				if st.Item == ledger {
					t.Error("the ledger is left in a container after the end")
				}
			}
		}
	})
}

// TestMissionsDeterministic: the getaway played twice with the same
// inputs (a player who stands while the AI's chasers close in) ends the
// same: the same notices at the same ticks, the same cash, the chasers
// and the player where they were.
func TestMissionsDeterministic(t *testing.T) {
	race.Solo(t)
	play := func() string {
		g, ps := newJobs(t, 1)
		p := ps[0]
		accept(t, g, ps, p, "getaway")
		var out strings.Builder
		for range 40 * ecs.TickRate {
			run(g, ps, 1, nil)
			for _, m := range p.texts {
				if m["type"] == "notice" || m["type"] == "tracker" {
					fmt.Fprintf(&out, "%d %v\n", g.World().Tick(), m)
				}
			}
			p.texts = p.texts[:0]
		}
		f := generic.NewFilter2[components.Chaser, components.Pose]()
		q := f.Query(g.World().Arche)
		for q.Next() {
			_, pose := q.Get()
			fmt.Fprintf(&out, "chaser %v\n", *pose)
		}
		fmt.Fprintf(&out, "player %v cash %d\n", *g.posOf(p.s.char), cash(g, p))
		return out.String()
	}
	a, b := play(), play()
	if a != b {
		t.Fatalf("two runs differ:\n%s\n---\n%s", a, b)
	}
	if !strings.Contains(a, "notice") || !strings.Contains(a, "chaser") {
		t.Fatalf("the run proves little:\n%s", a)
	}
}

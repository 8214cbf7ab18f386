package server

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/games"
	"github.com/fiveonit/engine/internal/race"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/systems"
	"github.com/fiveonit/engine/systems/missionhost"
	"github.com/mlange-42/arche/generic"
)

// newJobs makes a city-jobs room on main-city, quiet for the tests (no
// traffic, no pedestrians, no police), and joins n players, named p0, p1
// and so on (debug on: the scripts teleport), ticked until each has its
// phone.
func newJobs(t testing.TB, n int) (*GameServer, []*probe) {
	t.Helper()
	l, err := levels.Load("main-city")
	if err != nil {
		t.Fatal(err)
	}
	gm, err := games.Lookup("city-jobs")
	if err != nil {
		t.Fatal(err)
	}
	r := gm.ForLevel(l)
	r.Traffic, r.Pedestrians, r.Police = 0, 0, false
	g, err := New(Config{Room: "jobs", Level: l, Seed: 7, Game: gm, Rules: r})
	if err != nil {
		t.Fatal(err)
	}
	var ps []*probe
	for i := range n {
		ps = append(ps, join(t, g, Who{Debug: true, Name: fmt.Sprintf("p%d", i)}))
	}
	run(g, ps, 2, nil)
	return g, ps
}

// run runs n ticks; each player sends drive(i) (nil: nothing) first, and
// reads what it got after.
func run(g *GameServer, ps []*probe, n int, drive func(i int) components.Drive) {
	for range n {
		for i, p := range ps {
			if drive != nil && !p.s.closed {
				p.send(drive(i))
			}
		}
		g.Tick()
		for _, p := range ps {
			p.read()
		}
	}
}

// do sends p's command, runs a tick and returns its reply.
func do(g *GameServer, ps []*probe, p *probe, format string, args ...any) map[string]any {
	p.t.Helper()
	p.command(fmt.Sprintf(format, args...))
	n := len(p.texts)
	run(g, ps, 1, nil)
	for _, m := range p.texts[n:] {
		if m["type"] == "reply" {
			return m
		}
	}
	p.t.Fatalf("no reply to %s", fmt.Sprintf(format, args...))
	return nil
}

// ok fails the test unless reply r says ok.
func ok(t testing.TB, r map[string]any) {
	t.Helper()
	if r["ok"] != true {
		t.Fatalf("refused: %v", r["error"])
	}
}

// refused fails the test unless reply r refuses with a reason containing
// why.
func refused(t testing.TB, r map[string]any, why string) {
	t.Helper()
	if r["ok"] == true || !strings.Contains(fmt.Sprint(r["error"]), why) {
		t.Fatalf("reply %v, want refused with %q", r, why)
	}
}

// offer returns the open offer of mission on p's phone, 0 for none.
func (p *probe) offer(mission string) uint32 {
	ph := p.lastText("phone")
	if ph == nil {
		return 0
	}
	var f struct {
		Messages []struct {
			Offer   uint32 `json:"offer"`
			Open    bool   `json:"open"`
			Mission string `json:"mission"`
		} `json:"messages"`
	}
	b, _ := json.Marshal(ph)
	json.Unmarshal(b, &f)
	for _, m := range f.Messages {
		if m.Mission == mission && m.Open && m.Offer != 0 {
			return m.Offer
		}
	}
	return 0
}

// notices returns the texts of the notices p got of kind ("" any).
func (p *probe) notices(kind string) []string {
	var out []string
	for _, m := range p.texts {
		if m["type"] == "notice" && (kind == "" || m["kind"] == kind) {
			out = append(out, m["text"].(string))
		}
	}
	return out
}

// accept accepts mission's offer on p's phone.
func accept(t testing.TB, g *GameServer, ps []*probe, p *probe, mission string) {
	t.Helper()
	o := p.offer(mission)
	if o == 0 {
		t.Fatalf("no offer of %s on the phone", mission)
	}
	ok(t, do(g, ps, p, `{"type":"phone","cmd":"accept","offer":%d}`, o))
	if tr := p.lastText("tracker"); tr == nil || tr["mission"] != mission {
		t.Fatalf("tracker %v after accepting %s", tr, mission)
	}
}

// cash returns p's Cash.
func cash(g *GameServer, p *probe) int64 {
	_, c := g.wanted.Get(p.s.char)
	return c.Amount
}

// looseItem returns the wire id of a loose item named name, 0 for none.
func looseItem(g *GameServer, name string) uint16 {
	w := g.World()
	id, _ := w.Items.ByName(name)
	f := generic.NewFilter2[components.Loose, components.Identity]()
	q := f.Query(w.Arche)
	var wid uint16
	for q.Next() {
		l, i := q.Get()
		if l.Stack.Item == id {
			wid = i.WireID
		}
	}
	return wid
}

// at returns where p's character (or its car) is.
func at(g *GameServer, p *probe) levels.Vec2 {
	e := p.s.char
	if _, in, _ := g.persons.Get(e); !in.Vehicle.IsZero() {
		e = in.Vehicle
	}
	pos := g.posOf(e).Pos
	return levels.Vec2{X: pos.X, Y: pos.Y}
}

// leaveCar presses Use and waits until p stands on foot.
func leaveCar(t testing.TB, g *GameServer, ps []*probe, p *probe) {
	t.Helper()
	p.send(components.Drive{Pressed: components.BtnUse})
	run(g, ps, 1, nil)
	for range 3 * ecs.TickRate {
		if act, in, _ := g.persons.Get(p.s.char); act.Act == components.ActOnFoot && in.Vehicle.IsZero() {
			return
		}
		run(g, ps, 1, func(int) components.Drive { return components.Drive{} })
	}
	t.Fatal("never got out")
}

// TestPhoneOffersAndRefusals: a city-jobs player's phone has every
// mission's offer; a stale offer, an offer of nobody's phone, an abandon
// or a screen answer with no mission, an unknown phone command are refused
// with the reason and change nothing; a declined offer closes and comes
// back; free roam refuses every phone command.
func TestPhoneOffersAndRefusals(t *testing.T) {
	race.Solo(t)
	g, ps := newJobs(t, 2)
	a, b := ps[0], ps[1]
	h := systems.Missions(g.World())
	if h == nil {
		t.Fatal("city-jobs runs no MissionHost")
	}
	for _, d := range h.Defs() {
		if a.offer(d.Name) == 0 {
			t.Fatalf("no offer of %s on the phone: %v", d.Name, a.lastText("phone"))
		}
	}
	if tr := a.lastText("tracker"); tr == nil || tr["mission"] != "" {
		t.Fatalf("tracker on join %v, want none", tr)
	}
	// The phone in the last slot: using it opens it on the page.
	if a.lastText("phone")["open"] == true {
		t.Fatal("the phone is open before it was used")
	}
	ok(t, do(g, ps, a, `{"type":"use","slot":%d}`, components.InventorySlots-1))
	if a.lastText("phone")["open"] != true {
		t.Fatalf("using the phone did not open it: %v", a.lastText("phone"))
	}
	refused(t, do(g, ps, a, `{"type":"phone","cmd":"accept","offer":999}`), "not open")
	refused(t, do(g, ps, a, `{"type":"phone","cmd":"accept","offer":%d}`, b.offer("delivery")), "not open")
	refused(t, do(g, ps, a, `{"type":"phone","cmd":"accept"}`), `"offer" is required`)
	refused(t, do(g, ps, a, `{"type":"phone","cmd":"abandon"}`), "no mission")
	refused(t, do(g, ps, a, `{"type":"phone","cmd":"screen","choice":0}`), "no screen")
	refused(t, do(g, ps, a, `{"type":"phone","cmd":"dial"}`), "unknown phone command")
	if h.Running() != 0 {
		t.Fatalf("%d missions running after refusals", h.Running())
	}
	o := a.offer("delivery")
	ok(t, do(g, ps, a, `{"type":"phone","cmd":"decline","offer":%d}`, o))
	if a.offer("delivery") != 0 {
		t.Fatal("the declined offer is still open")
	}
	refused(t, do(g, ps, a, `{"type":"phone","cmd":"accept","offer":%d}`, o), "not open")
	run(g, ps, missionhost.ReofferDeclined+1, nil)
	if a.offer("delivery") == 0 {
		t.Fatal("no new offer after the decline's wait")
	}
	accept(t, g, ps, a, "delivery")
	refused(t, do(g, ps, a, `{"type":"phone","cmd":"accept","offer":%d}`, a.offer("race")), "abandon it first")
	refused(t, do(g, ps, b, `{"type":"phone","cmd":"abandon"}`), "no mission") // a's mission is not b's
	if h.Running() != 1 {
		t.Fatalf("%d missions running, want 1", h.Running())
	}
	ok(t, do(g, ps, a, `{"type":"phone","cmd":"abandon"}`))
	if h.Running() != 0 || len(a.notices("failure")) != 1 {
		t.Fatalf("abandon: %d running, failure notices %q", h.Running(), a.notices("failure"))
	}
	if tr := a.lastText("tracker"); tr["mission"] != "" {
		t.Fatalf("tracker after the end %v", tr)
	}

	fr := newGame(t, "test-flat", "free-roam")
	p := join(t, fr, Who{})
	fr.Tick()
	p.command(`{"type":"phone","cmd":"accept","offer":1}`)
	fr.Tick()
	p.read()
	refused(t, p.lastText("reply"), "runs no missions")
}

// moveTo moves p (its car when it sits in one) to (x, y) facing yaw.
func moveTo(t testing.TB, g *GameServer, ps []*probe, p *probe, x, y, yaw float32) {
	t.Helper()
	ok(t, do(g, ps, p, `{"type":"debug","cmd":"teleport","x":%g,"y":%g,"yaw":%g}`, x, y, yaw))
}

// pickUp walks p (on foot) onto the loose item named item and picks it up.
func pickUp(t testing.TB, g *GameServer, ps []*probe, p *probe, item string) {
	t.Helper()
	wid := looseItem(g, item)
	if wid == 0 {
		t.Fatalf("no %s lies about", item)
	}
	e, _ := g.World().ByWireID(wid)
	pos := g.posOf(e).Pos
	moveTo(t, g, ps, p, pos.X+1, pos.Y, 0)
	ok(t, do(g, ps, p, `{"type":"pickup","target":%d}`, wid))
}

// driveUntil drives p with d until the mission's tracker clears (it ended)
// or n ticks pass, and reports whether it ended.
func driveUntil(g *GameServer, ps []*probe, p *probe, n int, d components.Drive) bool {
	for range n {
		run(g, ps, 1, func(i int) components.Drive {
			if ps[i] == p {
				return d
			}
			return components.Drive{}
		})
		if tr := p.lastText("tracker"); tr != nil && tr["mission"] == "" {
			return true
		}
	}
	return false
}

// TestDelivery plays the delivery through to success and to failure. The
// player walks to the parcel (a teleport stands for the walk), picks it up,
// gets back in the car, is teleported most of the way across town and
// drives the rest to the hospital with scripted inputs; the failures are
// the timer running out and another player taking the parcel.
func TestDelivery(t *testing.T) {
	race.Solo(t)
	t.Run("success", func(t *testing.T) {
		g, ps := newJobs(t, 1)
		p := ps[0]
		accept(t, g, ps, p, "delivery")
		tr := p.lastText("tracker")
		if !strings.Contains(tr["objective"].(string), "Pick up the parcel") || tr["marker"] == nil || tr["ends"] == nil {
			t.Fatalf("tracker %v", tr)
		}
		before := cash(g, p)
		parcel := looseItem(g, "parcel")
		e, _ := g.World().ByWireID(parcel)
		pp := g.posOf(e).Pos
		moveTo(t, g, ps, p, pp.X+3, pp.Y-4, 0) // the car beside the parcel
		leaveCar(t, g, ps, p)
		pickUp(t, g, ps, p, "parcel")
		run(g, ps, 2, nil)
		if tr := p.lastText("tracker"); !strings.Contains(tr["objective"].(string), "hospital") || tr["radius"] == nil {
			t.Fatalf("tracker after the pickup %v", tr)
		}
		moveTo(t, g, ps, p, pp.X+3, pp.Y-2.5, 0) // back by the car, on foot
		p.send(components.Drive{Pressed: components.BtnUse})
		run(g, ps, ecs.TickRate, nil)
		if _, in, _ := g.persons.Get(p.s.char); in.Vehicle.IsZero() {
			t.Fatal("not back in the car")
		}
		moveTo(t, g, ps, p, -170, 193.75, 3.1415927) // across town, westbound on the hospital's street
		if !driveUntil(g, ps, p, 10*ecs.TickRate, components.Drive{Throttle: 0.5}) {
			t.Fatalf("not delivered; the car is at %v, tracker %v", at(g, p), p.lastText("tracker"))
		}
		if n := p.notices("success"); len(n) != 1 || cash(g, p) != before+300 {
			t.Fatalf("success notices %q, cash %d (was %d)", n, cash(g, p), before)
		}
		if looseItem(g, "parcel") != 0 || inventoryCount(g, p, "parcel") != 0 {
			t.Fatal("the parcel is still about")
		}
	})
	t.Run("out of time", func(t *testing.T) {
		g, ps := newJobs(t, 1)
		p := ps[0]
		accept(t, g, ps, p, "delivery")
		if driveUntil(g, ps, p, 89*ecs.TickRate, components.Drive{}) {
			t.Fatal("ended before its time")
		}
		if !driveUntil(g, ps, p, 2*ecs.TickRate, components.Drive{}) {
			t.Fatal("did not end when its time ran out")
		}
		if n := p.notices("failure"); len(n) != 1 || !strings.Contains(n[0], "Too slow") {
			t.Fatalf("failure notices %q", n)
		}
		if looseItem(g, "parcel") != 0 {
			t.Fatal("the parcel is left lying after the end")
		}
	})
	t.Run("taken by another", func(t *testing.T) {
		g, ps := newJobs(t, 2)
		p, q := ps[0], ps[1]
		accept(t, g, ps, p, "delivery")
		leaveCar(t, g, ps, q)
		pickUp(t, g, ps, q, "parcel")
		run(g, ps, 2, nil)
		if n := p.notices("failure"); len(n) != 1 || !strings.Contains(n[0], "took the parcel") {
			t.Fatalf("failure notices %q", n)
		}
		if inventoryCount(g, q, "parcel") != 0 {
			t.Fatal("the other player keeps the mission's parcel after it ended")
		}
	})
}

// inventoryCount returns how many of the item named name p holds.
func inventoryCount(g *GameServer, p *probe, name string) int {
	id, _ := g.World().Items.ByName(name)
	return g.inv.Get(p.s.char).Count(id)
}

package server

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/ecs/ecstest"
	"github.com/fiveonit/engine/internal/race"
	"github.com/fiveonit/engine/levels"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/runs"
	"github.com/fiveonit/engine/store"
)

// callcarOut takes p's player out of its car, on foot where it sat.
func callcarOut(g *GameServer, p *probe) {
	g.bodies.unseat(p.s.char)
	_, vel := g.poses.Get(p.s.char)
	*vel = components.Velocity{}
}

// callcarPut stands e at (x, y) facing yaw, stopped (a car with nobody in
// it, or a person on foot).
func callcarPut(g *GameServer, e ecs.Entity, x, y, yaw float32) {
	pose, vel := g.poses.Get(e)
	*pose = components.Pose{Pos: components.Vec3{X: x, Y: y}, Rot: components.YawQuat(yaw)}
	*vel = components.Velocity{}
}

// callcarFar returns a point on one of main-city's traffic lanes between
// from and to metres of p, and the lane's heading: a street far away.
func callcarFar(t *testing.T, l *levels.Level, p levels.Vec2, from, to float32) (levels.Vec2, float32) {
	t.Helper()
	g := l.Ground
	for _, lp := range l.LanePointsIn([]levels.Vec2{g.Min, {X: g.Max.X, Y: g.Min.Y}, g.Max, {X: g.Min.X, Y: g.Max.Y}}, 9, 12) {
		if d := lp.Pos.Sub(p).Len(); d >= from && d <= to {
			return lp.Pos, math32.Atan2(lp.Dir.Y, lp.Dir.X)
		}
	}
	t.Fatalf("no lane point %g to %g m from %v", from, to, p)
	return levels.Vec2{}, 0
}

// callcarCity is a main-city room (gapsCity) with p's player on foot where
// it came in, and its car on a street 300 m away, stopped.
func callcarCity(t *testing.T) (g *GameServer, p, other *probe) {
	t.Helper()
	g, p, other = gapsCity(t)
	callcarOut(g, p)
	me := g.posOf(p.s.char).Pos
	at, yaw := callcarFar(t, g.Level(), levels.Vec2{X: me.X, Y: me.Y}, 290, 320)
	callcarPut(g, p.s.car, at.X, at.Y, yaw)
	g.Tick()
	p.read()
	other.read()
	return g, p, other
}

// callcarTexts returns the carcall frames and the notices p got since
// from (an index into p.texts).
func callcarTexts(p *probe, from int) (frames, notices []map[string]any) {
	for _, m := range p.texts[from:] {
		switch m["type"] {
		case "carcall":
			frames = append(frames, m)
		case "notice":
			notices = append(notices, m)
		}
	}
	return frames, notices
}

// TestCarCallDelivers: a player whose car stands on a street 300 m away
// calls it; the reply is ok, a carcall frame says it is coming (where it
// stands, when it arrives, the fee) with a notice. CarCallTicks later, not
// before, it stands on a free spot of the road within 40 m of the player,
// facing along the lane, upright and at rest, the same car (its wire id,
// its damage), and the fee is paid; a carcall frame and a notice say it
// arrived. A call at once after is refused: the car was just delivered.
func TestCarCallDelivers(t *testing.T) {
	g, p, _ := callcarCity(t)
	w := g.World()
	car := p.s.car
	wid := g.ids.Get(car).WireID
	g.health.Get(car).HP = 600 // dented: it comes as it is
	from := g.posOf(car).Pos
	cash := cashOf(g, p)
	seen := len(p.texts)

	p.command(`{"type":"callcar","id":1}`)
	g.Tick()
	gapsOK(t, p, 1, "callcar")
	frames, notices := callcarTexts(p, seen)
	if len(frames) != 1 || frames[0]["state"] != "coming" || frames[0]["car"] != float64(wid) || frames[0]["fee"] != float64(CarCallFee) {
		t.Fatalf("carcall frames after the call: %v", frames)
	}
	if at, _ := frames[0]["at"].([]any); len(at) != 2 || at[0] != float64(from.X) || at[1] != float64(from.Y) {
		t.Fatalf("coming frame at %v, want where the car stands %v", frames[0]["at"], from)
	}
	called := uint64(frames[0]["tick"].(float64))
	if ends := uint64(frames[0]["ends"].(float64)); ends != called+CarCallTicks {
		t.Fatalf("coming frame ends at %d, sent at %d: want %d ticks later", ends, called, CarCallTicks)
	}
	if len(notices) != 1 || !strings.Contains(notices[0]["text"].(string), "on its way: here in 4 s, $50 on arrival") {
		t.Fatalf("notices after the call: %v", notices)
	}

	// Nothing moves until its time.
	for range CarCallTicks - 2 {
		g.Tick()
	}
	if g.posOf(car).Pos != from || cashOf(g, p) != cash {
		t.Fatalf("the car moved to %v (cash %d) before its time", g.posOf(car).Pos, cashOf(g, p))
	}
	seen = len(p.texts)
	for range 3 {
		g.Tick()
	}
	p.read()
	if !w.Arche.Alive(car) || g.ids.Get(car).WireID != wid || g.health.Get(car).HP != 600 {
		t.Fatal("the car delivered is not the car called, as it was")
	}
	me, at := g.posOf(p.s.char), g.posOf(car)
	if d := flatDist(me, at); d > 40 || d < 2 {
		t.Fatalf("the car stands %.1f m from the player (at %v), want within 40 m and clear", d, at.Pos)
	}
	if at.Rot.X != 0 || at.Rot.Y != 0 {
		t.Fatalf("the car delivered is not upright: %+v", at.Rot)
	}
	_, vel := g.poses.Get(car)
	if vel.Lin.X*vel.Lin.X+vel.Lin.Y*vel.Lin.Y > 1e-6 || vel.Ang.Z != 0 {
		t.Fatalf("the car delivered moves: %+v", vel)
	}
	if g.static.Overlaps(phys.Flat(at.Pos), 1.2) {
		t.Fatalf("the car delivered stands in a building at %v", at.Pos)
	}
	// On the lane nearest the player, or a car's width or a few to its
	// side, facing the lane's way.
	l := g.Level()
	lane, _ := l.NearestLane(levels.Vec2{X: me.Pos.X, Y: me.Pos.Y})
	la, lb := l.LaneLine(lane)
	ab := lb.Sub(la)
	off := math32.Abs(ab.Cross(levels.Vec2{X: at.Pos.X, Y: at.Pos.Y}.Sub(la))) / ab.Len()
	if yaw := math32.Atan2(ab.Y, ab.X); off > 12 || math32.Abs(math32.Remainder(at.Rot.Yaw()-yaw, 2*math32.Pi)) > 1e-3 {
		t.Fatalf("the car stands %.1f m off the player's nearest lane, heading %.2f: want on it, the lane's way (%.2f)", off, at.Rot.Yaw(), yaw)
	}
	t.Logf("delivered %.1f m from the player, %.1f m off the lane's centreline", flatDist(me, at), off)
	if got := cashOf(g, p); got != cash-CarCallFee {
		t.Fatalf("cash %d after the delivery, want %d", got, cash-CarCallFee)
	}
	frames, notices = callcarTexts(p, seen)
	if len(frames) != 1 || frames[0]["state"] != "arrived" || frames[0]["car"] != float64(wid) || frames[0]["fee"] != float64(CarCallFee) {
		t.Fatalf("carcall frames on arrival: %v", frames)
	}
	if a, _ := frames[0]["at"].([]any); len(a) != 2 || a[0] != float64(at.Pos.X) || a[1] != float64(at.Pos.Y) {
		t.Fatalf("arrived frame at %v, want %v", frames[0]["at"], at.Pos)
	}
	if len(notices) != 1 || notices[0]["kind"] != "success" || !strings.Contains(notices[0]["text"].(string), "is here") {
		t.Fatalf("notices on arrival: %v", notices)
	}

	// The car stays put: nothing drives it.
	still := at.Pos
	for range 30 {
		g.Tick()
	}
	if g.posOf(car).Pos != still {
		t.Fatalf("the car delivered rolled from %v to %v", still, g.posOf(car).Pos)
	}
	p.command(`{"type":"callcar","id":2}`)
	g.Tick()
	gapsRefused(t, p, 2, "a call just after a delivery", "your car was delivered a moment ago: call it again in 20 s")
}

// TestCarCallClearOfOthers: a car parked on the lane where the called
// car would go (a car's length ahead of it) is left clear: the car called
// stands apart from it, not overlapping.
func TestCarCallClearOfOthers(t *testing.T) {
	deliver := func(g *GameServer, p *probe) components.Pose {
		t.Helper()
		p.command(`{"type":"callcar","id":1}`)
		for range CarCallTicks + 2 {
			g.Tick()
		}
		gapsOK(t, p, 1, "callcar")
		return *g.posOf(p.s.car)
	}
	g, p, _ := callcarCity(t)
	first := deliver(g, p)

	// The same room again, with the other player's car parked 4 m ahead
	// of where the car went: the same spot is taken no more.
	g, p, other := callcarCity(t)
	callcarOut(g, other)
	callcarPut(g, other.s.char, first.Pos.X+60, first.Pos.Y+60, 0)
	co, sn := first.Rot.Heading()
	callcarPut(g, other.s.car, first.Pos.X+co*4, first.Pos.Y+sn*4, first.Rot.Yaw())
	at := deliver(g, p)
	if d := flatDist(&at, g.posOf(other.s.car)); d < 5 {
		t.Fatalf("the car called stands %.1f m from the car parked (%v, %v): they overlap", d, at.Pos, g.posOf(other.s.car).Pos)
	}
	if d := flatDist(&at, g.posOf(p.s.char)); d > 40 {
		t.Fatalf("the car called stands %.1f m from the player", d)
	}
}

// TestCarCallFlippedNear: a car flipped on its roof 10 m away is brought
// back however near: it stands upright on its wheels after the delay.
func TestCarCallFlippedNear(t *testing.T) {
	g, p, _ := gapsCity(t)
	callcarOut(g, p)
	me := g.posOf(p.s.char).Pos
	callcarPut(g, p.s.car, me.X+10, me.Y, 0)
	g.posOf(p.s.car).Rot = components.Quat{X: 1} // on its roof
	p.command(`{"type":"callcar","id":1}`)
	for range CarCallTicks + 2 {
		g.Tick()
	}
	gapsOK(t, p, 1, "callcar of a flipped car")
	if r := g.posOf(p.s.car).Rot; r.X != 0 || r.Y != 0 {
		t.Fatalf("the car is still tilted: %+v", r)
	}
	if frames, _ := callcarTexts(p, 0); len(frames) != 2 || frames[1]["state"] != "arrived" {
		t.Fatalf("carcall frames %v", frames)
	}
}

// TestCarCallOffRoad: on a level with no lanes (test-flat) the car comes
// to a free spot beside its owner.
func TestCarCallOffRoad(t *testing.T) {
	g := newServer(t)
	p := join(t, g, Who{})
	g.Tick()
	callcarOut(g, p)
	callcarPut(g, p.s.char, 40, 40, 0)
	callcarPut(g, p.s.car, -250, 300, 0)
	p.command(`{"type":"callcar","id":1}`)
	for range CarCallTicks + 2 {
		g.Tick()
	}
	gapsOK(t, p, 1, "callcar off the road")
	if d := flatDist(g.posOf(p.s.char), g.posOf(p.s.car)); d > 10 || d < 2 {
		t.Fatalf("the car stands %.1f m from its owner, want beside them", d)
	}
}

// TestCarCallRefused: each reason a call is refused, with the reply's
// words; a refused call changes nothing (the car stays, no cash goes, no
// carcall frame).
func TestCarCallRefused(t *testing.T) {
	race.Solo(t)
	for _, tc := range []struct {
		name string
		set  func(g *GameServer, p, other *probe)
		want string
	}{
		{"dead", func(g *GameServer, p, _ *probe) { g.health.Get(p.s.char).HP = 0 }, "you are dead"},
		{"wanted", func(g *GameServer, p, _ *probe) {
			wa, _ := g.wanted.Get(p.s.char)
			wa.Stars = 2
		}, "no delivery while the police want you: lose the 2-star Wanted level first"},
		{"no car out", func(g *GameServer, p, _ *probe) { g.World().Despawn(p.s.car) }, "you have no car out"},
		{"kept in a garage", func(g *GameServer, p, _ *probe) {
			g.World().Despawn(p.s.car)
			g.cars.load(p.s, []store.Car{{Garage: "garage", Bay: 0, Model: 1, Health: 1000}})
		}, "you have no car out: the cars you keep are in a garage; take one out there"},
		{"wrecked", func(g *GameServer, p, _ *probe) {
			ecstest.Get[components.Flags](g.World(), p.s.car).Bits |= components.FlagWrecked
		}, "your car is wrecked: no delivery brings it back; find another car, and keep it in a garage to have it again"},
		{"wrecked, one kept", func(g *GameServer, p, _ *probe) {
			ecstest.Get[components.Flags](g.World(), p.s.car).Bits |= components.FlagWrecked
			g.cars.load(p.s, []store.Car{{Garage: "garage", Bay: 0, Model: 1, Health: 1000}})
		}, "your car is wrecked: no delivery brings it back; take a car you keep out of its garage"},
		{"near", func(g *GameServer, p, _ *probe) {
			me := g.posOf(p.s.char).Pos
			callcarPut(g, p.s.car, me.X+12, me.Y, 0)
		}, "your car is already near: it stands 12 m away"},
		{"sitting in it", func(g *GameServer, p, _ *probe) { g.pf.Seat(p.s.char, p.s.car, 0) }, "your car is already near: you sit in it"},
		{"someone else driving", func(g *GameServer, p, other *probe) {
			callcarOut(g, other)
			g.pf.Seat(other.s.char, p.s.car, 0)
		}, "your car is taken: someone else is driving it"},
		{"a passenger", func(g *GameServer, p, other *probe) {
			callcarOut(g, other)
			g.pf.Seat(other.s.char, p.s.car, 1)
		}, "your car is taken: someone sits in it"},
		{"no cash", func(g *GameServer, p, _ *probe) {
			_, c := g.wanted.Get(p.s.char)
			c.Amount = 20
		}, "not enough cash: a delivery costs 50, you have 20"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, p, other := callcarCity(t)
			tc.set(g, p, other)
			var at components.Vec3
			if g.World().Arche.Alive(p.s.car) {
				at = g.posOf(p.s.car).Pos
			}
			cash, seen := cashOf(g, p), len(p.texts)
			p.command(`{"type":"callcar","id":7}`)
			for range CarCallTicks + 2 {
				g.Tick()
			}
			gapsRefused(t, p, 7, tc.name, tc.want)
			if frames, _ := callcarTexts(p, seen); len(frames) != 0 {
				t.Fatalf("carcall frames after a refusal: %v", frames)
			}
			if cashOf(g, p) != cash {
				t.Fatalf("cash %d after a refusal, was %d", cashOf(g, p), cash)
			}
			if g.World().Arche.Alive(p.s.car) && g.posOf(p.s.car).Pos != at && tc.name != "sitting in it" {
				t.Fatalf("the car moved from %v to %v after a refusal", at, g.posOf(p.s.car).Pos)
			}
		})
	}
}

// TestCarCallRefusedElsewhere: a spectator has no car, and a run room
// gives a player their car itself.
func TestCarCallRefusedElsewhere(t *testing.T) {
	g, _, _ := gapsCity(t)
	sp := join(t, g, Who{Spectate: true})
	g.Tick()
	sp.command(`{"type":"callcar","id":1}`)
	g.Tick()
	gapsRefused(t, sp, 1, "a spectator's call", "a spectator has no car")

	r := newRunRoom(t, true, false, runs.Seat{Account: "a1", Team: 0})
	r.live("a1")
	p := r.ps["a1"]
	p.command(`{"type":"callcar","id":2}`)
	r.ticks(1, components.Drive{})
	gapsRefused(t, p, 2, "a call in a run", "not in a run: the run gives you your car")
}

// TestCarCallCalledOff: a delivery whose call no longer holds at its time
// is called off: the car stays, nothing is paid, and a carcall frame
// "off" and a failure notice say why.
func TestCarCallCalledOff(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(g *GameServer, p, other *probe)
		want string
	}{
		{"died", func(g *GameServer, p, _ *probe) { g.health.Get(p.s.char).HP = 0 }, "you are dead"},
		{"someone took it", func(g *GameServer, p, other *probe) {
			callcarOut(g, other)
			g.pf.Seat(other.s.char, p.s.car, 0)
		}, "someone else is driving it"},
		{"walked to it", func(g *GameServer, p, _ *probe) {
			c := g.posOf(p.s.car).Pos
			callcarPut(g, p.s.char, c.X+5, c.Y+5, 0)
		}, "your car is already near"},
		{"spent the cash", func(g *GameServer, p, _ *probe) {
			_, c := g.wanted.Get(p.s.char)
			c.Amount = 10
		}, "a delivery costs 50, you have 10"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, p, other := callcarCity(t)
			p.command(`{"type":"callcar","id":3}`)
			g.Tick()
			gapsOK(t, p, 3, "callcar")
			tc.set(g, p, other)
			at, cash, seen := g.posOf(p.s.car).Pos, cashOf(g, p), len(p.texts)
			for range CarCallTicks + 1 {
				g.Tick()
			}
			p.read()
			frames, notices := callcarTexts(p, seen)
			if len(frames) != 1 || frames[0]["state"] != "off" || !strings.Contains(fmt.Sprint(frames[0]["why"]), tc.want) {
				t.Fatalf("carcall frames %v, want off with %q", frames, tc.want)
			}
			if len(notices) != 1 || notices[0]["kind"] != "failure" || !strings.Contains(notices[0]["text"].(string), "called off, nothing paid") {
				t.Fatalf("notices %v", notices)
			}
			if g.posOf(p.s.car).Pos != at && tc.name != "someone took it" || cashOf(g, p) != cash {
				t.Fatalf("the car moved (%v to %v) or cash went (%d to %d)", at, g.posOf(p.s.car).Pos, cash, cashOf(g, p))
			}
			// Called off is no delivery: a new call is taken at once.
			if tc.name == "walked to it" {
				callcarPut(g, p.s.char, at.X+200, at.Y, 0)
				p.command(`{"type":"callcar","id":4}`)
				g.Tick()
				gapsOK(t, p, 4, "a call after one called off")
			}
		})
	}
}

// TestCarCallSpam: a client that sends the call many times in a tick gets
// one call taken and a refusal for each other, and stays connected; one
// delivery comes.
func TestCarCallSpam(t *testing.T) {
	g, p, _ := callcarCity(t)
	for i := range TextBurst - 2 {
		p.command(fmt.Sprintf(`{"type":"callcar","id":%d}`, 100+i))
	}
	g.Tick()
	gapsOK(t, p, 100, "the first call")
	for i := 1; i < TextBurst-2; i++ {
		gapsRefused(t, p, 100+i, "a call again", "your car is already on the way: here in 4 s")
	}
	for range CarCallTicks + 1 {
		g.Tick()
	}
	p.read()
	if p.s.closed {
		t.Fatal("the spamming client was cut off")
	}
	if frames, _ := callcarTexts(p, 0); len(frames) != 2 || frames[1]["state"] != "arrived" {
		t.Fatalf("carcall frames %v, want one call and one arrival", frames)
	}
}

// TestCarCallThroughADrop: a player whose connection drops while their car
// is on its way, and who takes their place back, is told anew that it is
// coming; it arrives while they play on, the news told once.
func TestCarCallThroughADrop(t *testing.T) {
	g := newHoldingServer(t, 30*time.Second)
	a := join(t, g, Who{Name: "Ada"})
	drive(g, 3, components.Drive{}, a)
	callcarOut(g, a)
	callcarPut(g, a.s.car, 250, 250, 0)
	a.command(`{"type":"callcar","id":1}`)
	drive(g, 10, components.Drive{}, a)
	gapsOK(t, a, 1, "callcar")
	a.s.Leave() // the connection dropped
	for range 30 {
		g.Tick()
	}
	b := join(t, g, Who{Rejoin: a.welcome.Rejoin})
	drive(g, 3, components.Drive{}, b)
	frames, _ := callcarTexts(b, 0)
	if len(frames) != 1 || frames[0]["state"] != "coming" || frames[0]["car"] != float64(a.welcome.Car) {
		t.Fatalf("carcall frames of the place taken back: %v", frames)
	}
	if first, _ := callcarTexts(a, 0); len(first) != 1 || frames[0]["ends"] != first[0]["ends"] {
		t.Fatalf("told anew %v, first told %v: the same arrival wanted", frames, first)
	}
	drive(g, CarCallTicks, components.Drive{}, b)
	frames, _ = callcarTexts(b, 0)
	if len(frames) != 2 || frames[1]["state"] != "arrived" {
		t.Fatalf("carcall frames %v, want coming then arrived", frames)
	}
	if d := flatDist(g.posOf(b.s.char), g.posOf(b.s.car)); d > 10 {
		t.Fatalf("the car stands %.1f m away", d)
	}
}

// TestCarCallNoSpot: when no place near the player would hold the car
// clear of every other body at its time, the delivery is called off,
// saying so: the car stays where it was and nothing is paid.
func TestCarCallNoSpot(t *testing.T) {
	g, p, _ := callcarCity(t)
	car := p.s.car
	p.command(`{"type":"callcar","id":1}`)
	g.Tick()
	gapsOK(t, p, 1, "callcar")
	for range CarCallTicks - 2 {
		g.Tick()
	}
	at, cash, seen := g.posOf(car).Pos, cashOf(g, p), len(p.texts)
	// A car as wide as a district: wherever it went near the player, it
	// would stand on the player.
	body := ecstest.Get[components.Body](g.World(), car)
	body.Shape, body.Radius = components.ShapeCircle, 500
	for range 3 {
		g.Tick()
	}
	p.read()
	frames, notices := callcarTexts(p, seen)
	if len(frames) != 1 || frames[0]["state"] != "off" || !strings.Contains(fmt.Sprint(frames[0]["why"]), ErrCarNoSpot.Error()) {
		t.Fatalf("carcall frames %v, want off for want of a spot", frames)
	}
	if len(notices) != 1 || notices[0]["kind"] != "failure" || !strings.Contains(notices[0]["text"].(string), "called off, nothing paid") {
		t.Fatalf("notices %v", notices)
	}
	me := g.posOf(p.s.char).Pos
	if now := g.posOf(car).Pos; math32.Hypot(now.X-me.X, now.Y-me.Y) < 200 || cashOf(g, p) != cash {
		t.Fatalf("the car went from %v to %v, %.0f m from the player, and cash from %d to %d: want it left far, unpaid",
			at, now, math32.Hypot(now.X-me.X, now.Y-me.Y), cash, cashOf(g, p))
	}
}

// TestCarCallLeavesTrailer: a car called while it tows a trailer comes
// alone: the trailer is let go and stays where the car stood.
func TestCarCallLeavesTrailer(t *testing.T) {
	g, p, _ := callcarCity(t)
	car := p.s.car
	pose := g.posOf(car)
	yaw := pose.Rot.Yaw()
	back := phys.TrailerLength(phys.ModelTrailer)
	at := components.Vec3{X: pose.Pos.X - back*math32.Cos(yaw), Y: pose.Pos.Y - back*math32.Sin(yaw), Z: pose.Pos.Z}
	trailer, err := g.pf.Vehicle(components.KindTrailer, phys.ModelTrailer, at, yaw, car)
	if err != nil {
		t.Fatal(err)
	}
	link := ecstest.Get[components.TrailerLink](g.World(), trailer)
	if link.Tractor != car {
		t.Fatalf("the trailer is hitched to %v, want the car %v", link.Tractor, car)
	}
	p.command(`{"type":"callcar","id":1}`)
	g.Tick()
	gapsOK(t, p, 1, "callcar with a trailer")
	for range CarCallTicks - 1 {
		g.Tick()
	}
	left := g.posOf(trailer).Pos
	for range 2 {
		g.Tick()
	}
	me, got := g.posOf(p.s.char), g.posOf(car)
	if d := flatDist(me, got); d > 40 {
		t.Fatalf("the car stands %.1f m from the player: not delivered", d)
	}
	if link := ecstest.Get[components.TrailerLink](g.World(), trailer); !link.Tractor.IsZero() {
		t.Fatalf("the trailer is still hitched to %v", link.Tractor)
	}
	now := g.posOf(trailer).Pos
	if d := math32.Hypot(now.X-left.X, now.Y-left.Y); d > 1 {
		t.Fatalf("the trailer moved %.1f m, from %v to %v: want it left where it stood", d, left, now)
	}
}

package main

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/netsync/wire"
	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/systems/city"
	"github.com/fiveonit/engine/systems/damage"
	"github.com/fiveonit/engine/textframe"
)

// fx is an event as Events hands it to the page.
type fx struct {
	K            string
	X, Y, Ex, Ey float32
	Fx, Fy       float32
	Hit, Me      bool
	Mine, Kill   bool
	By           string
	Src, Tgt     uint16
	Amt          float32
}

// takeFX parses what p.Events says.
func takeFX(t *testing.T, p *Page) []fx {
	t.Helper()
	s := p.Events()
	if s == "" {
		return nil
	}
	var out []fx
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		t.Fatalf("events %q: %v", s, err)
	}
	return out
}

// outOnFoot gets every page of r out of its start car and stands each at
// the place given, by a debug teleport.
func outOnFoot(t *testing.T, r *room, at ...[2]float32) {
	t.Helper()
	for i := 0; i < 30; i++ {
		r.step()
	}
	keys := make([]uint32, len(r.pages))
	for i := range keys {
		keys[i] = KeyUse
	}
	r.step(keys...)
	for i := 0; i < 40; i++ {
		r.step()
	}
	for i, p := range r.pages {
		if i < len(at) {
			cmd := fmt.Sprintf(`{"type":"debug","cmd":"teleport","x":%g,"y":%g}`, at[i][0], at[i][1])
			if err := p.Command(cmd); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := 0; i < 20; i++ {
		r.step()
	}
	for i, p := range r.pages {
		if _, car, _ := p.Client().Controlled(); car {
			t.Fatalf("page %d still in its car", i)
		}
	}
}

// TestShotsAndDeathInRoom: player 1 shoots player 2 dead with a pistol on
// test-flat. Player 1's page gets each shot with its tracer ending on
// player 2 and a hit marked as theirs; player 2's page gets the hits on
// them with the shooter's place, and once dead the death screen says who
// shot them and counts down to the respawn.
func TestShotsAndDeathInRoom(t *testing.T) {
	r := newRoom(t, "test-flat")
	a := r.join(server.Who{})
	b := r.join(server.Who{})
	outOnFoot(t, r, [2]float32{-40, 60}, [2]float32{-20, 60})
	for _, cmd := range []string{
		`{"type":"debug","cmd":"give-item","item":"pistol"}`,
		`{"type":"debug","cmd":"give-item","item":"pistol-ammo","count":24}`,
	} {
		if err := a.Command(cmd); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 5; i++ {
		r.step()
	}
	r.step(KeyWeapon)
	var shots, marks []fx
	var hurt []fx
	aim := func() {
		a.Tick(KeyAim, 0) // a page ticks with the mouse east of it
	}
	after := 0 // ticks since player 2's page showed the death: the frames of a tick reach the pages a tick apart
	for i := 0; i < 4*60 && after < 5; i++ {
		if b.State().Death != nil {
			after++
		}
		r.g.Tick()
		for pi, p := range r.pages {
			for _, f := range r.conns[pi].Recv() {
				data := f.Data
				if !f.Text {
					data = p.FrameBuffer(len(f.Data))
					copy(data, f.Data)
				}
				if err := p.Frame(data, f.Text); err != nil {
					t.Fatal(err)
				}
			}
		}
		aim()
		b.Tick(0, float32(math.NaN()))
		for _, e := range takeFX(t, a) {
			switch {
			case e.K == "shot" && e.Mine:
				shots = append(shots, e)
			case e.K == "hit" && e.Mine:
				marks = append(marks, e)
			}
		}
		for _, e := range takeFX(t, b) {
			if e.K == "hit" && e.Me {
				hurt = append(hurt, e)
			}
		}
	}
	d := b.State().Death
	if d == nil {
		t.Fatalf("player 2 alive after 4 s of fire: %d shots, %d hits", len(shots), len(marks))
	}
	if len(shots) < 4 || len(marks) < 4 || len(hurt) < 4 {
		t.Fatalf("%d shots, %d hits marked, %d hits felt; want 4 of each at least", len(shots), len(marks), len(hurt))
	}
	for _, s := range shots[:4] {
		if !s.Hit || math32.Abs(s.Ex-(-20)) > 1 || math32.Abs(s.Ey-60) > 1 || s.By != "character" {
			t.Errorf("shot %+v: want its tracer to end on player 2 at (-20, 60)", s)
		}
	}
	if !marks[len(marks)-1].Kill {
		t.Errorf("the last hit %+v does not say it killed", marks[len(marks)-1])
	}
	if h := hurt[0]; math32.Abs(h.Fx-(-40)) > 1 || math32.Abs(h.Fy-60) > 1 {
		t.Errorf("hit felt %+v: want it from player 1 at (-40, 60)", h)
	}
	if d.Cause != "Shot by player 1" || d.Killer != 1 || !d.Server {
		t.Errorf("death %+v, want shot by player 1, as the server says", d)
	}
	if got := b.causeText(b.selfHarm); got != "Shot by player 1" {
		t.Errorf("the page's own cause %q, want shot by player 1", got)
	}
	if d.RespawnIn <= 0 || d.RespawnIn > float64(city.RespawnTicks)/60 || d.Where != "hospital" {
		t.Errorf("respawn in %v s at %q, want within %d ticks at the hospital", d.RespawnIn, d.Where, city.RespawnTicks)
	}
	if a.State().Death != nil {
		t.Error("the shooter's page shows a death screen")
	}
}

// TestShotEndsAtRange: a round that hits nothing is drawn to the shot's
// range, and one toward a building stops at its wall.
func TestShotEndsAtRange(t *testing.T) {
	r := newRoom(t, "main-city")
	p := r.join(server.Who{})
	for i := 0; i < 10; i++ {
		r.step()
	}
	// A shot along a street: no building in 60 m.
	evs := []wireEvent{{x: -192, y: -176, dx: 0, dy: 1}}
	end, hit := p.shotEnd(shotEvents(evs), make([]bool, 1), 0)
	if hit || math32.Abs(end.Y-(-176+damage.ShotRange)) > 0.01 || math32.Abs(end.X-(-192)) > 0.01 {
		t.Errorf("a clear shot ends at %+v (hit %v), want %g m up the street", end, hit, float32(damage.ShotRange))
	}
	// Into the garage's wall (its footprint runs from y -160): the round
	// stops there.
	end, _ = p.shotEnd(shotEvents([]wireEvent{{x: -144, y: -175, dx: 0, dy: 1}}), make([]bool, 1), 0)
	if math32.Abs(end.Y-(-160)) > 0.5 {
		t.Errorf("a shot at the garage ends at %+v, want its wall at y -160", end)
	}
}

// TestCauseText: what the death screen says of each harm.
func TestCauseText(t *testing.T) {
	p := NewPage(func([]byte, bool) error { return nil }, false)
	p.roster = append(p.roster, rosterLine(7, 2, "Robin"))
	p.carHarm = harm{how: "crash", tick: 5}
	for _, c := range []struct {
		h    harm
		want string
	}{
		{harm{how: "shot", by: uint8(components.KindGuard)}, "Shot by a guard"},
		{harm{how: "shot", by: uint8(components.KindOfficer)}, "Shot by the police"},
		{harm{how: "shot", by: uint8(components.KindCharacter), player: 2}, "Shot by Robin"},
		{harm{how: "shot", by: uint8(components.KindCharacter), player: 3}, "Shot by player 3"},
		{harm{how: "run over", by: uint8(components.KindCar), player: 2, model: 3}, "Run over by Robin's van"},
		{harm{how: "run over", by: uint8(components.KindPoliceCar)}, "Run over by a police car"},
		{harm{how: "blast", ownCar: true, tick: 9}, "Your car blew up after a crash"},
		{harm{how: "blast", by: uint8(components.KindProjectile)}, "Blown up by a grenade"},
		{harm{how: "blast", by: uint8(components.KindCar)}, "Caught in a car's explosion"},
		{harm{how: "crash"}, "Killed in a crash"},
	} {
		if got := p.causeText(c.h); got != c.want {
			t.Errorf("%+v: %q, want %q", c.h, got, c.want)
		}
	}
	if !strings.HasPrefix(modelName(3), "van") {
		t.Errorf("model 3 is %q, want the van", modelName(3))
	}
}

// TestServerCause: what the death screen says of each cause the server's
// status frame tells player 1, and when the page's own words for the same
// death stand in for the server's.
func TestServerCause(t *testing.T) {
	p := NewPage(func([]byte, bool) error { return nil }, false)
	p.roster = append(p.roster, rosterLine(7, 2, "Robin"))
	for _, c := range []struct {
		s     status
		want  string
		h     harm // the page's own harm
		agree bool // h is the death s tells
	}{
		{status{Cause: "shot", By: "player", ByPlayer: 2}, "Shot by Robin",
			harm{how: "shot", by: uint8(components.KindCharacter), player: 2}, true},
		{status{Cause: "shot", By: "player", ByPlayer: 3}, "Shot by player 3",
			harm{how: "shot", by: uint8(components.KindCharacter), player: 2}, false},
		{status{Cause: "shot", By: "guard"}, "Shot by a guard", harm{how: "shot", by: uint8(components.KindGuard)}, true},
		{status{Cause: "shot", By: "police"}, "Shot by the police", harm{how: "crash"}, false},
		{status{Cause: "run-over", By: "car"}, "Run over by a car", harm{how: "run over", by: uint8(components.KindCar), model: 3}, true},
		{status{Cause: "run-over", By: "player", ByPlayer: 2}, "Run over by Robin",
			harm{how: "run over", by: uint8(components.KindCar), player: 2, model: 3}, true},
		{status{Cause: "crash"}, "Killed in a crash", harm{how: "crash"}, true},
		{status{Cause: "crash", By: "pedestrian"}, "Killed in a crash with a stranger", harm{how: "shot"}, false},
		{status{Cause: "explosion", By: "player", ByPlayer: 1}, "Blown up by yourself",
			harm{how: "blast", by: uint8(components.KindProjectile), self: true}, true},
		{status{Cause: "explosion"}, "Caught in a blast", harm{how: "blast", ownCar: true}, false},
		{status{Cause: "wreck"}, "Your car blew up", harm{how: "blast", ownCar: true}, true},
		{status{Cause: "wreck", By: "police"}, "Your car blew up, wrecked by the police", harm{how: "blast", ownCar: true}, true},
		{status{Cause: "drowned"}, "", harm{}, false},
		{status{}, "", harm{}, false},
	} {
		if got := p.serverCause(c.s, 1); got != c.want {
			t.Errorf("%+v: %q, want %q", c.s, got, c.want)
		}
		if got := agrees(c.h, c.s, 1); got != c.agree {
			t.Errorf("%+v and the page's %+v: agree %v, want %v", c.s, c.h, got, c.agree)
		}
	}
}

// wireEvent is a shot for shotEnd: from (x, y) along (dx, dy).
type wireEvent struct{ x, y, dx, dy float32 }

func shotEvents(in []wireEvent) []wire.Event {
	out := make([]wire.Event, len(in))
	for i, e := range in {
		out[i] = wire.Event{Kind: wire.EventShot, Source: 1, Pos: wire.Vec3{X: e.x, Y: e.y, Z: 1.4}, Dir: wire.Vec3{X: e.dx, Y: e.dy}}
	}
	return out
}

// rosterLine is a roster's line for player n of session s.
func rosterLine(s uint32, n uint16, name string) textframe.RosterPlayer {
	return textframe.RosterPlayer{Session: s, Player: n, Name: name, State: "foot"}
}

// TestWreckAndBlastInRoom: a player drives flat out into the level's edge
// on test-flat. The car's health shows falling; once the crash wrecks it
// the HUD counts down to its blast; the player stays in and the blast
// kills them: the death screen says their car blew up after a crash.
func TestWreckAndBlastInRoom(t *testing.T) {
	r := newRoom(t, "test-flat")
	p := r.join(server.Who{})
	for i := 0; i < 10; i++ {
		r.step()
	}
	if err := p.Command(`{"type":"debug","cmd":"teleport","x":380,"y":0}`); err != nil {
		t.Fatal(err)
	}
	var wreck *VehicleHUD
	for i := 0; i < 40*60 && wreck == nil; i++ {
		r.step(KeyUp)
		p.Events()
		if v := p.State().Vehicle; v != nil && v.Wrecked {
			wreck = v
		}
	}
	if wreck == nil {
		t.Fatalf("no wreck after 40 s flat out at the level's edge: %+v", p.State().Vehicle)
	}
	if wreck.BlastIn <= 0 || wreck.BlastIn > float64(damage.BlastDelay)/60 || wreck.HP != 0 {
		t.Errorf("wrecked car %+v: want no health left and the blast within %d ticks", wreck, damage.BlastDelay)
	}
	var d *Death
	for i := 0; i < 6*60 && d == nil; i++ {
		r.step()
		p.Events()
		d = p.State().Death
	}
	if d == nil {
		t.Fatal("alive 6 s after the wreck, sitting in it")
	}
	t.Logf("wrecked: %+v; death: %+v", wreck, d)
	if d.Cause != "Your car blew up after a crash" || !d.Server {
		t.Errorf("death %+v, want the car's blast after a crash, a wreck as the server says", d)
	}
}

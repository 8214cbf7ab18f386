package main

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/levels"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/systems/seats"
)

// TestTitle: a place's title is its id's words, a trailing number counted
// from one.
func TestTitle(t *testing.T) {
	for id, want := range map[string]string{
		"corner-shop":     "Corner shop",
		"yard-crate-0":    "Yard crate 1",
		"garage":          "Garage",
		"evidence-locker": "Evidence locker",
		"police_station":  "Police station",
		"7":               "7",
		"":                "",
	} {
		if got := Title(id); got != want {
			t.Errorf("Title(%q) = %q, want %q", id, got, want)
		}
	}
}

// TestPlacesMainCity: main-city's places are all there with their titles:
// the two shops, the five containers, the garage and its four bays, the
// hospital, the police station and the three zones.
func TestPlacesMainCity(t *testing.T) {
	l, err := levels.Load("main-city")
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	titles := map[string]string{}
	for _, p := range Places(l) {
		count[p.Kind]++
		titles[p.Kind+" "+p.ID] = p.Title
		if p.Kind != "zone" && (p.X < l.Ground.Min.X || p.X > l.Ground.Max.X || p.Y < l.Ground.Min.Y || p.Y > l.Ground.Max.Y) {
			t.Errorf("%+v off the level", p)
		}
	}
	want := map[string]int{"shop": 3, "container": 5, "garage": 1, "bay": 4, "hospital": 1, "police": 1, "zone": 3}
	if fmt.Sprint(count) != fmt.Sprint(want) {
		t.Errorf("places %v, want %v", count, want)
	}
	for k, v := range map[string]string{
		"shop corner-shop": "Corner shop", "shop pawn-shop": "Pawn shop", "container yard-crate-0": "Yard crate 1", "garage garage": "Garage",
		"hospital hospital": "Hospital", "zone yard": "Yard",
	} {
		if titles[k] != v {
			t.Errorf("%s: title %q, want %q", k, titles[k], v)
		}
	}
}

// TestRoute: a route on main-city runs from you along the roads to the
// target: it starts and ends at the two points, each step is on a road,
// and it is no longer than twice the way as the crow flies plus a block.
func TestRoute(t *testing.T) {
	r := newRoom(t, "main-city")
	p := r.join(server.Who{})
	r.step()
	from, to := [2]float32{-328, -193.75}, [2]float32{240, 226}
	pts := p.Route(from[0], from[1], to[0], to[1])
	n := len(pts) / 2
	if n < 4 || pts[0] != from[0] || pts[1] != from[1] || pts[len(pts)-2] != to[0] || pts[len(pts)-1] != to[1] {
		t.Fatalf("route %v: want it from %v to %v through the roads", pts, from, to)
	}
	var length float32
	for i := 1; i < n; i++ {
		length += math32.Hypot(pts[2*i]-pts[2*i-2], pts[2*i+1]-pts[2*i-1])
	}
	crow := math32.Hypot(to[0]-from[0], to[1]-from[1])
	if length > 2*crow+100 {
		t.Errorf("route %.0f m long, the crow flies %.0f m", length, crow)
	}
	for i := 1; i < n-1; i++ {
		if lane, _ := p.nav.NearestLane(phys.Vec{X: pts[2*i], Y: pts[2*i+1]}, phys.Vec{}, 8, 0, false); lane < 0 {
			t.Errorf("point %d (%.1f, %.1f) is off the roads", i, pts[2*i], pts[2*i+1])
		}
	}
	again := p.Route(from[0], from[1], to[0], to[1])
	if fmt.Sprint(again) != fmt.Sprint(pts) {
		t.Error("the same route twice differs")
	}
}

// TestCarToEnter: on foot beside the start car, the car E gets you into
// is the car within seats.Reach of its body, none beyond; and E there
// gets you in.
func TestCarToEnter(t *testing.T) {
	r := newRoom(t, "test-flat")
	p := r.join(server.Who{})
	outOnFoot(t, r)
	w, _ := p.Client().Welcome()
	p.View()
	var car *[DrawStride]float32
	b, n := p.View()
	for i := 0; i < n; i++ {
		var rec [DrawStride]float32
		for k := range rec {
			rec[k] = math32.Float32frombits(uint32(b[4*(i*DrawStride+k)]) | uint32(b[4*(i*DrawStride+k)+1])<<8 |
				uint32(b[4*(i*DrawStride+k)+2])<<16 | uint32(b[4*(i*DrawStride+k)+3])<<24)
		}
		if uint16(rec[DrawEID]) == w.Car {
			car = &rec
		}
	}
	if car == nil {
		t.Fatal("the start car is not in the draw list")
	}
	// Beside the car's left side (it faces east, yaw 0), at a distance
	// from its body.
	stand := func(d float32) {
		cmd := fmt.Sprintf(`{"type":"debug","cmd":"teleport","x":%g,"y":%g}`, car[DrawX], car[DrawY]+car[DrawHalfY]+d)
		if err := p.Command(cmd); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 10; i++ {
			r.step()
		}
		p.View()
	}
	stand(seats.Reach + 0.4)
	if got := p.CarToEnter(); got != 0 {
		t.Errorf("%.1f m from the car's side: CarToEnter %d, want none", seats.Reach+0.4, got)
	}
	if got := p.CarToLock(); got != w.Car {
		t.Errorf("%.1f m from the car's side: CarToLock %d, want the car %d", seats.Reach+0.4, got, w.Car)
	}
	stand(seats.Reach - 0.3)
	if got := p.CarToEnter(); got != w.Car {
		t.Fatalf("%.1f m from the car's side: CarToEnter %d, want the car %d", seats.Reach-0.3, got, w.Car)
	}
	r.step(KeyUse)
	for i := 0; i < 40; i++ {
		r.step()
	}
	if _, in, _ := p.Client().Controlled(); !in {
		t.Error("E where the prompt shows did not get the player in")
	}
	st := p.State()
	if st.Vehicle == nil || st.Vehicle.EID != w.Car || st.Vehicle.Model == "" || st.Vehicle.HP == 0 || st.Vehicle.HP != st.Vehicle.MaxHP || !st.Vehicle.Driver || st.Vehicle.BlastIn != -1 {
		t.Errorf("vehicle HUD %+v, want the start car at full health, driven", st.Vehicle)
	}
}

// TestWatchHUD: a spectator's page shows the watched player's health and
// Cash, from the snapshots and the server's watched frame; a player's page
// shows no watched HUD.
func TestWatchHUD(t *testing.T) {
	r := newRoom(t, "test-flat")
	a := r.join(server.Who{})
	sp := r.join(server.Who{Spectate: true, Watch: 1})
	if err := a.Command(`{"type":"debug","cmd":"cash","value":"777"}`); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		r.step()
	}
	st := sp.State()
	if st.Watch == nil || st.Watch.Player != 1 || st.Watch.Cash != 777 || st.Watch.HP == 0 || st.Watch.HP != st.Watch.MaxHP {
		b, _ := json.Marshal(st.Watch)
		t.Fatalf("spectator's watch HUD %s, want player 1 with $777 at full health", b)
	}
	if st.Watch.Name != "player 1" {
		t.Errorf("watched name %q", st.Watch.Name)
	}
	if a.State().Watch != nil {
		t.Error("a player's page shows a watched HUD")
	}
}

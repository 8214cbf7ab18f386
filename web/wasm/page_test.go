package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"testing"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/netsync/wire"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/server/servertest"
)

// room is a game server in memory with pages joined to it: the page's
// frames go to its session, the server's come back on deliver.
type room struct {
	t     testing.TB
	g     *server.GameServer
	pages []*Page
	conns []*servertest.MemConn
}

func newRoom(t testing.TB, level string) *room {
	t.Helper()
	l, err := levels.Load(level)
	if err != nil {
		t.Fatal(err)
	}
	g, err := server.New(server.Config{Room: "web", Level: l, Seed: 1, Rules: ecs.FreeRoam()})
	if err != nil {
		t.Fatal(err)
	}
	return &room{t: t, g: g}
}

func (r *room) join(who server.Who) *Page {
	r.t.Helper()
	conn := servertest.NewMemConn(false, 0)
	s, err := r.g.Join(conn, who)
	if err != nil {
		r.t.Fatal(err)
	}
	p := NewPage(func(b []byte, text bool) error { return s.Receive(b, text) }, false)
	r.pages = append(r.pages, p)
	r.conns = append(r.conns, conn)
	return p
}

// step runs one server tick, hands every page its frames (binary ones
// through FrameBuffer, as the glue does), and ticks each page with keys.
func (r *room) step(keys ...uint32) {
	r.t.Helper()
	r.g.Tick()
	for i, p := range r.pages {
		for _, f := range r.conns[i].Recv() {
			data := f.Data
			if !f.Text {
				data = p.FrameBuffer(len(f.Data))
				copy(data, f.Data)
			}
			if err := p.Frame(data, f.Text); err != nil {
				r.t.Fatalf("page %d: %v", i, err)
			}
		}
		var k uint32
		if i < len(keys) {
			k = keys[i]
		}
		ms, err := p.Tick(k, float32(math.NaN()))
		if err != nil {
			r.t.Fatalf("page %d tick: %v", i, err)
		}
		if ms < 5 || ms > 50 {
			r.t.Fatalf("page %d: the next tick in %.1f ms, want about 16.7", i, ms)
		}
	}
}

func near(a, b float32) bool { return math32.Abs(a-b) < 1e-4 }

// TestControlsOnFoot: the keys give a direction on the map (up is north);
// the person faces it and walks forward, or faces the mouse while a button
// is held and walks the keys' way relative to it.
func TestControlsOnFoot(t *testing.T) {
	const pi = math32.Pi
	nan := float32(math.NaN())
	cases := []struct {
		name          string
		keys          uint32
		mouse         float32
		yaw, mx, my   float32
		held, pressed components.Buttons
	}{
		{"north", KeyUp, nan, pi / 2, 0, 1, 0, 0},
		{"east", KeyRight, nan, 0, 0, 1, 0, 0},
		{"south-west", KeyDown | KeyLeft, nan, -3 * pi / 4, 0, 1, 0, 0},
		{"up and down cancel", KeyUp | KeyDown | KeyRight, nan, 0, 0, 1, 0, 0},
		{"aim east, walk north: strafe left", KeyUp | KeyAim, 0, 0, -1, 0, components.BtnFire, 0},
		{"aim north, walk north", KeyUp | KeyAim, pi / 2, pi / 2, 0, 1, components.BtnFire, 0},
		{"aim west, walk east: backwards", KeyRight | KeyAim, pi, pi, 0, -1, components.BtnFire, 0},
		{"aim with no mouse keeps the keys' way", KeyLeft | KeyAim, nan, pi, 0, 1, components.BtnFire, 0},
		{"sprint and use", KeySprint | KeyUse | KeyRight, nan, 0, 0, 1, components.BtnSprint, components.BtnUse},
		{"handbrake and horn", KeyHandbrake | KeyHorn, nan, 0, 0, 0, components.BtnHandbrake | components.BtnHorn, 0},
		{"draw the pistol", KeyWeapon, nan, 0, 0, 0, 0, components.BtnWeapon},
		{"a grenade's pin", KeyPin, nan, 0, 0, 0, components.BtnPin, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := NewPage(func([]byte, bool) error { return nil }, false)
			d := p.Controls(c.keys, c.mouse)
			if !near(d.LookYaw, c.yaw) || !near(d.MoveX, c.mx) || !near(d.MoveY, c.my) {
				t.Errorf("yaw %.3f move (%.3f, %.3f), want %.3f (%.3f, %.3f)", d.LookYaw, d.MoveX, d.MoveY, c.yaw, c.mx, c.my)
			}
			if d.Held != c.held || d.Pressed != c.pressed {
				t.Errorf("held %b pressed %b, want %b %b", d.Held, d.Pressed, c.held, c.pressed)
			}
			if d.Throttle != 0 || d.Brake != 0 {
				t.Errorf("on foot: throttle %v brake %v", d.Throttle, d.Brake)
			}
		})
	}
}

// TestControlsKeepHeading: letting go of the keys stops the person where
// it faces, rather than turning it back to east.
func TestControlsKeepHeading(t *testing.T) {
	p := NewPage(func([]byte, bool) error { return nil }, false)
	p.Controls(KeyUp, float32(math.NaN()))
	d := p.Controls(0, float32(math.NaN()))
	if !near(d.LookYaw, math32.Pi/2) || d.MoveX != 0 || d.MoveY != 0 {
		t.Errorf("after letting go: yaw %v move (%v, %v), want north, still", d.LookYaw, d.MoveX, d.MoveY)
	}
}

// TestDriveInRoom joins a page to a server in memory, holds the throttle
// and steers: the car's controls, the prediction, the draw list and the
// state all follow, and the server agrees where the car is.
func TestDriveInRoom(t *testing.T) {
	r := newRoom(t, "test-flat")
	p := r.join(server.Who{})
	for i := 0; i < 30; i++ {
		r.step()
	}
	wid, car, _ := p.Client().Controlled()
	if wid == 0 || !car {
		t.Fatalf("controlled %d car %v, want the start car", wid, car)
	}
	if d := p.Controls(KeyUp, 0); d.Throttle != 1 || d.Brake != 0 || d.Steer != 0 {
		t.Errorf("W in a car: %+v", d)
	}
	if d := p.Controls(KeyDown, 0); d.Brake != 1 || d.Throttle != 0 {
		t.Errorf("S in a car: %+v", d)
	}
	// Steering ramps by SteerRate per tick toward full lock, and back.
	for i := 1; i <= 14; i++ {
		d := p.Controls(KeyLeft, 0)
		if want := min(float32(i)*SteerRate, 1); !near(d.Steer, want) {
			t.Fatalf("A held %d ticks: steer %v, want %v", i, d.Steer, want)
		}
	}
	if d := p.Controls(KeyRight, 0); !near(d.Steer, 1-SteerRate) {
		t.Errorf("D after full left: steer %v, want %v", d.Steer, 1-SteerRate)
	}
	for i := 0; i < 30; i++ {
		p.Controls(0, 0)
	}
	start := p.State()
	if start.Own == nil || !start.Own.Car {
		t.Fatalf("state: own %+v, want the car", start.Own)
	}
	for i := 0; i < 120; i++ {
		r.step(KeyUp)
	}
	for i := 0; i < 12; i++ { // the last inputs reach the server
		r.step(KeyUp)
	}
	st := p.State()
	moved := math32.Hypot(st.Own.X-start.Own.X, st.Own.Y-start.Own.Y)
	if moved < 5 {
		t.Errorf("2 s of throttle moved the predicted car %.2f m, want more than 5", moved)
	}
	if st.Corrections != 0 {
		t.Errorf("%d corrections driving alone on a flat level, want 0", st.Corrections)
	}
	if !st.Joined || st.Welcome.Player != 1 || st.Snapshots < 40 || st.Keyframes != 1 {
		t.Errorf("state: joined %v player %d snapshots %d keyframes %d", st.Joined, st.Welcome.Player, st.Snapshots, st.Keyframes)
	}
	tiers := 0
	for _, n := range st.Tiers {
		tiers += n
	}
	if tiers != st.Entities || st.Entities != 2 || st.Kinds["car"] != 1 || st.Kinds["character"] != 1 {
		t.Errorf("entities %d tiers %v kinds %v, want the car and the character", st.Entities, st.Tiers, st.Kinds)
	}
	if len(st.Players) != 1 || st.Players[0].Player != 1 || st.Players[0].Act != wire.ActDriving {
		t.Errorf("players %+v", st.Players)
	}
	if _, err := json.Marshal(st); err != nil {
		t.Error(err)
	}

	// The draw list: the car alone (its driver rides it), predicted, own.
	b, n := p.View()
	if n != 1 || len(b) != DrawStride*4 {
		t.Fatalf("draw list: %d entities in %d bytes, want 1 in %d", n, len(b), DrawStride*4)
	}
	f := func(i int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])) }
	if uint16(f(DrawEID)) != wid || uint8(f(DrawKind)) != wire.KindCar || f(DrawOwn) != OwnPredicted {
		t.Errorf("draw: eid %v kind %v own %v, want %d car predicted", f(DrawEID), f(DrawKind), f(DrawOwn), wid)
	}
	spec := phys.CarModel(uint8(f(DrawModel)))
	if f(DrawHalfX) != spec.HalfX || f(DrawHalfY) != spec.HalfY {
		t.Errorf("draw: half extents %v×%v, want the model's %v×%v", f(DrawHalfX), f(DrawHalfY), spec.HalfX, spec.HalfY)
	}
	if f(DrawX) != st.Own.X || f(DrawY) != st.Own.Y || f(DrawSpeed) < 1 || f(DrawPlayer) != 1 {
		t.Errorf("draw: at (%v, %v) speed %v player %v, want the prediction (%v, %v), moving, player 1",
			f(DrawX), f(DrawY), f(DrawSpeed), f(DrawPlayer), st.Own.X, st.Own.Y)
	}
	if yaw := f(DrawYaw); !near(yaw, st.Own.Yaw) {
		t.Errorf("draw: yaw %v, want %v", yaw, st.Own.Yaw)
	}
}

// TestCommand: a command goes to the server as a text frame; what is not
// a JSON object with a type never leaves.
func TestCommand(t *testing.T) {
	var sent []string
	p := NewPage(func(b []byte, text bool) error {
		if !text {
			t.Errorf("a command sent as binary")
		}
		sent = append(sent, string(b))
		return nil
	}, false)
	for _, bad := range []string{"", "{}", "[1]", "wanted", `{"cmd":"kill"}`} {
		if err := p.Command(bad); err == nil {
			t.Errorf("Command(%q) = nil, want an error", bad)
		}
	}
	good := `{"type":"debug","cmd":"clock","minutes":60}`
	if err := p.Command(good); err != nil || len(sent) != 1 || sent[0] != good {
		t.Errorf("Command(%q): err %v, sent %q", good, err, sent)
	}
}

// TestSpectatorPage: a spectator page predicts nothing and marks the
// watched player's car.
func TestSpectatorPage(t *testing.T) {
	r := newRoom(t, "test-flat")
	r.join(server.Who{})
	sp := r.join(server.Who{Spectate: true, Watch: 1})
	for i := 0; i < 60; i++ {
		r.step(KeyUp)
	}
	st := sp.State()
	if !st.Joined || !st.Welcome.Spectate || st.Welcome.Character != 0 {
		t.Fatalf("spectator welcome %+v", st.Welcome)
	}
	if st.Own != nil {
		t.Errorf("a spectator predicts %+v", st.Own)
	}
	if st.Watched == nil || !st.Watched.Car || st.Watched.X <= 0 {
		t.Errorf("watched %+v, want player 1's car, driven east", st.Watched)
	}
	b, n := sp.View()
	watched := 0
	for i := 0; i < n; i++ {
		own := math.Float32frombits(binary.LittleEndian.Uint32(b[4*(i*DrawStride+DrawOwn):]))
		if own == OwnWatched {
			watched++
		}
		if own != 0 && own != OwnWatched {
			t.Errorf("spectator draw list: entity %d own bits %v", i, own)
		}
	}
	if watched != 1 {
		t.Errorf("%d entities drawn as watched, want the car", watched)
	}
}

// TestSpectateSwitch: a spectator's spectate command moves its view: the
// server's spectate frame names the other player, whose car the page then
// marks as watched and reports in its state.
func TestSpectateSwitch(t *testing.T) {
	r := newRoom(t, "test-flat")
	r.join(server.Who{})
	p2 := r.join(server.Who{})
	sp := r.join(server.Who{Spectate: true, Watch: 1})
	for i := 0; i < 60; i++ {
		r.step(KeyUp) // player 1 drives east; player 2 stands
	}
	if st := sp.State(); st.Watched == nil || st.Watched.X <= p2.State().Own.X+1 {
		t.Fatalf("watched %+v before the switch, want player 1's car, east of player 2's %+v", st.Watched, p2.State().Own)
	}
	w2 := p2.State().Welcome
	if err := sp.Command(fmt.Sprintf(`{"type":"spectate","session":%d}`, w2.Session)); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		r.step(KeyUp)
	}
	st, own2 := sp.State(), p2.State().Own
	if st.Watched == nil || !near(st.Watched.X, own2.X) || !near(st.Watched.Y, own2.Y) {
		t.Fatalf("watched %+v after the switch, want player 2's car at %+v", st.Watched, own2)
	}
	if st.Welcome.Watch != 1 {
		t.Errorf("the welcome's watch %d: the switch is the spectate frame's, not a new welcome", st.Welcome.Watch)
	}
	b, n := sp.View()
	for i := 0; i < n; i++ {
		f := func(at int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b[4*(i*DrawStride+at):])) }
		if f(DrawOwn) == OwnWatched && f(DrawPlayer) != float32(w2.Player) {
			t.Errorf("entity %v of player %v drawn as watched, want player %d's", f(DrawEID), f(DrawPlayer), w2.Player)
		}
	}
}

// TestViewAllocs: the draw list is made every frame; once grown it
// allocates nothing.
func TestViewAllocs(t *testing.T) {
	r := newRoom(t, "main-city")
	p := r.join(server.Who{})
	for i := 0; i < 120; i++ {
		r.step(KeyUp)
	}
	if _, n := p.View(); n < 2 {
		t.Fatalf("draw list holds %d entities, want the city's", n)
	}
	if a := testing.AllocsPerRun(100, func() { p.View() }); a != 0 {
		t.Errorf("View allocates %v times per call, want 0", a)
	}
}

// BenchmarkView measures the draw list of a page in main-city with its
// traffic and pedestrians: what the page pays every frame besides drawing.
func BenchmarkView(b *testing.B) {
	r := newRoom(b, "main-city")
	p := r.join(server.Who{})
	for i := 0; i < 300; i++ {
		r.step(KeyUp)
	}
	_, n := p.View()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		p.View()
	}
	b.ReportMetric(float64(n), "entities")
}

// TestBlastsInRoom: a grenade thrown from the page blows once, and Events
// hands the page its place and radius once; with no event it says nothing
// and allocates nothing.
func TestBlastsInRoom(t *testing.T) {
	r := newRoom(t, "test-flat")
	p := r.join(server.Who{})
	for i := 0; i < 30; i++ {
		r.step()
	}
	r.step(KeyUse) // out of the start car
	for i := 0; i < 60; i++ {
		r.step()
	}
	if _, car, _ := p.Client().Controlled(); car {
		t.Fatal("still in the car after use")
	}
	if err := p.Command(`{"type":"debug","cmd":"give-item","item":"grenade"}`); err != nil {
		t.Fatal(err)
	}
	type event struct {
		K    string
		X, Y float32
		R    float32
		Me   bool
	}
	var blasts []event
	collect := func(keys uint32, n int) {
		for i := 0; i < n; i++ {
			r.step(keys)
			var got []event
			if b := p.Events(); b != "" {
				if err := json.Unmarshal([]byte(b), &got); err != nil {
					t.Fatalf("events %q: %v", b, err)
				}
			}
			for _, e := range got {
				if e.K == "blast" {
					blasts = append(blasts, e)
				}
			}
		}
	}
	collect(0, 10)
	collect(KeyPin, 20)
	if len(blasts) != 0 {
		t.Fatalf("blasts %+v with the pin still held", blasts)
	}
	collect(0, 4*ecs.TickRate)
	if len(blasts) != 1 {
		t.Fatalf("blasts %+v, want one", blasts)
	}
	st := p.State()
	if blasts[0].R <= 0 || math32.Hypot(blasts[0].X-st.Own.X, blasts[0].Y-st.Own.Y) > 40 {
		t.Errorf("blast %+v, thrown from (%.1f, %.1f)", blasts[0], st.Own.X, st.Own.Y)
	}
	if a := testing.AllocsPerRun(100, func() {
		if p.Events() != "" {
			t.Fatal("an event out of nothing")
		}
	}); a != 0 {
		t.Errorf("Events with no event: %v allocations, want 0", a)
	}
}

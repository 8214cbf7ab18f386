package server

import (
	"fmt"
	"math"
	"testing"

	"github.com/mlange-42/arche/generic"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/netsync/wire"
	phys "github.com/fiveonit/engine/physics"
)

// debugVehicles returns the world's vehicles (entities with seats).
func debugVehicles(g *GameServer) []ecs.Entity {
	var out []ecs.Entity
	q := generic.NewFilter1[components.Seats]().Query(g.World().Arche)
	for q.Next() {
		out = append(out, q.Entity())
	}
	return out
}

// debugNear reports whether pose p is within d of (x, y) on the ground.
func debugNear(p *components.Pose, x, y, d float32) bool {
	dx, dy := p.Pos.X-x, p.Pos.Y-y
	return dx*dx+dy*dy <= d*d
}

// debugYawNear reports whether two headings differ by at most 0.01 rad.
func debugYawNear(a, b float32) bool {
	d := math.Remainder(float64(a-b), 2*math.Pi)
	return math.Abs(d) <= 0.01
}

// debugReply runs one debug command from p, ticks, and fails the test
// unless the server answered it ok.
func debugReply(t *testing.T, g *GameServer, p *probe, id int, cmd string) {
	t.Helper()
	p.command(cmd)
	g.Tick()
	p.read()
	for _, m := range p.texts {
		if m["type"] == "reply" && m["id"] == float64(id) {
			if m["ok"] != true {
				t.Fatalf("%s: %v", cmd, m)
			}
			return
		}
	}
	t.Fatalf("%s: no reply", cmd)
}

// TestDebugSpawnCar: spawn-car parks one new car of the model asked at the
// spot asked (or 8 m ahead of the character, facing its way, without x and
// y), empty, at rest, and the client that asked is sent it.
func TestDebugSpawnCar(t *testing.T) {
	cases := []struct {
		name  string
		args  string
		ahead bool // the spot is 8 m ahead of the character
		x, y  float32
		yaw   float32
		model uint8
	}{
		{"at a spot", `"x":60,"y":40,"yaw":1.25,"model":2`, false, 60, 40, 1.25, 2},
		{"ahead of you", `"model":1`, true, 0, 0, 0, 1},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := newServer(t)
			p := join(t, g, Who{Debug: true})
			g.Tick()
			p.read()
			if c.ahead {
				pose := g.posOf(p.s.char)
				co, si := pose.Rot.Heading()
				c.x, c.y, c.yaw = pose.Pos.X+co*8, pose.Pos.Y+si*8, pose.Rot.Yaw()
			}
			if g.static.Overlaps(phys.Vec{X: c.x, Y: c.y}, 2.5) {
				t.Fatalf("(%g, %g) is not free on test-flat", c.x, c.y)
			}
			before := map[ecs.Entity]bool{}
			for _, v := range debugVehicles(g) {
				before[v] = true
			}
			debugReply(t, g, p, i+1, fmt.Sprintf(`{"type":"debug","id":%d,"cmd":"spawn-car",%s}`, i+1, c.args))
			var car ecs.Entity
			n := 0
			for _, v := range debugVehicles(g) {
				if !before[v] && debugNear(g.posOf(v), c.x, c.y, 3) {
					car, n = v, n+1
				}
			}
			if n != 1 {
				t.Fatalf("%d new cars at (%g, %g), want 1", n, c.x, c.y)
			}
			pose, vel := g.poses.Get(car)
			if !debugNear(pose, c.x, c.y, 0.2) || !debugYawNear(pose.Rot.Yaw(), c.yaw) {
				t.Errorf("the car is at (%g, %g) facing %g, want (%g, %g) facing %g", pose.Pos.X, pose.Pos.Y, pose.Rot.Yaw(), c.x, c.y, c.yaw)
			}
			if sp := vel.Lin.X*vel.Lin.X + vel.Lin.Y*vel.Lin.Y; sp > 0.01 {
				t.Errorf("the new car moves at %g m/s", math.Sqrt(float64(sp)))
			}
			id := g.ids.Get(car)
			if id.Model != c.model {
				t.Errorf("model %d, want %d", id.Model, c.model)
			}
			for i, o := range g.seats.Get(car).Occupant {
				if !o.IsZero() {
					t.Errorf("seat %d of the new car is taken", i)
				}
			}
			for k := 0; k < wire.SnapshotEvery; k++ {
				g.Tick()
			}
			p.read()
			if p.dec.Store().Get(id.WireID) == nil {
				t.Errorf("the client was not sent the new car (wire id %d)", id.WireID)
			}
		})
	}
}

// TestDebugTeleport: teleport moves the character's car while it drives
// (the character with it, still at the wheel), a vehicle named by target,
// and the character itself on foot: each is at the spot asked, at rest, a
// vehicle facing the yaw asked.
func TestDebugTeleport(t *testing.T) {
	g := newServer(t)
	p := join(t, g, Who{Debug: true})
	g.Tick()
	p.read()
	char := p.s.char
	_, in, _ := g.persons.Get(char)
	car := in.Vehicle
	if car.IsZero() {
		t.Fatal("the player does not start in a car")
	}
	check := func(what string, e ecs.Entity, x, y, yaw float32) {
		t.Helper()
		pose, vel := g.poses.Get(e)
		if !debugNear(pose, x, y, 0.2) || !math.IsNaN(float64(yaw)) && !debugYawNear(pose.Rot.Yaw(), yaw) {
			t.Errorf("%s at (%g, %g) facing %g, want (%g, %g) facing %g", what, pose.Pos.X, pose.Pos.Y, pose.Rot.Yaw(), x, y, yaw)
		}
		if sp := vel.Lin.X*vel.Lin.X + vel.Lin.Y*vel.Lin.Y; sp > 0.25 {
			t.Errorf("%s moves at %g m/s after the teleport", what, math.Sqrt(float64(sp)))
		}
	}

	// At the wheel: the car goes, and the character in it.
	debugReply(t, g, p, 1, `{"type":"debug","id":1,"cmd":"teleport","x":-80,"y":30,"yaw":0.5}`)
	check("the car", car, -80, 30, 0.5)
	if _, in, _ := g.persons.Get(char); in.Vehicle != car {
		t.Fatal("the character left its car in the teleport")
	}
	if !debugNear(g.posOf(char), -80, 30, 3) {
		t.Errorf("the character is at %v, not in its car at (-80, 30)", g.posOf(char).Pos)
	}

	// A target: the car, by its wire id.
	wid := g.ids.Get(car).WireID
	debugReply(t, g, p, 2, fmt.Sprintf(`{"type":"debug","id":2,"cmd":"teleport","target":%d,"x":120,"y":-60,"yaw":-1}`, wid))
	check("the car named by target", car, 120, -60, -1)

	// On foot: get out, then the character alone goes.
	p.send(components.Drive{Pressed: components.BtnUse})
	for k := 0; k < 2*ecs.TickRate; k++ {
		p.send(components.Drive{})
		g.Tick()
		p.read()
	}
	if act, in, _ := g.persons.Get(char); act.Act != components.ActOnFoot || !in.Vehicle.IsZero() {
		t.Fatalf("the character did not get out (act %d)", act.Act)
	}
	carPos := g.posOf(car).Pos
	debugReply(t, g, p, 3, `{"type":"debug","id":3,"cmd":"teleport","x":30,"y":-90,"yaw":2}`)
	// (A person then turns to the look of its input: the yaw is not kept.)
	check("the character on foot", char, 30, -90, float32(math.NaN()))
	if g.posOf(car).Pos != carPos {
		t.Errorf("the car left behind moved from %v to %v", carPos, g.posOf(car).Pos)
	}
}

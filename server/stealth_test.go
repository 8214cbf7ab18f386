package server

import (
	"fmt"
	"testing"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems"
	"github.com/fiveonit/engine/systems/stealth"
	"github.com/fiveonit/engine/systems/stealth/book"
	"github.com/mlange-42/arche/generic"
)

// stealthCity makes a main-city room with no traffic nor crowd, the clock
// stopped at hour, police when police, and one player joined with debug
// commands, on foot (out of their car) and read up.
func stealthCity(t *testing.T, hour float64, police bool) (*GameServer, *probe) {
	t.Helper()
	l, err := levels.Load("main-city")
	if err != nil {
		t.Fatal(err)
	}
	rules := ecs.Rules{Name: "stealth", PlayersHurt: "on", Police: police, ClockStart: hour * 60}
	g, err := New(Config{Room: "stealth", Level: l, Seed: 3, Rules: rules})
	if err != nil {
		t.Fatal(err)
	}
	p := join(t, g, Who{Debug: true})
	g.Tick()
	p.send(components.Drive{Pressed: components.BtnUse})
	g.Tick()
	for range ecs.TickRate {
		p.send(components.Drive{})
		g.Tick()
	}
	p.read()
	if act, _, _ := g.persons.Get(p.s.char); act.Act != components.ActOnFoot {
		t.Fatalf("the player is not on foot (act %d)", act.Act)
	}
	return g, p
}

// teleport moves p's character to (x, y) with a debug command, and checks
// the reply.
func teleport(t *testing.T, g *GameServer, p *probe, x, y float32) {
	t.Helper()
	p.command(fmt.Sprintf(`{"type":"debug","id":77,"cmd":"teleport","x":%g,"y":%g}`, x, y))
	p.send(components.Drive{})
	g.Tick()
	gapsOK(t, p, 77, "teleport")
}

// stealthFrames returns the stealth frames p was sent, in order.
func stealthFrames(p *probe) []map[string]any {
	var out []map[string]any
	for _, m := range p.texts {
		if m["type"] == "stealth" {
			out = append(out, m)
		}
	}
	return out
}

// sentries returns the room's sentries: entity, pose, state.
type sentryView struct {
	e    ecs.Entity
	pos  phys.Vec
	fwd  phys.Vec
	se   *components.Sentry
	dead bool
}

func sentriesOf(g *GameServer) []sentryView {
	var out []sentryView
	f := generic.NewFilter3[components.Sentry, components.Pose, components.Health]()
	q := f.Query(g.World().Arche)
	for q.Next() {
		se, pose, hp := q.Get()
		co, si := pose.Rot.Heading()
		out = append(out, sentryView{e: q.Entity(), pos: phys.Flat(pose.Pos), fwd: phys.Vec{X: co, Y: si}, se: se, dead: hp.HP == 0})
	}
	return out
}

// walk is the drive that walks a person from a toward b (sprinting when
// run), or stands when they are there.
func walk(a, b phys.Vec, run bool) components.Drive {
	d := b.Sub(a)
	if d.Len() < 0.3 {
		return components.Drive{}
	}
	dr := components.Drive{MoveY: 1, LookYaw: math32.Atan2(d.Y, d.X)}
	if run {
		dr.Held = components.BtnSprint
	}
	return dr
}

// angleBetween returns the angle between a and the unit vector fwd.
func angleBetween(a, fwd phys.Vec) float32 {
	l := a.Len()
	if l < 1e-3 {
		return 0
	}
	return math32.Acos(max(min(a.Dot(fwd)/l, 1), -1))
}

// TestYardSneakUnseen is the yard theft done unseen: at night, a player who
// has come over the yard's north wall waits behind the warehouse, slips
// down the west side when no guard looks that way (out of the cones,
// behind the warehouse and the walls, out of the cameras' sweep), reaches
// the west crate and gets back the same way. The guards and cameras never
// see them: no entry of them in the book, never a "seen" frame, no alert,
// no crime. And they were near: a guard came within its range of them,
// hidden by its cone or the buildings.
func TestYardSneakUnseen(t *testing.T) {
	if testing.Short() {
		t.Skip("two minutes of ticks of main-city")
	}
	g, p := stealthCity(t, 1, true)
	st := g.stealth.sys
	tu := &st.Tuning
	l := g.Level()
	// The west crate, and the way to it down the yard's west side.
	var crate levels.Vec2
	for _, c := range l.Containers {
		if c.ID == "yard-crate-0" {
			crate = c.Pos
		}
	}
	// The haven behind the warehouse's west side (hidden from the north
	// patrol leg by the warehouse), the way down the west side, the crate.
	path := []phys.Vec{{X: 206, Y: 262}, {X: 206, Y: 252}, {X: 206, Y: 240}, {X: crate.X - 1, Y: crate.Y + 1.5}}
	if crate.X != 208 || crate.Y != 232 {
		t.Fatalf("the west crate is at %v: the path was laid for (208, 232)", crate)
	}
	teleport(t, g, p, path[0].X, path[0].Y)
	light := tu.Light(float32(g.World().Clock.Minutes() / 60))
	rng := tu.RangeAt(light)
	// danger reports whether a guard or a camera could see a player at q
	// soon: within its range and a margin, its cone and a margin (or
	// close), with a clear line to any of q's sides; a camera within its
	// whole sweep. The player watches the guards as the page shows them.
	danger := func(q phys.Vec) bool {
		for _, s := range sentriesOf(g) {
			if s.dead {
				continue
			}
			d := q.Sub(s.pos)
			if d.Len() > rng+2 || !clearTo(g, s.pos, q) {
				continue
			}
			if d.Len() < tu.CloseRange+3 || angleBetween(d, s.fwd) < tu.ConeHalf+0.35 {
				return true
			}
		}
		for _, c := range l.Cameras {
			eye := phys.Vec{X: c.Pos.X, Y: c.Pos.Y}
			d := q.Sub(eye)
			fwd := phys.Vec{X: math32.Cos(c.Yaw), Y: math32.Sin(c.Yaw)}
			if d.Len() < c.Range+3 && angleBetween(d, fwd) < c.Arc/2+c.Sweep+0.3 && clearTo(g, eye, q) {
				return true
			}
		}
		return false
	}
	me := func() phys.Vec { return phys.Flat(g.posOf(p.s.char).Pos) }
	// The player is between path[seg] and path[seg+1]; out toward the
	// crate, or back toward the haven. In danger they run for the haven.
	goal := len(path) - 1
	seg, out, trips := 0, true, 0
	near := false
	var seen []string
	for tick := 0; tick < 4*60*ecs.TickRate; tick++ {
		pos := me()
		var d components.Drive
		switch {
		case danger(pos):
			d = walk(pos, path[seg], true)
			if pos.Sub(path[seg]).Len() < 0.6 && seg > 0 {
				d = walk(pos, path[seg-1], true)
			}
		case out:
			to := path[seg+1]
			step := to.Sub(pos)
			if l := step.Len(); l > 1.5 {
				step = step.Scale(1.5 / l)
			}
			if !danger(pos.Add(step)) {
				d = walk(pos, to, false)
			}
		default:
			d = walk(pos, path[seg], false)
		}
		p.send(d)
		g.Tick()
		pos = me()
		switch {
		case seg+1 < goal && pos.Sub(path[seg+1]).Len() < 0.6:
			seg++
		case seg > 0 && pos.Sub(path[seg]).Len() < 0.6 && !out:
			seg--
		case seg > 0 && pos.Sub(path[seg]).Len() < 0.6 && danger(pos):
			seg--
		}
		if out && seg == goal-1 && pos.Sub(path[goal]).Len() < 0.8 {
			out = false // at the crate: the theft, then home
			trips++
		}
		if !out && seg == 0 && pos.Sub(path[0]).Len() < 0.8 {
			if near {
				break
			}
			out = true // no guard came by yet: again
		}
		if guard, camera, _ := st.PlayerSeen(p.s.char); guard || camera {
			seen = append(seen, fmt.Sprintf("tick %d at %v: guard %v camera %v", g.World().Tick(), pos, guard, camera))
		}
		for _, s := range sentriesOf(g) {
			if !s.dead && s.pos.Sub(pos).Len() < rng {
				near = true
			}
		}
	}
	p.read()
	t.Logf("%d trips to the crate, home at tick %d", trips, g.World().Tick())
	if trips == 0 || out || seg != 0 {
		t.Fatalf("the sneak did not get to the crate and back (%d trips, going out %v, at %v)", trips, out, me())
	}
	if len(seen) > 0 {
		t.Fatalf("seen %d times: %v", len(seen), seen[:min(len(seen), 5)])
	}
	b := book.Of(g.World())
	if b.SeenSince(p.s.char, 0) {
		e, _ := b.Last(p.s.char)
		t.Fatalf("the book saw the player: %+v", e)
	}
	if on, _ := b.Alert(); on {
		t.Fatal("the room's alert is up")
	}
	for _, f := range stealthFrames(p) {
		if f["seen"] != false || f["alert"] != false || f["chased"] != false {
			t.Fatalf("stealth frame %v", f)
		}
	}
	if len(stealthFrames(p)) == 0 {
		t.Fatal("no stealth frame: the room has guards and cameras")
	}
	if wa, _ := g.wanted.Get(p.s.char); wa.Stars != 0 {
		t.Fatalf("%d stars for an unseen theft", wa.Stars)
	}
	if !near {
		t.Fatal("no guard came within its range: the sneak proves nothing")
	}
}

// clearTo reports whether any of the lines from eye to q's middle and
// sides (a person's width) is clear of the buildings at eye height.
func clearTo(g *GameServer, eye, q phys.Vec) bool {
	d := q.Sub(eye)
	l := d.Len()
	if l < 1e-3 {
		return true
	}
	side := phys.Vec{X: -d.Y / l, Y: d.X / l}.Scale(0.6)
	for _, k := range [3]float32{0, 1, -1} {
		if g.static.SegmentClearAbove(eye, q.Add(side.Scale(k)), 1.6) {
			return true
		}
	}
	return false
}

// TestYardSeenAndChased: by day, a player steps out into the open yard
// before a guard.
// A guard grows suspicious, then alert; it calls the others near; they
// chase (their Chasers after the player, closing in) and fire; the player
// is sent "seen", "chased" and the room's alert; the book has it all; the
// police get the crime. Then a level reset puts it all back: the guards
// new and idle at their posts, the cameras whole, the book empty, the
// alert down, and the player is told.
func TestYardSeenAndChased(t *testing.T) {
	g, p := stealthCity(t, 12, true)
	w := g.World()
	// The player steps out 8 m before a guard, in the open, and stands.
	var front phys.Vec
	for _, s := range sentriesOf(g) {
		if q := s.pos.Add(s.fwd.Scale(8)); !g.static.Overlaps(q, 2.5) {
			front = q
			break
		}
	}
	teleport(t, g, p, front.X, front.Y)
	me := func() phys.Vec { return phys.Flat(g.posOf(p.s.char).Pos) }
	chaser := generic.NewMap1[components.Chaser](w.Arche)
	isSentry := generic.NewMap[components.Sentry](w.Arche)
	var alertAt uint64
	// Where each guard stood when it went alert, and the player then.
	type start struct{ guard, player phys.Vec }
	starts := map[ecs.Entity]start{}
	shots := 0
	for range 20 * ecs.TickRate {
		d := components.Drive{}
		if alertAt != 0 { // found out: run for the west wall
			d = walk(me(), phys.Vec{X: 207, Y: 222}, true)
		}
		p.send(d)
		g.Tick()
		for _, ev := range w.Events {
			if ev.Kind == components.EventShot && isSentry.Has(ev.Source) {
				shots++
			}
		}
		alert, called := 0, 0
		for _, s := range sentriesOf(g) {
			if s.se.Phase == components.SentryAlert && s.se.Target == p.s.char && chaser.Get(s.e).Target == p.s.char {
				alert++
				if s.se.Called {
					called++
				}
				if _, ok := starts[s.e]; !ok {
					starts[s.e] = start{s.pos, me()}
				}
			}
		}
		if alert >= 2 && called >= 1 && alertAt == 0 {
			alertAt = w.Tick()
		}
	}
	p.read()
	if alertAt == 0 {
		t.Fatal("the guards never went alert together after the player")
	}
	// They chase: some guard went at least 5 m the player's way.
	chased := false
	for _, s := range sentriesOf(g) {
		st, ok := starts[s.e]
		if moved := s.pos.Sub(st.guard); ok && moved.Len() >= 5 && moved.Dot(st.player.Sub(st.guard)) > 0 {
			chased = true
		}
	}
	if !chased {
		t.Error("no guard went after the player")
	}
	if shots == 0 {
		t.Error("no guard fired")
	}
	b := book.Of(w)
	for _, what := range []book.What{book.Suspicious, book.Alert, book.Called} {
		if _, ok := b.Last(p.s.char, what); !ok {
			t.Errorf("the book has no %s entry of the player", what)
		}
	}
	if on, _ := b.Alert(); !on {
		t.Error("the room's alert is down")
	}
	var sawSeen, sawChased, sawAlert bool
	for _, f := range stealthFrames(p) {
		sawSeen = sawSeen || f["seen"] == true && f["guard"] == true
		sawChased = sawChased || f["chased"] == true
		sawAlert = sawAlert || f["alert"] == true
	}
	if !sawSeen || !sawChased || !sawAlert {
		t.Errorf("frames: seen %v, chased %v, alert %v", sawSeen, sawChased, sawAlert)
	}
	// The debug readout lists every sentry and camera.
	ro := p.lastText("readout")
	rs, _ := ro["stealth"].(map[string]any)
	if rs == nil {
		t.Fatalf("readout with no stealth: %v", ro)
	}
	sents, _ := rs["sentries"].([]any)
	camsRO, _ := rs["cameras"].([]any)
	if len(sents) != len(sentriesOf(g)) || len(camsRO) != len(g.Level().Cameras) || rs["alert"] != true {
		t.Errorf("readout's stealth: %d sentries, %d cameras, alert %v", len(sents), len(camsRO), rs["alert"])
	}
	if wa, _ := g.wanted.Get(p.s.char); wa.Stars == 0 && wa.Arrests == 0 {
		if h := g.health.Get(p.s.char); h.HP > 0 {
			t.Error("no star for being seen in the yard")
		}
	}

	// Shoot out a camera (as the damage system leaves it), then reset.
	cams := generic.NewFilter2[components.Camera, components.Health]()
	q := cams.Query(w.Arche)
	for q.Next() {
		_, h := q.Get()
		h.HP = 0
	}
	old := sentriesOf(g)
	teleport(t, g, p, 240, 150) // out of the yard
	p.command(`{"type":"debug","id":9,"cmd":"reset-level"}`)
	p.send(components.Drive{})
	g.Tick()
	for range 2 {
		p.send(components.Drive{})
		g.Tick()
	}
	p.read()
	gapsOK(t, p, 9, "reset-level")
	if b.Len() != 0 {
		t.Errorf("the book holds %d entries after the reset", b.Len())
	}
	if on, _ := b.Alert(); on {
		t.Error("the alert is up after the reset")
	}
	for _, s := range sentriesOf(g) {
		for _, o := range old {
			if o.e == s.e {
				t.Errorf("guard %v was not put back", s.e)
			}
		}
		if s.se.Phase != components.SentryIdle || !chaser.Get(s.e).Target.IsZero() {
			t.Errorf("a guard after the reset: %+v", *s.se)
		}
	}
	var r stealth.Readout
	g.stealth.sys.Readout(&r)
	if len(r.Cameras) != len(g.Level().Cameras) {
		t.Fatalf("%d cameras, the level has %d", len(r.Cameras), len(g.Level().Cameras))
	}
	for _, c := range r.Cameras {
		if c.Broken || c.WireID == 0 {
			t.Errorf("camera %s after the reset: %+v", c.ID, c)
		}
	}
	if f := stealthFrames(p); len(f) == 0 || f[len(f)-1]["alert"] != false || f[len(f)-1]["seen"] != false {
		t.Errorf("the player was not told the alert is down: %v", f[len(f)-1])
	}
	if systems.Stealth(w) != g.stealth.sys {
		t.Fatal("the server's stealth is not the schedule's")
	}
}

// TestNoStealthFramesWithoutGuards: a room with neither guards nor cameras
// (test-flat) sends no stealth frames and no stealth readout.
func TestNoStealthFramesWithoutGuards(t *testing.T) {
	g := newServer(t)
	p := join(t, g, Who{})
	for range 2 * ReadoutEvery {
		p.send(components.Drive{})
		g.Tick()
	}
	p.read()
	if f := stealthFrames(p); len(f) != 0 {
		t.Fatalf("stealth frames in a room without guards: %v", f)
	}
	ro := p.lastText("readout")
	if ro == nil {
		t.Fatal("no readout in a test-* room")
	}
	if _, ok := ro["stealth"]; ok {
		t.Fatalf("a stealth readout in a room without guards: %v", ro["stealth"])
	}
}

// TestShootOutCameraInPlay: a player walks up to the police car park's
// camera, draws and fires at it: the rounds find it, it is shot out (the
// book says so once, the readout shows it broken, it stays so) and sees no
// more; reset-level puts it back whole.
func TestShootOutCameraInPlay(t *testing.T) {
	g, p := stealthCity(t, 12, false)
	w := g.World()
	var cam levels.Camera
	idx := -1
	for i, c := range g.Level().Cameras {
		if c.ID == "police-cam-lot" {
			cam, idx = c, i
		}
	}
	if idx < 0 {
		t.Fatal("main-city has no police-cam-lot")
	}
	at := phys.Vec{X: cam.Pos.X + 6.5, Y: cam.Pos.Y + 6.5}
	teleport(t, g, p, at.X, at.Y)
	// A gun and its rounds, each command with its tick's input, so that
	// the inputs that follow are not late.
	p.command(`{"type":"debug","cmd":"give-item","item":"pistol"}`)
	p.command(`{"type":"debug","cmd":"give-item","item":"pistol-ammo","count":60}`)
	p.send(components.Drive{})
	g.Tick()
	aim := math32.Atan2(cam.Pos.Y-at.Y, cam.Pos.X-at.X)
	p.send(components.Drive{Pressed: components.BtnWeapon, LookYaw: aim})
	g.Tick()
	for range ecs.TickRate {
		p.send(components.Drive{Held: components.BtnFire, LookYaw: aim})
		g.Tick()
	}
	for range 3 * ecs.TickRate {
		p.send(components.Drive{LookYaw: aim})
		g.Tick()
	}
	var r stealth.Readout
	g.stealth.sys.Readout(&r)
	if !r.Cameras[idx].Broken {
		t.Fatalf("the camera was not shot out: %+v", r.Cameras[idx])
	}
	b := book.Of(w)
	broken := 0
	for i := range b.Len() {
		if e := b.At(i); e.What == book.Broken && e.Camera == int16(idx) {
			broken++
		}
	}
	if broken != 1 {
		t.Fatalf("%d breaks of the camera booked, want 1", broken)
	}
	if _, camera, _ := g.stealth.sys.PlayerSeen(p.s.char); camera {
		t.Error("a camera shot out sees")
	}
	p.command(`{"type":"debug","id":12,"cmd":"reset-level"}`)
	p.send(components.Drive{})
	g.Tick()
	p.send(components.Drive{})
	g.Tick()
	gapsOK(t, p, 12, "reset-level")
	g.stealth.sys.Readout(&r)
	if r.Cameras[idx].Broken {
		t.Fatal("the camera is still broken after the reset")
	}
}

package server

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/fiveonit/engine/textframe"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/control"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/netsync/wire"
	"github.com/fiveonit/engine/server/servertest"
)

// newServer makes a room on the level test-flat, open ground.
func newServer(t testing.TB) *GameServer {
	t.Helper()
	l, err := levels.Load("test-flat")
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(Config{Room: "t", Level: l, Seed: 1, Rules: ecs.Rules{PlayersHurt: "on"}})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// probe is a minimal client: it decodes what it gets and sends inputs.
type probe struct {
	t       testing.TB
	s       *Session
	c       *servertest.MemConn
	dec     *wire.Decoder
	welcome textframe.Welcome
	texts   []map[string]any
	events  []wire.Event
	seq     uint32
	frames  int
}

func join(t testing.TB, g *GameServer, who Who) *probe {
	t.Helper()
	c := servertest.NewMemConn(false, 0)
	s, err := g.Join(c, who)
	if err != nil {
		t.Fatal(err)
	}
	return &probe{t: t, s: s, c: c, dec: wire.NewDecoder(), seq: 1}
}

// read decodes every frame waiting.
func (p *probe) read() {
	for _, f := range p.c.Recv() {
		if f.Text {
			var m map[string]any
			if err := json.Unmarshal(f.Data, &m); err != nil {
				p.t.Fatal(err)
			}
			if m["type"] == "welcome" {
				json.Unmarshal(f.Data, &p.welcome)
			}
			p.texts = append(p.texts, m)
			continue
		}
		df, err := p.dec.Apply(f.Data)
		if err != nil {
			p.t.Fatalf("decode: %v", err)
		}
		p.events = append(p.events, df.Events...)
		p.frames++
	}
}

// send sends one input frame with d for the next client tick.
func (p *probe) send(d components.Drive) {
	f := wire.InputFrame{Ack: p.dec.Tick(), FirstSeq: p.seq, Count: 1}
	f.Inputs[0] = control.Quantize(&d)
	p.seq++
	if err := p.s.Receive(wire.AppendInputFrame(nil, &f), false); err != nil {
		p.t.Fatal(err)
	}
}

// command sends cmd to the server as a text frame.
func (p *probe) command(cmd string) {
	if err := p.s.Receive([]byte(cmd), true); err != nil {
		p.t.Fatal(err)
	}
}

func (p *probe) lastText(typ string) map[string]any {
	for i := len(p.texts) - 1; i >= 0; i-- {
		if p.texts[i]["type"] == typ {
			return p.texts[i]
		}
	}
	return nil
}

func TestJoinDriveLeave(t *testing.T) {
	g := newServer(t)
	a := join(t, g, Who{})
	b := join(t, g, Who{Name: "Bea", Party: "crew"})
	for i := 0; i < 3; i++ {
		g.Tick()
	}
	a.read()
	b.read()
	if a.welcome.Character == 0 || a.welcome.Car == 0 || a.welcome.Name != "player 1" || b.welcome.Name != "Bea" {
		t.Fatalf("welcomes %+v %+v", a.welcome, b.welcome)
	}
	if !a.welcome.Debug {
		t.Fatal("a test-* room honours debug commands")
	}
	var rules ecs.Rules
	if err := json.Unmarshal(a.welcome.Rules, &rules); err != nil || rules.PlayersHurt != "on" {
		t.Fatalf("welcome rules %s: %v", a.welcome.Rules, err)
	}
	snap := a.dec.Snapshot()
	if n := len(snap.Entities); n != 4 {
		t.Fatalf("client holds %d entities, want 4 (two characters, two cars)", n)
	}
	w := g.World()
	car, _ := w.ByWireID(a.welcome.Car)
	start := g.posOf(car).Pos
	for i := 0; i < 120; i++ {
		a.send(components.Drive{Throttle: 1})
		b.send(components.Drive{})
		g.Tick()
	}
	a.read()
	if moved := g.posOf(car).Pos.X - start.X; moved < 5 && g.posOf(car).Pos.Y-start.Y < 5 {
		t.Fatalf("car moved %v m in two seconds of throttle", moved)
	}
	// The client's copy of its car matches the server's within the
	// quantization (it is the client's own car: the full pose).
	var held *wire.SnapshotEntity
	snap = a.dec.Snapshot()
	for i := range snap.Entities {
		if e := &snap.Entities[i]; e.EID == a.welcome.Car {
			held = e
		}
	}
	if held == nil || !held.PoseFull {
		t.Fatal("client does not hold its car's full pose")
	}
	if d := held.Pos.X - g.posOf(car).Pos.X; d > 0.5 || d < -0.5 {
		t.Fatalf("client's car at x=%v, server's at %v", held.Pos.X, g.posOf(car).Pos.X)
	}
	// Leave: b's character and car go; a still sees only its own two.
	b.s.Leave()
	for i := 0; i < 3; i++ {
		a.send(components.Drive{})
		g.Tick()
	}
	a.read()
	if n := len(a.dec.Snapshot().Entities); n != 2 {
		t.Fatalf("after b left, a holds %d entities, want 2", n)
	}
	if _, ok := w.ByWireID(b.welcome.Car); ok {
		t.Fatal("b's empty car should go with b")
	}
}

func TestLeaveKeepsOccupiedCar(t *testing.T) {
	g := newServer(t)
	a := join(t, g, Who{})
	b := join(t, g, Who{})
	g.Tick()
	a.read()
	b.read()
	w := g.World()
	aCar, _ := w.ByWireID(a.welcome.Car)
	bChar, _ := w.ByWireID(b.welcome.Character)
	// b gets out of its car and into a's passenger seat.
	_, in, _ := g.persons.Get(bChar)
	bCar := in.Vehicle
	g.seats.Get(bCar).Occupant[0] = ecs.Entity{}
	g.pf.Seat(bChar, aCar, 1)
	a.s.Leave()
	g.Tick()
	if !w.Arche.Alive(aCar) {
		t.Fatal("a's car went although b sits in it")
	}
	if st := g.seats.Get(aCar); !st.Occupant[0].IsZero() || st.Occupant[1] != bChar {
		t.Fatalf("seats %+v", st.Occupant)
	}
}

func TestBadFramesDisconnect(t *testing.T) {
	cases := []struct {
		name string
		send func(p *probe) error
		want string
	}{
		{"too big", func(p *probe) error { return p.s.Receive(make([]byte, MaxBinaryFrame+1), false) }, "too big"},
		{"malformed input", func(p *probe) error { return p.s.Receive([]byte{7, 1, 2}, false) }, "malformed"},
		{"bad json", func(p *probe) error { return p.s.Receive([]byte(`{"type":`), true) }, "malformed"},
		{"unknown field", func(p *probe) error { return p.s.Receive([]byte(`{"type":"debug","cmd":"kill","evil":1}`), true) }, "malformed"},
		{"flood", func(p *probe) error {
			for i := 0; i < FrameBurst+1; i++ {
				if err := p.s.Receive([]byte{0}, false); err != nil {
					return err
				}
			}
			return nil
		}, "flooding"},
		{"input far ahead", func(p *probe) error {
			f := wire.InputFrame{FirstSeq: 1, Count: 1}
			p.s.Receive(wire.AppendInputFrame(nil, &f), false)
			f.FirstSeq = 1 << 30
			return p.s.Receive(wire.AppendInputFrame(nil, &f), false)
		}, "too far ahead"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := newServer(t)
			good := join(t, g, Who{})
			bad := join(t, g, Who{})
			g.Tick()
			c.send(bad)
			g.Tick()
			g.Tick()
			closed, reason := bad.c.Closed()
			if !closed || !strings.Contains(reason, c.want) {
				t.Fatalf("closed %v reason %q, want %q", closed, reason, c.want)
			}
			if ok, _ := good.c.Closed(); ok {
				t.Fatal("the good client was closed too")
			}
			if len(g.Sessions()) != 1 {
				t.Fatalf("%d sessions left", len(g.Sessions()))
			}
			good.read()
			if good.frames == 0 {
				t.Fatal("the room stopped sending")
			}
		})
	}
}

// TestSlowClientDoesNotStallRoom: a client that never reads fills its send
// queue; its dropped frames are made good by keyframes and, after SlowTicks
// of a full queue, it is cut off. The other client never misses a frame.
func TestSlowClientDoesNotStallRoom(t *testing.T) {
	// Room for the join's frames (the welcome, the first snapshot and the
	// text frames of the first snapshot tick, the keys frame the last),
	// counted on a twin room: what comes next is a snapshot, dropped.
	room := func(limit int) (g *GameServer, good *probe, c *servertest.MemConn, slow *Session) {
		g = newServer(t)
		good = join(t, g, Who{})
		c = servertest.NewMemConn(false, limit)
		slow, _ = g.Join(c, Who{})
		return
	}
	tick := func(g *GameServer, good *probe) {
		good.send(components.Drive{})
		g.Tick()
		good.read()
	}
	limit := 0
	for g, good, c, _ := room(0); ; tick(g, good) {
		fs := c.Recv()
		limit += len(fs)
		if slices.ContainsFunc(fs, func(f servertest.MemFrame) bool { return !f.Text }) {
			break
		}
		if g.World().Tick() > 2*wire.SnapshotEvery {
			t.Fatal("the twin's joining client got no snapshot")
		}
	}
	t.Logf("%d frames of the join", limit)
	g, good, c, slow := room(limit)
	for i := 0; i < SlowTicks+wire.SnapshotEvery*2+10; i++ {
		tick(g, good)
	}
	if closed, reason := c.Closed(); !closed || !strings.Contains(reason, "too slow") {
		t.Fatalf("slow client closed %v %q", closed, reason)
	}
	if slow.Stats().SendFull == 0 {
		t.Fatal("no frame was dropped")
	}
	want := int(g.World().Tick()) / wire.SnapshotEvery
	if good.frames < want-1 {
		t.Fatalf("good client got %d frames, want %d", good.frames, want)
	}
}

func TestDebugCommands(t *testing.T) {
	l, _ := levels.Load("main-city")
	g, err := New(Config{Room: "t", Level: l, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	plain := join(t, g, Who{})
	dbg := join(t, g, Who{Debug: true})
	g.Tick()
	plain.command(`{"type":"debug","id":1,"cmd":"kill"}`)
	dbg.command(`{"type":"debug","id":2,"cmd":"clock","minutes":600}`)
	dbg.command(`{"type":"debug","id":3,"cmd":"wanted","stars":2}`)
	dbg.command(`{"type":"debug","id":4,"cmd":"teleport","x":-5000,"y":0}`)
	dbg.command(`{"type":"phone","id":5,"cmd":"call"}`)
	dbg.command(`{"type":"debug","id":6,"cmd":"kill"}`)
	g.Tick()
	plain.read()
	dbg.read()
	r := plain.lastText("reply")
	if r == nil || r["ok"] != false || !strings.Contains(r["error"].(string), "debug commands are off") {
		t.Fatalf("plain client's debug command: %v", r)
	}
	replies := map[float64]map[string]any{}
	for _, m := range dbg.texts {
		if m["type"] == "reply" {
			replies[m["id"].(float64)] = m
		}
	}
	if replies[2]["ok"] != true {
		t.Fatalf("clock: %v", replies[2])
	}
	if c := dbg.lastText("clock"); c == nil || c["minutes"].(float64) < 599 || c["minutes"].(float64) > 601 {
		t.Fatalf("clock frame %v", c)
	}
	if !strings.Contains(replies[3]["error"].(string), "not available") {
		t.Fatalf("wanted without police: %v", replies[3])
	}
	if replies[4]["ok"] != false || !strings.Contains(replies[4]["error"].(string), "off the level") {
		t.Fatalf("teleport off the level: %v", replies[4])
	}
	if !strings.Contains(replies[5]["error"].(string), "not available") {
		t.Fatalf("phone: %v", replies[5])
	}
	if replies[6]["ok"] != true {
		t.Fatalf("kill: %v", replies[6])
	}
	if st := dbg.lastText("status"); st == nil || st["dead"] != true {
		t.Fatalf("status after kill: %v", st)
	}
}

// TestSpectator: a spectator has no character, owns nothing (no full
// pose), and its area of interest follows the player it watches.
func TestSpectator(t *testing.T) {
	g := newServer(t)
	a := join(t, g, Who{})
	b := join(t, g, Who{})
	spec := join(t, g, Who{Spectate: true, Watch: 2})
	for i := 0; i < 3; i++ {
		g.Tick()
	}
	a.read()
	b.read()
	spec.read()
	if spec.welcome.Character != 0 || !spec.welcome.Spectate {
		t.Fatalf("spectator welcome %+v", spec.welcome)
	}
	if ents := spec.dec.Snapshot().Entities; len(ents) != 4 {
		t.Fatalf("spectator holds %d entities, want the 4 of the two players", len(ents))
	}
	for _, e := range spec.dec.Snapshot().Entities {
		if e.PoseFull {
			t.Fatal("a spectator owns nothing: no full pose")
		}
	}
	// Move b (player 2) 400 m east and park an empty car beside each
	// player: the spectator holds the one beside b, not the one beside a.
	w := g.World()
	bCar, _ := w.ByWireID(b.welcome.Car)
	g.posOf(bCar).Pos.X += 400
	aCar, _ := w.ByWireID(a.welcome.Car)
	nearA, _ := g.pf.Vehicle(components.KindCar, 0, components.Vec3{X: g.posOf(aCar).Pos.X, Y: g.posOf(aCar).Pos.Y + 30}, 0, ecs.Entity{})
	nearB, _ := g.pf.Vehicle(components.KindCar, 0, components.Vec3{X: g.posOf(bCar).Pos.X, Y: g.posOf(bCar).Pos.Y + 30}, 0, ecs.Entity{})
	for i := 0; i < 6; i++ {
		g.Tick()
	}
	spec.read()
	held := map[uint16]bool{}
	for _, e := range spec.dec.Snapshot().Entities {
		held[e.EID] = true
	}
	if !held[g.ids.Get(nearB).WireID] || held[g.ids.Get(nearA).WireID] {
		t.Fatalf("spectator holds the car near b: %v (want true), near a: %v (want false)", held[g.ids.Get(nearB).WireID], held[g.ids.Get(nearA).WireID])
	}
}

// sinkConn counts what it is sent and keeps nothing: a transport whose
// own costs are out of the measurement.
type sinkConn struct{ frames, bytes int }

func (c *sinkConn) Lossy() bool { return false }
func (c *sinkConn) Send(frame []byte, text, reliable bool) error {
	c.frames++
	c.bytes += len(frame)
	return nil
}
func (c *sinkConn) Close(string) {}

// TestSteadyTickAllocatesNothing: 16 sessions on main-city (free roam:
// police, spawners, damage) each sending an input frame a tick and getting
// a snapshot every third: once warm, a tick allocates nothing.
func TestSteadyTickAllocatesNothing(t *testing.T) {
	l, _ := levels.Load("main-city")
	g, err := New(Config{Room: "alloc", Level: l, Seed: 5, Rules: ecs.FreeRoam(), EncodeWorkers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close("test over")
	var sessions []*Session
	var conns []*sinkConn
	for i := 0; i < 16; i++ {
		c := &sinkConn{}
		s, _ := g.Join(c, Who{})
		sessions, conns = append(sessions, s), append(conns, c)
	}
	seq := uint32(1)
	frame := make([]byte, 0, 64)
	tick := func() {
		f := wire.InputFrame{FirstSeq: seq, Count: 1}
		d := components.Drive{Throttle: 0.5, Steer: 0.2}
		f.Inputs[0] = control.Quantize(&d)
		frame = wire.AppendInputFrame(frame[:0], &f)
		for _, s := range sessions {
			s.Receive(frame, false)
		}
		seq++
		g.Tick()
	}
	for i := 0; i < 600; i++ {
		tick()
	}
	allocs := testing.AllocsPerRun(300, tick)
	if allocs != 0 {
		t.Fatalf("%.2f allocations per tick", allocs)
	}
	if conns[0].frames < 200 {
		t.Fatalf("only %d frames sent", conns[0].frames)
	}
}

// TestDebugReadout: twice a second a debug client gets the AI's readout
// (traffic and crowd counts, chasers); a client without debug never does.
func TestDebugReadout(t *testing.T) {
	l, _ := levels.Load("main-city")
	g, err := New(Config{Room: "t", Level: l, Seed: 1, Rules: ecs.FreeRoam()})
	if err != nil {
		t.Fatal(err)
	}
	plain := join(t, g, Who{})
	dbg := join(t, g, Who{Debug: true})
	for i := 0; i < 2*ecs.TickRate; i++ {
		g.Tick()
	}
	plain.read()
	dbg.read()
	n := 0
	var last map[string]any
	for _, m := range dbg.texts {
		if m["type"] == "readout" {
			n++
			last = m
		}
	}
	if n < 3 || n > 5 {
		t.Fatalf("%d readouts in 2 s, want 4", n)
	}
	if last["trafficWant"].(float64) != 40 || last["traffic"].(float64) < 1 {
		t.Fatalf("readout %v", last)
	}
	if plain.lastText("readout") != nil {
		t.Fatal("a client without debug got a readout")
	}
}

// textFullConn takes binary frames but refuses text frames once armed, as a
// transport whose reliable queue is full.
type textFullConn struct {
	servertest.MemConn
	armed bool
}

func (c *textFullConn) Send(frame []byte, text, reliable bool) error {
	if text && c.armed {
		return ErrSendFull
	}
	return c.MemConn.Send(frame, text, reliable)
}

// TestTextSendFullMidNotify: a Wanted frame that finds the client's queue
// full cuts the client off in the middle of its notifications; the server
// must not touch its character after that (it used to panic on a dead
// entity), and the room goes on.
func TestTextSendFullMidNotify(t *testing.T) {
	l, _ := levels.Load("main-city")
	g, err := New(Config{Room: "t", Level: l, Seed: 1, Rules: ecs.FreeRoam()})
	if err != nil {
		t.Fatal(err)
	}
	other := join(t, g, Who{})
	c := &textFullConn{}
	s, _ := g.Join(c, Who{Debug: true})
	g.Tick()
	c.armed = true
	wa, _ := g.wanted.Get(s.char)
	wa.Stars = 2 // a Wanted frame is due, then a status frame
	g.health.Get(s.char).HP = 50
	g.Tick()
	if closed, reason := c.Closed(); !closed || !strings.Contains(reason, "too slow") {
		t.Fatalf("closed %v %q", closed, reason)
	}
	for i := 0; i < 6; i++ {
		other.send(components.Drive{})
		g.Tick()
	}
	other.read()
	if other.frames == 0 {
		t.Fatal("the room stopped")
	}
}

// TestResyncHonouredOnce: a client that refused a frame asks for a
// keyframe in every input frame until one applies; the server sends one
// keyframe, not one per request, and honours a new refusal after the
// client has applied it (or after its round trip and RoundTripMargin, if
// it was lost or refused).
func TestResyncHonouredOnce(t *testing.T) {
	g := newServer(t)
	p := join(t, g, Who{})
	for i := 0; i < 9; i++ {
		p.send(components.Drive{})
		g.Tick()
	}
	p.read()
	keys := func() uint64 { return p.s.Stats().Keyframes }
	before := keys()
	ask := func(ack uint32) {
		f := wire.InputFrame{Ack: ack, Flags: wire.InputResync, FirstSeq: p.seq, Count: 1}
		p.seq++
		p.s.Receive(wire.AppendInputFrame(nil, &f), false)
		g.Tick()
	}
	old := p.dec.Tick()
	wait := int(p.s.rtt.wait())
	if wait >= ResyncTimeout {
		t.Fatalf("the round trip is not measured: waits %d ticks", wait)
	}
	for i := 0; i < wait-1; i++ { // the client still holds `old`: the keyframe is in flight
		ask(old)
	}
	if got := keys() - before; got != 1 {
		t.Fatalf("%d keyframes for one refusal", got)
	}
	p.c.Recv()
	ask(uint32(g.w.Tick())) // it applied the keyframe, then refused another frame
	for i := 0; i < 3; i++ {
		ask(uint32(g.w.Tick()) - 3)
	}
	if got := keys() - before; got != 2 {
		t.Fatalf("%d keyframes after a second refusal, want 2", got)
	}
	for i := 0; i < wait+wire.SnapshotEvery; i++ { // that keyframe is lost: asked again after the round trip
		ask(old)
	}
	if got := keys() - before; got != 3 {
		t.Fatalf("%d keyframes after a lost one, want 3", got)
	}
	if g.Stats().Resyncs != 3 {
		t.Fatalf("%d resyncs counted, want 3", g.Stats().Resyncs)
	}
}

// TestWantedFrames: a player is sent their Wanted level when the stars
// change, a Heat change alone at most twice a second, and the fine with
// the frame of an arrest.
func TestWantedFrames(t *testing.T) {
	l, _ := levels.Load("main-city")
	g, err := New(Config{Room: "t", Level: l, Seed: 1, Rules: ecs.FreeRoam()})
	if err != nil {
		t.Fatal(err)
	}
	p := join(t, g, Who{})
	g.Tick()
	p.read()
	count := func() int {
		n := 0
		for _, m := range p.texts {
			if m["type"] == "wanted" {
				n++
			}
		}
		return n
	}
	first := count()
	if first != 1 {
		t.Fatalf("%d wanted frames on join, want 1", first)
	}
	wa, _ := g.wanted.Get(p.s.char)
	wa.Stars = 2
	g.Tick()
	p.read()
	if m := p.lastText("wanted"); count() != 2 || m["stars"].(float64) != 2 {
		t.Fatalf("after 2 stars: %d frames, last %v", count(), m)
	}
	// The Heat creeping every tick for a second: at most two frames.
	for i := 0; i < ecs.TickRate; i++ {
		wa, _ = g.wanted.Get(p.s.char)
		wa.Heat += 0.001
		g.Tick()
	}
	p.read()
	if n := count() - 2; n > 2 || n < 1 {
		t.Fatalf("%d frames for a second of Heat changes, want 1 or 2", n)
	}
	// An arrest: the police clear the stars, take the fine, count it.
	wa, cash := g.wanted.Get(p.s.char)
	wa.Stars, wa.Heat, wa.Fine, wa.Arrests = 0, 0, 200, wa.Arrests+1
	cash.Amount -= 200
	g.Tick()
	p.read()
	m := p.lastText("wanted")
	if m["arrested"] != true || m["fine"].(float64) != 200 || m["stars"].(float64) != 0 || m["cash"].(float64) != float64(cash.Amount) {
		t.Fatalf("arrest frame %v", m)
	}
}

// TestChecksSpread: clients that join together hash what they hold (the
// check) on different ticks, each at its own phase, but for their
// keyframes: a room's clients do not all pay for it in one tick.
func TestChecksSpread(t *testing.T) {
	g := newServer(t)
	var ps []*probe
	for range 6 {
		ps = append(ps, join(t, g, Who{}))
	}
	checks := map[uint32][]int{} // tick: the clients whose delta carried a check
	per := make([]int, len(ps))
	for range 3*wire.CheckEvery*wire.SnapshotEvery + 10 {
		g.Tick()
		for i, p := range ps {
			for _, f := range p.c.Recv() {
				if f.Text {
					continue
				}
				h, _, err := wire.ParseHeader(f.Data)
				if err != nil {
					t.Fatal(err)
				}
				if h.Flags&wire.HeaderCheck != 0 && h.Kind == wire.FrameDelta {
					checks[h.Tick] = append(checks[h.Tick], i)
					per[i]++
				}
			}
		}
	}
	for i, n := range per {
		if n < 2 {
			t.Errorf("client %d: %d checks in %d of its frames, want 2 or more", i, n, 3*wire.CheckEvery)
		}
	}
	for tick, cs := range checks {
		if len(cs) > 1 {
			t.Errorf("tick %d: clients %v checked together", tick, cs)
		}
	}
}

// TestRefusedKeyframeAskedAgainSoon: a client 100 ms away (its first input
// came 7 ticks after its welcome) whose keyframe fails its own check asks
// for another in every input frame; the next goes once a round trip and
// RoundTripMargin have passed, 13 ticks, not after ResyncTimeout (30).
func TestRefusedKeyframeAskedAgainSoon(t *testing.T) {
	g := newServer(t)
	p := join(t, g, Who{})
	for range 7 { // the welcome's way there, the first input's way back
		g.Tick()
	}
	for range 30 {
		p.send(components.Drive{})
		g.Tick()
	}
	p.read()
	p.s.requestKeyframe(KeyframeResync) // a keyframe goes at the next snapshot
	var first, second uint64
	for range ResyncTimeout + 10 {
		k := p.s.Stats().Keyframes
		f := wire.InputFrame{Ack: p.dec.Tick(), Flags: wire.InputResync, FirstSeq: p.seq, Count: 1}
		p.seq++
		p.s.Receive(wire.AppendInputFrame(nil, &f), false) // it refused the keyframe: it asks again
		g.Tick()
		if p.s.Stats().Keyframes > k {
			if first == 0 {
				first = g.w.Tick()
			} else if second == 0 {
				second = g.w.Tick()
			}
		}
	}
	if first == 0 || second == 0 {
		t.Fatalf("keyframes at ticks %d and %d", first, second)
	}
	gap := second - first
	t.Logf("the next keyframe %d ticks after the refused one", gap) // before: ResyncTimeout, 30
	if gap > 7+RoundTripMargin+wire.SnapshotEvery || gap >= ResyncTimeout {
		t.Fatalf("the second keyframe %d ticks after the refused one, want about the round trip (7) and %d", gap, RoundTripMargin)
	}
}

// featureOf returns g's feature of type T.
func featureOf[T feature](t testing.TB, g *GameServer) T {
	t.Helper()
	for _, f := range g.features {
		if ft, ok := f.(T); ok {
			return ft
		}
	}
	var zero T
	t.Fatalf("no feature %T", zero)
	return zero
}

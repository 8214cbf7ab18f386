package server

import (
	"errors"
	"testing"
	"time"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/control"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/netsync/wire"
)

// newHoldingServer is a test-flat room that holds a dropped player's place
// for window.
func newHoldingServer(t testing.TB, window time.Duration) *GameServer {
	t.Helper()
	l, err := levels.Load("test-flat")
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(Config{Room: "t", Level: l, Seed: 1, Rules: ecs.Rules{PlayersHurt: "on"}, RejoinWindow: window})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// drive drives p for n ticks with d, the others standing.
func drive(g *GameServer, n int, d components.Drive, ps ...*probe) {
	for range n {
		for i, p := range ps {
			if i == 0 {
				p.send(d)
			} else {
				p.send(components.Drive{})
			}
		}
		g.Tick()
		for _, p := range ps {
			p.read()
		}
	}
}

// TestRejoinTakesThePlaceBack: a player whose connection drops leaves
// their character and car where they were, input held, and a join with
// their reconnect token within the window takes the same character, car,
// pose and inventory back, with a keyframe.
func TestRejoinTakesThePlaceBack(t *testing.T) {
	g := newHoldingServer(t, 30*time.Second)
	a := join(t, g, Who{Name: "Ada"})
	b := join(t, g, Who{})
	drive(g, 3, components.Drive{}, a, b)
	if a.welcome.Rejoin == "" || a.welcome.RejoinSeconds != 30 {
		t.Fatalf("welcome rejoin %q for %v s", a.welcome.Rejoin, a.welcome.RejoinSeconds)
	}
	drive(g, 90, components.Drive{Throttle: 1}, a, b)
	w := g.World()
	char, _ := w.ByWireID(a.welcome.Character)
	car, _ := w.ByWireID(a.welcome.Car)
	inv := g.inv.Get(char)
	inv.Slots[0] = components.Stack{Item: 1, Count: 3}

	a.s.Leave() // the connection dropped
	drive(g, 60, components.Drive{}, b)
	if !w.Arche.Alive(char) || !w.Arche.Alive(car) {
		t.Fatal("the dropped player's character or car left the world")
	}
	if v := g.poses; true {
		_, vel := v.Get(car)
		if sp := vel.Lin.X*vel.Lin.X + vel.Lin.Y*vel.Lin.Y; sp > 0.01 {
			t.Fatalf("the held car still moves at %v m/s after a second", sp)
		}
	}
	at := *g.posOf(car)

	// Held: whatever a client sent, it steered nothing.
	if d, _ := g.Drive(a.s); d.Throttle != 0 || d.Held&components.BtnHandbrake == 0 {
		t.Fatalf("held input %+v", d)
	}

	c := join(t, g, Who{Rejoin: a.welcome.Rejoin})
	if c.s.ID() != a.s.ID() {
		t.Fatalf("the place taken back is session %d, want %d", c.s.ID(), a.s.ID())
	}
	drive(g, 3, components.Drive{}, c, b)
	if c.welcome.Character != a.welcome.Character || c.welcome.Car != a.welcome.Car || c.welcome.Name != "Ada" {
		t.Fatalf("back as %+v, want character %d car %d", c.welcome, a.welcome.Character, a.welcome.Car)
	}
	if c.welcome.Rejoin == "" || c.welcome.Rejoin == a.welcome.Rejoin {
		t.Fatal("the reconnect token was not renewed")
	}
	if c.frames == 0 || len(c.dec.Snapshot().Entities) == 0 {
		t.Fatal("no snapshot after taking the place back")
	}
	if *g.posOf(car) != at || g.inv.Get(char).Slots[0] != (components.Stack{Item: 1, Count: 3}) {
		t.Fatal("the car moved or the inventory changed across the drop")
	}
	if c.lastText("inventory") == nil || c.lastText("status") == nil {
		t.Fatal("the features did not tell the new client anew")
	}
	drive(g, 60, components.Drive{Throttle: 1}, c, b)
	if p := g.posOf(car).Pos; p == at.Pos {
		t.Fatal("the car taken back does not drive")
	}
	// The old token is spent once the new client sent its first input.
	if _, err := g.Join(nil, Who{Rejoin: a.welcome.Rejoin}); !errors.Is(err, ErrRejoinUnknown) {
		t.Fatalf("the old token: %v", err)
	}
}

// TestRejoinTokenGoodUntilConfirmed: the token of a place taken back stays
// good until the new client's first input frame: a connection that dies
// before it got the new welcome may try again with it.
func TestRejoinTokenGoodUntilConfirmed(t *testing.T) {
	g := newHoldingServer(t, 30*time.Second)
	a := join(t, g, Who{})
	drive(g, 3, components.Drive{}, a)
	a.s.Leave()
	g.Tick()
	c := join(t, g, Who{Rejoin: a.welcome.Rejoin})
	g.Tick() // c is in, but sent nothing: it may have died before reading
	c.s.Leave()
	g.Tick()
	d := join(t, g, Who{Rejoin: a.welcome.Rejoin})
	drive(g, 3, components.Drive{}, d)
	if d.welcome.Character != a.welcome.Character {
		t.Fatalf("back with the first token as %d, want %d", d.welcome.Character, a.welcome.Character)
	}
	if _, err := g.Join(nil, Who{Rejoin: a.welcome.Rejoin}); !errors.Is(err, ErrRejoinUnknown) {
		t.Fatalf("the first token after the new client's input: %v", err)
	}
}

// TestRejoinWindowRunsOut: a place not taken back within the window goes:
// the character and car leave the world, and the token is refused.
func TestRejoinWindowRunsOut(t *testing.T) {
	g := newHoldingServer(t, time.Second)
	a := join(t, g, Who{})
	b := join(t, g, Who{})
	drive(g, 3, components.Drive{}, a, b)
	w := g.World()
	char, _ := w.ByWireID(a.welcome.Character)
	a.s.Leave()
	drive(g, ecs.TickRate-1, components.Drive{}, b)
	if !w.Arche.Alive(char) {
		t.Fatal("gone before the window ran out")
	}
	drive(g, 2, components.Drive{}, b)
	if w.Arche.Alive(char) {
		t.Fatal("the character stays after the window")
	}
	if g.Players() != 1 {
		t.Fatalf("%d players, want 1", g.Players())
	}
	if _, err := g.Join(nil, Who{Rejoin: a.welcome.Rejoin}); !errors.Is(err, ErrRejoinUnknown) {
		t.Fatalf("a stale token: %v", err)
	}
}

// TestRejoinRefused: a wrong token, another account's token, and a
// player who said they leave: refused or not held, and the room goes on.
func TestRejoinRefused(t *testing.T) {
	g := newHoldingServer(t, 30*time.Second)
	a := join(t, g, Who{Account: "acc-a"})
	b := join(t, g, Who{Account: "acc-b"})
	drive(g, 3, components.Drive{}, a, b)
	cases := []struct {
		name string
		who  Who
		want error
	}{
		{"a wrong token", Who{Rejoin: "not-a-token"}, ErrRejoinUnknown},
		{"another account's token", Who{Account: "acc-b", Rejoin: a.welcome.Rejoin}, ErrRejoinAccount},
		{"a token without its account", Who{Rejoin: a.welcome.Rejoin}, ErrRejoinAccount},
	}
	for _, c := range cases {
		if _, err := g.Join(nil, c.who); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	// b says it leaves: no place held.
	w := g.World()
	bChar, _ := w.ByWireID(b.welcome.Character)
	b.command(`{"type":"leave","id":1}`)
	drive(g, 1, components.Drive{}, a, b)
	b.s.Leave()
	drive(g, 2, components.Drive{}, a)
	if w.Arche.Alive(bChar) {
		t.Fatal("a player who said they leave keeps their character")
	}
	if g.Resumable(Who{Account: "acc-b"}) {
		t.Fatal("the place of a player who left is held")
	}
}

// TestRejoinByAccount: an account whose place is held takes it back with
// a plain join, no token; and a join with the token takes over a place
// whose connection still hangs open.
func TestRejoinByAccount(t *testing.T) {
	g := newHoldingServer(t, 30*time.Second)
	a := join(t, g, Who{Account: "acc-a"})
	drive(g, 3, components.Drive{}, a)
	if g.Resumable(Who{Account: "acc-a"}) {
		t.Fatal("a place whose player plays is resumable without a token")
	}
	a.s.Leave()
	drive(g, 2, components.Drive{})
	if !g.Resumable(Who{Account: "acc-a"}) {
		t.Fatal("the held place of acc-a is not resumable")
	}
	c := join(t, g, Who{Account: "acc-a"})
	drive(g, 2, components.Drive{}, c)
	if c.welcome.Character != a.welcome.Character {
		t.Fatalf("acc-a came back as character %d, want %d", c.welcome.Character, a.welcome.Character)
	}
	// Takeover: the old connection hangs, a new one presents the token.
	d := join(t, g, Who{Account: "acc-a", Rejoin: c.welcome.Rejoin})
	drive(g, 2, components.Drive{}, d)
	if closed, why := c.c.Closed(); !closed || why != ErrReplaced.Error() {
		t.Fatalf("the hung connection: closed %v (%q)", closed, why)
	}
	if d.welcome.Character != a.welcome.Character || g.Players() != 1 {
		t.Fatalf("took over as %d with %d players", d.welcome.Character, g.Players())
	}
}

// TestNoWindowNoPlace: without a window a drop is a leave, as before, and
// the welcome carries no token.
func TestNoWindowNoPlace(t *testing.T) {
	g := newServer(t)
	a := join(t, g, Who{})
	drive(g, 3, components.Drive{}, a)
	if a.welcome.Rejoin != "" {
		t.Fatal("a room that holds no places gave a token")
	}
	char, _ := g.World().ByWireID(a.welcome.Character)
	a.s.Leave()
	g.Tick()
	if g.World().Arche.Alive(char) {
		t.Fatal("the character stays after a drop in a room that holds no places")
	}
}

// TestHeldSteadyTickAllocatesNothing: a room with a held place ticks
// without allocating.
func TestHeldSteadyTickAllocatesNothing(t *testing.T) {
	g := newHoldingServer(t, time.Minute)
	a, b := &sinkConn{}, &sinkConn{}
	sa, _ := g.Join(a, Who{})
	sb, _ := g.Join(b, Who{})
	seq := uint32(1)
	frame := make([]byte, 0, 64)
	tick := func() {
		f := wire.InputFrame{FirstSeq: seq, Count: 1}
		d := components.Drive{Throttle: 0.5}
		f.Inputs[0] = control.Quantize(&d)
		frame = wire.AppendInputFrame(frame[:0], &f)
		sb.Receive(frame, false)
		if seq < 10 {
			sa.Receive(frame, false)
		}
		seq++
		g.Tick()
	}
	for range 10 {
		tick()
	}
	sa.Leave()
	for range 300 {
		tick()
	}
	if !sa.detached {
		t.Fatal("the dropped session is not held")
	}
	if n := testing.AllocsPerRun(300, tick); n != 0 {
		t.Fatalf("%v allocations per tick", n)
	}
}

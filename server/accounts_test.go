package server

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/control"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/netsync/wire"
	"github.com/fiveonit/engine/prefab"
	"github.com/fiveonit/engine/store"
	"github.com/fiveonit/engine/store/storetest"
)

// newAccounts plays st for the test; its writer writes only when the test
// flushes it (its period, an hour, is longer than any test).
func newAccounts(t testing.TB, st store.Store, holder string) *store.Accounts {
	t.Helper()
	a := store.NewAccounts(st, store.AccountsConfig{Holder: holder, WriteEvery: time.Hour, Lease: time.Minute})
	t.Cleanup(func() { a.Close(context.Background()) })
	return a
}

func flush(t testing.TB, a *store.Accounts) {
	t.Helper()
	if err := a.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// joinAccount claims account in a and joins it to g.
func joinAccount(t testing.TB, g *GameServer, a *store.Accounts, account string) *probe {
	t.Helper()
	h, err := a.Claim(context.Background(), account, g.cfg.Room)
	if err != nil {
		t.Fatal(err)
	}
	return join(t, g, Who{Account: account, Name: account, Keep: h})
}

func cashOf(g *GameServer, p *probe) int64 {
	_, c := g.wanted.Get(p.s.char)
	return c.Amount
}

// TestAccountCash: a character comes in with its account's Cash: a new
// account's is the starting cash, and is kept from then; a saved one's is
// what was saved; an anonymous player starts anew and keeps nothing. The
// status frame tells the player.
func TestAccountCash(t *testing.T) {
	mem := storetest.NewMemory()
	seed := newAccounts(t, mem, "seed")
	h, _ := seed.Claim(context.Background(), "saver", "r")
	h.Leave(&store.Account{Cash: 77})
	flush(t, seed)

	a := newAccounts(t, mem, "p1")
	g := newServer(t)
	cases := []struct {
		name, account string
		want          int64
		kept          bool
	}{
		{"new account", "newbie", prefab.StartCash, true},
		{"saved account", "saver", 77, true},
		{"anonymous", "", prefab.StartCash, false},
	}
	var ps []*probe
	for _, c := range cases {
		if c.account == "" {
			ps = append(ps, join(t, g, Who{}))
			continue
		}
		ps = append(ps, joinAccount(t, g, a, c.account))
	}
	g.Tick()
	flush(t, a)
	for i, c := range cases {
		p := ps[i]
		p.read()
		if got := cashOf(g, p); got != c.want {
			t.Errorf("%s: cash %d, want %d", c.name, got, c.want)
		}
		if m := p.lastText("status"); m == nil || m["cash"] != float64(c.want) {
			t.Errorf("%s: status frame %v, want cash %d", c.name, m, c.want)
		}
		if c.account == "" {
			continue
		}
		if got, ok := mem.Peek(c.account); ok != c.kept || got.Cash != c.want {
			t.Errorf("%s: kept %v with cash %d, want %v with %d", c.name, ok, got.Cash, c.kept, c.want)
		}
	}
}

// TestAccountPersists: a change of Cash is posted on the session's next
// persist tick, not before, and written with the writer's next batch; the
// player's leave posts the last state and lets the account go; a new
// server (a restart) over the same store brings it back.
func TestAccountPersists(t *testing.T) {
	mem := storetest.NewMemory()
	a := newAccounts(t, mem, "p1")
	g := newServer(t)
	p := joinAccount(t, g, a, "alice")
	g.Tick()
	flush(t, a)
	// The change lands just after a persist tick: not posted until the
	// next, PersistEvery later.
	for (g.w.Tick()+uint64(p.s.id))%PersistEvery != 0 {
		g.Tick()
	}
	p.command(`{"type":"debug","cmd":"cash","value":"1234","id":1}`)
	g.Tick()
	if cashOf(g, p) != 1234 {
		t.Fatalf("cash %d after the debug command, want 1234", cashOf(g, p))
	}
	ticks := 1
	for ; ; ticks++ {
		flush(t, a)
		if got, _ := mem.Peek("alice"); got.Cash == 1234 {
			break
		}
		if ticks > PersistEvery {
			t.Fatalf("not kept %d ticks after the change", ticks)
		}
		g.Tick()
	}
	if ticks < PersistEvery-1 {
		t.Errorf("kept %d ticks after the change, want it posted once per %d", ticks, PersistEvery)
	}
	// A change, then the leave before the next persist tick: the leave
	// posts it.
	p.command(`{"type":"debug","cmd":"cash","value":"1300","id":2}`)
	g.Tick()
	// Another room of this process at once, before anything is written:
	// handed over with its state.
	p.s.Leave()
	g.Tick()
	g3 := newServer(t)
	p3 := joinAccount(t, g3, a, "alice")
	g3.Tick()
	if got := cashOf(g3, p3); got != 1300 {
		t.Fatalf("in another room of this process: cash %d, want 1300", got)
	}
	p3.s.Leave()
	g3.Tick()
	flush(t, a)
	// A restart: another process, another room.
	a2 := newAccounts(t, mem, "p2")
	g2 := newServer(t)
	p2 := joinAccount(t, g2, a2, "alice")
	g2.Tick()
	if got := cashOf(g2, p2); got != 1300 {
		t.Errorf("after a restart: cash %d, want 1300", got)
	}
}

// TestAccountClosedRoom: a room that closes (a shutdown) posts every
// player's last state, and Close of the accounts writes it.
func TestAccountClosedRoom(t *testing.T) {
	mem := storetest.NewMemory()
	a := store.NewAccounts(mem, store.AccountsConfig{Holder: "p1", WriteEvery: time.Hour})
	g := newServer(t)
	var ps []*probe
	for i := range 4 {
		ps = append(ps, joinAccount(t, g, a, fmt.Sprint("player-", i)))
	}
	g.Tick()
	for i, p := range ps {
		p.command(fmt.Sprintf(`{"type":"debug","cmd":"cash","value":"%d"}`, 10+i))
	}
	g.Tick()
	g.Close("server shutting down")
	if err := a.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	for i := range ps {
		if got, _ := mem.Peek(fmt.Sprint("player-", i)); got.Cash != int64(10+i) {
			t.Errorf("player-%d: cash %d, want %d", i, got.Cash, 10+i)
		}
	}
}

// TestAccountLost: a player whose account's lease was lost to another
// server is let go with the reason; its last state is not written over
// the other server's.
func TestAccountLost(t *testing.T) {
	mem := storetest.NewMemory()
	f := storetest.NewFaulty(mem)
	a := store.NewAccounts(f, store.AccountsConfig{Holder: "p1", WriteEvery: 10 * time.Millisecond, Lease: 150 * time.Millisecond})
	defer a.Close(context.Background())
	g := newServer(t)
	p := joinAccount(t, g, a, "bob")
	g.Tick()
	f.SetDown(true)
	time.Sleep(250 * time.Millisecond)
	other := store.NewAccounts(mem, store.AccountsConfig{Holder: "p2"})
	defer other.Close(context.Background())
	if _, err := other.Claim(context.Background(), "bob", "elsewhere"); err != nil {
		t.Fatal(err)
	}
	f.SetDown(false)
	for deadline := time.Now().Add(5 * time.Second); ; {
		g.Tick()
		if closed, reason := p.c.Closed(); closed {
			if reason != ErrAccountLost.Error() {
				t.Fatalf("closed with %q, want %q", reason, ErrAccountLost)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the player is still in 5 s after the lease was lost")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestArrestFineKept is a scenario on main-city (free roam, police on): a
// player with an account and a Wanted star stands still in its car in the
// police station's car park until the police arrest it (a few seconds); the fine is taken from its Cash, and a new server
// (a restart) over the same store brings the Cash back as the arrest left
// it.
func TestArrestFineKept(t *testing.T) {
	mem := storetest.NewMemory()
	a := newAccounts(t, mem, "p1")
	l, _ := levels.Load("main-city")
	g, err := New(Config{Room: "city", Level: l, Seed: 3, Rules: ecs.FreeRoam()})
	if err != nil {
		t.Fatal(err)
	}
	p := joinAccount(t, g, a, "outlaw")
	p.s.who.Debug = true
	g.Tick()
	// Beside the police station's car park, where its cars come out.
	debugReply(t, g, p, 1, `{"type":"debug","cmd":"teleport","x":214,"y":-270,"id":1}`)
	debugReply(t, g, p, 2, `{"type":"debug","cmd":"wanted","stars":1,"id":2}`)
	var wa *components.Wanted
	for i := 0; i < 90*ecs.TickRate; i++ {
		g.Tick()
		if wa, _ = g.wanted.Get(p.s.char); wa.Arrests > 0 {
			break
		}
	}
	if wa.Arrests == 0 {
		t.Fatalf("not arrested in 90 s: %+v", *wa)
	}
	want := int64(prefab.StartCash) - wa.Fine
	if wa.Fine <= 0 || cashOf(g, p) != want {
		t.Fatalf("fine %d, cash %d; want a fine taken from %d", wa.Fine, cashOf(g, p), prefab.StartCash)
	}
	g.Close("server shutting down")
	if err := a.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	a2 := newAccounts(t, mem, "p2")
	g2, _ := New(Config{Room: "city", Level: l, Seed: 3, Rules: ecs.FreeRoam()})
	p2 := joinAccount(t, g2, a2, "outlaw")
	g2.Tick()
	if got := cashOf(g2, p2); got != want {
		t.Errorf("after a restart: cash %d, want %d", got, want)
	}
}

// TestDebugCash: the cash command's bounds.
func TestDebugCash(t *testing.T) {
	g := newServer(t)
	p := join(t, g, Who{})
	g.Tick()
	for i, c := range []struct {
		value string
		ok    bool
	}{{"0", true}, {"999", true}, {"-1", false}, {"x", false}, {"", false}, {fmt.Sprint(int64(store.MaxCash) + 1), false}} {
		p.command(fmt.Sprintf(`{"type":"debug","cmd":"cash","value":%q,"id":%d}`, c.value, i+1))
		g.Tick()
		p.read()
		var reply map[string]any
		for _, m := range p.texts {
			if m["type"] == "reply" && m["id"] == float64(i+1) {
				reply = m
			}
		}
		if reply == nil || reply["ok"] != c.ok {
			t.Errorf("cash %q: reply %v, want ok %v", c.value, reply, c.ok)
		}
	}
	if got := cashOf(g, p); got != 999 {
		t.Errorf("cash %d, want 999 (the last good value)", got)
	}
}

// TestAccountTickAllocatesNothing: 16 players with accounts on main-city
// (not a test-* level: its debug readout allocates) whose Cash and
// persisting items change every tick: once warm, the tick (and its posts
// to the store) allocates nothing.
func TestAccountTickAllocatesNothing(t *testing.T) {
	l, _ := levels.Load("main-city")
	g, err := New(Config{Room: "alloc", Level: l, Seed: 5, Rules: ecs.FreeRoam()})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close("test over")
	a := newAccounts(t, storetest.NewMemory(), "p1")
	var sessions []*Session
	for i := range 16 {
		h, err := a.Claim(context.Background(), fmt.Sprint("acc-", i), "r")
		if err != nil {
			t.Fatal(err)
		}
		s, _ := g.Join(&sinkConn{}, Who{Account: fmt.Sprint("acc-", i), Keep: h})
		sessions = append(sessions, s)
	}
	water, _ := g.w.Items.ByName("water")
	seq := uint32(1)
	frame := make([]byte, 0, 64)
	tick := func() {
		f := wire.InputFrame{FirstSeq: seq, Count: 1}
		d := components.Drive{Throttle: 0.5}
		f.Inputs[0] = control.Quantize(&d)
		frame = wire.AppendInputFrame(frame[:0], &f)
		for _, s := range sessions {
			s.Receive(frame, false)
			_, c := g.wanted.Get(s.char)
			c.Amount++
			g.inv.Get(s.char).Slots[seq%3] = components.Stack{Item: water, Count: 1 + uint16(seq%2)}
		}
		seq++
		g.Tick()
	}
	g.Tick()
	for range 2 * PersistEvery {
		tick()
	}
	if n := testing.AllocsPerRun(2*PersistEvery, tick); n != 0 {
		t.Errorf("%.2f allocations per tick", n)
	}
}

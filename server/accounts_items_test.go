package server

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fiveonit/engine/games"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/prefab"
	"github.com/fiveonit/engine/store"
	"github.com/fiveonit/engine/store/storetest"
)

// syncBuf is a log's buffer, safe to write from any goroutine.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuf) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuf) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// jobsCity makes a main-city room playing city-jobs (a phone in every
// character's last slot; mission items such as the parcel in the
// catalog), logging to log when it is not nil.
func jobsCity(t *testing.T, log *syncBuf) *GameServer {
	t.Helper()
	l, err := levels.Load("main-city")
	if err != nil {
		t.Fatal(err)
	}
	gm, err := games.Lookup("city-jobs")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Room: "items", Level: l, Seed: 1, Game: gm, Rules: gm.ForLevel(l)}
	if log != nil {
		cfg.Log = slog.New(slog.NewTextHandler(log, nil))
	}
	g, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// slotsOf returns p's character's inventory slots as "name×count", ""
// for an empty slot.
func slotsOf(g *GameServer, p *probe) []string {
	inv := g.inv.Get(p.s.char)
	out := make([]string, len(inv.Slots))
	for i, st := range inv.Slots {
		if st.Item != 0 {
			out[i] = fmt.Sprintf("%s×%d", g.w.Items.Get(st.Item).Name, st.Count)
		}
	}
	return out
}

// TestKeptItemsPersist is a scenario on main-city playing city-jobs: a
// player with an account buys two waters at the corner shop, picks up the
// yard's crowbar from the ground and moves it to slot 5, and is handed a
// mission's parcel. They leave; the store keeps the waters and the
// crowbar, in their slots, and not the parcel (it does not persist) nor
// the phone (the game gives it). A new server over the same store (a
// restart) gives them back in the same slots, the phone in the last.
func TestKeptItemsPersist(t *testing.T) {
	mem := storetest.NewMemory()
	a := newAccounts(t, mem, "p1")
	g := jobsCity(t, nil)
	p := joinAccount(t, g, a, "carrier")
	p.s.who.Debug = true // for the parcel alone
	ticks(g, p, 3)
	do := func(cmd string) {
		t.Helper()
		if r := reply(t, g, p, cmd); !r.OK {
			t.Fatalf("%s: %+v", cmd, r)
		}
	}
	shop := g.cfg.Level.Shops[0]
	place(g, p.s, shop.Pos.X, shop.Pos.Y-2, 1.57)
	do(`{"type":"buy","place":"corner-shop","item":"water","count":2}`)
	var bar levels.Pickup
	for _, pk := range g.cfg.Level.Pickups {
		if pk.Item == "crowbar" {
			bar = pk
		}
	}
	place(g, p.s, bar.Pos.X, bar.Pos.Y+1, 0)
	ticks(g, p, 1)
	do(fmt.Sprintf(`{"type":"pickup","target":%d}`, carsLoose(g, bar.Pos)))
	do(`{"type":"move","slot":1,"to":5}`)
	do(`{"type":"debug","cmd":"give-item","item":"parcel"}`)
	cash := cashOf(g, p)
	want := []string{"water×2", "parcel×1", "", "", "", "crowbar×1", "", "", "", "phone×1"}
	if got := slotsOf(g, p); !slices.Equal(got, want) {
		t.Fatalf("slots before leaving %q, want %q", got, want)
	}
	p.s.Leave()
	g.Tick()
	flush(t, a)
	got, _ := mem.Peek("carrier")
	if keep := []store.Item{{Slot: 0, Item: "water", Count: 2}, {Slot: 5, Item: "crowbar", Count: 1}}; !slices.Equal(got.Items, keep) || got.Cash != cash {
		t.Fatalf("kept items %+v and cash %d, want %+v and %d", got.Items, got.Cash, keep, cash)
	}

	a2 := newAccounts(t, mem, "p2")
	g2 := jobsCity(t, nil)
	p2 := joinAccount(t, g2, a2, "carrier")
	ticks(g2, p2, 3)
	want = []string{"water×2", "", "", "", "", "crowbar×1", "", "", "", "phone×1"}
	if got := slotsOf(g2, p2); !slices.Equal(got, want) {
		t.Fatalf("slots after a restart %q, want %q", got, want)
	}
	if inv := inventory(t, p2); inv.Slots[5].Count != 1 || inv.Cash != cash {
		t.Fatalf("inventory frame after a restart %+v, want the crowbar in slot 5 and cash %d", inv, cash)
	}
}

// TestKeptItemsLoad: what a store kept goes back into the inventory as the
// room can take it: a stack into its own slot; the phone's slot left to
// the phone (its stack moves to a free slot); a stack above the catalog's
// limit split over free slots; an item the catalog lacks, one that does
// not persist, and cash as an item (Cash is the account's own) dropped
// with a log line each, never doubling the Cash. The account is then
// written as the room left it.
func TestKeptItemsLoad(t *testing.T) {
	mem := storetest.NewMemory()
	seed := newAccounts(t, mem, "seed")
	h, err := seed.Claim(context.Background(), "hoarder", "r")
	if err != nil {
		t.Fatal(err)
	}
	h.Leave(&store.Account{Cash: 40, Items: []store.Item{
		{Slot: 0, Item: "unicorn", Count: 1},
		{Slot: 1, Item: "parcel", Count: 1},
		{Slot: 2, Item: "water", Count: 7},
		{Slot: 3, Item: "cash", Count: 100},
		{Slot: 4, Item: "pistol", Count: 1},
		{Slot: 9, Item: "medkit", Count: 1},
	}})
	flush(t, seed)

	var log syncBuf
	a := newAccounts(t, mem, "p1")
	g := jobsCity(t, &log)
	p := joinAccount(t, g, a, "hoarder")
	ticks(g, p, 3)
	want := []string{"water×2", "medkit×1", "water×5", "", "pistol×1", "", "", "", "", "phone×1"}
	if got := slotsOf(g, p); !slices.Equal(got, want) {
		t.Fatalf("slots %q, want %q", got, want)
	}
	if got := cashOf(g, p); got != 40 {
		t.Errorf("cash %d, want the kept 40 (not doubled by the cash item)", got)
	}
	for _, item := range []string{"unicorn", "parcel", "cash"} {
		if !strings.Contains(log.String(), "item="+item+" ") {
			t.Errorf("no log line for the dropped %s:\n%s", item, log.String())
		}
	}
	if strings.Contains(log.String(), "item=water") || strings.Contains(log.String(), "item=medkit") {
		t.Errorf("a kept item logged as dropped:\n%s", log.String())
	}
	for range PersistEvery {
		g.Tick()
	}
	flush(t, a)
	got, _ := mem.Peek("hoarder")
	keep := []store.Item{{Slot: 0, Item: "water", Count: 2}, {Slot: 1, Item: "medkit", Count: 1}, {Slot: 2, Item: "water", Count: 5}, {Slot: 4, Item: "pistol", Count: 1}}
	if !slices.Equal(got.Items, keep) || got.Cash != 40 {
		t.Fatalf("written back %+v, cash %d; want %+v, cash 40", got.Items, got.Cash, keep)
	}
}

// TestKeptItemsNew: a new account is kept from its start with the
// starting Cash and no items (the phone the game gives is not kept).
func TestKeptItemsNew(t *testing.T) {
	mem := storetest.NewMemory()
	a := newAccounts(t, mem, "p1")
	g := jobsCity(t, nil)
	joinAccount(t, g, a, "fresh")
	g.Tick()
	flush(t, a)
	if got, ok := mem.Peek("fresh"); !ok || got.Cash != prefab.StartCash || len(got.Items) != 0 {
		t.Fatalf("kept %v: %+v", ok, got)
	}
}

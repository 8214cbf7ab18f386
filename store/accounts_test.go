package store_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fiveonit/engine/clock"
	"github.com/fiveonit/engine/clock/clocktest"
	"github.com/fiveonit/engine/store"
	"github.com/fiveonit/engine/store/storetest"
)

// logBuf collects log output written from many goroutines.
type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// writeEvery is the writer's period in fast.
const writeEvery = 10 * time.Millisecond

// fast is a config whose writer and leases run in test time, on clk (nil:
// the process's clock).
func fast(holder string, log *logBuf, clk clock.Clock) store.AccountsConfig {
	c := store.AccountsConfig{Holder: holder, Lease: 300 * time.Millisecond, ClaimTimeout: 200 * time.Millisecond,
		WriteEvery: writeEvery, CallTimeout: time.Second, Clock: clk}
	if log != nil {
		c.Log = slog.New(slog.NewTextHandler(log, nil))
	}
	return c
}

// step runs n periods of the writers on clk: each advances the clock by
// writeEvery and waits until every writer has done what fell due.
func step(t *testing.T, clk *clocktest.Fake, n int) {
	t.Helper()
	for range n {
		clk.Step(t, writeEvery)
	}
}

// until steps clk one writer period at a time until cond holds, for at
// most 5 s of its time.
func until(t *testing.T, clk *clocktest.Fake, what string, cond func() bool) {
	t.Helper()
	for i := 0; !cond(); i++ {
		if i == int(5*time.Second/writeEvery) {
			t.Fatalf("%s: not within 5 s", what)
		}
		step(t, clk, 1)
	}
}

func closeAccounts(t *testing.T, a *store.Accounts) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := a.Close(ctx); err != nil && !errors.Is(err, store.ErrClosed) {
		t.Error(err)
	}
}

// TestWriteBehind: a posted change is written by the writer, the lease is
// released once the last state is written, and another process then
// claims the account with that state.
func TestWriteBehind(t *testing.T) {
	clk := clocktest.New()
	mem := storetest.NewMemoryClock(clk)
	var wrote struct {
		sync.Mutex
		n int
	}
	cfg := fast("p1", nil, clk)
	cfg.Written = func(n int, oldest, took time.Duration) {
		wrote.Lock()
		wrote.n += n
		wrote.Unlock()
		if oldest < took || oldest > 5*time.Second {
			t.Errorf("Written: oldest change waited %s, the save took %s", oldest, took)
		}
	}
	a := store.NewAccounts(mem, cfg)
	defer closeAccounts(t, a)
	h, err := a.Claim(context.Background(), "alice", "room-1")
	if err != nil {
		t.Fatal(err)
	}
	if got := h.Account(); got.Revision != 0 || got.Cash != 0 {
		t.Fatalf("a new account: %+v", got)
	}
	h.Save(&store.Account{Cash: 700, Items: []store.Item{{Slot: 1, Item: "phone", Count: 1}}})
	until(t, clk, "the change written", func() bool { got, ok := mem.Peek("alice"); return ok && got.Cash == 700 })
	h.Leave(&store.Account{Cash: 650})
	b := store.NewAccounts(mem, fast("p2", nil, clk))
	defer closeAccounts(t, b)
	var h2 *store.Held
	until(t, clk, "released to another process", func() bool {
		h2, err = b.Claim(context.Background(), "alice", "room-9")
		return err == nil
	})
	if got := h2.Account(); got.Cash != 650 || len(got.Items) != 0 || got.Revision != 2 {
		t.Errorf("claimed by another process: %+v, want the last state (cash 650, no items, revision 2)", got)
	}
	wrote.Lock()
	defer wrote.Unlock()
	if wrote.n != 2 {
		t.Errorf("Written told of %d account writes, want 2", wrote.n)
	}
}

// TestPlayingTwice: an account playing in a room of this process is
// refused in another, with the room's name; once it left, a new claim gets
// its last state at once, even before it is written and with the store
// down.
func TestPlayingTwice(t *testing.T) {
	clk := clocktest.New()
	mem := storetest.NewMemoryClock(clk)
	f := storetest.NewFaulty(mem)
	a := store.NewAccounts(f, fast("p1", nil, clk))
	defer closeAccounts(t, a)
	h, err := a.Claim(context.Background(), "bob", "downtown")
	if err != nil {
		t.Fatal(err)
	}
	if !h.New() {
		t.Error("a new account's claim: New() false")
	}
	_, err = a.Claim(context.Background(), "bob", "uptown")
	if !errors.Is(err, store.ErrPlaying) || !strings.Contains(err.Error(), "downtown") {
		t.Fatalf("a second claim: %v, want ErrPlaying naming downtown", err)
	}
	f.SetDown(true)
	h.Save(&store.Account{Cash: 42})
	h.Leave(nil)
	h2, err := a.Claim(context.Background(), "bob", "uptown")
	if err != nil {
		t.Fatalf("a claim once left, the store down: %v", err)
	}
	if h2.Account().Cash != 42 || h2.New() {
		t.Errorf("handed over with cash %d, New() %v; want 42 and not new (its state was posted)", h2.Account().Cash, h2.New())
	}
	// The old claim's posts are ignored from now on.
	h.Save(&store.Account{Cash: 1})
	h2.Save(&store.Account{Cash: 43})
	step(t, clk, 3) // the writer tries, and fails
	f.SetDown(false)
	until(t, clk, "written once the store is back", func() bool { got, _ := mem.Peek("bob"); return got.Cash == 43 })
}

// TestClaimTimeout: a store that hangs makes a claim fail with ErrTimeout
// within the claim timeout, and the account is free to claim again once
// the store answers.
func TestClaimTimeout(t *testing.T) {
	f := storetest.NewFaulty(storetest.NewMemory())
	a := store.NewAccounts(f, fast("p1", nil, nil))
	defer closeAccounts(t, a)
	defer f.SetDown(false)
	f.SetHung(true)
	start := time.Now()
	_, err := a.Claim(context.Background(), "carol", "r")
	if !errors.Is(err, store.ErrTimeout) {
		t.Fatalf("claim on a hung store: %v, want ErrTimeout", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("refused after %s, want about the 200 ms claim timeout", d)
	}
	f.SetHung(false)
	if _, err := a.Claim(context.Background(), "carol", "r"); err != nil {
		t.Fatalf("claim once the store answers: %v", err)
	}
	// Down rather than hung: the store's error at once.
	f.SetDown(true)
	if _, err := a.Claim(context.Background(), "dan", "r"); !errors.Is(err, storetest.ErrDown) {
		t.Errorf("claim on a store down: %v, want its error", err)
	}
}

// TestRetry: writes that fail are retried and logged, and nothing is lost:
// once the store is back, the newest state is written.
func TestRetry(t *testing.T) {
	clk := clocktest.New()
	mem := storetest.NewMemoryClock(clk)
	f := storetest.NewFaulty(mem)
	var log logBuf
	a := store.NewAccounts(f, fast("p1", &log, clk))
	defer closeAccounts(t, a)
	h, err := a.Claim(context.Background(), "erin", "r")
	if err != nil {
		t.Fatal(err)
	}
	f.SetDown(true)
	for i := range 10 { // a post every half period
		h.Save(&store.Account{Cash: int64(100 + i)})
		clk.Step(t, writeEvery/2)
	}
	until(t, clk, "three tries", func() bool { return f.Calls("Save") >= 3 })
	if st := a.Stats(); st.Pending != 1 || st.Failures < 3 {
		t.Errorf("stats with the store down: %+v, want 1 pending and failures counted", st)
	}
	if !strings.Contains(log.String(), "write failed, retrying") {
		t.Errorf("no retry logged:\n%s", log.String())
	}
	f.SetDown(false)
	until(t, clk, "written once back", func() bool { got, _ := mem.Peek("erin"); return got.Cash == 109 })
	until(t, clk, "nothing pending", func() bool { return a.Stats().Pending == 0 })
}

// TestCloseFlushes: Close writes what is pending and releases the leases;
// with the store down past its context it logs every state it could not
// write and says how many.
func TestCloseFlushes(t *testing.T) {
	mem := storetest.NewMemory()
	cfg := fast("p1", nil, nil)
	cfg.WriteEvery = time.Hour // only Close writes
	a := store.NewAccounts(mem, cfg)
	h, _ := a.Claim(context.Background(), "fay", "r")
	h.Save(&store.Account{Cash: 9})
	if _, ok := mem.Peek("fay"); ok {
		t.Fatal("written before Close")
	}
	if err := a.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, _ := mem.Peek("fay"); got.Cash != 9 {
		t.Errorf("after Close: cash %d, want 9", got.Cash)
	}
	if _, err := a.Claim(context.Background(), "gus", "r"); !errors.Is(err, store.ErrClosed) {
		t.Errorf("claim after Close: %v, want ErrClosed", err)
	}
	if _, err := mem.Claim(context.Background(), "fay", "p2", time.Minute); err != nil {
		t.Errorf("lease after Close: %v, want released", err)
	}

	f := storetest.NewFaulty(storetest.NewMemory())
	var log logBuf
	cfg = fast("p1", &log, nil)
	cfg.WriteEvery = time.Hour
	a = store.NewAccounts(f, cfg)
	h, _ = a.Claim(context.Background(), "hal", "r")
	h.Save(&store.Account{Cash: 31337})
	f.SetDown(true)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err := a.Close(ctx)
	if err == nil || !strings.Contains(err.Error(), "1 accounts not written") {
		t.Errorf("Close with the store down: %v, want 1 account not written", err)
	}
	if !strings.Contains(log.String(), "account=hal cash=31337") {
		t.Errorf("the state lost is not in the log:\n%s", log.String())
	}
}

// TestLeaseLost: a process that cannot reach the store past its lease,
// while another claims the account, finds the lease lost once back: Lost
// reports it, and its state is not written over the other's.
func TestLeaseLost(t *testing.T) {
	clk := clocktest.New()
	mem := storetest.NewMemoryClock(clk)
	f := storetest.NewFaulty(mem)
	var log logBuf
	a := store.NewAccounts(f, fast("p1", &log, clk))
	defer closeAccounts(t, a)
	h, err := a.Claim(context.Background(), "ivy", "r")
	if err != nil {
		t.Fatal(err)
	}
	f.SetDown(true)
	step(t, clk, 40) // 400 ms, past the 300 ms lease: the renewals fail
	b := store.NewAccounts(mem, fast("p2", nil, clk))
	defer closeAccounts(t, b)
	h2, err := b.Claim(context.Background(), "ivy", "elsewhere")
	if err != nil {
		t.Fatalf("another process's claim once the lease ran out: %v", err)
	}
	h2.Save(&store.Account{Cash: 2})
	h.Save(&store.Account{Cash: 1})
	f.SetDown(false)
	until(t, clk, "the lease found lost", h.Lost)
	step(t, clk, 5) // both writers write what they would
	if got, _ := mem.Peek("ivy"); got.Cash != 2 {
		t.Errorf("cash %d, want the new holder's 2", got.Cash)
	}
	if !strings.Contains(log.String(), "lease lost") {
		t.Errorf("the loss is not logged:\n%s", log.String())
	}
	h.Leave(&store.Account{Cash: 1})
	if _, err := a.Claim(context.Background(), "ivy", "r"); !errors.Is(err, store.ErrLeased) {
		t.Errorf("claim again from the process that lost it: %v, want ErrLeased", err)
	}
}

// TestOtherProcess: an account another process holds is refused.
func TestOtherProcess(t *testing.T) {
	mem := storetest.NewMemory()
	a := store.NewAccounts(mem, fast("p1", nil, nil))
	defer closeAccounts(t, a)
	b := store.NewAccounts(mem, fast("p2", nil, nil))
	defer closeAccounts(t, b)
	if _, err := a.Claim(context.Background(), "jo", "r"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Claim(context.Background(), "jo", "r"); !errors.Is(err, store.ErrLeased) {
		t.Errorf("a claim in another process: %v, want ErrLeased", err)
	}
}

// TestSaveAllocatesNothing: a room's post, once its buffers have grown,
// allocates nothing.
func TestSaveAllocatesNothing(t *testing.T) {
	a := store.NewAccounts(storetest.NewMemory(), store.AccountsConfig{Holder: "p1", WriteEvery: time.Hour})
	defer closeAccounts(t, a)
	h, err := a.Claim(context.Background(), "kim", "r")
	if err != nil {
		t.Fatal(err)
	}
	acc := store.Account{Cars: []store.Car{{Garage: "g", Bay: 1}, {Garage: "g", Bay: 2}},
		Items: []store.Item{{Slot: 1, Item: "phone", Count: 1}, {Slot: 2, Item: "key", Count: 3}}}
	h.Save(&acc)
	if n := testing.AllocsPerRun(100, func() { acc.Cash++; h.Save(&acc) }); n != 0 {
		t.Errorf("Save allocates %.1f times per call, want 0", n)
	}
}

// TestInvalid: an account id a store refuses is refused at once; a state
// out of the store's bounds is logged and dropped, and the others are
// written beside it.
func TestInvalid(t *testing.T) {
	clk := clocktest.New()
	mem := storetest.NewMemoryClock(clk)
	var log logBuf
	a := store.NewAccounts(mem, fast("p1", &log, clk))
	defer closeAccounts(t, a)
	if _, err := a.Claim(context.Background(), "two words", "r"); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("claim of %q: %v, want ErrInvalid", "two words", err)
	}
	if _, err := a.Claim(context.Background(), "ok", ""); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("claim for no room: %v, want ErrInvalid", err)
	}
	bad, _ := a.Claim(context.Background(), "bad", "r")
	good, _ := a.Claim(context.Background(), "good", "r")
	bad.Save(&store.Account{Cash: -5})
	good.Save(&store.Account{Cash: 5})
	until(t, clk, "the good one written", func() bool { got, _ := mem.Peek("good"); return got.Cash == 5 })
	if _, ok := mem.Peek("bad"); ok || a.Stats().Invalid != 1 || !strings.Contains(log.String(), "out of bounds") {
		t.Errorf("the bad state: written %v, stats %+v, log:\n%s", ok, a.Stats(), log.String())
	}
}

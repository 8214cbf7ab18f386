package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fiveonit/engine/store"
)

// Open opens an empty store for one test of the suite (it closes it at
// the test's end, or lets Run: Run closes it and ignores ErrClosed). It
// returns with it advance, which moves the store's lease times on by d as
// the clock that rules them would: a fake clock's Advance for a store on
// the process's clock (Memory on a clocktest.Fake), or for a store on the
// database's clock every lease's end moved d sooner. The suite runs out
// leases with it rather than wait for them.
type Open func(t *testing.T) (st store.Store, advance func(d time.Duration))

// Run runs the suite every store.Store passes, each test on a store open
// returns empty.
func Run(t *testing.T, open Open) {
	tests := []struct {
		name string
		run  func(t *testing.T, st store.Store, advance func(time.Duration))
	}{
		{"NewAccount", testNewAccount},
		{"RoundTrip", testRoundTrip},
		{"SaveReplaces", testSaveReplaces},
		{"Leases", testLeases},
		{"LeaseRunsOut", testLeaseRunsOut},
		{"Fencing", testFencing},
		{"Renew", testRenew},
		{"Invalid", testInvalid},
		{"InvalidBatchWritesNothing", testInvalidBatch},
		{"Context", testContext},
		{"Closed", testClosed},
		{"OneWinner", testOneWinner},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, advance := open(t)
			defer st.Close()
			tc.run(t, st, advance)
		})
	}
}

const lease = time.Minute

func claim(t *testing.T, st store.Store, account, holder string) store.Account {
	t.Helper()
	a, err := st.Claim(context.Background(), account, holder, lease)
	if err != nil {
		t.Fatalf("Claim(%s, %s): %v", account, holder, err)
	}
	return a
}

// save saves batch as holder h1, which holds every account a test saves.
func save(t *testing.T, st store.Store, batch ...store.Account) {
	t.Helper()
	if err := st.Save(context.Background(), "h1", batch); err != nil {
		t.Fatalf("Save: %v", err)
	}
}

// same compares the parts of two accounts a store keeps.
func same(t *testing.T, what string, got, want store.Account) {
	t.Helper()
	got.Epoch, want.Epoch = 0, 0
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %+v\nwant %+v", what, got, want)
	}
}

func testNewAccount(t *testing.T, st store.Store, _ func(time.Duration)) {
	a := claim(t, st, "alice", "h1")
	if a.ID != "alice" || a.Revision != 0 || a.Cash != 0 || a.Cars != nil || a.Items != nil || a.Epoch == 0 {
		t.Errorf("a new account: %+v, want only its ID, Revision 0 and an Epoch", a)
	}
	again := claim(t, st, "alice", "h1")
	if again.Epoch != a.Epoch {
		t.Errorf("the holder's own claim: epoch %d, want it kept (%d)", again.Epoch, a.Epoch)
	}
	if p, ok := st.(store.Pinger); ok {
		if err := p.Ping(context.Background()); err != nil {
			t.Errorf("Ping of an open store: %v", err)
		}
	}
}

func testRoundTrip(t *testing.T, st store.Store, _ func(time.Duration)) {
	a := claim(t, st, "bob@example.com", "h1")
	a.Cash = store.MaxCash
	a.Cars = []store.Car{
		{Garage: "north", Bay: 2, Model: 3, Variant: 7, Health: 65535},
		{Garage: "docks", Bay: 0, Model: 1, Variant: 0, Health: 1},
		{Garage: "north", Bay: 0, Model: 0, Variant: 255, Health: 900},
	}
	a.Items = []store.Item{{Slot: 9, Item: "crowbar", Count: 1}, {Slot: 0, Item: "key:yard-gate", Count: 4294967295}}
	save(t, st, a)
	got := claim(t, st, "bob@example.com", "h1")
	want := store.Account{ID: "bob@example.com", Cash: store.MaxCash, Revision: 1,
		Cars: []store.Car{
			{Garage: "docks", Bay: 0, Model: 1, Variant: 0, Health: 1},
			{Garage: "north", Bay: 0, Model: 0, Variant: 255, Health: 900},
			{Garage: "north", Bay: 2, Model: 3, Variant: 7, Health: 65535},
		},
		Items: []store.Item{{Slot: 0, Item: "key:yard-gate", Count: 4294967295}, {Slot: 9, Item: "crowbar", Count: 1}},
	}
	same(t, "after a save", got, want)
	if got.Epoch != a.Epoch {
		t.Errorf("epoch %d after a save, want %d", got.Epoch, a.Epoch)
	}
	// A new holder loads it as saved once the first lets go.
	if err := st.Release(context.Background(), "h1", []string{"bob@example.com"}); err != nil {
		t.Fatal(err)
	}
	other := claim(t, st, "bob@example.com", "h2")
	same(t, "claimed by another holder", other, want)
}

func testSaveReplaces(t *testing.T, st store.Store, _ func(time.Duration)) {
	a := claim(t, st, "carol", "h1")
	a.Cash = 10
	a.Cars = []store.Car{{Garage: "g", Bay: 0, Model: 1}, {Garage: "g", Bay: 1, Model: 2}}
	a.Items = []store.Item{{Slot: 1, Item: "x", Count: 2}, {Slot: 2, Item: "y", Count: 3}}
	save(t, st, a)
	a.Cash = 0
	a.Cars = a.Cars[1:]
	a.Items = nil
	save(t, st, a)
	got := claim(t, st, "carol", "h1")
	same(t, "after a second save", got, store.Account{ID: "carol", Revision: 2, Cars: []store.Car{{Garage: "g", Bay: 1, Model: 2}}})
	// A batch of many, one transaction.
	var batch []store.Account
	for i := range 20 {
		b := claim(t, st, fmt.Sprintf("batch-%02d", i), "h1")
		b.Cash = int64(i)
		batch = append(batch, b)
	}
	save(t, st, batch...)
	for i := range 20 {
		if got := claim(t, st, fmt.Sprintf("batch-%02d", i), "h1"); got.Cash != int64(i) || got.Revision != 1 {
			t.Errorf("batch-%02d: cash %d revision %d, want %d and 1", i, got.Cash, got.Revision, i)
		}
	}
}

func testLeases(t *testing.T, st store.Store, _ func(time.Duration)) {
	ctx := context.Background()
	a := claim(t, st, "dave", "h1")
	_, err := st.Claim(ctx, "dave", "h2", lease)
	if !errors.Is(err, store.ErrLeased) || !strings.Contains(err.Error(), "h1") {
		t.Fatalf("a claim while another holds it: %v, want ErrLeased naming h1", err)
	}
	// Releasing another holder's lease does nothing.
	if err := st.Release(ctx, "h2", []string{"dave"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Claim(ctx, "dave", "h2", lease); !errors.Is(err, store.ErrLeased) {
		t.Fatalf("after a release by a holder that had not the lease: %v, want ErrLeased", err)
	}
	if err := st.Release(ctx, "h1", []string{"dave", "nobody"}); err != nil {
		t.Fatal(err)
	}
	b := claim(t, st, "dave", "h2")
	if b.Epoch <= a.Epoch {
		t.Errorf("a new holder's epoch %d, want above %d", b.Epoch, a.Epoch)
	}
	// The old holder, back, is refused and cannot write.
	if _, err := st.Claim(ctx, "dave", "h1", lease); !errors.Is(err, store.ErrLeased) {
		t.Errorf("the old holder's claim: %v, want ErrLeased", err)
	}
	a.Cash = 999
	if err := st.Save(ctx, "h1", []store.Account{a}); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("the old holder's save: %v, want ErrLeaseLost", err)
	}
	if got := claim(t, st, "dave", "h2"); got.Cash != 0 {
		t.Errorf("cash %d after the old holder's save, want 0", got.Cash)
	}
}

func testLeaseRunsOut(t *testing.T, st store.Store, advance func(time.Duration)) {
	ctx := context.Background()
	short := 200 * time.Millisecond
	a, err := st.Claim(ctx, "erin", "h1", short)
	if err != nil {
		t.Fatal(err)
	}
	a.Cash = 5
	save(t, st, a)
	if _, err := st.Claim(ctx, "erin", "h2", lease); !errors.Is(err, store.ErrLeased) {
		t.Fatalf("before it runs out: %v, want ErrLeased", err)
	}
	advance(short + 100*time.Millisecond)
	// Run out, nobody took it: still h1's to write.
	a.Cash = 6
	save(t, st, a)
	b, err := st.Claim(ctx, "erin", "h2", lease)
	if err != nil {
		t.Fatalf("after it ran out: %v", err)
	}
	if b.Cash != 6 || b.Epoch <= a.Epoch {
		t.Errorf("claimed after it ran out: cash %d epoch %d, want 6 and above %d", b.Cash, b.Epoch, a.Epoch)
	}
	a.Cash = 7
	if err := st.Save(ctx, "h1", []store.Account{a}); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("the first holder's save once taken: %v, want ErrLeaseLost", err)
	}
}

// testFencing: a batch with an account whose lease is lost writes the
// others and names it.
func testFencing(t *testing.T, st store.Store, _ func(time.Duration)) {
	ctx := context.Background()
	a := claim(t, st, "fay", "h1")
	b := claim(t, st, "gus", "h1")
	if err := st.Release(ctx, "h1", []string{"gus"}); err != nil {
		t.Fatal(err)
	}
	claim(t, st, "gus", "h2")
	a.Cash, b.Cash = 11, 22
	err := st.Save(ctx, "h1", []store.Account{a, b})
	var lost *store.LostError
	if !errors.As(err, &lost) || !reflect.DeepEqual(lost.Accounts, []string{"gus"}) || !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("Save: %v, want a LostError naming gus", err)
	}
	if got := claim(t, st, "fay", "h1"); got.Cash != 11 {
		t.Errorf("fay: cash %d, want 11 (written beside the lost one)", got.Cash)
	}
	if got := claim(t, st, "gus", "h2"); got.Cash != 0 {
		t.Errorf("gus: cash %d, want 0 (not written)", got.Cash)
	}
	// A stale epoch of the same holder is lost too: h1 released and
	// claimed again.
	if err := st.Release(ctx, "h1", []string{"fay"}); err != nil {
		t.Fatal(err)
	}
	claim(t, st, "fay", "h2")
	if err := st.Release(ctx, "h2", []string{"fay"}); err != nil {
		t.Fatal(err)
	}
	fresh := claim(t, st, "fay", "h1")
	a.Cash = 33
	if err := st.Save(ctx, "h1", []store.Account{a}); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("a save with an old epoch: %v, want ErrLeaseLost", err)
	}
	fresh.Cash = 44
	save(t, st, fresh)
}

func testRenew(t *testing.T, st store.Store, advance func(time.Duration)) {
	ctx := context.Background()
	short := 300 * time.Millisecond
	for _, id := range []string{"hal", "ivy", "jo"} {
		if _, err := st.Claim(ctx, id, "h1", short); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Release(ctx, "h1", []string{"jo"}); err != nil {
		t.Fatal(err)
	}
	claim(t, st, "jo", "h2")
	lost, err := st.Renew(ctx, "h1", []string{"hal", "jo", "never"}, lease)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(slices.Sorted(slices.Values(lost)), []string{"jo", "never"}) {
		t.Errorf("lost %v, want [jo never]", lost)
	}
	advance(short + 100*time.Millisecond)
	if _, err := st.Claim(ctx, "hal", "h2", lease); !errors.Is(err, store.ErrLeased) {
		t.Errorf("hal, renewed: %v, want ErrLeased", err)
	}
	if _, err := st.Claim(ctx, "ivy", "h2", lease); err != nil {
		t.Errorf("ivy, not in the renewal, ran out: %v, want it free", err)
	}
	// Run out and not taken: still the holder's to renew.
	if _, err := st.Claim(ctx, "kim", "h1", short); err != nil {
		t.Fatal(err)
	}
	advance(short + 100*time.Millisecond)
	if lost, err := st.Renew(ctx, "h1", []string{"kim"}, lease); err != nil || len(lost) != 0 {
		t.Errorf("renewing a lease run out that nobody took: lost %v, %v", lost, err)
	}
}

func testInvalid(t *testing.T, st store.Store, _ func(time.Duration)) {
	ctx := context.Background()
	long := strings.Repeat("x", store.MaxIDLen+1)
	for _, c := range []struct {
		name            string
		account, holder string
		ttl             time.Duration
	}{
		{"empty account", "", "h1", lease},
		{"long account", long, "h1", lease},
		{"space", "a b", "h1", lease},
		{"control", "a\x00", "h1", lease},
		{"non-ASCII", "zoë", "h1", lease},
		{"empty holder", "a", "", lease},
		{"short lease", "a", "h1", time.Millisecond},
		{"long lease", "a", "h1", store.MaxLease + time.Second},
	} {
		if _, err := st.Claim(ctx, c.account, c.holder, c.ttl); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("Claim, %s: %v, want ErrInvalid", c.name, err)
		}
	}
	if _, err := st.Renew(ctx, "h1", []string{"a"}, 0); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("Renew for 0: %v, want ErrInvalid", err)
	}
	ok := claim(t, st, "lee", "h1")
	ok.Cash = 1
	for _, c := range []struct {
		name string
		set  func(a *store.Account)
	}{
		{"negative cash", func(a *store.Account) { a.Cash = -1 }},
		{"too much cash", func(a *store.Account) { a.Cash = store.MaxCash + 1 }},
		{"bad garage", func(a *store.Account) { a.Cars = []store.Car{{Garage: ""}} }},
		{"two in a bay", func(a *store.Account) { a.Cars = []store.Car{{Garage: "g", Bay: 1}, {Garage: "g", Bay: 1, Model: 2}} }},
		{"too many cars", func(a *store.Account) {
			for i := range store.MaxCars + 1 {
				a.Cars = append(a.Cars, store.Car{Garage: fmt.Sprint("g", i)})
			}
		}},
		{"bad item", func(a *store.Account) { a.Items = []store.Item{{Item: "a b", Count: 1}} }},
		{"empty stack", func(a *store.Account) { a.Items = []store.Item{{Item: "x", Count: 0}} }},
		{"two stacks in a slot", func(a *store.Account) { a.Items = []store.Item{{Item: "x", Count: 1}, {Item: "y", Count: 1}} }},
		{"twice in a batch", nil},
		{"too many items", func(a *store.Account) {
			for i := range store.MaxItems + 1 {
				a.Items = append(a.Items, store.Item{Slot: uint8(i), Item: "x", Count: 1})
			}
		}},
	} {
		batch := []store.Account{ok, ok}
		if c.set != nil {
			batch = batch[:1]
			c.set(&batch[0])
		}
		if err := st.Save(ctx, "h1", batch); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("Save, %s: %v, want ErrInvalid", c.name, err)
		}
	}
	if got := claim(t, st, "lee", "h1"); got.Revision != 0 {
		t.Errorf("after the batches refused: %+v, want it unsaved", got)
	}
}

func testInvalidBatch(t *testing.T, st store.Store, _ func(time.Duration)) {
	a := claim(t, st, "max", "h1")
	b := claim(t, st, "ned", "h1")
	a.Cash, b.Cash = 5, -5
	if err := st.Save(context.Background(), "h1", []store.Account{a, b}); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("Save: %v, want ErrInvalid", err)
	}
	if got := claim(t, st, "max", "h1"); got.Revision != 0 || got.Cash != 0 {
		t.Errorf("max after a batch refused: %+v, want it unsaved", got)
	}
}

func testContext(t *testing.T, st store.Store, _ func(time.Duration)) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := st.Claim(ctx, "oz", "h1", lease); err == nil {
		t.Error("Claim with a cancelled context: no error")
	}
	a := claim(t, st, "oz", "h1")
	a.Cash = 3
	if err := st.Save(ctx, "h1", []store.Account{a}); err == nil {
		t.Error("Save with a cancelled context: no error")
	}
	if got := claim(t, st, "oz", "h1"); got.Revision != 0 {
		t.Errorf("after a cancelled save: %+v, want it unsaved", got)
	}
}

func testClosed(t *testing.T, st store.Store, _ func(time.Duration)) {
	ctx := context.Background()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Claim(ctx, "pat", "h1", lease); !errors.Is(err, store.ErrClosed) {
		t.Errorf("Claim after Close: %v, want ErrClosed", err)
	}
	if err := st.Save(ctx, "h1", []store.Account{{ID: "pat"}}); !errors.Is(err, store.ErrClosed) {
		t.Errorf("Save after Close: %v, want ErrClosed", err)
	}
	if _, err := st.Renew(ctx, "h1", []string{"pat"}, lease); !errors.Is(err, store.ErrClosed) {
		t.Errorf("Renew after Close: %v, want ErrClosed", err)
	}
	if err := st.Release(ctx, "h1", []string{"pat"}); !errors.Is(err, store.ErrClosed) {
		t.Errorf("Release after Close: %v, want ErrClosed", err)
	}
	if p, ok := st.(store.Pinger); ok {
		if err := p.Ping(ctx); !errors.Is(err, store.ErrClosed) {
			t.Errorf("Ping after Close: %v, want ErrClosed", err)
		}
	}
}

// testOneWinner: holders racing for one account; exactly one gets it.
func testOneWinner(t *testing.T, st store.Store, _ func(time.Duration)) {
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = st.Claim(context.Background(), "quinn", fmt.Sprint("h", i), lease)
		}()
	}
	wg.Wait()
	won := 0
	for i, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, store.ErrLeased):
			t.Errorf("holder %d: %v, want nil or ErrLeased", i, err)
		}
	}
	if won != 1 {
		t.Errorf("%d holders got the lease, want 1", won)
	}
}

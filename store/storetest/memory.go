// Package storetest holds what tests of the account store share: Run, the
// suite every store.Store implementation passes; Memory, a store in memory
// whose leases run on the process's clock or a test's fake one (the
// suite's own model, and a store for the tests of the packages that use
// one); and Faulty, a store that fails or hangs on demand.
package storetest

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/fiveonit/engine/clock"
	"github.com/fiveonit/engine/store"
)

// Memory is a store.Store in memory. Its leases run on its clock: the
// process's, or a test's fake one (NewMemoryClock). The zero value is not
// ready: use NewMemory.
type Memory struct {
	clock    clock.Clock
	mu       sync.Mutex
	accounts map[string]store.Account
	leases   map[string]memLease
	closed   bool
}

type memLease struct {
	holder  string
	epoch   uint64
	expires time.Time
}

// NewMemory returns an empty store in memory, its leases on the
// process's clock.
func NewMemory() *Memory { return NewMemoryClock(clock.Real) }

// NewMemoryClock returns an empty store in memory whose leases run on c:
// a test that advances a fake clock past a lease sees it run out.
func NewMemoryClock(c clock.Clock) *Memory {
	return &Memory{clock: c, accounts: map[string]store.Account{}, leases: map[string]memLease{}}
}

func (m *Memory) check(ctx context.Context) error {
	if m.closed {
		return store.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("storetest: %w", err)
	}
	return nil
}

// Ping is store.Pinger's.
func (m *Memory) Ping(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.check(ctx)
}

// Claim is store.Store's.
func (m *Memory) Claim(ctx context.Context, account, holder string, ttl time.Duration) (store.Account, error) {
	if !store.ValidID(account) {
		return store.Account{}, fmt.Errorf("%w: account id %q", store.ErrInvalid, account)
	}
	if err := store.ValidLease(holder, ttl); err != nil {
		return store.Account{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(ctx); err != nil {
		return store.Account{}, err
	}
	now := m.clock.Now()
	l := m.leases[account]
	switch {
	case l.holder == holder:
	case l.holder != "" && now.Before(l.expires):
		return store.Account{}, fmt.Errorf("%w: held by %s until %s", store.ErrLeased, l.holder, l.expires.UTC().Format(time.RFC3339))
	default:
		l.epoch++
	}
	l.holder, l.expires = holder, now.Add(ttl)
	m.leases[account] = l
	a, ok := m.accounts[account]
	if !ok {
		a = store.Account{ID: account}
	}
	a = a.Clone()
	a.Epoch = l.epoch
	return a, nil
}

// Renew is store.Store's.
func (m *Memory) Renew(ctx context.Context, holder string, accounts []string, ttl time.Duration) ([]string, error) {
	if err := store.ValidLease(holder, ttl); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(ctx); err != nil {
		return nil, err
	}
	var lost []string
	for _, id := range accounts {
		l, ok := m.leases[id]
		if !ok || l.holder != holder {
			lost = append(lost, id)
			continue
		}
		l.expires = m.clock.Now().Add(ttl)
		m.leases[id] = l
	}
	return lost, nil
}

// Save is store.Store's.
func (m *Memory) Save(ctx context.Context, holder string, batch []store.Account) error {
	if err := store.ValidBatch(batch); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(ctx); err != nil {
		return err
	}
	var lost []string
	for i := range batch {
		a := &batch[i]
		if l := m.leases[a.ID]; l.holder != holder || l.epoch != a.Epoch {
			lost = append(lost, a.ID)
			continue
		}
		c := a.Clone()
		c.Revision = m.accounts[a.ID].Revision + 1
		c.Epoch = 0
		slices.SortFunc(c.Cars, func(x, y store.Car) int {
			return cmp.Or(cmp.Compare(x.Garage, y.Garage), cmp.Compare(x.Bay, y.Bay))
		})
		slices.SortFunc(c.Items, func(x, y store.Item) int { return cmp.Compare(x.Slot, y.Slot) })
		if len(c.Cars) == 0 {
			c.Cars = nil
		}
		if len(c.Items) == 0 {
			c.Items = nil
		}
		m.accounts[a.ID] = c
	}
	if lost != nil {
		return &store.LostError{Accounts: lost}
	}
	return nil
}

// Release is store.Store's.
func (m *Memory) Release(ctx context.Context, holder string, accounts []string) error {
	if !store.ValidID(holder) {
		return fmt.Errorf("%w: holder %q", store.ErrInvalid, holder)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(ctx); err != nil {
		return err
	}
	for _, id := range accounts {
		if l, ok := m.leases[id]; ok && l.holder == holder {
			l.holder, l.expires = "", time.Time{}
			m.leases[id] = l
		}
	}
	return nil
}

// Close is store.Store's.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return store.ErrClosed
	}
	m.closed = true
	return nil
}

// Peek returns account as last saved, and whether it was, without a claim:
// for tests.
func (m *Memory) Peek(account string) (store.Account, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a, ok := m.accounts[account]
	return a.Clone(), ok
}

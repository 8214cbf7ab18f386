package storetest

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/fiveonit/engine/store"
)

// ErrDown is what a Faulty store that is down answers.
var ErrDown = errors.New("storetest: store down")

// Faulty wraps a store.Store and makes it fail or hang on demand, as a
// database that is down or slow would: every call while Down answers
// ErrDown at once; every call while Hung waits until the store is no
// longer hung or the call's context ends. Safe for concurrent use.
type Faulty struct {
	store.Store

	mu    sync.Mutex
	down  bool
	hung  chan struct{} // closed when no longer hung; nil when not hung
	calls map[string]int
}

// NewFaulty wraps st.
func NewFaulty(st store.Store) *Faulty { return &Faulty{Store: st, calls: map[string]int{}} }

// SetDown makes every call fail with ErrDown (true) or pass (false).
func (f *Faulty) SetDown(down bool) {
	f.mu.Lock()
	f.down = down
	f.mu.Unlock()
}

// SetHung makes every call wait (true) until SetHung(false) or its
// context ends.
func (f *Faulty) SetHung(hung bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case hung && f.hung == nil:
		f.hung = make(chan struct{})
	case !hung && f.hung != nil:
		close(f.hung)
		f.hung = nil
	}
}

// Calls returns how many times method (Claim, Renew, Save, Release) was
// called.
func (f *Faulty) Calls(method string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[method]
}

func (f *Faulty) enter(ctx context.Context, method string) error {
	f.mu.Lock()
	f.calls[method]++
	down, hung := f.down, f.hung
	f.mu.Unlock()
	if hung != nil {
		select {
		case <-hung:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if down {
		return ErrDown
	}
	return nil
}

// Ping is store.Pinger's: down or hung as the other calls are, then the
// wrapped store's Ping if it has one.
func (f *Faulty) Ping(ctx context.Context) error {
	if err := f.enter(ctx, "Ping"); err != nil {
		return err
	}
	if p, ok := f.Store.(store.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

// Claim is store.Store's.
func (f *Faulty) Claim(ctx context.Context, account, holder string, ttl time.Duration) (store.Account, error) {
	if err := f.enter(ctx, "Claim"); err != nil {
		return store.Account{}, err
	}
	return f.Store.Claim(ctx, account, holder, ttl)
}

// Renew is store.Store's.
func (f *Faulty) Renew(ctx context.Context, holder string, accounts []string, ttl time.Duration) ([]string, error) {
	if err := f.enter(ctx, "Renew"); err != nil {
		return nil, err
	}
	return f.Store.Renew(ctx, holder, accounts, ttl)
}

// Save is store.Store's.
func (f *Faulty) Save(ctx context.Context, holder string, batch []store.Account) error {
	if err := f.enter(ctx, "Save"); err != nil {
		return err
	}
	return f.Store.Save(ctx, holder, batch)
}

// Release is store.Store's.
func (f *Faulty) Release(ctx context.Context, holder string, accounts []string) error {
	if err := f.enter(ctx, "Release"); err != nil {
		return err
	}
	return f.Store.Release(ctx, holder, accounts)
}

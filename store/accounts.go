package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fiveonit/engine/clock"
)

// Defaults of AccountsConfig.
const (
	// DefaultLease is how long a claim holds an account without renewal:
	// 30 s. It is how long an account stays refused elsewhere after its
	// process died without releasing it; the holder renews every third of
	// it, so a store that does not answer for less than two thirds of it
	// loses nothing.
	DefaultLease = 30 * time.Second
	// DefaultClaimTimeout bounds a claim's wait for the store: a join is
	// refused with the reason past it, rather than waiting on.
	DefaultClaimTimeout = 5 * time.Second
	// DefaultWriteEvery is how long the writer waits after a batch before
	// it writes the changes posted since, in one transaction: 10 batches
	// per second at most, so that a change waits at most this long (and
	// the write of the batch before it) for its write.
	DefaultWriteEvery = 100 * time.Millisecond
	// DefaultCallTimeout bounds each store call of the writer; a call that
	// runs out is a failure like any other, retried.
	DefaultCallTimeout = 10 * time.Second
	// MaxRetryWait is the longest the writer waits between two tries of a
	// failed write: it doubles from DefaultWriteEvery up to it.
	MaxRetryWait = 5 * time.Second
)

// Errors of Accounts. Each is wrapped with detail; test with errors.Is.
var (
	// ErrPlaying is a claim of an account this process already plays in
	// a room.
	ErrPlaying = errors.New("store: account already playing")
	// ErrTimeout is a claim the store did not answer within the claim
	// timeout.
	ErrTimeout = errors.New("store: the account store did not answer in time")
)

// AccountsConfig sets up Accounts. The zero value takes every default.
type AccountsConfig struct {
	// Holder names this process in the leases. Empty: the host name, the
	// process id and a random number, so that a restarted process is a
	// new holder.
	Holder string
	// Lease is how long a claim holds an account between renewals (0:
	// DefaultLease); it is renewed every third of it.
	Lease time.Duration
	// ClaimTimeout bounds a claim's wait for the store (0:
	// DefaultClaimTimeout).
	ClaimTimeout time.Duration
	// WriteEvery is the writer's period (0: DefaultWriteEvery): it writes
	// a batch that long after the last one ended.
	WriteEvery time.Duration
	// CallTimeout bounds each store call of the writer (0:
	// DefaultCallTimeout).
	CallTimeout time.Duration
	// Log gets the failures and the state of every account a write lost
	// (nil: slog.Default()).
	Log *slog.Logger
	// Clock is the writer's clock (nil: clock.Real): its batches, retries
	// and lease renewals wait on its timers, and the times Written tells
	// are its. A test's fake clock drives the writer step by step. The
	// claim timeout and the call timeout are contexts' deadlines, on the
	// process's clock.
	Clock clock.Clock
	// Written, if set, is called by the writer after each batch it wrote:
	// the accounts written, how long the oldest change in it waited from
	// its post to the end of the write, and how long the store's Save
	// took. It runs on the writer's goroutine: keep it short.
	Written func(accounts int, oldest, took time.Duration)
}

// AccountsStats counts what Accounts did.
type AccountsStats struct {
	Held     int    // accounts held: playing, or left with their last state not yet written
	Pending  int    // accounts with changes not yet written
	Claims   uint64 // claims that loaded an account
	Writes   uint64 // account states written
	Batches  uint64 // batches written
	Failures uint64 // store calls of the writer that failed (each retried)
	Lost     uint64 // account states dropped: their lease was lost
	Invalid  uint64 // account states dropped: out of the store's bounds (Account.Valid)
}

// Accounts plays accounts for one process over a Store: Claim loads an
// account for a join and holds its lease; the Held it returns takes the
// room's changes without waiting (a copy under a mutex); a writer
// goroutine writes the changes behind, every WriteEvery in one batch,
// renews the leases, retries what fails (logged, and kept while the
// process lives), and releases an account once its last state is written.
// Close writes every pending change. Safe for concurrent use.
type Accounts struct {
	st  Store
	cfg AccountsConfig
	log *slog.Logger

	mu     sync.Mutex
	held   map[string]*entry
	closed bool
	stats  AccountsStats

	wmu   sync.Mutex // the writer's: one batch at a time
	batch []Account  // reused by each batch
	ents  []*entry
	revs  []uint64

	clock clock.Clock
	stop  chan struct{}
	done  chan struct{}
}

// entry is an account this process holds. Its fields are under
// Accounts.mu.
type entry struct {
	id      string
	gen     uint64    // the claim playing it: Held.gen
	room    string    // the room playing it, "" once left
	loading bool      // its claim is at the store
	state   Account   // the newest state posted
	rev     uint64    // counts the posts
	written uint64    // the rev last written
	since   time.Time // when the oldest change not written was posted
	leaving bool      // left: release its lease once written
	// releasing is closed once a release under way has ended; a claim
	// waits for it.
	releasing chan struct{}
	lost      atomic.Bool
}

func (e *entry) dirty() bool { return e.rev != e.written }

// NewAccounts starts the Accounts of this process over st. Close stops it.
func NewAccounts(st Store, cfg AccountsConfig) *Accounts {
	if cfg.Holder == "" {
		cfg.Holder = DefaultHolder()
	}
	if cfg.Lease <= 0 {
		cfg.Lease = DefaultLease
	}
	if cfg.ClaimTimeout <= 0 {
		cfg.ClaimTimeout = DefaultClaimTimeout
	}
	if cfg.WriteEvery <= 0 {
		cfg.WriteEvery = DefaultWriteEvery
	}
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = DefaultCallTimeout
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	a := &Accounts{st: st, cfg: cfg, log: cfg.Log, clock: clock.Or(cfg.Clock), held: map[string]*entry{}, stop: make(chan struct{}), done: make(chan struct{})}
	// The writer's timer is armed here, not in its goroutine, so that a
	// test's fake clock has it from the start.
	t := a.clock.NewTimer(cfg.WriteEvery)
	go a.run(t, a.clock.Now().Add(cfg.Lease/3))
	return a
}

// DefaultHolder returns a holder name for this process: its host name,
// its process id and a random number.
func DefaultHolder() string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	rand.Read(b)
	h := fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b))
	if !ValidID(h) {
		h = fmt.Sprintf("pid%d/%s", os.Getpid(), hex.EncodeToString(b))
	}
	return h
}

// Holder returns the name this process holds its leases under.
func (a *Accounts) Holder() string { return a.cfg.Holder }

// Stats returns the counters.
func (a *Accounts) Stats() AccountsStats {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.stats
	s.Held = len(a.held)
	for _, e := range a.held {
		if e.dirty() {
			s.Pending++
		}
	}
	return s
}

// Held is one claim of an account: what a room plays it through. Its
// methods never wait on the store.
type Held struct {
	a      *Accounts
	e      *entry
	gen    uint64
	loaded Account
	fresh  bool
}

// Claim loads account for a join to room and holds it until the Held's
// Leave. It waits for the store at most the claim timeout, then fails with
// ErrTimeout. It fails with ErrPlaying while the account plays in a room
// of this process, with the store's ErrLeased while another process holds
// it, with ErrClosed once Close was called, with ErrInvalid for an account
// id a store refuses or an empty room. An account that left a room of
// this process and whose last state is not written yet is handed over as
// it is, without the store.
func (a *Accounts) Claim(ctx context.Context, account, room string) (*Held, error) {
	switch {
	case !ValidID(account):
		return nil, fmt.Errorf("%w: account id %q: want %s", ErrInvalid, account, maxIDText)
	case room == "":
		return nil, fmt.Errorf("%w: no room named", ErrInvalid) // "" marks an account that left
	}
	ctx, cancel := context.WithTimeout(ctx, a.cfg.ClaimTimeout)
	defer cancel()
	a.mu.Lock()
	for {
		if a.closed {
			a.mu.Unlock()
			return nil, ErrClosed
		}
		e := a.held[account]
		if e == nil {
			break
		}
		switch {
		case e.room != "":
			room := e.room
			a.mu.Unlock()
			return nil, fmt.Errorf("%w in room %s", ErrPlaying, room)
		case e.releasing != nil:
			// Its release is at the store: once it is done, claim anew.
			wait := e.releasing
			a.mu.Unlock()
			select {
			case <-wait:
			case <-ctx.Done():
				return nil, fmt.Errorf("%w: %w", ErrTimeout, ctx.Err())
			}
			a.mu.Lock()
			continue
		}
		// Left, its last state perhaps not written yet: the lease is
		// still this process's, and the newest state is here.
		e.gen++
		e.room, e.leaving = room, false
		h := &Held{a: a, e: e, gen: e.gen, loaded: e.state.Clone(), fresh: e.state.Revision == 0 && e.rev == 0}
		a.stats.Claims++
		a.mu.Unlock()
		return h, nil
	}
	e := &entry{id: account, gen: 1, room: room, loading: true}
	a.held[account] = e
	a.mu.Unlock()

	acc, err := a.st.Claim(ctx, account, a.cfg.Holder, a.cfg.Lease)
	a.mu.Lock()
	defer a.mu.Unlock()
	if err != nil {
		delete(a.held, account)
		if ctx.Err() != nil && !errors.Is(err, ErrLeased) {
			return nil, fmt.Errorf("%w: %s: %w", ErrTimeout, a.cfg.ClaimTimeout, err)
		}
		return nil, err
	}
	e.loading = false
	e.state = acc.Clone()
	a.stats.Claims++
	return &Held{a: a, e: e, gen: e.gen, loaded: acc, fresh: acc.Revision == 0}, nil
}

// Account returns the account as the claim loaded it. The caller may keep
// it; its slices are the Held's own, not to be changed.
func (h *Held) Account() Account { return h.loaded }

// New reports whether the account has no state yet: never saved, and
// nothing posted by a claim of this process. The game gives it its
// starting state (and should post it). An account handed over from a room
// of this process before its state was written is not new, whatever its
// Revision says.
func (h *Held) New() bool { return h.fresh }

// ID returns the account's id.
func (h *Held) ID() string { return h.e.id }

// Save posts the account's newest state (its ID, Revision and Epoch are
// ignored): the writer writes it within WriteEvery. It copies a under a
// mutex and returns, allocating nothing once the Held's buffers have grown
// to a's sizes. A Held that has left or lost its lease ignores it.
func (h *Held) Save(a *Account) {
	h.a.mu.Lock()
	h.post(a)
	h.a.mu.Unlock()
}

// post is Save with a.mu held.
func (h *Held) post(a *Account) {
	e := h.e
	if e.gen != h.gen || e.leaving || e.lost.Load() {
		return
	}
	id, rev, epoch := e.state.ID, e.state.Revision, e.state.Epoch
	a.copyInto(&e.state)
	e.state.ID, e.state.Revision, e.state.Epoch = id, rev, epoch
	e.rev++
	if e.since.IsZero() {
		e.since = h.a.clock.Now()
	}
}

// Leave posts the account's last state (nil: no change) and lets it go:
// once that is written, the writer releases the lease. Calls after the
// first are ignored.
func (h *Held) Leave(a *Account) {
	h.a.mu.Lock()
	defer h.a.mu.Unlock()
	e := h.e
	if e.gen != h.gen || e.leaving {
		return
	}
	if a != nil {
		h.post(a)
	}
	e.room, e.leaving = "", true
	if e.lost.Load() {
		delete(h.a.held, e.id) // not this process's any more: nothing to release
	}
}

// Lost reports whether the account's lease was lost: another process
// claimed it after it ran out (the store unreachable for longer than the
// lease). Its changes are no longer written; the room should let the
// player go.
func (h *Held) Lost() bool { return h.e.lost.Load() }

// run is the writer: a batch WriteEvery after the last one ended (on t),
// retried with a growing wait while it fails, and the leases renewed
// every third of Lease from renewAt on.
func (a *Accounts) run(t clock.Timer, renewAt time.Time) {
	defer close(a.done)
	defer t.Stop()
	var retryAt time.Time
	wait := a.cfg.WriteEvery
	for {
		select {
		case <-a.stop:
			return
		case now := <-t.C():
			if now.After(renewAt) {
				renewAt = now.Add(a.cfg.Lease / 3)
				if a.renew() != nil {
					// Again soon: the lease has two thirds of its time
					// left, and each failure is logged.
					renewAt = now.Add(min(time.Second, a.cfg.Lease/6))
				}
			}
			if !now.Before(retryAt) {
				if err := a.write(); err != nil {
					retryAt = a.clock.Now().Add(wait)
					a.log.Warn("account store: write failed, retrying", "err", err, "pending", a.Stats().Pending, "retry_in", wait)
					wait = min(wait*2, MaxRetryWait)
				} else {
					retryAt, wait = time.Time{}, a.cfg.WriteEvery
				}
			}
			t.Reset(a.cfg.WriteEvery)
		}
	}
}

// write writes every change posted, then releases the accounts left whose
// last state is written. It returns the store's error, with everything not
// written still pending.
func (a *Accounts) write() error {
	a.wmu.Lock()
	defer a.wmu.Unlock()
	a.mu.Lock()
	a.ents, a.revs = a.ents[:0], a.revs[:0]
	var oldest time.Time
	n := 0
	for _, e := range a.held {
		if !e.dirty() || e.lost.Load() {
			continue
		}
		if n == len(a.batch) {
			a.batch = append(a.batch, Account{})
		}
		e.state.copyInto(&a.batch[n])
		if err := a.batch[n].Valid(); err != nil {
			// The game's bug, not the store's: no retry would write it.
			a.stats.Invalid++
			a.log.Error("account store: state out of bounds; not written", "err", err, "account", e.id)
			e.written, e.since = e.rev, time.Time{}
			continue
		}
		n++
		a.ents = append(a.ents, e)
		a.revs = append(a.revs, e.rev)
		if oldest.IsZero() || e.since.Before(oldest) {
			oldest = e.since
		}
	}
	copied := a.clock.Now()
	a.mu.Unlock()
	if n > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), a.cfg.CallTimeout)
		start := a.clock.Now()
		err := a.st.Save(ctx, a.cfg.Holder, a.batch[:n])
		took := a.clock.Now().Sub(start)
		cancel()
		var lost *LostError
		if err != nil && !errors.As(err, &lost) {
			a.mu.Lock()
			a.stats.Failures++
			a.mu.Unlock()
			return fmt.Errorf("save %d accounts: %w", n, err)
		}
		a.mu.Lock()
		for i, e := range a.ents {
			if lost != nil && slices.Contains(lost.Accounts, e.id) {
				a.dropLost(e)
				continue
			}
			a.stats.Writes++
			e.state.Revision++ // as the store counts its saves
			e.written = max(e.written, a.revs[i])
			e.since = time.Time{}
			if e.dirty() {
				e.since = copied // posted again since the copy: no earlier than it
			}
		}
		a.stats.Batches++
		a.mu.Unlock()
		if a.cfg.Written != nil {
			a.cfg.Written(n, a.clock.Now().Sub(oldest), took)
		}
	}
	return a.release()
}

// dropLost marks e's lease lost and logs the state it drops. a.mu is held.
func (a *Accounts) dropLost(e *entry) {
	if !e.lost.Swap(true) {
		a.stats.Lost++
		a.log.Error("account store: lease lost to another server; this state is not written",
			"account", e.id, "room", e.room, "cash", e.state.Cash, "cars", len(e.state.Cars), "items", len(e.state.Items))
	}
	e.written = e.rev
	e.since = time.Time{}
	if e.leaving {
		delete(a.held, e.id)
	}
}

// release releases the leases of the accounts left whose last state is
// written, and forgets them.
func (a *Accounts) release() error {
	a.mu.Lock()
	var ids []string
	var ents []*entry
	done := make(chan struct{})
	for _, e := range a.held {
		if e.leaving && !e.loading && !e.dirty() && e.releasing == nil && !e.lost.Load() {
			e.releasing = done
			ids = append(ids, e.id)
			ents = append(ents, e)
		}
	}
	a.mu.Unlock()
	if len(ids) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), a.cfg.CallTimeout)
	err := a.st.Release(ctx, a.cfg.Holder, ids)
	cancel()
	a.mu.Lock()
	for _, e := range ents {
		e.releasing = nil
		if err == nil {
			delete(a.held, e.id)
		}
	}
	if err != nil {
		a.stats.Failures++
	}
	a.mu.Unlock()
	close(done)
	if err != nil {
		return fmt.Errorf("release %d accounts: %w", len(ids), err)
	}
	return nil
}

// renew renews the leases of every account held (but those being
// loaded: their claim is at the store) and drops those lost.
func (a *Accounts) renew() error {
	a.mu.Lock()
	ids := make([]string, 0, len(a.held))
	for _, e := range a.held {
		if !e.loading && !e.lost.Load() {
			ids = append(ids, e.id)
		}
	}
	a.mu.Unlock()
	if len(ids) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), a.cfg.CallTimeout)
	lost, err := a.st.Renew(ctx, a.cfg.Holder, ids, a.cfg.Lease)
	cancel()
	a.mu.Lock()
	defer a.mu.Unlock()
	if err != nil {
		a.stats.Failures++
		a.log.Warn("account store: lease renewal failed, retrying", "err", err, "accounts", len(ids))
		return err
	}
	for _, id := range lost {
		if e := a.held[id]; e != nil {
			a.dropLost(e)
		}
	}
	return nil
}

// Flush writes every change posted before it, and releases the accounts
// left, retrying until it succeeds or ctx ends. It returns ctx's error, with
// the store's last, if changes are still pending then.
func (a *Accounts) Flush(ctx context.Context) error {
	wait := a.cfg.WriteEvery
	var t clock.Timer
	defer func() {
		if t != nil {
			t.Stop()
		}
	}()
	for {
		err := a.write()
		if err == nil {
			return nil
		}
		a.log.Warn("account store: write failed, retrying", "err", err, "retry_in", wait)
		if t == nil {
			t = a.clock.NewTimer(wait)
		} else {
			t.Reset(wait)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %w)", ctx.Err(), err)
		case <-t.C():
		}
		wait = min(wait*2, MaxRetryWait)
	}
}

// Close refuses new claims, writes every pending change (retrying until
// ctx ends), and releases every lease this process holds: the players'
// rooms must have left their accounts first (a room closing leaves them).
// A state it could not write is logged, whole, at error level, and Close
// returns an error naming how many. It does not close the Store.
func (a *Accounts) Close(ctx context.Context) error {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return ErrClosed
	}
	a.closed = true
	for _, e := range a.held {
		e.room, e.leaving = "", true // a room still playing it loses its changes from here
	}
	a.mu.Unlock()
	close(a.stop)
	<-a.done
	err := a.Flush(ctx)
	if err == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, e := range a.held {
		if e.dirty() {
			n++
			a.log.Error("account store: state not written before shutdown", "account", e.id, "cash", e.state.Cash,
				"cars", fmt.Sprint(e.state.Cars), "items", fmt.Sprint(e.state.Items))
		}
	}
	if n == 0 {
		return fmt.Errorf("account store: leases not released (they run out within %s): %w", a.cfg.Lease, err)
	}
	return fmt.Errorf("account store: %d accounts not written: %w", n, err)
}

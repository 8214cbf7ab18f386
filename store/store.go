// Package store keeps what an account owns across rooms and restarts: its
// Cash, the cars in its garages and the items the game says persist. A Store
// is the database behind it (package store/sqlite, an embedded file, by
// default; package store/postgres for a fleet of servers); Accounts is what
// a server process plays it through: it claims an account for a join,
// takes the room's changes without blocking, and writes them behind, off
// the room goroutine, retrying what fails.
//
// # One account, one room
//
// An account plays in one room at a time, so that its Cash and cars cannot
// be spent twice. Two guards make it so. Within a process, Accounts refuses
// a second claim of an account it holds (ErrPlaying). Across processes,
// each claim takes the account's lease in the store: a lease names its
// holder (one per process) and lasts a TTL, renewed by the holder while it
// plays the account and given up once its last state is written. A claim
// while another holder's lease runs is refused (ErrLeased). A process that
// dies leaves its leases to run out. Every claim by a new holder bumps the
// lease's epoch, and a save writes an account only while its lease is
// still the holder's with the epoch its claim saw: a process that lost its
// lease (the store unreachable past the TTL, and the account claimed
// elsewhere) cannot write a stale state over the new one.
package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Store is a database of accounts and their leases. Implementations:
// package store/sqlite and package store/postgres; package
// store/storetest holds the suite every implementation passes.
//
// Every method is safe for concurrent use, honours ctx (an expired ctx
// returns its error, wrapped, and leaves the store as it was or as the
// whole call would have left it: never half a save), and after Close
// returns ErrClosed. A store's clock decides when a lease runs out: the
// database's for a shared database, so that the holders' clocks do not
// matter.
type Store interface {
	// Claim takes account's lease for holder until ttl from now and
	// returns the account as last saved: its Cars ordered by Garage then
	// Bay, its Items by Slot, nil slices for none. A new account (never saved)
	// comes back with only its ID, Revision 0 and the lease's Epoch: the
	// game gives it its starting state. The lease is free when it has no
	// holder or has run out; holder's own lease is renewed and keeps its
	// epoch; a free one taken by a new holder gets the next epoch. A lease
	// that another holder holds is refused with an error that wraps
	// ErrLeased and names the holder and when it runs out. account and
	// holder must be valid (ValidID): else ErrInvalid, wrapped.
	Claim(ctx context.Context, account, holder string, ttl time.Duration) (Account, error)

	// Renew extends holder's leases of accounts until ttl from now, and
	// returns the accounts of the list whose lease holder no longer holds
	// (released, or taken by another holder once it had run out), which it
	// leaves alone. A lease past its time that nobody took is still
	// holder's, and renewed. An account not in the list is not renewed,
	// even if holder holds it: a claim the caller gave up on runs out.
	Renew(ctx context.Context, holder string, accounts []string, ttl time.Duration) (lost []string, err error)

	// Save writes each account of batch whole (its Cash, and its Cars and
	// Items replacing those saved before), bumping its Revision, in one
	// transaction: after an error other than a *LostError nothing of the
	// batch was written. An account is written only while its lease is
	// holder's with the account's Epoch (a lease past its time that
	// nobody took still is); the others are left out, and Save writes the
	// rest and returns a *LostError naming them (errors.Is(err,
	// ErrLeaseLost)). Save does not renew the leases. A batch that breaks
	// the bounds (ValidBatch: an account twice, or one that breaks
	// Account.Valid) fails whole with ErrInvalid, wrapped. Save does not
	// keep batch.
	Save(ctx context.Context, holder string, batch []Account) error

	// Release gives up holder's leases of accounts, keeping their epochs;
	// a lease holder does not hold is left alone. Releasing is how a
	// holder says it has written an account's last state: the next claim
	// may load it at once.
	Release(ctx context.Context, holder string, accounts []string) error

	// Close closes the database. Calls after it return ErrClosed.
	Close() error
}

// Pinger is a Store that says whether its database answers: a server's
// readiness asks it (package serve's /readyz). Ping returns nil when the
// database answered within ctx, ErrClosed after Close, else the reason.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Account is what one account keeps.
type Account struct {
	// ID is the account's id: the join token's account.
	ID string
	// Cash is the money the account's player holds.
	Cash int64
	// Cars are the cars kept in its garages, at most one per bay.
	Cars []Car
	// Items are the items it carries that the game says persist, one
	// entry per inventory slot that holds one. Cash is never among them:
	// it is Cash above.
	Items []Item
	// Revision counts the account's saves: 0 for an account never saved
	// (a new one). Save ignores the value it is given.
	Revision uint64
	// Epoch is the fencing number of the lease the account was claimed
	// with (Claim sets it): Save writes the account only while its lease
	// still has it.
	Epoch uint64
}

// Car is a car kept in a garage's bay.
type Car struct {
	Garage string // the garage's id in the level
	Bay    uint8  // its bay in the garage
	Model  uint8  // the physics car model
	// Variant is the car's colour or livery, as the game numbers them.
	Variant uint8
	// Health is what was left of it when it was kept.
	Health uint16
}

// Item is a stack of one item in an inventory slot.
type Item struct {
	Slot uint8 // the inventory slot
	// Item is the item's name in the game's catalog (catalog.Item.Name,
	// "pistol"), not its number: the numbers differ between games and
	// change when a catalog does.
	Item  string
	Count uint32 // how many, at least 1
}

// Bounds on what a store takes. They are far above what a game keeps and
// hold a bad caller to a size the database handles in one statement.
const (
	MaxIDLen  = 128 // bytes of an account, a holder, a garage or an item id
	MaxCars   = 64  // cars per account
	MaxItems  = 256 // item stacks per account
	MaxCash   = 1 << 50
	MinLease  = 10 * time.Millisecond // the shortest lease a store takes
	MaxLease  = 24 * time.Hour        // the longest
	maxIDText = "1 to 128 bytes of printable ASCII, no spaces"
)

// Errors of the stores. Each is wrapped with detail; test with errors.Is.
var (
	// ErrLeased is a claim of an account another holder holds.
	ErrLeased = errors.New("store: account in play on another server")
	// ErrLeaseLost is a save or renewal of an account whose lease the
	// holder no longer has (see LostError).
	ErrLeaseLost = errors.New("store: account's lease lost")
	// ErrInvalid is an id, an account or a lease time out of bounds.
	ErrInvalid = errors.New("store: invalid")
	// ErrClosed is a call to a closed store or Accounts.
	ErrClosed = errors.New("store: closed")
	// ErrSchemaNewer is a database whose schema a newer server wrote: this
	// one does not know it and will not touch it.
	ErrSchemaNewer = errors.New("store: the database's schema is newer than this server's")
)

// LostError is Save's error for the accounts of a batch it did not write,
// their leases lost. errors.Is(err, ErrLeaseLost) holds.
type LostError struct {
	Accounts []string
}

func (e *LostError) Error() string {
	return fmt.Sprintf("%v: %s", ErrLeaseLost, strings.Join(e.Accounts, ", "))
}

// Unwrap returns ErrLeaseLost.
func (e *LostError) Unwrap() error { return ErrLeaseLost }

// ValidID reports whether s is a valid account, holder, garage or item id:
// 1 to MaxIDLen bytes of printable ASCII without spaces.
func ValidID(s string) bool {
	if len(s) == 0 || len(s) > MaxIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// Valid returns nil, or why a store would refuse to save a (ErrInvalid,
// wrapped): a bad id, Cash out of 0..MaxCash, too many cars or items, two
// cars in one bay, two stacks in one slot, a stack of none.
func (a *Account) Valid() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: account %q: %s", ErrInvalid, a.ID, fmt.Sprintf(format, args...))
	}
	switch {
	case !ValidID(a.ID):
		return fmt.Errorf("%w: account id %q: want %s", ErrInvalid, a.ID, maxIDText)
	case a.Cash < 0 || a.Cash > MaxCash:
		return bad("cash %d out of 0..%d", a.Cash, int64(MaxCash))
	case len(a.Cars) > MaxCars:
		return bad("%d cars, at most %d", len(a.Cars), MaxCars)
	case len(a.Items) > MaxItems:
		return bad("%d item stacks, at most %d", len(a.Items), MaxItems)
	}
	for i, c := range a.Cars {
		if !ValidID(c.Garage) {
			return bad("car %d: garage id %q: want %s", i, c.Garage, maxIDText)
		}
		for _, d := range a.Cars[:i] {
			if d.Garage == c.Garage && d.Bay == c.Bay {
				return bad("two cars in bay %d of garage %s", c.Bay, c.Garage)
			}
		}
	}
	for i, it := range a.Items {
		switch {
		case !ValidID(it.Item):
			return bad("slot %d: item id %q: want %s", it.Slot, it.Item, maxIDText)
		case it.Count == 0:
			return bad("slot %d: a stack of no %s", it.Slot, it.Item)
		}
		for _, d := range a.Items[:i] {
			if d.Slot == it.Slot {
				return bad("two stacks in slot %d", it.Slot)
			}
		}
	}
	return nil
}

// ValidBatch returns nil, or why a store would refuse to save batch
// (ErrInvalid, wrapped): an account in it twice, or one that breaks
// Account.Valid.
func ValidBatch(batch []Account) error {
	for i := range batch {
		if err := batch[i].Valid(); err != nil {
			return err
		}
		for j := range batch[:i] {
			if batch[j].ID == batch[i].ID {
				return fmt.Errorf("%w: account %q twice in one batch", ErrInvalid, batch[i].ID)
			}
		}
	}
	return nil
}

// ValidLease returns nil, or why a store refuses a claim or renewal for
// holder and ttl (ErrInvalid, wrapped).
func ValidLease(holder string, ttl time.Duration) error {
	switch {
	case !ValidID(holder):
		return fmt.Errorf("%w: holder %q: want %s", ErrInvalid, holder, maxIDText)
	case ttl < MinLease || ttl > MaxLease:
		return fmt.Errorf("%w: lease of %s, want %s to %s", ErrInvalid, ttl, MinLease, MaxLease)
	}
	return nil
}

// ValidClaim returns nil, or why a store refuses account's claim by holder
// for ttl (ErrInvalid, wrapped): every implementation checks it first.
func ValidClaim(account, holder string, ttl time.Duration) error {
	if !ValidID(account) {
		return fmt.Errorf("%w: account id %q", ErrInvalid, account)
	}
	return ValidLease(holder, ttl)
}

// ValidHolder returns nil, or why a store refuses holder as a lease's
// holder (ErrInvalid, wrapped).
func ValidHolder(holder string) error {
	if !ValidID(holder) {
		return fmt.Errorf("%w: holder %q", ErrInvalid, holder)
	}
	return nil
}

// Clone returns a copy of a that shares no slice with it.
func (a *Account) Clone() Account {
	c := *a
	c.Cars = append([]Car(nil), a.Cars...)
	c.Items = append([]Item(nil), a.Items...)
	return c
}

// copyInto copies a into dst, reusing dst's slices: once they have grown
// to a's sizes it allocates nothing.
func (a *Account) copyInto(dst *Account) {
	cars, items := dst.Cars[:0], dst.Items[:0]
	*dst = *a
	dst.Cars = append(cars, a.Cars...)
	dst.Items = append(items, a.Items...)
}

// Package sqlite is the account store in an embedded SQLite file
// (modernc.org/sqlite: pure Go, no C library): the server's default, with
// nothing to install. One server process uses a file at a time: Open locks
// it, and a second Open, from this process or another, fails with ErrInUse.
// So the leases in the file at Open belong to a process that has stopped,
// and Open frees them: after a crash its players join again at once.
// Lease times are the process's clock.
//
// The file is in WAL mode with synchronous=FULL: a save is on the disk when
// Save returns, so neither a killed process nor a power cut loses it.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/fiveonit/engine/store"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// ErrInUse is an Open of a file another Store has open.
var ErrInUse = errors.New("store/sqlite: the database is in use by another server process")

// Store is a store.Store in one SQLite file.
type Store struct {
	db     *sql.DB
	unlock func()
	closed atomic.Bool
	now    func() time.Time
}

var _ store.Store = (*Store)(nil)

// Open opens the SQLite file at path, making it if need be, and brings its
// schema up to date (Migrations). It fails with ErrInUse while another
// Store has it open, and with store.ErrSchemaNewer for a file a newer
// server wrote.
func Open(ctx context.Context, path string) (*Store, error) {
	if strings.ContainsAny(path, "?#") || path == "" {
		return nil, fmt.Errorf("store/sqlite: path %q: want a file name without ? or #", path)
	}
	unlock, err := lock(path + ".lock")
	if err != nil {
		return nil, err
	}
	dsn := "file:" + path + "?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=foreign_keys(1)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		unlock()
		return nil, fmt.Errorf("store/sqlite: %w", err)
	}
	// One connection: the calls take turns in Go rather than meet
	// SQLITE_BUSY, and a batch is one transaction of a few milliseconds.
	db.SetMaxOpenConns(1)
	db.SetConnMaxIdleTime(0)
	s := &Store{db: db, unlock: unlock, now: time.Now}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		unlock()
		return nil, err
	}
	// Every lease in the file is a stopped process's: Open holds the lock.
	if _, err := db.ExecContext(ctx, `UPDATE leases SET holder = '', expires_ms = 0 WHERE holder <> ''`); err != nil {
		db.Close()
		unlock()
		return nil, fmt.Errorf("store/sqlite: free the leases: %w", err)
	}
	return s, nil
}

// Migration is one step of the schema. Each runs once, in order, in a
// transaction with its version recorded in schema_migrations.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Migrations are the schema's steps, oldest first. A step is never
// changed once released: a change is a new step.
var Migrations = []Migration{
	{1, "accounts and leases", `
CREATE TABLE accounts (
	id         TEXT PRIMARY KEY,
	cash       INTEGER NOT NULL,
	revision   INTEGER NOT NULL,
	updated_ms INTEGER NOT NULL
) STRICT;
CREATE TABLE leases (
	account    TEXT PRIMARY KEY,
	holder     TEXT NOT NULL,
	epoch      INTEGER NOT NULL,
	expires_ms INTEGER NOT NULL
) STRICT;`},
	{2, "cars and items", `
CREATE TABLE cars (
	account TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	garage  TEXT NOT NULL,
	bay     INTEGER NOT NULL,
	model   INTEGER NOT NULL,
	variant INTEGER NOT NULL,
	health  INTEGER NOT NULL,
	PRIMARY KEY (account, garage, bay)
) STRICT;
CREATE TABLE items (
	account TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	slot    INTEGER NOT NULL,
	item    TEXT NOT NULL,
	count   INTEGER NOT NULL,
	PRIMARY KEY (account, slot)
) STRICT;`},
}

// migrate applies the steps the file lacks.
func (s *Store) migrate(ctx context.Context) error {
	return MigrateTo(ctx, s.db, len(Migrations))
}

// MigrateTo brings db's schema to version (at most len(Migrations)): for
// the tests of an upgrade, and Open.
func MigrateTo(ctx context.Context, db *sql.DB, version int) error {
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
	version    INTEGER PRIMARY KEY,
	name       TEXT NOT NULL,
	applied_ms INTEGER NOT NULL
) STRICT`); err != nil {
		return fmt.Errorf("store/sqlite: migrations table: %w", err)
	}
	for _, m := range Migrations[:version] {
		if err := apply(ctx, db, m); err != nil {
			return err
		}
	}
	var have int
	if err := db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&have); err != nil {
		return fmt.Errorf("store/sqlite: schema version: %w", err)
	}
	if have > len(Migrations) {
		return fmt.Errorf("%w: version %d, this server knows up to %d", store.ErrSchemaNewer, have, len(Migrations))
	}
	return nil
}

// apply runs m unless the file has it.
func apply(ctx context.Context, db *sql.DB, m Migration) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store/sqlite: migration %d: %w", m.Version, err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE version = ?`, m.Version).Scan(&n); err != nil {
		return fmt.Errorf("store/sqlite: migration %d: %w", m.Version, err)
	}
	if n > 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
		return fmt.Errorf("store/sqlite: migration %d (%s): %w", m.Version, m.Name, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_ms) VALUES (?, ?, ?)`,
		m.Version, m.Name, time.Now().UnixMilli()); err != nil {
		return fmt.Errorf("store/sqlite: migration %d: %w", m.Version, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store/sqlite: migration %d: %w", m.Version, err)
	}
	return nil
}

// DB returns the database, for tests and tools that read it.
func (s *Store) DB() *sql.DB { return s.db }

func (s *Store) begin(ctx context.Context) (*sql.Tx, error) {
	if s.closed.Load() {
		return nil, store.ErrClosed
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		if s.closed.Load() {
			return nil, store.ErrClosed
		}
		return nil, fmt.Errorf("store/sqlite: %w", err)
	}
	return tx, nil
}

func wrap(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("store/sqlite: %w", err)
}

// Claim is store.Store's.
func (s *Store) Claim(ctx context.Context, account, holder string, ttl time.Duration) (store.Account, error) {
	a := store.Account{ID: account}
	if err := store.ValidClaim(account, holder, ttl); err != nil {
		return a, err
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return a, err
	}
	defer tx.Rollback()
	now := s.now().UnixMilli()
	var cur string
	var epoch, expires int64
	switch err := tx.QueryRowContext(ctx, `SELECT holder, epoch, expires_ms FROM leases WHERE account = ?`, account).Scan(&cur, &epoch, &expires); {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return a, wrap(err)
	}
	switch {
	case cur == holder:
	case cur != "" && now < expires:
		return a, fmt.Errorf("%w: held by %s until %s", store.ErrLeased, cur, time.UnixMilli(expires).UTC().Format(time.RFC3339))
	default:
		epoch++
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO leases (account, holder, epoch, expires_ms) VALUES (?, ?, ?, ?)
ON CONFLICT (account) DO UPDATE SET holder = excluded.holder, epoch = excluded.epoch, expires_ms = excluded.expires_ms`,
		account, holder, epoch, now+ttl.Milliseconds()); err != nil {
		return a, wrap(err)
	}
	a.Epoch = uint64(epoch)
	if err := load(ctx, tx, &a); err != nil {
		return a, err
	}
	return a, wrap(tx.Commit())
}

// load reads a's saved state into a.
func load(ctx context.Context, tx *sql.Tx, a *store.Account) error {
	switch err := tx.QueryRowContext(ctx, `SELECT cash, revision FROM accounts WHERE id = ?`, a.ID).Scan(&a.Cash, &a.Revision); {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return wrap(err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT garage, bay, model, variant, health FROM cars WHERE account = ? ORDER BY garage, bay`, a.ID)
	if err != nil {
		return wrap(err)
	}
	for rows.Next() {
		var c store.Car
		if err := rows.Scan(&c.Garage, &c.Bay, &c.Model, &c.Variant, &c.Health); err != nil {
			rows.Close()
			return wrap(err)
		}
		a.Cars = append(a.Cars, c)
	}
	if err := rows.Close(); err != nil {
		return wrap(err)
	}
	rows, err = tx.QueryContext(ctx, `SELECT slot, item, count FROM items WHERE account = ? ORDER BY slot`, a.ID)
	if err != nil {
		return wrap(err)
	}
	defer rows.Close()
	for rows.Next() {
		var it store.Item
		if err := rows.Scan(&it.Slot, &it.Item, &it.Count); err != nil {
			return wrap(err)
		}
		a.Items = append(a.Items, it)
	}
	return wrap(rows.Err())
}

// Renew is store.Store's.
func (s *Store) Renew(ctx context.Context, holder string, accounts []string, ttl time.Duration) ([]string, error) {
	if err := store.ValidLease(holder, ttl); err != nil {
		return nil, err
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, `UPDATE leases SET expires_ms = ? WHERE account = ? AND holder = ?`)
	if err != nil {
		return nil, wrap(err)
	}
	until := s.now().UnixMilli() + ttl.Milliseconds()
	var lost []string
	for _, id := range accounts {
		r, err := st.ExecContext(ctx, until, id, holder)
		if err != nil {
			return nil, wrap(err)
		}
		if n, _ := r.RowsAffected(); n == 0 {
			lost = append(lost, id)
		}
	}
	return lost, wrap(tx.Commit())
}

// Save is store.Store's.
func (s *Store) Save(ctx context.Context, holder string, batch []store.Account) error {
	if err := store.ValidHolder(holder); err != nil {
		return err
	}
	if err := store.ValidBatch(batch); err != nil {
		return err
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var stmts [6]*sql.Stmt
	for i, q := range [...]string{
		`SELECT COUNT(*) FROM leases WHERE account = ? AND holder = ? AND epoch = ?`,
		`INSERT INTO accounts (id, cash, revision, updated_ms) VALUES (?, ?, 1, ?)
ON CONFLICT (id) DO UPDATE SET cash = excluded.cash, revision = accounts.revision + 1, updated_ms = excluded.updated_ms`,
		`DELETE FROM cars WHERE account = ?`,
		`INSERT INTO cars (account, garage, bay, model, variant, health) VALUES (?, ?, ?, ?, ?, ?)`,
		`DELETE FROM items WHERE account = ?`,
		`INSERT INTO items (account, slot, item, count) VALUES (?, ?, ?, ?)`,
	} {
		if stmts[i], err = tx.PrepareContext(ctx, q); err != nil {
			return wrap(err)
		}
	}
	held, upsert, delCars, addCar, delItems, addItem := stmts[0], stmts[1], stmts[2], stmts[3], stmts[4], stmts[5]
	now := s.now().UnixMilli()
	var lost []string
	for i := range batch {
		a := &batch[i]
		var n int
		if err := held.QueryRowContext(ctx, a.ID, holder, int64(a.Epoch)).Scan(&n); err != nil {
			return wrap(err)
		}
		if n == 0 {
			lost = append(lost, a.ID)
			continue
		}
		if _, err := upsert.ExecContext(ctx, a.ID, a.Cash, now); err != nil {
			return wrap(err)
		}
		if _, err := delCars.ExecContext(ctx, a.ID); err != nil {
			return wrap(err)
		}
		for _, c := range a.Cars {
			if _, err := addCar.ExecContext(ctx, a.ID, c.Garage, c.Bay, c.Model, c.Variant, c.Health); err != nil {
				return wrap(err)
			}
		}
		if _, err := delItems.ExecContext(ctx, a.ID); err != nil {
			return wrap(err)
		}
		for _, it := range a.Items {
			if _, err := addItem.ExecContext(ctx, a.ID, it.Slot, it.Item, it.Count); err != nil {
				return wrap(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return wrap(err)
	}
	if lost != nil {
		return &store.LostError{Accounts: lost}
	}
	return nil
}

// Release is store.Store's.
func (s *Store) Release(ctx context.Context, holder string, accounts []string) error {
	if err := store.ValidHolder(holder); err != nil {
		return err
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, `UPDATE leases SET holder = '', expires_ms = 0 WHERE account = ? AND holder = ?`)
	if err != nil {
		return wrap(err)
	}
	for _, id := range accounts {
		if _, err := st.ExecContext(ctx, id, holder); err != nil {
			return wrap(err)
		}
	}
	return wrap(tx.Commit())
}

// Ping is store.Pinger's: the file answers a query.
func (s *Store) Ping(ctx context.Context) error {
	if s.closed.Load() {
		return store.ErrClosed
	}
	return wrap(s.db.PingContext(ctx))
}

var _ store.Pinger = (*Store)(nil)

// Close is store.Store's: it closes the file and lets go of its lock.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return store.ErrClosed
	}
	err := s.db.Close()
	s.unlock()
	return wrap(err)
}

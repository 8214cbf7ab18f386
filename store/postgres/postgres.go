// Package postgres is the account store in PostgreSQL (jackc/pgx/v5), for
// a fleet of servers sharing their accounts: every server process opens the
// same database, and the leases keep each account in one room of one
// process at a time. Lease times are the database's clock, so the servers'
// clocks do not matter.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fiveonit/engine/store"
)

// Store is a store.Store in a PostgreSQL database.
type Store struct {
	pool   *pgxpool.Pool
	closed atomic.Bool
}

var _ store.Store = (*Store)(nil)

// Open connects to the database at url (a postgres:// URL or a keyword
// string: pgx's formats) and brings its schema up to date (Migrations).
// Servers may open one database at once: the migration takes an advisory
// lock. It fails with store.ErrSchemaNewer for a database a newer server
// migrated.
func Open(ctx context.Context, url string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("store/postgres: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store/postgres: %w", err)
	}
	s := &Store{pool: pool}
	if err := MigrateTo(ctx, pool, len(Migrations)); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

// Migration is one step of the schema. Each runs once, in order; a step is
// never changed once released: a change is a new step.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Migrations are the schema's steps, oldest first: the same tables as the
// SQLite store's, in PostgreSQL's types, and the fleet's room directory.
var Migrations = []Migration{
	{1, "accounts and leases", `
CREATE TABLE accounts (
	id         TEXT PRIMARY KEY,
	cash       BIGINT NOT NULL,
	revision   BIGINT NOT NULL,
	updated_at TIMESTAMPTZ NOT NULL
);
CREATE TABLE leases (
	account    TEXT PRIMARY KEY,
	holder     TEXT NOT NULL,
	epoch      BIGINT NOT NULL,
	expires_at TIMESTAMPTZ NOT NULL
);`},
	{2, "cars and items", `
CREATE TABLE cars (
	account TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	garage  TEXT NOT NULL,
	bay     SMALLINT NOT NULL,
	model   SMALLINT NOT NULL,
	variant SMALLINT NOT NULL,
	health  INTEGER NOT NULL,
	PRIMARY KEY (account, garage, bay)
);
CREATE TABLE items (
	account TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	slot    SMALLINT NOT NULL,
	item    TEXT NOT NULL,
	count   BIGINT NOT NULL,
	PRIMARY KEY (account, slot)
);`},
	// The fleet's room directory (package fleet/directory): each live
	// process and its heartbeat, and each room with the process that
	// holds it. A room name is the table's key: two processes making
	// one name at once, one insert wins.
	{3, "room directory", `
CREATE TABLE fleet_servers (
	id         TEXT PRIMARY KEY,
	addr       TEXT NOT NULL,
	expires_at TIMESTAMPTZ NOT NULL
);
CREATE TABLE fleet_rooms (
	name     TEXT PRIMARY KEY,
	server   TEXT NOT NULL REFERENCES fleet_servers(id) ON DELETE CASCADE,
	claim    BIGINT NOT NULL,
	level    TEXT NOT NULL,
	game     TEXT NOT NULL,
	players  INTEGER NOT NULL,
	capacity INTEGER NOT NULL
);
CREATE INDEX fleet_rooms_server ON fleet_rooms (server);`},
}

// migrationLock is the advisory lock the migrations take, so that servers
// starting together migrate one after the other.
const migrationLock = 0x666f692d73746f72 // "foi-stor"

// MigrateTo brings the schema to version (at most len(Migrations)), in one
// transaction: for the tests of an upgrade, and Open.
func MigrateTo(ctx context.Context, pool *pgxpool.Pool, version int) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("store/postgres: migrate: %w", err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrationLock)); err != nil {
		return fmt.Errorf("store/postgres: migrate: %w", err)
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
	version    INTEGER PRIMARY KEY,
	name       TEXT NOT NULL,
	applied_at TIMESTAMPTZ NOT NULL
)`); err != nil {
		return fmt.Errorf("store/postgres: migrations table: %w", err)
	}
	var have int
	if err := tx.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&have); err != nil {
		return fmt.Errorf("store/postgres: schema version: %w", err)
	}
	if have > len(Migrations) {
		return fmt.Errorf("%w: version %d, this server knows up to %d", store.ErrSchemaNewer, have, len(Migrations))
	}
	for _, m := range Migrations[have:version] {
		if _, err := tx.Exec(ctx, m.SQL); err != nil {
			return fmt.Errorf("store/postgres: migration %d (%s): %w", m.Version, m.Name, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, now())`, m.Version, m.Name); err != nil {
			return fmt.Errorf("store/postgres: migration %d: %w", m.Version, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("store/postgres: migrate: %w", err)
	}
	return nil
}

// Pool returns the connection pool, for tests and tools that read the
// database.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

func (s *Store) begin(ctx context.Context) (pgx.Tx, error) {
	if s.closed.Load() {
		return nil, store.ErrClosed
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		if s.closed.Load() {
			return nil, store.ErrClosed
		}
		return nil, fmt.Errorf("store/postgres: %w", err)
	}
	return tx, nil
}

func wrap(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("store/postgres: %w", err)
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
	defer tx.Rollback(ctx)
	// The row first, so that claims racing for a new account queue on
	// its lock rather than on a failed insert.
	if _, err := tx.Exec(ctx, `INSERT INTO leases (account, holder, epoch, expires_at) VALUES ($1, '', 0, 'epoch') ON CONFLICT DO NOTHING`, account); err != nil {
		return a, wrap(err)
	}
	var cur string
	var epoch int64
	var live bool
	var expires time.Time
	if err := tx.QueryRow(ctx, `SELECT holder, epoch, expires_at > now(), expires_at FROM leases WHERE account = $1 FOR UPDATE`, account).
		Scan(&cur, &epoch, &live, &expires); err != nil {
		return a, wrap(err)
	}
	switch {
	case cur == holder:
	case cur != "" && live:
		return a, fmt.Errorf("%w: held by %s until %s", store.ErrLeased, cur, expires.UTC().Format(time.RFC3339))
	default:
		epoch++
	}
	if _, err := tx.Exec(ctx, `UPDATE leases SET holder = $2, epoch = $3, expires_at = now() + $4 * interval '1 millisecond' WHERE account = $1`,
		account, holder, epoch, ttl.Milliseconds()); err != nil {
		return a, wrap(err)
	}
	a.Epoch = uint64(epoch)
	if err := load(ctx, tx, &a); err != nil {
		return a, err
	}
	return a, wrap(tx.Commit(ctx))
}

// load reads a's saved state into a.
func load(ctx context.Context, tx pgx.Tx, a *store.Account) error {
	var rev int64
	switch err := tx.QueryRow(ctx, `SELECT cash, revision FROM accounts WHERE id = $1`, a.ID).Scan(&a.Cash, &rev); {
	case errors.Is(err, pgx.ErrNoRows):
		return nil
	case err != nil:
		return wrap(err)
	}
	a.Revision = uint64(rev)
	// COLLATE "C": the order of the bytes, as every store orders them.
	rows, _ := tx.Query(ctx, `SELECT garage, bay, model, variant, health FROM cars WHERE account = $1 ORDER BY garage COLLATE "C", bay`, a.ID)
	var err error
	a.Cars, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.Car, error) {
		var c store.Car
		var bay, model, variant int16
		var health int32
		err := r.Scan(&c.Garage, &bay, &model, &variant, &health)
		c.Bay, c.Model, c.Variant, c.Health = uint8(bay), uint8(model), uint8(variant), uint16(health)
		return c, err
	})
	if err != nil {
		return wrap(err)
	}
	rows, _ = tx.Query(ctx, `SELECT slot, item, count FROM items WHERE account = $1 ORDER BY slot`, a.ID)
	a.Items, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.Item, error) {
		var it store.Item
		var slot int16
		var count int64
		err := r.Scan(&slot, &it.Item, &count)
		it.Slot, it.Count = uint8(slot), uint32(count)
		return it, err
	})
	if err != nil {
		return wrap(err)
	}
	if len(a.Cars) == 0 {
		a.Cars = nil
	}
	if len(a.Items) == 0 {
		a.Items = nil
	}
	return nil
}

// Renew is store.Store's.
func (s *Store) Renew(ctx context.Context, holder string, accounts []string, ttl time.Duration) ([]string, error) {
	if err := store.ValidLease(holder, ttl); err != nil {
		return nil, err
	}
	if s.closed.Load() {
		return nil, store.ErrClosed
	}
	rows, _ := s.pool.Query(ctx, `UPDATE leases SET expires_at = now() + $3 * interval '1 millisecond'
WHERE account = ANY($1) AND holder = $2 RETURNING account`, accounts, holder, ttl.Milliseconds())
	renewed, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, s.err(err)
	}
	var lost []string
	for _, id := range accounts {
		if !slices.Contains(renewed, id) {
			lost = append(lost, id)
		}
	}
	return lost, nil
}

// err wraps err, or says ErrClosed once the store is closed.
func (s *Store) err(err error) error {
	if s.closed.Load() {
		return store.ErrClosed
	}
	return wrap(err)
}

// Save is store.Store's: five statements for the whole batch, sent in one
// round trip, after the one that finds the accounts whose lease holder
// still has.
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
	defer tx.Rollback(ctx)
	ids := make([]string, len(batch))
	epochs := make([]int64, len(batch))
	for i := range batch {
		ids[i], epochs[i] = batch[i].ID, int64(batch[i].Epoch)
	}
	rows, _ := tx.Query(ctx, `SELECT l.account FROM leases l JOIN unnest($1::text[], $2::bigint[]) AS b(account, epoch)
ON l.account = b.account AND l.epoch = b.epoch WHERE l.holder = $3 FOR UPDATE OF l`, ids, epochs, holder)
	held, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return wrap(err)
	}
	var lost []string
	var acc []string
	var cash []int64
	var carAcc, carGarage []string
	var carBay, carModel, carVariant []int16
	var carHealth []int32
	var itemAcc, itemID []string
	var itemSlot []int16
	var itemCount []int64
	for i := range batch {
		a := &batch[i]
		if !slices.Contains(held, a.ID) {
			lost = append(lost, a.ID)
			continue
		}
		acc, cash = append(acc, a.ID), append(cash, a.Cash)
		for _, c := range a.Cars {
			carAcc, carGarage = append(carAcc, a.ID), append(carGarage, c.Garage)
			carBay, carModel, carVariant = append(carBay, int16(c.Bay)), append(carModel, int16(c.Model)), append(carVariant, int16(c.Variant))
			carHealth = append(carHealth, int32(c.Health))
		}
		for _, it := range a.Items {
			itemAcc, itemID = append(itemAcc, a.ID), append(itemID, it.Item)
			itemSlot, itemCount = append(itemSlot, int16(it.Slot)), append(itemCount, int64(it.Count))
		}
	}
	if len(acc) > 0 {
		b := &pgx.Batch{}
		b.Queue(`INSERT INTO accounts (id, cash, revision, updated_at) SELECT id, cash, 1, now() FROM unnest($1::text[], $2::bigint[]) AS t(id, cash)
ON CONFLICT (id) DO UPDATE SET cash = excluded.cash, revision = accounts.revision + 1, updated_at = excluded.updated_at`, acc, cash)
		b.Queue(`DELETE FROM cars WHERE account = ANY($1)`, acc)
		b.Queue(`INSERT INTO cars (account, garage, bay, model, variant, health)
SELECT * FROM unnest($1::text[], $2::text[], $3::smallint[], $4::smallint[], $5::smallint[], $6::integer[])`,
			carAcc, carGarage, carBay, carModel, carVariant, carHealth)
		b.Queue(`DELETE FROM items WHERE account = ANY($1)`, acc)
		b.Queue(`INSERT INTO items (account, slot, item, count) SELECT * FROM unnest($1::text[], $2::smallint[], $3::text[], $4::bigint[])`,
			itemAcc, itemSlot, itemID, itemCount)
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return wrap(err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
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
	if s.closed.Load() {
		return store.ErrClosed
	}
	_, err := s.pool.Exec(ctx, `UPDATE leases SET holder = '', expires_at = 'epoch' WHERE account = ANY($1) AND holder = $2`, accounts, holder)
	return s.err(err)
}

// Ping is store.Pinger's: one round trip to the database.
func (s *Store) Ping(ctx context.Context) error {
	if s.closed.Load() {
		return store.ErrClosed
	}
	return s.err(s.pool.Ping(ctx))
}

var _ store.Pinger = (*Store)(nil)

// Close is store.Store's.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return store.ErrClosed
	}
	s.pool.Close()
	return nil
}

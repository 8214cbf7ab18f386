// Package directory is the fleet's room directory in PostgreSQL: every
// server process of a fleet writes its rooms (name, level, game, players,
// capacity) beside its public address and its heartbeat, so that any
// process lists the fleet's rooms, sends a join for another process's room
// where it lives, and a room name is the fleet's alone. One process with
// SQLite needs none.
//
// The tables are the account store's migration 3 (store/postgres):
// fleet_servers (a process, its address, when its heartbeat runs out) and
// fleet_rooms (a room, the process that holds it). A room name is
// fleet_rooms' key: of two processes that make one name at once, one
// insert wins and the other is told where the room lives. A process that
// dies stops heartbeating: its rooms drop out of every listing within the
// TTL, and its names may be taken by another process from then.
package directory

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Room is one room of the directory.
type Room struct {
	Name     string `json:"name"`
	Level    string `json:"level"`
	Game     string `json:"game"`
	Players  int    `json:"players"`
	Capacity int    `json:"capacity"`
	// Addr is the public address of the process that holds the room
	// (Config.Addr): List and Where fill it in.
	Addr string `json:"addr"`
}

// ErrHeld is a claim of a room name another live process holds.
var ErrHeld = errors.New("directory: room held by another server")

// HeldError is ErrHeld with where the room lives.
type HeldError struct {
	Room string
	Addr string // the holder's public address
}

// Error names the room and its holder's address.
func (e *HeldError) Error() string {
	return fmt.Sprintf("room %s is on another server: %s", e.Room, e.Addr)
}

// Is reports whether target is ErrHeld: errors.Is(err, ErrHeld) holds for
// a *HeldError.
func (e *HeldError) Is(target error) bool { return target == ErrHeld }

// Bounds and defaults.
const (
	// DefaultTTL is a Config's TTL when it gives none.
	DefaultTTL = 15 * time.Second
	// MinTTL is the shortest TTL: a heartbeat every third of it must
	// make its round trip in time.
	MinTTL = 300 * time.Millisecond
	// listFresh is how long a listing is served from the last one read,
	// at most: every open page asks for the rooms every few seconds. A
	// tenth of the TTL when that is shorter, so that a dead process's
	// rooms leave the listings soon after the TTL.
	listFresh = time.Second
	// opTimeout bounds a heartbeat's and a release's statements.
	opTimeout = 5 * time.Second
)

// Config sets up a Directory.
type Config struct {
	// Addr is this process's public address, as players reach it: the
	// directory gives it for the process's rooms.
	Addr string
	// TTL is how long the directory keeps the process's rooms after its
	// last heartbeat, which comes every third of it (0: DefaultTTL).
	TTL time.Duration
	// Rooms returns the process's rooms for each heartbeat: their
	// players are written, and a room the directory lost (the process's
	// entry expired meanwhile) is claimed again.
	Rooms func() []Room
	// Log gets what the directory could not do (nil: slog.Default()).
	Log *slog.Logger
}

// Directory is this process's view of the fleet's room directory. It is
// safe for concurrent use.
type Directory struct {
	pool *pgxpool.Pool
	c    Config
	id   string
	log  *slog.Logger

	mu     sync.Mutex
	claims map[string]int64 // this process's rooms: each one's claim id
	lost   map[string]bool  // rooms another process holds now, logged once
	failed bool             // the last heartbeat failed (logged once)

	// writeMu orders a heartbeat's writes and the releases: a room
	// released while a heartbeat runs is not written back after its
	// release.
	writeMu sync.Mutex

	listMu   sync.Mutex
	listed   []Room
	listedAt time.Time

	releases sync.WaitGroup
	stop     chan struct{}
	done     chan struct{}
}

// Open registers this process in the directory on pool (a database the
// account store migrated) and starts its heartbeat. A process of the same
// address still in the directory (this one, before a restart) is taken
// out, its rooms with it.
func Open(ctx context.Context, pool *pgxpool.Pool, c Config) (*Directory, error) {
	if c.TTL == 0 {
		c.TTL = DefaultTTL
	}
	if c.TTL < MinTTL {
		return nil, fmt.Errorf("directory: TTL %s, at least %s", c.TTL, MinTTL)
	}
	if c.Addr == "" {
		return nil, errors.New("directory: no public address")
	}
	if c.Rooms == nil {
		c.Rooms = func() []Room { return nil }
	}
	if c.Log == nil {
		c.Log = slog.Default()
	}
	d := &Directory{pool: pool, c: c, id: newID(), log: c.Log, claims: map[string]int64{}, lost: map[string]bool{},
		stop: make(chan struct{}), done: make(chan struct{})}
	tag, err := pool.Exec(ctx, `DELETE FROM fleet_servers WHERE addr = $1`, c.Addr)
	if err != nil {
		return nil, fmt.Errorf("directory: %w", err)
	}
	if n := tag.RowsAffected(); n > 0 {
		d.log.Info("directory: took out the entry of a process before this one at the same address", "addr", c.Addr, "entries", n)
	}
	if _, err := d.register(ctx); err != nil {
		return nil, fmt.Errorf("directory: %w", err)
	}
	go d.loop()
	return d, nil
}

// newID names this process in the directory: its host, its pid and 4
// random bytes.
func newID() string {
	host, _ := os.Hostname()
	var b [4]byte
	rand.Read(b[:])
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// ID returns this process's id in the directory.
func (d *Directory) ID() string { return d.id }

// Addr returns this process's public address.
func (d *Directory) Addr() string { return d.c.Addr }

// register writes this process's entry with a new expiry; inserted says
// whether it was gone (expired and swept by another process meanwhile,
// or a process started at the same address).
func (d *Directory) register(ctx context.Context) (inserted bool, err error) {
	err = d.pool.QueryRow(ctx, `INSERT INTO fleet_servers (id, addr, expires_at) VALUES ($1, $2, now() + $3 * interval '1 millisecond')
ON CONFLICT (id) DO UPDATE SET expires_at = excluded.expires_at, addr = excluded.addr RETURNING xmax = 0`,
		d.id, d.c.Addr, d.c.TTL.Milliseconds()).Scan(&inserted)
	return inserted, err
}

// Claim claims r's name for this process: the name is free (or held by a
// process whose heartbeat ran out), or this process's already. Another
// live process's name fails with a *HeldError that says where the room
// lives.
func (d *Directory) Claim(ctx context.Context, r Room) error {
	claim := newClaim()
	for range 3 {
		err := d.claim(ctx, r, claim)
		var pe *pgconn.PgError
		switch {
		case err == nil:
			d.mu.Lock()
			d.claims[r.Name] = claim
			delete(d.lost, r.Name)
			d.mu.Unlock()
			return nil
		case errors.As(err, &pe) && pe.Code == "23503": // this process's entry is gone
			if _, err := d.register(ctx); err != nil {
				return fmt.Errorf("directory: %w", err)
			}
		case errors.Is(err, errRetry):
		default:
			return err
		}
	}
	return fmt.Errorf("directory: room %s: the claim did not settle", r.Name)
}

// errRetry is a claim that lost the name to a holder that let it go
// before it could be read: the claim is tried again.
var errRetry = errors.New("directory: retry")

func (d *Directory) claim(ctx context.Context, r Room, claim int64) error {
	// The row of a process whose heartbeat ran out goes first.
	if _, err := d.pool.Exec(ctx, `DELETE FROM fleet_rooms r WHERE r.name = $1 AND r.server <> $2
AND NOT EXISTS (SELECT 1 FROM fleet_servers s WHERE s.id = r.server AND s.expires_at > now())`, r.Name, d.id); err != nil {
		return fmt.Errorf("directory: %w", err)
	}
	// One insert wins a name: a loser's finds the winner's row and
	// changes nothing (ON CONFLICT ... WHERE: only this process's own
	// row takes the new claim).
	var won bool
	err := d.pool.QueryRow(ctx, `INSERT INTO fleet_rooms (name, server, claim, level, game, players, capacity)
VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT (name) DO UPDATE SET claim = excluded.claim, level = excluded.level, game = excluded.game,
	players = excluded.players, capacity = excluded.capacity WHERE fleet_rooms.server = excluded.server
RETURNING true`, r.Name, d.id, claim, r.Level, r.Game, r.Players, r.Capacity).Scan(&won)
	switch {
	case err == nil:
		return nil
	case !errors.Is(err, pgx.ErrNoRows):
		return err
	}
	var addr string
	err = d.pool.QueryRow(ctx, `SELECT s.addr FROM fleet_rooms r JOIN fleet_servers s ON s.id = r.server WHERE r.name = $1`, r.Name).Scan(&addr)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return errRetry
	case err != nil:
		return fmt.Errorf("directory: %w", err)
	}
	return &HeldError{Room: r.Name, Addr: addr}
}

func newClaim() int64 {
	var b [8]byte
	rand.Read(b[:])
	return int64(binary.LittleEndian.Uint64(b[:]) >> 1)
}

// Release takes room name, closed, out of the directory. It does not
// wait: the row goes in the background (Close waits for it); a claim of
// the name made after Release returns is not undone by it.
func (d *Directory) Release(name string) {
	d.mu.Lock()
	claim, ok := d.claims[name]
	delete(d.claims, name)
	d.mu.Unlock()
	if !ok {
		return
	}
	d.releases.Add(1)
	go func() {
		defer d.releases.Done()
		d.writeMu.Lock()
		defer d.writeMu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
		defer cancel()
		if _, err := d.pool.Exec(ctx, `DELETE FROM fleet_rooms WHERE name = $1 AND server = $2 AND claim = $3`, name, d.id, claim); err != nil {
			d.log.Warn("directory: release failed; the row goes with this process's entry", "room", name, "err", err)
		}
	}()
}

// Where returns the public address of the live process other than this
// one that holds room name, or "" for none.
func (d *Directory) Where(ctx context.Context, name string) (string, error) {
	var addr string
	err := d.pool.QueryRow(ctx, `SELECT s.addr FROM fleet_rooms r JOIN fleet_servers s ON s.id = r.server
WHERE r.name = $1 AND r.server <> $2 AND s.expires_at > now()`, name, d.id).Scan(&addr)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("directory: %w", err)
	}
	return addr, nil
}

// List returns the rooms of the fleet's other live processes, by name. A
// listing read less than a second (or a tenth of the TTL) ago is served
// again. When the database
// fails it returns the error and the last listing.
func (d *Directory) List(ctx context.Context) ([]Room, error) {
	d.listMu.Lock()
	defer d.listMu.Unlock()
	if time.Since(d.listedAt) < min(listFresh, d.c.TTL/10) {
		return slices.Clone(d.listed), nil
	}
	rows, _ := d.pool.Query(ctx, `SELECT r.name, r.level, r.game, r.players, r.capacity, s.addr FROM fleet_rooms r
JOIN fleet_servers s ON s.id = r.server WHERE r.server <> $1 AND s.expires_at > now() ORDER BY r.name COLLATE "C"`, d.id)
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Room, error) {
		var x Room
		var players, capacity int32
		err := r.Scan(&x.Name, &x.Level, &x.Game, &players, &capacity, &x.Addr)
		x.Players, x.Capacity = int(players), int(capacity)
		return x, err
	})
	if err != nil {
		return slices.Clone(d.listed), fmt.Errorf("directory: %w", err)
	}
	d.listed, d.listedAt = list, time.Now()
	return slices.Clone(list), nil
}

func (d *Directory) loop() {
	defer close(d.done)
	t := time.NewTicker(d.c.TTL / 3)
	defer t.Stop()
	for {
		select {
		case <-d.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), min(opTimeout, d.c.TTL/3))
			err := d.beat(ctx)
			cancel()
			d.mu.Lock()
			was := d.failed
			d.failed = err != nil
			d.mu.Unlock()
			switch {
			case err != nil && !was:
				d.log.Warn("directory: heartbeat failed; this process's rooms leave the directory once its TTL runs out, and come back with the next heartbeat that goes through", "ttl", d.c.TTL, "err", err)
			case err == nil && was:
				d.log.Info("directory: heartbeat back")
			}
		}
	}
}

// beat renews this process's entry, writes its rooms' players, claims
// again a room the directory lost, and sweeps the processes whose
// heartbeat ran out a TTL ago.
func (d *Directory) beat(ctx context.Context) error {
	d.writeMu.Lock()
	defer d.writeMu.Unlock()
	inserted, err := d.register(ctx)
	if err != nil {
		return err
	}
	if inserted {
		d.log.Error("directory: this process's entry was gone (its heartbeat late past the TTL, or another process started with the same address); claiming its rooms again", "addr", d.c.Addr)
	}
	rooms := d.c.Rooms()
	d.mu.Lock()
	var names []string
	var players []int32
	var claims []int64
	held := map[string]Room{}
	for _, r := range rooms {
		if c, ok := d.claims[r.Name]; ok {
			names, players, claims = append(names, r.Name), append(players, int32(r.Players)), append(claims, c)
			held[r.Name] = r
		}
	}
	d.mu.Unlock()
	rows, _ := d.pool.Query(ctx, `UPDATE fleet_rooms f SET players = u.players FROM unnest($2::text[], $3::int[], $4::bigint[]) AS u(name, players, claim)
WHERE f.name = u.name AND f.server = $1 AND f.claim = u.claim RETURNING f.name`, d.id, names, players, claims)
	written, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	for _, name := range names {
		if slices.Contains(written, name) {
			continue
		}
		d.reclaim(ctx, held[name])
	}
	_, err = d.pool.Exec(ctx, `DELETE FROM fleet_servers WHERE expires_at < now() - $1 * interval '1 millisecond'`, d.c.TTL.Milliseconds())
	return err
}

// reclaim writes back the row of a room this process holds that the
// directory lost; a room another process took meanwhile is logged once.
// writeMu is held.
func (d *Directory) reclaim(ctx context.Context, r Room) {
	d.mu.Lock()
	claim, ok := d.claims[r.Name]
	d.mu.Unlock()
	if !ok {
		return
	}
	err := d.claim(ctx, r, claim)
	var held *HeldError
	switch {
	case err == nil:
		d.log.Info("directory: room claimed again", "room", r.Name)
	case errors.As(err, &held):
		d.mu.Lock()
		logged := d.lost[r.Name]
		d.lost[r.Name] = true
		d.mu.Unlock()
		if !logged {
			d.log.Error("directory: another process holds this room's name now; this process's room keeps its players, and new joins go to the other", "room", r.Name, "other", held.Addr)
		}
	default:
		d.log.Warn("directory: room not claimed again", "room", r.Name, "err", err)
	}
}

// Close stops the heartbeat and takes this process and its rooms out of
// the directory: a drain's last step.
func (d *Directory) Close(ctx context.Context) error {
	select {
	case <-d.stop:
		return nil
	default:
		close(d.stop)
	}
	<-d.done
	d.releases.Wait()
	if _, err := d.pool.Exec(ctx, `DELETE FROM fleet_servers WHERE id = $1`, d.id); err != nil {
		return fmt.Errorf("directory: %w", err)
	}
	return nil
}

// CheckAddr checks a public address: an http or https URL of a host,
// without a path, a query or user info, at most 80 bytes (a WebSocket
// close reason carries it with a room's path).
func CheckAddr(addr string) error {
	rest, ok := strings.CutPrefix(addr, "http://")
	if !ok {
		rest, ok = strings.CutPrefix(addr, "https://")
	}
	switch {
	case !ok:
		return fmt.Errorf("%q: an http:// or https:// URL", addr)
	case len(addr) > 80:
		return fmt.Errorf("%q: at most 80 bytes", addr)
	case rest == "" || strings.ContainsAny(rest, "/?#@ "):
		return fmt.Errorf("%q: a host (and port) alone, no path", addr)
	}
	return nil
}

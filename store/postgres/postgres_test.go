package postgres

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fiveonit/engine/internal/pgtest"
	"github.com/fiveonit/engine/store"
	"github.com/fiveonit/engine/store/storetest"
)

// server is the PostgreSQL server of the package's tests; nil with skip
// saying why.
var (
	server *pgtest.Server
	skip   string
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, &server, &skip)) }

// database returns a new, empty database's URL, or skips the test where
// PostgreSQL is missing.
func database(t *testing.T) string {
	t.Helper()
	if server == nil {
		t.Skip("no PostgreSQL to test against:", skip)
	}
	url, err := server.NewDatabase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return url
}

func open(t *testing.T, url string) *Store {
	t.Helper()
	s, err := Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSuite runs the store suite on a real PostgreSQL server, a new
// database per test. The leases run on the database's clock: the suite
// runs them out by moving every lease's end sooner.
func TestSuite(t *testing.T) {
	storetest.Run(t, func(t *testing.T) (store.Store, func(time.Duration)) {
		t.Helper()
		s := open(t, database(t))
		return s, func(d time.Duration) {
			if _, err := s.pool.Exec(context.Background(), `UPDATE leases SET expires_at = expires_at - $1 * interval '1 millisecond'`, d.Milliseconds()); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestTwoServers: two stores on one database, as two servers of a fleet:
// an account one holds is refused to the other until released, and the
// other then loads what the first saved.
func TestTwoServers(t *testing.T) {
	ctx := context.Background()
	url := database(t)
	a, b := open(t, url), open(t, url)
	defer a.Close()
	defer b.Close()
	acc, err := a.Claim(ctx, "alice", "server-a", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Claim(ctx, "alice", "server-b", time.Minute); !errors.Is(err, store.ErrLeased) {
		t.Fatalf("the second server's claim: %v, want ErrLeased", err)
	}
	acc.Cash = 4321
	if err := a.Save(ctx, "server-a", []store.Account{acc}); err != nil {
		t.Fatal(err)
	}
	if err := a.Release(ctx, "server-a", []string{"alice"}); err != nil {
		t.Fatal(err)
	}
	got, err := b.Claim(ctx, "alice", "server-b", time.Minute)
	if err != nil || got.Cash != 4321 {
		t.Fatalf("the second server's claim once released: %+v, %v; want cash 4321", got, err)
	}
}

// TestMigrate: a database at version 1 is brought to the last by Open,
// its accounts kept; two servers opening one new database together both
// come up; a database of a newer server is refused.
func TestMigrate(t *testing.T) {
	ctx := context.Background()
	url := database(t)
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if err := MigrateTo(ctx, pool, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO accounts (id, cash, revision, updated_at) VALUES ('old-timer', 77, 3, now())`); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 2)
	stores := make(chan *Store, 2)
	for range 2 {
		go func() {
			s, err := Open(ctx, url)
			errs <- err
			stores <- s
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatalf("Open beside another: %v", err)
		}
		if s := <-stores; s != nil {
			defer s.Close()
		}
	}
	s := open(t, url)
	defer s.Close()
	a, err := s.Claim(ctx, "old-timer", "h", time.Hour)
	if err != nil || a.Cash != 77 || a.Revision != 3 {
		t.Fatalf("after the migration: %+v, %v; want cash 77, revision 3", a, err)
	}
	a.Cars = []store.Car{{Garage: "g"}}
	if err := s.Save(ctx, "h", []store.Account{a}); err != nil {
		t.Fatalf("a car saved after the migration: %v", err)
	}
	var n int
	pool.QueryRow(ctx, `SELECT COUNT(*) FROM schema_migrations`).Scan(&n)
	if n != len(Migrations) {
		t.Errorf("%d migrations recorded, want %d", n, len(Migrations))
	}
	if _, err := pool.Exec(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, 'from the future', now())`, len(Migrations)+1); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, url); !errors.Is(err, store.ErrSchemaNewer) {
		t.Errorf("a database of a newer schema: %v, want ErrSchemaNewer", err)
	}
}

// TestDown: a server that does not answer is an error, not a hang or a
// panic.
func TestDown(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dir := t.TempDir() // no server listens there
	if _, err := Open(ctx, "host="+dir+" port=5432 user=postgres dbname=none sslmode=disable connect_timeout=2"); err == nil {
		t.Fatal("Open of a server that is not there: no error")
	}
}

package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/fiveonit/engine/clock/clocktest"
	"github.com/fiveonit/engine/store"
	"github.com/fiveonit/engine/store/storetest"
)

func open(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSuite runs the store suite on a new file per test, its leases on a
// fake clock.
func TestSuite(t *testing.T) {
	storetest.Run(t, func(t *testing.T) (store.Store, func(time.Duration)) {
		t.Helper()
		s := open(t, filepath.Join(t.TempDir(), "accounts.db"))
		clk := clocktest.New()
		s.now = clk.Now
		return s, clk.Advance
	})
}

// TestInUse: a file another Store has open is refused, and free again
// once it is closed.
func TestInUse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "accounts.db")
	a := open(t, path)
	if _, err := Open(context.Background(), path); !errors.Is(err, ErrInUse) {
		t.Fatalf("a second Open: %v, want ErrInUse", err)
	}
	a.Close()
	open(t, path).Close()
}

// TestReopen: what was saved is there after a reopen, and the leases of
// the process that had the file are free (it stopped: this one has the
// lock), their epochs kept.
func TestReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "accounts.db")
	s := open(t, path)
	a, err := s.Claim(ctx, "alice", "old", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	a.Cash = 1234
	a.Cars = []store.Car{{Garage: "g", Bay: 1, Model: 2, Variant: 3, Health: 4}}
	if err := s.Save(ctx, "old", []store.Account{a}); err != nil {
		t.Fatal(err)
	}
	s.Close() // no Release: as a killed process leaves it
	s = open(t, path)
	defer s.Close()
	b, err := s.Claim(ctx, "alice", "new", time.Hour)
	if err != nil {
		t.Fatalf("claim after a reopen: %v, want the old holder's lease freed", err)
	}
	if b.Cash != 1234 || len(b.Cars) != 1 || b.Cars[0] != a.Cars[0] || b.Epoch <= a.Epoch {
		t.Errorf("after a reopen: %+v, want cash 1234, the car and an epoch above %d", b, a.Epoch)
	}
}

// TestMigrate: a file at schema version 1 (accounts, no cars) is brought
// to the last version by Open, its accounts kept; a file of a newer
// server is refused.
func TestMigrate(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "accounts.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if err := MigrateTo(ctx, db, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO accounts (id, cash, revision, updated_ms) VALUES ('old-timer', 77, 3, 0)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`SELECT 1 FROM cars`); err == nil {
		t.Fatal("version 1 has a cars table")
	}
	db.Close()

	s := open(t, path)
	a, err := s.Claim(ctx, "old-timer", "h", time.Hour)
	if err != nil || a.Cash != 77 || a.Revision != 3 {
		t.Fatalf("after the migration: %+v, %v; want cash 77, revision 3", a, err)
	}
	a.Cars = []store.Car{{Garage: "g"}}
	if err := s.Save(ctx, "h", []store.Account{a}); err != nil {
		t.Fatalf("a car saved after the migration: %v", err)
	}
	var v int
	s.DB().QueryRow(`SELECT MAX(version) FROM schema_migrations`).Scan(&v)
	if v != len(Migrations) {
		t.Errorf("schema version %d, want %d", v, len(Migrations))
	}
	if _, err := s.DB().Exec(`INSERT INTO schema_migrations (version, name, applied_ms) VALUES (?, 'from the future', 0)`, len(Migrations)+1); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := Open(ctx, path); !errors.Is(err, store.ErrSchemaNewer) {
		t.Errorf("a file of a newer schema: %v, want ErrSchemaNewer", err)
	}
}

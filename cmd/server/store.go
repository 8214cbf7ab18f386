package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fiveonit/engine/store"
	"github.com/fiveonit/engine/store/postgres"
	"github.com/fiveonit/engine/store/sqlite"
)

// storeFile is the SQLite file's name in the -data directory.
const storeFile = "accounts.db"

// openTimeout bounds the opening of the store at start (its migrations
// included): a database that does not answer stops the start with the
// reason rather than hanging it.
const openTimeout = 30 * time.Second

// openStore opens the account store -store names: a postgres:// (or
// postgresql://) URL is PostgreSQL, "none" keeps nothing (nil), and empty
// is the SQLite file in -data, made with its directory if missing. It
// returns the store and where it is, for the log (a URL's password
// hidden).
func openStore(ctx context.Context, c config) (store.Store, string, error) {
	ctx, cancel := context.WithTimeout(ctx, openTimeout)
	defer cancel()
	switch {
	case c.store == "none":
		return nil, "none", nil
	case strings.HasPrefix(c.store, "postgres://"), strings.HasPrefix(c.store, "postgresql://"):
		where := "postgres"
		if u, err := url.Parse(c.store); err == nil {
			where = u.Redacted()
		}
		st, err := postgres.Open(ctx, c.store)
		if err != nil {
			return nil, "", fmt.Errorf("-store %s: %w", where, err)
		}
		return st, where, nil
	case c.store != "":
		return nil, "", fmt.Errorf("-store %q: a postgres:// URL, none, or empty for SQLite in -data", c.store)
	case c.data == "":
		return nil, "", fmt.Errorf("-data is empty: a directory for the account store's file (or -store none to keep nothing)")
	}
	if err := os.MkdirAll(c.data, 0o700); err != nil {
		return nil, "", fmt.Errorf("-data: %w", err)
	}
	path := filepath.Join(c.data, storeFile)
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		return nil, "", fmt.Errorf("-data %s: %w", c.data, err)
	}
	return st, "sqlite:" + path, nil
}

// closeAccounts writes what accounts hold (nothing yet, on a failed start)
// and lets their leases go.
func closeAccounts(accounts *store.Accounts) {
	if accounts == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	accounts.Close(ctx)
}

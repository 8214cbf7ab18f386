package serve

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

// storeFile is the SQLite file's name in the Data directory.
const storeFile = "accounts.db"

// openTimeout bounds the opening of the store at start (its migrations
// included): a database that does not answer stops the start with the
// reason rather than hanging it.
const openTimeout = 30 * time.Second

// openAccounts opens the account store and the accounts kept in it, their
// writes counted in the metrics. With Store "none" it opens nothing.
func (s *Server) openAccounts(ctx context.Context) error {
	st, where, err := openStore(ctx, s.c)
	if err != nil {
		return err
	}
	s.where = where
	if st == nil {
		return nil
	}
	s.store = st
	written, stats := s.met.Store()
	s.accounts = store.NewAccounts(st, store.AccountsConfig{Log: s.log, Written: written})
	stats(s.accounts.Stats)
	return nil
}

// openStore opens the account store Store names: a postgres:// (or
// postgresql://) URL is PostgreSQL, "none" keeps nothing (nil), and empty
// is the SQLite file in Data, made with its directory if missing. It
// returns the store and where it is, for the log (a URL's password
// hidden).
func openStore(ctx context.Context, c Config) (store.Store, string, error) {
	ctx, cancel := context.WithTimeout(ctx, openTimeout)
	defer cancel()
	switch {
	case c.Store == "none":
		return nil, "none", nil
	case strings.HasPrefix(c.Store, "postgres://"), strings.HasPrefix(c.Store, "postgresql://"):
		where := "postgres"
		if u, err := url.Parse(c.Store); err == nil {
			where = u.Redacted()
		}
		st, err := postgres.Open(ctx, c.Store)
		if err != nil {
			return nil, "", fmt.Errorf("-store %s: %w", where, err)
		}
		return st, where, nil
	case c.Store != "":
		return nil, "", fmt.Errorf("-store %q: a postgres:// URL, none, or empty for SQLite in -data", c.Store)
	case c.Data == "":
		return nil, "", fmt.Errorf("-data is empty: a directory for the account store's file (or -store none to keep nothing)")
	}
	if err := os.MkdirAll(c.Data, 0o700); err != nil {
		return nil, "", fmt.Errorf("-data: %w", err)
	}
	path := filepath.Join(c.Data, storeFile)
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		return nil, "", fmt.Errorf("-data %s: %w", c.Data, err)
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

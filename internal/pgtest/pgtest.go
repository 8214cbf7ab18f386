// Package pgtest starts a throwaway PostgreSQL server for tests: initdb and
// pg_ctl in a temporary directory, listening on a Unix socket there only,
// with fsync off. The tests of the PostgreSQL account store and its
// benchmark use it. Where PostgreSQL is not installed, Start says why, and
// the tests skip with that reason.
//
// FOI_TEST_POSTGRES, if set, is the URL of a server to use instead (a
// role that may create databases); nothing is started then.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvURL names the environment variable of a server to use instead of
// starting one.
const EnvURL = "FOI_TEST_POSTGRES"

// ErrMissing is Start's error where PostgreSQL cannot be run: it is not
// installed, or the tests run as root and there is no postgres user to run
// it as. Tests skip on it, with its message.
var ErrMissing = errors.New("pgtest: PostgreSQL is not available")

// Server is a PostgreSQL server for tests.
type Server struct {
	base    string // a connection string without the database
	dir     string // "" for a server of EnvURL
	pgctl   string
	asUser  string // run its commands as this user (tests run as root), or ""
	counter atomic.Int64
}

// Find returns the directory of PostgreSQL's server programs (initdb,
// pg_ctl): in PATH, else Debian's /usr/lib/postgresql/VERSION/bin, the
// newest version first.
func Find() (string, error) {
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if _, err := exec.LookPath("initdb"); err == nil {
			return filepath.Dir(p), nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int { return version(b) - version(a) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "pg_ctl")); err == nil {
			return d, nil
		}
	}
	return "", fmt.Errorf("%w: no pg_ctl and initdb in PATH or /usr/lib/postgresql/*/bin (Debian: apt-get install postgresql)", ErrMissing)
}

func version(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// Start starts a server (or connects to EnvURL's). Stop it when done. It
// fails with ErrMissing where PostgreSQL cannot be run.
func Start() (*Server, error) {
	if u := os.Getenv(EnvURL); u != "" {
		return &Server{base: u}, nil
	}
	bin, err := Find()
	if err != nil {
		return nil, err
	}
	s := &Server{pgctl: filepath.Join(bin, "pg_ctl")}
	dir, err := os.MkdirTemp("", "foi-pg-")
	if err != nil {
		return nil, err
	}
	s.dir = dir
	if os.Getuid() == 0 {
		// PostgreSQL refuses to run as root: its programs run as the
		// postgres user (Debian's package makes it) in a directory it owns.
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("%w: the tests run as root, and there is no postgres user to run it as: %w", ErrMissing, err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		s.asUser = "postgres"
	}
	data := filepath.Join(dir, "data")
	if out, err := s.command(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pgtest: initdb: %w\n%s", err, out)
	}
	opts := fmt.Sprintf("-k %s -c listen_addresses='' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200", dir)
	if out, err := s.command(s.pgctl, "-D", data, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "-o", opts, "start").CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pgtest: pg_ctl start: %w\n%s\n%s", err, out, log)
	}
	s.base = (&url.URL{Scheme: "postgres", User: url.User("postgres"), Path: "/postgres",
		RawQuery: url.Values{"host": {dir}, "sslmode": {"disable"}}.Encode()}).String()
	return s, nil
}

// command runs a PostgreSQL program, as asUser when set, in the server's
// directory: the tests' own may be one the postgres user cannot enter
// (a checkout under /root), and initdb fails there.
func (s *Server) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	if s.asUser != "" {
		cmd = exec.Command("runuser", append([]string{"-u", s.asUser, "--", name}, args...)...)
	}
	cmd.Dir = s.dir
	return cmd
}

// URL returns the postgres:// URL of database name on the server (a
// server of EnvURL given as keywords: its keywords and dbname).
func (s *Server) URL(name string) string {
	if u, err := url.Parse(s.base); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		u.Path = "/" + name
		return u.String()
	}
	return s.base + " dbname=" + name
}

// NewDatabase makes a new, empty database and returns its URL.
func (s *Server) NewDatabase(ctx context.Context) (string, error) {
	conn, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		return "", fmt.Errorf("pgtest: %w", err)
	}
	defer conn.Close(ctx)
	name := fmt.Sprintf("foi_test_%d_%d", os.Getpid(), s.counter.Add(1))
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", fmt.Errorf("pgtest: %w", err)
	}
	return s.URL(name), nil
}

// Stop stops the server and removes its directory (a server of EnvURL is
// left running).
func (s *Server) Stop() {
	if s.dir == "" {
		return
	}
	cmd := s.command(s.pgctl, "-D", filepath.Join(s.dir, "data"), "-m", "immediate", "-w", "-t", "30", "stop")
	done := make(chan struct{})
	go func() { cmd.Run(); close(done) }()
	select {
	case <-done:
	case <-time.After(40 * time.Second):
	}
	os.RemoveAll(s.dir)
}

package directory

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fiveonit/engine/internal/pgtest"
	"github.com/fiveonit/engine/store/postgres"
)

var (
	server *pgtest.Server
	skip   string
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, &server, &skip)) }

// database returns a pool on a new database the account store migrated,
// or skips the test where PostgreSQL is missing.
func database(t *testing.T) *pgxpool.Pool {
	t.Helper()
	if server == nil {
		t.Skip("no PostgreSQL to test against:", skip)
	}
	url, err := server.NewDatabase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	st, err := postgres.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st.Pool()
}

// rooms is a process's rooms, for its heartbeat.
type rooms struct {
	mu   sync.Mutex
	list []Room
}

func (r *rooms) get() []Room {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Room(nil), r.list...)
}

func (r *rooms) set(list ...Room) {
	r.mu.Lock()
	r.list = list
	r.mu.Unlock()
}

// process is one process's directory.
type process struct {
	*Directory
	rooms *rooms
	logs  *bytes.Buffer
}

func open(t *testing.T, pool *pgxpool.Pool, addr string, ttl time.Duration) *process {
	t.Helper()
	p := &process{rooms: &rooms{}, logs: &bytes.Buffer{}}
	d, err := Open(context.Background(), pool, Config{Addr: addr, TTL: ttl, Rooms: p.rooms.get,
		Log: slog.New(slog.NewTextHandler(&syncWriter{w: p.logs}, nil))})
	if err != nil {
		t.Fatal(err)
	}
	p.Directory = d
	t.Cleanup(func() { d.Close(context.Background()) })
	return p
}

type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

func room(name string, players int) Room {
	return Room{Name: name, Level: "test-flat", Game: "free-roam", Players: players, Capacity: 64}
}

// TestClaimListRelease: a name one process claims is refused to the other
// with the address; each lists the other's rooms; a released name is free.
func TestClaimListRelease(t *testing.T) {
	pool := database(t)
	ctx := context.Background()
	a, b := open(t, pool, "http://a.test:8080", time.Minute), open(t, pool, "http://b.test:8080", time.Minute)
	if err := a.Claim(ctx, room("alpha", 0)); err != nil {
		t.Fatal(err)
	}
	if err := a.Claim(ctx, room("alpha", 0)); err != nil {
		t.Fatalf("claimed again by its holder: %v", err)
	}
	var held *HeldError
	if err := b.Claim(ctx, room("alpha", 0)); !errors.As(err, &held) || held.Addr != "http://a.test:8080" || !errors.Is(err, ErrHeld) {
		t.Fatalf("b's claim of a's room: %v, want held at a", err)
	}
	if err := b.Claim(ctx, room("beta", 0)); err != nil {
		t.Fatal(err)
	}
	if addr, err := b.Where(ctx, "alpha"); err != nil || addr != "http://a.test:8080" {
		t.Fatalf("where alpha: %q %v", addr, err)
	}
	if addr, err := a.Where(ctx, "alpha"); err != nil || addr != "" {
		t.Fatalf("where alpha from its holder: %q %v, want none", addr, err)
	}
	list, err := a.List(ctx)
	if err != nil || len(list) != 1 || list[0] != (Room{Name: "beta", Level: "test-flat", Game: "free-roam", Capacity: 64, Addr: "http://b.test:8080"}) {
		t.Fatalf("a lists %+v %v, want b's beta", list, err)
	}
	a.Release("alpha")
	a.releases.Wait()
	if err := b.Claim(ctx, room("alpha", 0)); err != nil {
		t.Fatalf("a released name: %v", err)
	}
	// A release, then a claim of the name at once: the claim stands.
	b.Release("alpha")
	if err := b.Claim(ctx, room("alpha", 0)); err != nil {
		t.Fatal(err)
	}
	b.releases.Wait()
	if addr, _ := a.Where(ctx, "alpha"); addr != "http://b.test:8080" {
		t.Fatalf("after a release and a new claim: where %q, want b", addr)
	}
	// Close takes the process and its rooms out.
	b.Close(ctx)
	if addr, _ := a.Where(ctx, "alpha"); addr != "" {
		t.Fatalf("after b closed: where %q", addr)
	}
}

// TestClaimRace: two processes claim the same names at once: each name
// goes to one of them, and the other is told where.
func TestClaimRace(t *testing.T) {
	pool := database(t)
	ctx := context.Background()
	procs := []*process{open(t, pool, "http://a.test", time.Minute), open(t, pool, "http://b.test", time.Minute)}
	const names = 20
	var won [2][names]bool
	var wg sync.WaitGroup
	for p := range procs {
		for i := range names {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := procs[p].Claim(ctx, room(fmt.Sprintf("race-%d", i), 0))
				var held *HeldError
				switch {
				case err == nil:
					won[p][i] = true
				case errors.As(err, &held) && held.Addr == procs[1-p].Addr():
				default:
					t.Errorf("process %d, name %d: %v", p, i, err)
				}
			}()
		}
	}
	wg.Wait()
	for i := range names {
		if won[0][i] == won[1][i] {
			t.Errorf("race-%d: won by a %v, by b %v; want one", i, won[0][i], won[1][i])
		}
	}
}

// TestDeadProcess: a process that stops heartbeating (killed) drops out of
// the listing within its TTL, and its names are free; the heartbeat of a
// live one writes its players.
func TestDeadProcess(t *testing.T) {
	pool := database(t)
	ctx := context.Background()
	const ttl = 600 * time.Millisecond
	a, b := open(t, pool, "http://a.test", ttl), open(t, pool, "http://b.test", ttl)
	if err := a.Claim(ctx, room("gone", 0)); err != nil {
		t.Fatal(err)
	}
	if err := b.Claim(ctx, room("stays", 0)); err != nil {
		t.Fatal(err)
	}
	a.rooms.set(room("gone", 3))
	b.rooms.set(room("stays", 5))
	time.Sleep(ttl / 2)
	if list, _ := a.List(ctx); len(list) != 1 || list[0].Players != 5 {
		t.Fatalf("a lists %+v, want stays with b's 5 players", list)
	}
	// kill -9: the heartbeat stops, nothing is released.
	close(a.stop)
	<-a.done
	killed := time.Now()
	for {
		a.listMu.Lock()
		a.listedAt = time.Time{}
		a.listMu.Unlock()
		b.listMu.Lock()
		b.listedAt = time.Time{}
		b.listMu.Unlock()
		list, err := b.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) == 0 {
			break
		}
		if time.Since(killed) > ttl+ttl/2 {
			t.Fatalf("%s after the kill, b still lists %+v", time.Since(killed), list)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := b.Claim(ctx, room("gone", 0)); err != nil {
		t.Fatalf("the dead process's name: %v", err)
	}
}

// TestEntryLost: a process whose entry went (its heartbeat late past the
// TTL) claims its rooms again with its next heartbeat, and logs the one
// another process took meanwhile.
func TestEntryLost(t *testing.T) {
	pool := database(t)
	ctx := context.Background()
	const ttl = 600 * time.Millisecond
	a, b := open(t, pool, "http://a.test", ttl), open(t, pool, "http://b.test", time.Minute)
	for _, n := range []string{"one", "two"} {
		if err := a.Claim(ctx, room(n, 1)); err != nil {
			t.Fatal(err)
		}
	}
	a.rooms.set(room("one", 1), room("two", 1))
	a.writeMu.Lock() // no heartbeat while the entry goes
	if _, err := pool.Exec(ctx, `DELETE FROM fleet_servers WHERE id = $1`, a.ID()); err != nil {
		t.Fatal(err)
	}
	if err := b.Claim(ctx, room("two", 0)); err != nil {
		t.Fatal(err)
	}
	a.writeMu.Unlock()
	deadline := time.Now().Add(5 * time.Second)
	for {
		addr, _ := b.Where(ctx, "one")
		a.mu.Lock()
		lost := a.lost["two"]
		a.mu.Unlock()
		if addr == "http://a.test" && lost {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("one at %q, two lost %v; logs:\n%s", addr, lost, a.logs)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if addr, _ := a.Where(ctx, "two"); addr != "http://b.test" {
		t.Fatalf("two at %q, want b's", addr)
	}
}

func TestCheckAddr(t *testing.T) {
	for _, c := range []struct {
		addr string
		ok   bool
	}{
		{"http://10.0.0.2:8080", true},
		{"https://game-2.example", true},
		{"ws://h:1", false},
		{"http://h/path", false},
		{"http://", false},
		{"http://u@h", false},
		{"https://" + string(bytes.Repeat([]byte("a"), 80)), false},
	} {
		if err := CheckAddr(c.addr); (err == nil) != c.ok {
			t.Errorf("%q: %v, want ok %v", c.addr, err, c.ok)
		}
	}
}

//go:build unix

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/internal/pgtest"
	"github.com/fiveonit/engine/jointoken"
	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/textframe"
	"github.com/fiveonit/engine/transport/websocket"
)

const storeSecret = "store-test-secret-0123456789"

// proc is the server run as a process: this test binary running main.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	logs   *logBuf
	addr   string
	exited chan error
}

// startProcess runs the server as a process on test-flat with its account
// store in data (a directory, or a postgres:// URL), and waits for it to
// serve.
func startProcess(t *testing.T, data string) *proc {
	t.Helper()
	flag := "-data"
	if strings.HasPrefix(data, "postgres://") {
		flag = "-store"
	}
	self, err := os.Executable()
	if err != nil {
		t.Skip("cannot find the test binary to run as the server:", err)
	}
	p := &proc{t: t, logs: &logBuf{}, exited: make(chan error, 1)}
	p.cmd = exec.Command(self, "-addr", "127.0.0.1:0", "-admin-addr", "127.0.0.1:0", "-level", "test-flat",
		"-rtc=false", "-drain", "5s", "-log-level", "info", "-log-format", "json", "-secret", storeSecret, flag, data)
	p.cmd.Env = append(os.Environ(), asServer+"=1")
	p.cmd.Stderr = p.logs
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exited <- p.cmd.Wait() }()
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
			<-p.exited
		}
	})
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if recs := p.logs.records(t, "serving"); len(recs) > 0 {
			p.addr, _ = recs[0]["addr"].(string)
			return p
		}
		select {
		case err := <-p.exited:
			t.Fatalf("the server exited at start: %v\n%s", err, p.logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not serve:\n%s", p.logs.String())
		}
	}
}

// stop sends sig and waits for the process to end; for SIGTERM it wants
// exit code 0.
func (p *proc) stop(sig syscall.Signal) {
	p.t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatal(err)
	}
	select {
	case err := <-p.exited:
		if sig == syscall.SIGTERM && err != nil {
			p.t.Fatalf("exit after SIGTERM: %v\n%s", err, p.logs.String())
		}
	case <-time.After(10 * time.Second):
		p.t.Fatalf("the server did not exit on %v", sig)
	}
}

// player is a client of account in the process's default room.
type player struct {
	t    *testing.T
	ws   *websocket.ClientConn
	cash int64 // from the newest status frame
	id   uint32
}

// joinAs joins account to the process's default room, trying again while
// it is refused (its lease not yet released) for up to 10 s.
func joinAs(t *testing.T, p *proc, account string) *player {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		pl, reason := tryJoin(t, p, account)
		if reason == "" {
			return pl
		}
		if time.Now().After(deadline) {
			t.Fatalf("join as %s refused: %s", account, reason)
		}
	}
}

// tryJoin joins account to the process's default room once: the player,
// or the reason it was refused.
func tryJoin(t *testing.T, p *proc, account string) (*player, string) {
	t.Helper()
	tok, err := jointoken.Sign([]byte(storeSecret), jointoken.Claims{Account: account, Name: account, Expires: time.Now().Add(time.Hour).Unix()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, err := websocket.Dial(ctx, "ws://"+p.addr+"/rooms/default?token="+tok)
	if err != nil {
		t.Fatal(err)
	}
	pl := &player{t: t, ws: ws, cash: -1}
	if reason := pl.until(func(typ string) bool { return typ == "status" }); reason != "" {
		ws.Close()
		return nil, reason
	}
	t.Cleanup(func() { ws.Close() })
	return pl, ""
}

// until reads text frames until done says so of one's type, and returns
// "", or the close reason.
func (pl *player) until(done func(typ string) bool) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for {
		f, text, err := pl.ws.Read(ctx)
		if err != nil {
			return err.Error()
		}
		if !text {
			continue
		}
		typ := textframe.Type(f)
		if typ == "status" {
			var st textframe.StatusFrame
			json.Unmarshal(f, &st)
			pl.cash = st.Cash
		}
		if typ == "reply" {
			var r textframe.ReplyFrame
			json.Unmarshal(f, &r)
			if !r.OK {
				pl.t.Fatalf("reply %+v", r)
			}
		}
		if done(typ) {
			return ""
		}
	}
}

// setCash sets the player's Cash with the debug command (test-flat honours
// it) and waits for its reply: the room has applied it.
func (pl *player) setCash(n int64) {
	pl.t.Helper()
	pl.id++
	cmd := fmt.Sprintf(`{"type":"debug","cmd":"cash","value":"%d","id":%d}`, n, pl.id)
	if err := pl.ws.Send(context.Background(), []byte(cmd), true); err != nil {
		pl.t.Fatal(err)
	}
	if reason := pl.until(func(typ string) bool { return typ == "reply" }); reason != "" {
		pl.t.Fatalf("closed: %s", reason)
	}
}

// TestStoreRestart runs the server as a process with its account store in
// a directory: a player's Cash changed, SIGTERM, a new process on the same
// directory, the Cash is the same. Then the same with kill -9 while the
// Cash changes every 50 ms: the new process has the Cash of a change at
// most PersistEvery (1 s) and the writer's period before the kill; the
// test logs how much was lost.
func TestStoreRestart(t *testing.T) {
	data := t.TempDir()
	p := startProcess(t, data)
	pl := joinAs(t, p, "alice")
	if pl.cash != 500 {
		t.Fatalf("a new account's cash %d, want 500", pl.cash)
	}
	pl.setCash(777)
	p.stop(syscall.SIGTERM)
	if strings.Contains(p.logs.String(), `"level":"ERROR"`) {
		t.Errorf("errors logged:\n%s", p.logs.String())
	}

	p = startProcess(t, data)
	pl = joinAs(t, p, "alice")
	if pl.cash != 777 {
		t.Fatalf("after SIGTERM and a restart: cash %d, want 777", pl.cash)
	}

	kills := 3
	if testing.Short() {
		kills = 1
	}
	var worst time.Duration
	for k := range kills {
		set := map[int64]time.Time{}
		value := int64(1000 * (k + 1))
		start := time.Now()
		// Each kill at another phase of the session's persist ticks.
		play := 2*time.Second + time.Duration(k)*370*time.Millisecond
		for time.Since(start) < play {
			value++
			pl.setCash(value)
			set[value] = time.Now()
			time.Sleep(50 * time.Millisecond)
		}
		killed := time.Now()
		p.stop(syscall.SIGKILL)
		p = startProcess(t, data)
		pl = joinAs(t, p, "alice")
		at, ok := set[pl.cash]
		if !ok {
			t.Fatalf("kill %d: cash %d after the restart, not one of the values set", k, pl.cash)
		}
		lost := killed.Sub(at)
		worst = max(worst, lost)
		t.Logf("kill -9 %d: kept the cash set %s before the kill (%d of %d changes lost)", k, lost.Round(time.Millisecond), value-pl.cash, len(set))
		if lost > time.Duration(server.PersistEvery)*time.Second/ecs.TickRate+500*time.Millisecond {
			t.Errorf("kill %d: lost the last %s of changes, want at most a second and the writer's period", k, lost)
		}
	}
	t.Logf("kill -9: at most the last %s of changes lost in %d kills", worst.Round(time.Millisecond), kills)
	p.stop(syscall.SIGTERM)
}

// TestStoreFleet runs two server processes on one PostgreSQL database, as a
// fleet: an account playing on one is refused on the other with the
// reason; once it left the first, it joins the second with the Cash it
// had; after SIGTERM and a restart of both, the Cash is still there.
func TestStoreFleet(t *testing.T) {
	pg.once.Do(func() { pg.srv, pg.err = pgtest.Start() })
	if errors.Is(pg.err, pgtest.ErrMissing) {
		t.Skip("no PostgreSQL to test against:", pg.err)
	}
	if pg.err != nil {
		t.Fatal(pg.err)
	}
	url, err := pg.srv.NewDatabase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(url, "postgres://") {
		t.Skipf("%s is not a postgres:// URL, which -store takes", pgtest.EnvURL)
	}
	a, b := startProcess(t, url), startProcess(t, url)
	pl := joinAs(t, a, "bob")
	if pl.cash != 500 {
		t.Fatalf("a new account's cash %d, want 500", pl.cash)
	}
	pl.setCash(321)
	if _, reason := tryJoin(t, b, "bob"); !strings.Contains(reason, "playing on another server") {
		t.Fatalf("a join on the other server while it plays: %q, want refused with the reason", reason)
	}
	pl.ws.Close()
	pl = joinAs(t, b, "bob") // once the first server has written and released it
	if pl.cash != 321 {
		t.Fatalf("on the other server: cash %d, want 321", pl.cash)
	}
	pl.setCash(654)
	a.stop(syscall.SIGTERM)
	b.stop(syscall.SIGTERM)
	a = startProcess(t, url)
	if pl = joinAs(t, a, "bob"); pl.cash != 654 {
		t.Errorf("after SIGTERM and a restart: cash %d, want 654", pl.cash)
	}
	a.stop(syscall.SIGTERM)
}

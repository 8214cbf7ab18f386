//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fiveonit/engine/textframe"
)

// TestDrainProcess runs the server as a process with -drain-timeout 3s
// and a player whose account has Cash, and sends it SIGTERM: /readyz
// fails at once, saying it drains; a new player is refused with the
// reason and the time left; the player is told the time left, plays on,
// and is closed with "server shutting down" once the time is up; the
// process exits 0 within the drain timeout and -drain; a new process on
// the same store has the account as it was left. (serve's
// TestDrainTimeout adds a run room ended with its result; rooms'
// TestDrain the notices' marks.)
func TestDrainProcess(t *testing.T) {
	const drainTimeout = 3 * time.Second
	data := t.TempDir()
	p := startProcessOn(t, data, "test-flat", "-drain-timeout", drainTimeout.String())
	admin := p.logs.records(t, "serving")[0]["admin"].(string)
	eventually(t, 5*time.Second, "/readyz ok", func() bool {
		code, body := fetch(t, "http://"+admin+"/readyz")
		return code == 200 && body == "ok"
	})
	pl := joinAs(t, p, "dana")
	pl.setCash(4321)

	start := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Second)
	for {
		code, body := fetch(t, "http://"+admin+"/readyz")
		if code == 503 && strings.Contains(body, "[-]draining failed") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz a second into the drain: %d %q", code, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, reason := tryJoin(t, p, "eli"); !strings.Contains(reason, "the server is draining: it stops in") || !strings.Contains(reason, "join another server") {
		t.Errorf("a join while draining: %q", reason)
	}
	var notice textframe.NoticeFrame
	rctx, rcancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer rcancel()
	for notice.Type == "" {
		f, text, err := pl.ws.Read(rctx)
		if err != nil {
			t.Fatalf("no notice before the close: %v", err)
		}
		if text && textframe.Type(f) == "notice" {
			json.Unmarshal(f, &notice)
		}
	}
	if !strings.Contains(notice.Text, "This server shuts down in 3 s") || notice.Kind != "info" {
		t.Errorf("notice %+v, want the time left", notice)
	}
	pl.do(`{"type":"debug","cmd":"cash","value":"4400"}`) // plays on meanwhile
	if r := closeReason(t, "dana", pl.ws); r != "server shutting down" {
		t.Errorf("closed with %q", r)
	}
	if d := time.Since(start); d < drainTimeout-500*time.Millisecond {
		t.Errorf("closed %v after SIGTERM, before the drain timeout %v", d, drainTimeout)
	}
	exited, err := p.wait(drainTimeout + 5*time.Second)
	if !exited || err != nil {
		t.Fatalf("exit: %v %v\n%s", exited, err, p.logs.String())
	}
	if len(p.logs.records(t, "draining")) != 1 || len(p.logs.records(t, "stopped")) != 1 {
		t.Errorf("no draining or stopped record:\n%s", p.logs.String())
	}
	if strings.Contains(p.logs.String(), `"level":"ERROR"`) {
		t.Errorf("errors logged:\n%s", p.logs.String())
	}

	again := startProcessOn(t, data, "test-flat")
	if back := joinAs(t, again, "dana"); back.cash != 4400 {
		t.Errorf("dana's Cash after the drain and a restart: %d, want 4400", back.cash)
	}
	again.stop(syscall.SIGTERM)
}

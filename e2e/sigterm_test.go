//go:build unix

package e2e

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fiveonit/engine/transport/websocket"
)

// TestSIGTERM runs the server as a process (command server, built) on
// loopback ports with a WebSocket client in the default room, and sends
// the process a real SIGTERM: the client gets the close reason "server
// shutting down", the room is closed with that reason, and the process
// exits 0 within the drain timeout. (serve's TestDrain checks, in-process,
// that no goroutine is left.)
func TestSIGTERM(t *testing.T) {
	const drain = 5 * time.Second
	p := startBinary(t, "-level", "test-flat", "-drain", drain.String(),
		"-secret", "sigterm-test-secret-0123456789", "-data", t.TempDir())
	dctx, dcancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer dcancel()
	ws, err := websocket.Dial(dctx, "ws://"+p.addr+"/rooms/default")
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	welcome(t, "websocket", ws)

	start := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if r := closeReason(t, "websocket", ws); r != "server shutting down" {
		t.Errorf("closed with %q, want \"server shutting down\"", r)
	}
	ws.Close()
	exited, err := p.wait(drain + 2*time.Second)
	if !exited {
		t.Fatalf("the server did not exit %s after SIGTERM:\n%s", drain+2*time.Second, p.logs.String())
	}
	if err != nil {
		t.Fatalf("the server exited with %v (code %d), want 0:\n%s", err, p.cmd.ProcessState.ExitCode(), p.logs.String())
	}
	if d := time.Since(start); d > drain {
		t.Errorf("the server took %s to exit, more than the drain timeout %s", d, drain)
	}
	closed := p.logs.records(t, "room closed")
	if len(closed) != 1 || closed[0]["reason"] != "server shutting down" {
		t.Errorf("room closed records %v, want one with reason server shutting down", closed)
	}
	if len(p.logs.records(t, "stopped")) != 1 {
		t.Errorf("no stopped record:\n%s", p.logs.String())
	}
	if strings.Contains(p.logs.String(), `"level":"ERROR"`) {
		t.Errorf("errors logged:\n%s", p.logs.String())
	}
}

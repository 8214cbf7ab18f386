//go:build unix

package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fiveonit/engine/transport/websocket"
)

// TestSIGTERM runs the server as a process (this test binary, running
// main: see TestMain) on loopback ports with a WebSocket client in the
// default room, and sends the process a real SIGTERM: the client gets the
// close reason "server shutting down", the room is closed with that
// reason, and the process exits 0 within the drain timeout. (TestDrain
// checks, in-process, that no goroutine is left.)
func TestSIGTERM(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Skip("cannot find the test binary to run as the server:", err)
	}
	const drain = 5 * time.Second
	var logs logBuf
	// Port 0: the process picks free ports and logs them ("serving").
	cmd := exec.Command(self, "-addr", "127.0.0.1:0", "-admin-addr", "127.0.0.1:0", "-level", "test-flat",
		"-rtc=false", "-drain", drain.String(), "-log-level", "info", "-log-format", "json",
		"-secret", "sigterm-test-secret-0123456789", "-data", t.TempDir())
	cmd.Env = append(os.Environ(), asServer+"=1")
	cmd.Stderr = &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	waited := false
	defer func() { // a failed test leaves no process behind
		if !waited {
			cmd.Process.Kill()
			<-exited
		}
	}()

	var serving []map[string]any
	for deadline := time.Now().Add(10 * time.Second); len(serving) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no serving record in the log:\n%s", logs.String())
		}
		serving = logs.records(t, "serving")
	}
	addr, _ := serving[0]["addr"].(string)
	dctx, dcancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer dcancel()
	ws, err := websocket.Dial(dctx, "ws://"+addr+"/rooms/default")
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	welcome(t, "websocket", ws)

	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if r := closeReason(t, "websocket", ws); r != "server shutting down" {
		t.Errorf("closed with %q, want \"server shutting down\"", r)
	}
	ws.Close()
	select {
	case err := <-exited:
		waited = true
		if err != nil {
			t.Fatalf("the server exited with %v (code %d), want 0:\n%s", err, cmd.ProcessState.ExitCode(), logs.String())
		}
	case <-time.After(drain + 2*time.Second):
		t.Fatalf("the server did not exit %s after SIGTERM:\n%s", drain+2*time.Second, logs.String())
	}
	if d := time.Since(start); d > drain {
		t.Errorf("the server took %s to exit, more than the drain timeout %s", d, drain)
	}
	closed := logs.records(t, "room closed")
	if len(closed) != 1 || closed[0]["reason"] != "server shutting down" {
		t.Errorf("room closed records %v, want one with reason server shutting down", closed)
	}
	if len(logs.records(t, "stopped")) != 1 {
		t.Errorf("no stopped record:\n%s", logs.String())
	}
	if strings.Contains(logs.String(), `"level":"ERROR"`) {
		t.Errorf("errors logged:\n%s", logs.String())
	}
}

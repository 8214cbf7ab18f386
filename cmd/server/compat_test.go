package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fiveonit/engine/internal/pgtest"
	"github.com/fiveonit/engine/serve"
	"github.com/fiveonit/engine/textframe"
	"github.com/fiveonit/engine/transport/webrtc"
	"github.com/fiveonit/engine/transport/websocket"
)

// The browser and process tests' helpers while they stay here, beside
// main; they move to e2e in the next commit.

func run(ctx context.Context, c config, ready func(addr, admin string)) error {
	return serve.Run(ctx, c, ready)
}

// asServer is the environment variable that makes the test binary run
// main instead of the tests: TestSIGTERM starts the server as a process
// that way, with no build step.
const asServer = "FOI_TEST_AS_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(asServer) == "1" {
		main() // os.Args[1:] are the server's flags; main exits 1 or 2 on an error
		os.Exit(0)
	}
	code := m.Run()
	stopPostgres()
	os.Exit(code)
}

// The PostgreSQL server of the tests that need one (TestStoreFleet),
// started by the first, stopped by TestMain.
var pg struct {
	once sync.Once
	srv  *pgtest.Server
	err  error
}

func stopPostgres() {
	if pg.srv != nil {
		pg.srv.Stop()
	}
}

// logBuf collects a server's log output; the server writes from many
// goroutines while the test reads.
type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// records decodes the JSON log records (-log-format json) with message msg.
func (l *logBuf) records(t *testing.T, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(l.String()))
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("log line %q is not JSON: %v", sc.Text(), err)
		}
		if rec["msg"] == msg {
			out = append(out, rec)
		}
	}
	return out
}

// reader is what a client's Read returns.
type reader interface {
	Read(ctx context.Context) ([]byte, bool, error)
}

// welcome reads the client's frames up to its first text frame, its
// welcome (over WebRTC a snapshot may come before it: the two data
// channels are not ordered one against the other).
func welcome(t *testing.T, name string, c reader) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		frame, text, err := c.Read(ctx)
		if err == nil && !text {
			continue
		}
		if err != nil || textframe.Type(frame) != "welcome" {
			t.Fatalf("%s: first text frame %.80q err=%v, want the welcome", name, frame, err)
		}
		return
	}
}

// closeReason reads until the connection ends and returns the reason the
// server gave.
func closeReason(t *testing.T, name string, c reader) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		_, _, err := c.Read(ctx)
		if err == nil {
			continue
		}
		var wse *websocket.CloseError
		var rtce *webrtc.CloseError
		switch {
		case errors.As(err, &wse):
			return wse.Reason
		case errors.As(err, &rtce):
			return rtce.Reason
		}
		t.Fatalf("%s: %v, want a close with a reason", name, err)
	}
}

package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fiveonit/engine/textframe"
	"github.com/fiveonit/engine/transport/webrtc"
	"github.com/fiveonit/engine/transport/websocket"
)

// testConfig is a server on loopback ports with the test-flat level, no
// account store, and a fixed secret.
func testConfig() Config {
	return Config{
		Addr: "127.0.0.1:0", AdminAddr: "127.0.0.1:0", Level: "test-flat",
		Secret: "drain-test-secret-0123456789", Grace: time.Second, Drain: 10 * time.Second,
		LogLevel: "warn", LogFormat: "text", RTC: true, RTCIPs: "127.0.0.1", Store: "none",
	}
}

// startRun runs the server in-process, as command server's main does, and
// returns its listeners' addresses and the channel Run's result comes on.
func startRun(t *testing.T, ctx context.Context, c Config) (addr, admin string, errc chan error) {
	t.Helper()
	addrs := make(chan [2]string, 1)
	errc = make(chan error, 1)
	go func() {
		errc <- Run(ctx, c, func(addr, admin string) { addrs <- [2]string{addr, admin} })
	}()
	select {
	case a := <-addrs:
		return a[0], a[1], errc
	case err := <-errc:
		t.Fatal(err)
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not start")
	}
	return "", "", nil
}

// stopRun cancels Run's context and wants Run to return nil within the
// drain timeout.
func stopRun(t *testing.T, cancel context.CancelFunc, errc chan error, drain time.Duration) {
	t.Helper()
	cancel()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(drain + 5*time.Second):
		t.Fatal("run did not return")
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

// metric returns the value of the sample named series (name and labels,
// as the exposition prints them) in body, or -1 when absent.
func metric(body, series string) float64 {
	for _, l := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(l, series+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err == nil {
				return f
			}
		}
	}
	return -1
}

// sessions returns the distinct sessions of the records that carry room
// "default", transport and a session (and, on a join, the remote address).
func sessions(t *testing.T, recs []map[string]any, transport string) map[float64]bool {
	t.Helper()
	out := map[float64]bool{}
	for _, r := range recs {
		s, ok := r["session"].(float64)
		if !ok || r["room"] != "default" || r["transport"] != transport {
			t.Errorf("record %v: want room default, a session and transport %s", r, transport)
			continue
		}
		if _, hasAccount := r["account"]; !hasAccount {
			t.Errorf("record %v: no account", r)
		}
		if r["msg"] == "client joined" && r["remote"] == nil {
			t.Errorf("record %v: no remote", r)
		}
		out[s] = true
	}
	return out
}

// get fetches url without keeping the connection (nothing may outlive the
// test) and returns the status and body.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}
	defer hc.CloseIdleConnections()
	resp, err := hc.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
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

// grep returns body's lines that start with prefix.
func grep(body, prefix string) string {
	var out []string
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

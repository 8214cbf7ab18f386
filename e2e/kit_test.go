package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fiveonit/engine/internal/pgtest"
	"github.com/fiveonit/engine/serve"
	"github.com/fiveonit/engine/textframe"
	"github.com/fiveonit/engine/transport/websocket"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if pg.srv != nil {
		pg.srv.Stop()
	}
	if bin.dir != "" {
		os.RemoveAll(bin.dir)
	}
	os.Exit(code)
}

// startServer runs the server in-process on loopback with level as the
// default room's level, each of opts applied, and returns its address.
// The server drains when the test ends.
func startServer(t *testing.T, level string, opts ...func(*serve.Config)) string {
	t.Helper()
	return startServe(t, level, opts...).Addr()
}

// startServe is startServer that returns the server itself: its admin
// listener's address, its rooms.
func startServe(t *testing.T, level string, opts ...func(*serve.Config)) *serve.Server {
	t.Helper()
	c := serve.DefaultConfig()
	c.Addr, c.AdminAddr, c.Level, c.Drain, c.LogLevel = "127.0.0.1:0", "127.0.0.1:0", level, 3*time.Second, "warn"
	c.RTC, c.RTCIPs, c.Data = true, "127.0.0.1", t.TempDir()
	for _, o := range opts {
		o(&c)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := serve.Start(ctx, c)
	if err != nil {
		t.Fatalf("server did not start: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Shutdown(); err != nil {
			t.Errorf("server: %v", err)
		}
	})
	return s
}

// withDebug honours every client's debug commands (-debug).
func withDebug(c *serve.Config) { c.Debug = true }

// withGame makes name the rooms' game (-game).
func withGame(name string) func(*serve.Config) {
	return func(c *serve.Config) { c.Game = name }
}

// bin is command server, built once per test binary by serverBinary.
var bin struct {
	once sync.Once
	dir  string // removed by TestMain
	path string
	err  error
}

// serverBinary returns the path of command server built from this tree,
// with the race detector when this test binary has it; the first call
// builds it.
func serverBinary(t *testing.T) string {
	t.Helper()
	bin.once.Do(func() {
		gobin, err := exec.LookPath("go")
		if err != nil {
			bin.err = errors.New("no go command on PATH to build the server with")
			return
		}
		if bin.dir, bin.err = os.MkdirTemp("", "foi-e2e-"); bin.err != nil {
			return
		}
		bin.path = filepath.Join(bin.dir, "server")
		args := []string{"build", "-o", bin.path}
		if raceEnabled() {
			args = append(args, "-race")
		}
		cmd := exec.Command(gobin, append(args, "./cmd/server")...)
		cmd.Dir = ".." // the module's root
		if out, err := cmd.CombinedOutput(); err != nil {
			bin.err = fmt.Errorf("go build ./cmd/server: %w\n%s", err, out)
		}
	})
	if bin.err != nil {
		t.Fatal(bin.err)
	}
	return bin.path
}

// raceEnabled reports whether this test binary was built with -race.
func raceEnabled() bool {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range info.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

// proc is command server run as a process.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	logs   *logBuf // its stderr: the JSON log
	addr   string  // the public listener's, from the serving record
	exited chan error
	done   bool  // exited has been read
	err    error // what it gave
}

// startBinary runs command server on loopback ports with WebRTC off, a 5 s
// drain and JSON logs at info, then the flags of more (a flag given twice
// takes the last value), and waits up to 20 s for it to serve. The
// process is killed when the test ends, if still running.
func startBinary(t *testing.T, more ...string) *proc {
	t.Helper()
	p := &proc{t: t, logs: &logBuf{}, exited: make(chan error, 1)}
	// Port 0: the process picks free ports and logs them ("serving").
	args := []string{"-addr", "127.0.0.1:0", "-admin-addr", "127.0.0.1:0",
		"-rtc=false", "-drain", "5s", "-log-level", "info", "-log-format", "json"}
	p.cmd = exec.Command(serverBinary(t), append(args, more...)...)
	p.cmd.Stderr = p.logs
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exited <- p.cmd.Wait() }()
	t.Cleanup(func() { // a failed test leaves no process behind
		if !p.done {
			p.cmd.Process.Kill()
			p.wait(time.Minute)
		}
	})
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if recs := p.logs.records(t, "serving"); len(recs) > 0 {
			p.addr, _ = recs[0]["addr"].(string)
			return p
		}
		select {
		case p.err = <-p.exited:
			p.done = true
			t.Fatalf("the server exited at start: %v\n%s", p.err, p.logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not serve:\n%s", p.logs.String())
		}
	}
}

// wait waits up to d for the process to exit: whether it has, and its
// Wait's error (nil for exit code 0).
func (p *proc) wait(d time.Duration) (exited bool, err error) {
	if !p.done {
		select {
		case p.err = <-p.exited:
			p.done = true
		case <-time.After(d):
		}
	}
	return p.done, p.err
}

// stop sends sig and waits for the process to end; for SIGTERM it wants
// exit code 0.
func (p *proc) stop(sig syscall.Signal) {
	p.t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatal(err)
	}
	exited, err := p.wait(10 * time.Second)
	if !exited {
		p.t.Fatalf("the server did not exit on %v", sig)
	}
	if sig == syscall.SIGTERM && err != nil {
		p.t.Fatalf("exit after SIGTERM: %v\n%s", err, p.logs.String())
	}
}

// The PostgreSQL server of the tests that need one (TestStoreFleet),
// started by the first, stopped by TestMain.
var pg struct {
	once sync.Once
	srv  *pgtest.Server
	err  error
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

// closeReason reads until the WebSocket ends and returns the reason the
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
		if wse := (*websocket.CloseError)(nil); errors.As(err, &wse) {
			return wse.Reason
		}
		t.Fatalf("%s: %v, want a close with a reason", name, err)
	}
}

// proxy is a TCP proxy in front of the server for one page: the test
// cuts the page's connections through it as a network that fails does
// (the TCP connections end with no WebSocket close frame: the page's
// socket closes with 1006, the server's read fails), and keeps the
// network down until restore.
type proxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  []net.Conn
	down   bool
}

// newProxy listens on loopback and forwards to target until the test
// ends.
func newProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target}
	t.Cleanup(func() {
		ln.Close()
		p.cut()
	})
	go p.serve()
	return p
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

func (p *proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		down := p.down
		p.mu.Unlock()
		if down {
			drop(c)
			continue
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			drop(c)
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		go pipe(c, s)
		go pipe(s, c)
	}
}

// pipe copies from src to dst until either ends, then ends both.
func pipe(dst, src net.Conn) {
	io.Copy(dst, src)
	dst.Close()
	src.Close()
}

// drop ends c at once, with a reset: a network that fails.
func drop(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	c.Close()
}

// cut ends every connection through the proxy and refuses new ones until
// restore.
func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for _, c := range p.conns {
		drop(c)
	}
	p.conns = nil
}

// restore lets connections through again.
func (p *proxy) restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
}

// Command server runs the game server: the default room on the embedded
// main-city level from start, more rooms on demand, the web page at /, and
// an admin listener (pprof, metrics) on 127.0.0.1.
//
//	go run ./cmd/server
//
// Every flag has an environment variable that sets its default; the README
// lists them.
package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fiveonit/engine/rooms"
	"github.com/fiveonit/engine/transport/websocket"
)

// config is the server's settings, from flags and the environment.
type config struct {
	addr, adminAddr string
	level           string
	secret          string
	origins         string
	anyOrigin       bool
	debug           bool
	grace           time.Duration
	drain           time.Duration
	logLevel        string
}

func env(key, def string) string {
	if v, ok := os.LookupEnv(key); ok {
		return v
	}
	return def
}

func envBool(key string, def bool) bool {
	if v, ok := os.LookupEnv(key); ok {
		b, err := strconv.ParseBool(v)
		return err == nil && b
	}
	return def
}

func envDuration(key string, def time.Duration) time.Duration {
	if v, ok := os.LookupEnv(key); ok {
		if d, err := time.ParseDuration(v); err == nil {
			return d
		}
	}
	return def
}

func parseFlags(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.StringVar(&c.addr, "addr", env("FOI_ADDR", ":8080"), "game and web listener (env FOI_ADDR)")
	fs.StringVar(&c.adminAddr, "admin-addr", env("FOI_ADMIN_ADDR", "127.0.0.1:6060"), "admin listener: /metrics and /debug/pprof (env FOI_ADMIN_ADDR)")
	fs.StringVar(&c.level, "level", env("FOI_LEVEL", "main-city"), "the default room's level (env FOI_LEVEL)")
	fs.StringVar(&c.secret, "secret", env("FOI_SECRET", ""), "join token secret, at least 16 bytes; empty: a random one for this run (env FOI_SECRET)")
	fs.StringVar(&c.origins, "origins", env("FOI_ORIGINS", ""), "comma-separated browser origins allowed besides the same origin (env FOI_ORIGINS)")
	fs.BoolVar(&c.anyOrigin, "any-origin", envBool("FOI_ANY_ORIGIN", false), "allow WebSocket joins from any origin, for development (env FOI_ANY_ORIGIN)")
	fs.BoolVar(&c.debug, "debug", envBool("FOI_DEBUG", false), "honour every client's debug commands (env FOI_DEBUG=1)")
	fs.DurationVar(&c.grace, "grace", envDuration("FOI_GRACE", 30*time.Second), "how long an empty room other than the default stays open (env FOI_GRACE)")
	fs.DurationVar(&c.drain, "drain", envDuration("FOI_DRAIN", 5*time.Second), "how long a shutdown waits for rooms and connections (env FOI_DRAIN)")
	fs.StringVar(&c.logLevel, "log-level", env("FOI_LOG_LEVEL", "info"), "debug, info, warn or error (env FOI_LOG_LEVEL)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	return c, nil
}

func main() {
	c, err := parseFlags(os.Args[1:])
	if err != nil {
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, c, nil); err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
}

// run serves until ctx ends, then drains. ready, if set, gets the
// listeners' addresses once they listen (tests use it).
func run(ctx context.Context, c config, ready func(addr, admin string)) error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.logLevel)); err != nil {
		return fmt.Errorf("-log-level: %w", err)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	secret := []byte(c.secret)
	if len(secret) == 0 {
		secret = make([]byte, 32)
		rand.Read(secret)
		log.Warn("no -secret (FOI_SECRET): join tokens are signed with a random secret for this run only")
	} else if len(secret) < 16 {
		return errors.New("-secret must be at least 16 bytes")
	}
	m, err := rooms.NewManager(rooms.Config{DefaultLevel: c.level, Grace: c.grace, Debug: c.debug, Log: log})
	if err != nil {
		return err
	}
	var origins []string
	for _, o := range strings.Split(c.origins, ",") {
		if o = strings.TrimSpace(o); o != "" {
			origins = append(origins, o)
		}
	}
	mux := http.NewServeMux()
	mux.Handle("/rooms", m.Handler(rooms.HTTPConfig{Secret: secret, WebSocket: websocket.Options{OriginPatterns: origins, AnyOrigin: c.anyOrigin}}))
	mux.Handle("/rooms/", m.Handler(rooms.HTTPConfig{Secret: secret, WebSocket: websocket.Options{OriginPatterns: origins, AnyOrigin: c.anyOrigin}}))
	mux.Handle("/levels/", m.Handler(rooms.HTTPConfig{Secret: secret}))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "fiveonit engine: GET /rooms lists the rooms; join one with a WebSocket at /rooms/{name}")
	})

	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return err
	}
	aln, err := net.Listen("tcp", c.adminAddr)
	if err != nil {
		ln.Close()
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	admin := &http.Server{Handler: adminMux(), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(ln) }()
	go func() { errc <- admin.Serve(aln) }()
	log.Info("serving", "addr", ln.Addr().String(), "admin", aln.Addr().String(), "level", c.level)
	if ready != nil {
		ready(ln.Addr().String(), aln.Addr().String())
	}
	select {
	case <-ctx.Done():
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			log.Error("listener failed", "err", err)
		}
	}
	log.Info("shutting down", "drain", c.drain)
	dctx, cancel := context.WithTimeout(context.Background(), c.drain)
	defer cancel()
	rerr := m.Shutdown(dctx, "server shutting down")
	srv.Shutdown(dctx)
	admin.Shutdown(dctx)
	srv.Close()
	admin.Close()
	if rerr != nil {
		return fmt.Errorf("rooms did not stop in %s: %w", c.drain, rerr)
	}
	log.Info("stopped")
	return nil
}

// adminMux serves pprof (the admin listener only: 127.0.0.1 by default).
func adminMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

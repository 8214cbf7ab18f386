package serve

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/fiveonit/engine/store"
)

// StallAfter is how long a room may go without running its ticks (60 a
// second) before the process is unhealthy: a stuck room is a stuck
// process.
const StallAfter = time.Second

// pingEvery and pingTimeout bound what readiness costs the store: one
// ping per second at most, each waited for at most one second.
const (
	pingEvery   = time.Second
	pingTimeout = time.Second
)

// check is one check of /healthz or /readyz: its name, and why it fails
// ("" when it passes).
type check struct {
	name, failed string
}

// liveness is /healthz's check: every room runs its ticks.
func (s *Server) liveness() []check {
	c := check{name: "rooms"}
	if st := s.rooms.Stalled(StallAfter); len(st) > 0 {
		var b strings.Builder
		for i, r := range st {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "room %s has not ticked for %v", r.Room, r.For.Round(time.Millisecond))
		}
		c.failed = b.String()
	}
	return []check{c}
}

// healthy reports whether /healthz passes.
func (s *Server) healthy() bool { return passes(s.liveness()) }

// readiness is /readyz's checks: started, not draining, the store
// answers, and the rooms run.
func (s *Server) readiness() []check {
	started := check{name: "started"}
	if !s.started.Load() {
		started.failed = "the server is starting"
	}
	draining := check{name: "draining"}
	if s.draining.Load() {
		draining.failed = "the server is draining: it takes no new player"
	}
	st := check{name: "store"}
	if err := s.pingStore(); err != nil {
		st.failed = "the account store does not answer: " + err.Error()
	}
	return append([]check{started, draining, st}, s.liveness()...)
}

// pingStore asks the store whether it answers, at most once per pingEvery
// (a probe in between gets the last answer): nil without a store, or with
// one that cannot say (store.Pinger).
func (s *Server) pingStore() error {
	p, ok := s.store.(store.Pinger)
	if !ok {
		return nil
	}
	s.pingMu.Lock()
	defer s.pingMu.Unlock()
	if time.Since(s.pingAt) < pingEvery && !s.pingAt.IsZero() {
		return s.pingErr
	}
	ctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
	defer cancel()
	s.pingErr = p.Ping(ctx)
	s.pingAt = time.Now()
	return s.pingErr
}

// failures writes the checks that fail, "name: reason; ...".
func failures(cs []check) string {
	var parts []string
	for _, c := range cs {
		if c.failed != "" {
			parts = append(parts, c.name+": "+c.failed)
		}
	}
	return strings.Join(parts, "; ")
}

func passes(cs []check) bool {
	for _, c := range cs {
		if c.failed != "" {
			return false
		}
	}
	return true
}

// probe serves a Kubernetes health endpoint (what is "healthz" or
// "readyz"): 200 "ok" when every check passes, else 503 with a line per
// check that fails, "[-]name failed: reason", and "what check failed"
// last. With ?verbose every check has its line, "[+]name ok" for those
// that pass, as the Kubernetes API server writes them.
func probe(what string, checks func() []check) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cs := checks()
		ok := passes(cs)
		_, verbose := r.URL.Query()["verbose"]
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if ok && !verbose {
			w.Write([]byte("ok"))
			return
		}
		var b strings.Builder
		for _, c := range cs {
			switch {
			case c.failed != "":
				fmt.Fprintf(&b, "[-]%s failed: %s\n", c.name, c.failed)
			case verbose:
				fmt.Fprintf(&b, "[+]%s ok\n", c.name)
			}
		}
		if ok {
			fmt.Fprintf(&b, "%s check passed\n", what)
		} else {
			fmt.Fprintf(&b, "%s check failed\n", what)
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		w.Write([]byte(b.String()))
	})
}

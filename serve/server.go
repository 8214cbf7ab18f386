package serve

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fiveonit/engine/fleet/directory"
	"github.com/fiveonit/engine/jointoken"
	"github.com/fiveonit/engine/metrics"
	"github.com/fiveonit/engine/rooms"
	"github.com/fiveonit/engine/store"
	"github.com/fiveonit/engine/transport/webrtc"
)

// The HTTP servers' bounds on a connection: its request's headers must come
// within readHeaderTimeout, and a keep-alive connection waiting for its
// next request is closed after idleTimeout (Go's default is never: idle
// connections would pile up, a goroutine and buffers each). A WebSocket,
// once upgraded, is the transport's; a WebRTC offer's body has its own
// bound (rooms).
const (
	readHeaderTimeout = 10 * time.Second
	idleTimeout       = 2 * time.Minute
)

// Server is a running server, from Start to Shutdown.
type Server struct {
	c      Config
	log    *slog.Logger
	met    *metrics.Metrics
	secret []byte // the HS256 join tokens', nil when -jwt-algs takes no HS256
	tokens *jointoken.Verifier
	keys   *jointoken.KeySet // the platform's public keys (-jwt-keys), or nil

	store    store.Store     // nil with Store "none"
	where    string          // the store's place, for the log
	accounts *store.Accounts // nil with Store "none"
	rooms    *rooms.Manager
	// ready is rooms once made, for the directory's heartbeat, which
	// starts before them.
	ready atomic.Pointer[rooms.Manager]
	dir   *directory.Directory // the fleet's room directory, or nil
	rtc   *webrtc.Transport    // nil with RTC false

	// started is set once both listeners serve and the rooms take
	// players; draining once a shutdown begins (/readyz).
	started, draining atomic.Bool
	// The store's last ping (pingStore).
	pingMu  sync.Mutex
	pingAt  time.Time
	pingErr error
	// fleet is the link to Agones, nil when off (agones.go); players the
	// players of each room, kept for it (nil when off).
	fleet   *fleetLink
	players *playerBook

	// handlers counts the public listener's requests being served
	// (publicHandler).
	handlers      sync.WaitGroup
	ln, adminLn   net.Listener
	public, admin *http.Server
	errc          chan error // each listener's Serve's result
}

// Run serves c until ctx ends, then drains: the players' part (Drain,
// within Config.DrainTimeout), then the rest (Shutdown, within
// Config.Drain). ready, if set, gets the listeners' addresses once they
// listen (tests use it).
func Run(ctx context.Context, c Config, ready func(addr, admin string)) error {
	s, err := Start(ctx, c)
	if err != nil {
		return err
	}
	if ready != nil {
		ready(s.Addr(), s.AdminAddr())
	}
	s.Wait(ctx)
	s.Drain()
	return s.Shutdown()
}

// Start checks c, sets up the logging, opens the account store, starts the
// rooms and the transports, and serves both listeners. ctx bounds the
// start alone (the store's opening); Shutdown ends the serving. On an
// error it undoes what it started.
func Start(ctx context.Context, c Config) (*Server, error) {
	if err := c.check(); err != nil {
		return nil, settingError{err}
	}
	log, err := newLogger(c)
	if err != nil {
		return nil, err
	}
	rtcOpts, err := c.rtcOptions()
	if err != nil {
		return nil, err
	}
	secret, err := c.joinSecret(log)
	if err != nil {
		return nil, err
	}
	soc, err := c.social(log)
	if err != nil {
		return nil, err
	}
	s := &Server{c: c, log: log, met: metrics.New(), secret: secret, errc: make(chan error, 2)}
	fleet, err := s.newFleetLink()
	if err != nil {
		return nil, err
	}
	if err := s.openTokens(ctx); err != nil {
		return nil, err
	}
	// The listeners first: the directory gives the public one's address.
	// Nothing is served on them before the end of the start.
	if err := s.listen(); err != nil {
		s.closeTokens()
		return nil, err
	}
	if err := s.openAccounts(ctx); err != nil {
		s.abort()
		return nil, err
	}
	if err := s.openDirectory(ctx); err != nil {
		s.abort()
		return nil, err
	}
	if err := s.startRooms(soc); err != nil {
		s.abort()
		return nil, err
	}
	if err := s.startWebRTC(rtcOpts); err != nil {
		s.abort()
		return nil, err
	}
	s.serve(s.publicHandler())
	s.started.Store(true)
	agonesAt := "off"
	if fleet != nil {
		agonesAt = fleet.c.Address()
	}
	s.log.Info("serving", "addr", s.Addr(), "admin", s.AdminAddr(), "default_level", c.Level, "default_game", c.Game, "webrtc", c.RTC,
		"store", s.where, "jwt_algs", c.JWTAlgs, "agones", agonesAt)
	if fleet != nil {
		s.fleet = fleet
		fleet.start() // Ready once the rooms take players: now
	}
	return s, nil
}

// Addr returns the public listener's address.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// AdminAddr returns the admin listener's address.
func (s *Server) AdminAddr() string { return s.adminLn.Addr().String() }

// Rooms returns the server's room manager: a program that runs the server
// in its own process makes run rooms through it (MakeRun, with a run
// mission of its own in RunSpec.Def) rather than the admin listener's
// routes, which know only the games' run missions. The browser tests do.
func (s *Server) Rooms() *rooms.Manager { return s.rooms }

// Wait returns when ctx ends or a listener fails, which it logs.
func (s *Server) Wait(ctx context.Context) {
	select {
	case <-ctx.Done():
	case err := <-s.errc:
		if !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("listener failed", "err", err)
		}
	}
}

// listen opens both listeners, or neither.
func (s *Server) listen() error {
	ln, err := net.Listen("tcp", s.c.Addr)
	if err != nil {
		return err
	}
	aln, err := net.Listen("tcp", s.c.AdminAddr)
	if err != nil {
		ln.Close()
		return err
	}
	s.ln, s.adminLn = ln, aln
	return nil
}

// serve serves public on the public listener and adminMux on the admin
// one, each in its goroutine.
func (s *Server) serve(public http.Handler) {
	s.public = &http.Server{Handler: public, ReadHeaderTimeout: readHeaderTimeout, IdleTimeout: idleTimeout}
	admin := adminMux(s.met, s.secret, s.rooms, s.c.AdminToken)
	admin.Handle("GET /healthz", probe("healthz", s.liveness))
	admin.Handle("GET /readyz", probe("readyz", s.readiness))
	s.admin = &http.Server{Handler: admin, ReadHeaderTimeout: readHeaderTimeout, IdleTimeout: idleTimeout}
	go func() { s.errc <- s.public.Serve(s.ln) }()
	go func() { s.errc <- s.admin.Serve(s.adminLn) }()
}

// abort undoes a start that failed before serving: the rooms, the
// directory, the accounts, the store and the listeners, whichever are
// open.
func (s *Server) abort() {
	if s.rooms != nil {
		s.rooms.Shutdown(context.Background(), "server failed to start")
	}
	ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
	defer cancel()
	s.closeDirectory(ctx)
	closeAccounts(s.accounts)
	if s.store != nil {
		s.store.Close()
	}
	s.closeTokens()
	s.ln.Close()
	s.adminLn.Close()
}

package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fiveonit/engine/games"
	"github.com/fiveonit/engine/internal/envflag"
	"github.com/fiveonit/engine/jointoken"
	"github.com/fiveonit/engine/metrics"
	"github.com/fiveonit/engine/rooms"
	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/social/httpmod"
	"github.com/fiveonit/engine/store"
	"github.com/fiveonit/engine/transport/webrtc"
	"github.com/fiveonit/engine/transport/websocket"
	"github.com/fiveonit/engine/web"
)

// config is the server's settings, from flags and the environment.
type config struct {
	addr, adminAddr string
	level           string
	game            string
	secret          string
	origins         string
	anyOrigin       bool
	debug           bool
	debugAccounts   string
	chatWords       string
	moderationURL   string
	moderationWait  time.Duration
	grace           time.Duration
	maxRooms        int
	maxRoomsFrom    int
	maxPlayers      int
	maxPlayersFrom  int
	drain           time.Duration
	logLevel        string
	logFormat       string
	rtc             bool
	rtcIPs          string
	rtcPublicIPs    string
	rtcPorts        string
	data            string
	store           string
	// logTo is where the logs go; nil is stderr. Not a flag: the tests
	// set it to read the records back.
	logTo io.Writer
}

// envFlags pairs each flag with the environment variable that sets its
// default (a slice, not a map: the order the errors come in is fixed).
var envFlags = [][2]string{
	{"addr", "FOI_ADDR"},
	{"admin-addr", "FOI_ADMIN_ADDR"},
	{"level", "FOI_LEVEL"},
	{"game", "FOI_GAME"},
	{"secret", "FOI_SECRET"},
	{"origins", "FOI_ORIGINS"},
	{"any-origin", "FOI_ANY_ORIGIN"},
	{"debug", "FOI_DEBUG"},
	{"debug-accounts", "FOI_DEBUG_ACCOUNTS"},
	{"chat-words", "FOI_CHAT_WORDS"},
	{"moderation-url", "FOI_MODERATION_URL"},
	{"moderation-timeout", "FOI_MODERATION_TIMEOUT"},
	{"grace", "FOI_GRACE"},
	{"max-rooms", "FOI_MAX_ROOMS"},
	{"max-rooms-from", "FOI_MAX_ROOMS_FROM"},
	{"max-players", "FOI_MAX_PLAYERS"},
	{"max-players-from", "FOI_MAX_PLAYERS_FROM"},
	{"drain", "FOI_DRAIN"},
	{"log-level", "FOI_LOG_LEVEL"},
	{"log-format", "FOI_LOG_FORMAT"},
	{"rtc", "FOI_RTC"},
	{"rtc-ips", "FOI_RTC_IPS"},
	{"rtc-public-ips", "FOI_RTC_PUBLIC_IPS"},
	{"rtc-ports", "FOI_RTC_PORTS"},
	{"data", "FOI_DATA"},
	{"store", "FOI_STORE"},
}

// parseFlags reads the flags in args over the environment's defaults
// (envflag.Set). A value that does not parse, from either, is an error.
func parseFlags(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.StringVar(&c.addr, "addr", ":8080", "game and web listener (env FOI_ADDR)")
	fs.StringVar(&c.adminAddr, "admin-addr", "127.0.0.1:6060", "admin listener: /metrics and /debug/pprof (env FOI_ADMIN_ADDR)")
	fs.StringVar(&c.level, "level", "main-city", "the default room's level (env FOI_LEVEL)")
	fs.StringVar(&c.game, "game", games.Default, fmt.Sprintf("the default room's game, and a new room's when its join names none: %s (env FOI_GAME)", strings.Join(games.Names(), ", ")))
	fs.StringVar(&c.secret, "secret", "", "join token secret, at least 16 bytes; empty: a random one for this run (env FOI_SECRET)")
	fs.StringVar(&c.origins, "origins", "", "comma-separated browser origins allowed besides the same origin (env FOI_ORIGINS)")
	fs.BoolVar(&c.anyOrigin, "any-origin", false, "allow WebSocket joins from any origin, for development (env FOI_ANY_ORIGIN)")
	fs.BoolVar(&c.debug, "debug", false, "honour every client's debug commands (env FOI_DEBUG=1)")
	fs.StringVar(&c.debugAccounts, "debug-accounts", "", "comma-separated accounts whose debug commands are honoured in every room (env FOI_DEBUG_ACCOUNTS)")
	fs.StringVar(&c.chatWords, "chat-words", "", "a file of words the chat refuses, one per line, # for comments (env FOI_CHAT_WORDS)")
	fs.StringVar(&c.moderationURL, "moderation-url", "", "a moderation service each chat message is POSTed to, failing closed; empty: the word list alone (env FOI_MODERATION_URL)")
	fs.DurationVar(&c.moderationWait, "moderation-timeout", httpmod.DefaultTimeout, "how long a chat message waits for the moderation service before it is refused (env FOI_MODERATION_TIMEOUT)")
	fs.DurationVar(&c.grace, "grace", 30*time.Second, "how long an empty room other than the default stays open (env FOI_GRACE)")
	fs.IntVar(&c.maxRooms, "max-rooms", 64, "the most rooms open at once, the default room among them; a join that would open one more is refused (env FOI_MAX_ROOMS)")
	fs.IntVar(&c.maxRoomsFrom, "max-rooms-from", 8, "the most rooms open at once that joins from one address made; a join that would make one more is refused (env FOI_MAX_ROOMS_FROM)")
	fs.IntVar(&c.maxPlayers, "max-players", server.MaxPlayers, fmt.Sprintf("the most players per room, at most %d; a join to a full room is refused (env FOI_MAX_PLAYERS)", server.MaxPlayers))
	fs.IntVar(&c.maxPlayersFrom, "max-players-from", server.MaxPlayers, "the most players joined from one address in all rooms together; a join past it is refused (env FOI_MAX_PLAYERS_FROM)")
	fs.DurationVar(&c.drain, "drain", 5*time.Second, "how long a shutdown waits for rooms and connections (env FOI_DRAIN)")
	fs.StringVar(&c.logLevel, "log-level", "info", "debug, info, warn or error (env FOI_LOG_LEVEL)")
	fs.StringVar(&c.logFormat, "log-format", "text", "text (logfmt) or json (env FOI_LOG_FORMAT)")
	fs.BoolVar(&c.rtc, "rtc", true, "serve WebRTC joins at POST /rooms/{name}/rtc (env FOI_RTC)")
	fs.StringVar(&c.rtcIPs, "rtc-ips", "", "comma-separated local IPs WebRTC gathers host candidates on; empty: every interface's and loopback (env FOI_RTC_IPS)")
	fs.StringVar(&c.rtcPublicIPs, "rtc-public-ips", "", "comma-separated public IPs announced instead of the host candidates', behind a 1:1 NAT (env FOI_RTC_PUBLIC_IPS)")
	fs.StringVar(&c.rtcPorts, "rtc-ports", "", "UDP port range MIN-MAX for WebRTC; empty: ephemeral ports (env FOI_RTC_PORTS)")
	fs.StringVar(&c.data, "data", "data", "directory of the account store's SQLite file, accounts.db, made if missing (env FOI_DATA)")
	fs.StringVar(&c.store, "store", "", "account store: empty for SQLite in -data, a postgres:// URL for PostgreSQL, none to keep nothing (env FOI_STORE)")
	if err := envflag.Set(fs, envFlags); err != nil {
		return c, err
	}
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	return c, nil
}

func main() {
	c, err := parseFlags(os.Args[1:])
	if err != nil {
		if err != flag.ErrHelp {
			fmt.Fprintln(os.Stderr, "server:", err)
		}
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, c, nil); err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
}

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

// run serves until ctx ends, then drains. ready, if set, gets the
// listeners' addresses once they listen (tests use it).
func run(ctx context.Context, c config, ready func(addr, admin string)) error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.logLevel)); err != nil {
		return fmt.Errorf("-log-level: %w", err)
	}
	if c.maxRooms < 0 {
		return fmt.Errorf("-max-rooms %d: a number of rooms, the default room among them (0: 64)", c.maxRooms)
	}
	if c.maxRoomsFrom < 0 {
		return fmt.Errorf("-max-rooms-from %d: a number of rooms (0: 8)", c.maxRoomsFrom)
	}
	if c.maxPlayers < 0 || c.maxPlayers > server.MaxPlayers {
		return fmt.Errorf("-max-players %d: a number of players, at most %d (0: %d)", c.maxPlayers, server.MaxPlayers, server.MaxPlayers)
	}
	if c.game == "" {
		c.game = games.Default
	}
	if _, err := games.Lookup(c.game); err != nil {
		return fmt.Errorf("-game: %w", err)
	}
	if c.maxPlayersFrom < 0 {
		return fmt.Errorf("-max-players-from %d: a number of players (0: %d)", c.maxPlayersFrom, server.MaxPlayers)
	}
	var out io.Writer = os.Stderr
	if c.logTo != nil {
		out = c.logTo
	}
	var log *slog.Logger
	switch c.logFormat {
	case "text":
		log = slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: level}))
	case "json":
		log = slog.New(slog.NewJSONHandler(out, &slog.HandlerOptions{Level: level}))
	default:
		return fmt.Errorf("-log-format %q: text or json", c.logFormat)
	}
	rtcOpts, err := c.rtcOptions()
	if err != nil {
		return err
	}
	rtcOpts.Log = log.With("transport", "webrtc")
	secret := []byte(c.secret)
	if len(secret) == 0 {
		secret = make([]byte, 32)
		rand.Read(secret)
		log.Warn("no -secret (FOI_SECRET): join tokens are signed with a random secret for this run only")
	} else if len(secret) < 16 {
		return errors.New("-secret must be at least 16 bytes")
	}
	soc, err := c.social(log)
	if err != nil {
		return err
	}
	met := metrics.New()
	st, where, err := openStore(ctx, c)
	if err != nil {
		return err
	}
	var accounts *store.Accounts
	if st != nil {
		written, stats := met.Store()
		accounts = store.NewAccounts(st, store.AccountsConfig{Log: log, Written: written})
		stats(accounts.Stats)
		defer st.Close()
	}
	m, err := rooms.NewManager(rooms.Config{DefaultLevel: c.level, DefaultGame: c.game, Grace: c.grace, MaxRooms: c.maxRooms, MaxRoomsFrom: c.maxRoomsFrom, MaxPlayers: c.maxPlayers, MaxPlayersFrom: c.maxPlayersFrom, Debug: c.debug, Log: log,
		DebugAccounts: list(c.debugAccounts), Social: soc, Accounts: accounts,
		Observe: func(r *rooms.Room) rooms.RoomObserver { return roomMetrics{met.Room(r.Name)} }})
	if err != nil {
		closeAccounts(accounts)
		return err
	}
	var rtc *webrtc.Transport
	if c.rtc {
		if rtc, err = webrtc.New(rtcOpts); err != nil {
			m.Shutdown(context.Background(), "server failed to start")
			closeAccounts(accounts)
			return err
		}
		met.Pending("webrtc", rtc.Pending)
	}
	routes := m.Handler(rooms.HTTPConfig{
		Secret:    secret,
		WebSocket: websocket.Options{OriginPatterns: list(c.origins), AnyOrigin: c.anyOrigin},
		WebRTC:    rtc,
		Refused:   met.Refused,
		Track: func(transport string, counts func() rooms.Counts) func() {
			return met.Track(transport, func() metrics.Counts { return metrics.Counts(counts()) })
		},
	})
	mux := http.NewServeMux()
	mux.Handle("/rooms", routes)
	mux.Handle("/rooms/", routes)
	mux.Handle("/levels/", routes)
	mux.Handle("/games", routes)
	mux.Handle("/", web.Handler()) // the page at / and its files; the routes above win
	// handlers counts the requests being served, the WebSocket joins
	// (hijacked: http.Server.Shutdown does not wait for them) included.
	var handlers sync.WaitGroup
	public := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handlers.Add(1)
		defer handlers.Done()
		mux.ServeHTTP(w, r)
	})

	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		m.Shutdown(context.Background(), "server failed to start")
		closeAccounts(accounts)
		return err
	}
	aln, err := net.Listen("tcp", c.adminAddr)
	if err != nil {
		ln.Close()
		m.Shutdown(context.Background(), "server failed to start")
		closeAccounts(accounts)
		return err
	}
	srv := &http.Server{Handler: public, ReadHeaderTimeout: readHeaderTimeout, IdleTimeout: idleTimeout}
	admin := &http.Server{Handler: adminMux(met, secret), ReadHeaderTimeout: readHeaderTimeout, IdleTimeout: idleTimeout}
	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(ln) }()
	go func() { errc <- admin.Serve(aln) }()
	log.Info("serving", "addr", ln.Addr().String(), "admin", aln.Addr().String(), "default_level", c.level, "default_game", c.game, "webrtc", c.rtc, "store", where)
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
	const reason = "server shutting down"
	rerr := m.Shutdown(dctx, reason)
	// The rooms closed have posted every player's last state: write it.
	if accounts != nil {
		if err := accounts.Close(dctx); err != nil && rerr == nil {
			rerr = err
		}
	}
	if rtc != nil {
		if err := rtc.Shutdown(dctx, reason); err != nil && rerr == nil {
			rerr = err
		}
	}
	srv.Shutdown(dctx)
	admin.Shutdown(dctx)
	if err := wait(dctx, &handlers); err != nil && rerr == nil {
		rerr = fmt.Errorf("connections still open: %w", err)
	}
	srv.Close()
	admin.Close()
	if rerr != nil {
		return fmt.Errorf("did not drain in %s: %w", c.drain, rerr)
	}
	log.Info("stopped")
	return nil
}

// wait waits for wg, or for ctx.
func wait(ctx context.Context, wg *sync.WaitGroup) error {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// rtcOptions reads the WebRTC flags.
func (c config) rtcOptions() (webrtc.Options, error) {
	o := webrtc.Options{Loopback: true}
	for _, s := range list(c.rtcIPs) {
		ip := net.ParseIP(s)
		if ip == nil {
			return o, fmt.Errorf("-rtc-ips: %q is not an IP", s)
		}
		o.IPs = append(o.IPs, ip)
	}
	for _, s := range list(c.rtcPublicIPs) {
		if net.ParseIP(s) == nil {
			return o, fmt.Errorf("-rtc-public-ips: %q is not an IP", s)
		}
		o.PublicIPs = append(o.PublicIPs, s)
	}
	if c.rtcPorts != "" {
		lo, hi, ok := strings.Cut(c.rtcPorts, "-")
		pmin, err1 := strconv.ParseUint(lo, 10, 16)
		pmax, err2 := strconv.ParseUint(hi, 10, 16)
		if !ok || err1 != nil || err2 != nil || pmin == 0 || pmax < pmin {
			return o, fmt.Errorf("-rtc-ports %q: want MIN-MAX, 1 <= MIN <= MAX <= 65535", c.rtcPorts)
		}
		o.PortMin, o.PortMax = uint16(pmin), uint16(pmax)
	}
	return o, nil
}

// social reads the chat's flags: the word list's file and the moderation
// service.
func (c config) social(log *slog.Logger) (server.SocialConfig, error) {
	var sc server.SocialConfig
	if c.chatWords != "" {
		b, err := os.ReadFile(c.chatWords)
		if err != nil {
			return sc, fmt.Errorf("-chat-words: %w", err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				sc.Words = append(sc.Words, l)
			}
		}
	}
	if c.moderationURL != "" {
		u, err := url.Parse(c.moderationURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return sc, fmt.Errorf("-moderation-url %q: an http or https URL", c.moderationURL)
		}
		if c.moderationWait <= 0 {
			return sc, fmt.Errorf("-moderation-timeout %s: a duration above 0", c.moderationWait)
		}
		sc.Moderator = httpmod.New(c.moderationURL, httpmod.Options{Timeout: c.moderationWait, Log: log.With("moderation", c.moderationURL)})
	}
	return sc, nil
}

// list splits a comma-separated flag, dropping blanks.
func list(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// roomMetrics publishes a room's metrics from its goroutine.
type roomMetrics struct{ m *metrics.Room }

func (o roomMetrics) Ticked(r *rooms.Room) { o.m.Observe(r.Server(), r.LastTick(), r.Overruns()) }
func (o roomMetrics) Closed(*rooms.Room)   { o.m.Close() }

// adminMux serves the metrics, pprof and the join tokens (POST /tokens,
// jointoken.Handler): the admin listener only (127.0.0.1 by default), never
// the public one.
func adminMux(met *metrics.Metrics, secret []byte) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", met.Handler())
	mux.Handle("/tokens", jointoken.Handler(secret, nil))
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

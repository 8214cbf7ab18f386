package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/fiveonit/engine/games"
	"github.com/fiveonit/engine/internal/envflag"
	"github.com/fiveonit/engine/serve"
	"github.com/fiveonit/engine/server"
)

// config is the server's settings, from flags and the environment: what
// serve.Run takes.
type config = serve.Config

// envFlags pairs each flag with the environment variable that sets its
// default (a slice, not a map: the order the errors come in is fixed).
var envFlags = [][2]string{
	{"addr", "FOI_ADDR"},
	{"admin-addr", "FOI_ADMIN_ADDR"},
	{"level", "FOI_LEVEL"},
	{"game", "FOI_GAME"},
	{"secret", "FOI_SECRET"},
	{"jwt-algs", "FOI_JWT_ALGS"},
	{"jwt-keys", "FOI_JWT_KEYS"},
	{"origins", "FOI_ORIGINS"},
	{"any-origin", "FOI_ANY_ORIGIN"},
	{"debug", "FOI_DEBUG"},
	{"debug-accounts", "FOI_DEBUG_ACCOUNTS"},
	{"chat-words", "FOI_CHAT_WORDS"},
	{"moderation-url", "FOI_MODERATION_URL"},
	{"moderation-timeout", "FOI_MODERATION_TIMEOUT"},
	{"admin-token", "FOI_ADMIN_TOKEN"},
	{"grace", "FOI_GRACE"},
	{"rejoin-window", "FOI_REJOIN_WINDOW"},
	{"max-rooms", "FOI_MAX_ROOMS"},
	{"max-rooms-from", "FOI_MAX_ROOMS_FROM"},
	{"max-players", "FOI_MAX_PLAYERS"},
	{"max-players-from", "FOI_MAX_PLAYERS_FROM"},
	{"client-kbps", "FOI_CLIENT_KBPS"},
	{"drain-timeout", "FOI_DRAIN_TIMEOUT"},
	{"drain", "FOI_DRAIN"},
	{"agones", "FOI_AGONES"},
	{"agones-health", "FOI_AGONES_HEALTH"},
	{"log-level", "FOI_LOG_LEVEL"},
	{"log-format", "FOI_LOG_FORMAT"},
	{"rtc", "FOI_RTC"},
	{"rtc-ips", "FOI_RTC_IPS"},
	{"rtc-public-ips", "FOI_RTC_PUBLIC_IPS"},
	{"rtc-ports", "FOI_RTC_PORTS"},
	{"data", "FOI_DATA"},
	{"store", "FOI_STORE"},
	{"public-addr", "FOI_PUBLIC_ADDR"},
	{"directory-ttl", "FOI_DIRECTORY_TTL"},
}

// parseFlags reads the flags in args over the environment's defaults
// (envflag.Set), which are serve.DefaultConfig's when unset. A value that
// does not parse, from either, is an error.
func parseFlags(args []string) (config, error) {
	c, d := config{}, serve.DefaultConfig()
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.StringVar(&c.Addr, "addr", d.Addr, "game and web listener (env FOI_ADDR)")
	fs.StringVar(&c.AdminAddr, "admin-addr", d.AdminAddr, "admin listener: /metrics and /debug/pprof (env FOI_ADMIN_ADDR)")
	fs.StringVar(&c.Level, "level", d.Level, "the default room's level (env FOI_LEVEL)")
	fs.StringVar(&c.Game, "game", d.Game, fmt.Sprintf("the default room's game, and a new room's when its join names none: %s (env FOI_GAME)", strings.Join(games.Names(), ", ")))
	fs.StringVar(&c.Secret, "secret", d.Secret, "HS256 join token secret, at least 16 bytes; empty: a random one for this run while -jwt-algs takes HS256 (env FOI_SECRET)")
	fs.StringVar(&c.JWTAlgs, "jwt-algs", d.JWTAlgs, "comma-separated join token algorithms accepted: HS256 (-secret), EdDSA, RS256 (-jwt-keys) (env FOI_JWT_ALGS)")
	fs.StringVar(&c.JWTKeys, "jwt-keys", d.JWTKeys, "the platform's public keys for EdDSA and RS256 join tokens: a JWKS file or http(s) URL, read again every 5m (env FOI_JWT_KEYS)")
	fs.StringVar(&c.Origins, "origins", d.Origins, "comma-separated browser origins allowed besides the same origin (env FOI_ORIGINS)")
	fs.BoolVar(&c.AnyOrigin, "any-origin", d.AnyOrigin, "allow WebSocket joins from any origin, for development (env FOI_ANY_ORIGIN)")
	fs.BoolVar(&c.Debug, "debug", d.Debug, "honour every client's debug commands (env FOI_DEBUG=1)")
	fs.StringVar(&c.DebugAccounts, "debug-accounts", d.DebugAccounts, "comma-separated accounts whose debug commands are honoured in every room (env FOI_DEBUG_ACCOUNTS)")
	fs.StringVar(&c.ChatWords, "chat-words", d.ChatWords, "a file of words the chat refuses, one per line, # for comments (env FOI_CHAT_WORDS)")
	fs.StringVar(&c.ModerationURL, "moderation-url", d.ModerationURL, "a moderation service each chat message is POSTed to, failing closed; empty: the word list alone (env FOI_MODERATION_URL)")
	fs.DurationVar(&c.ModerationTimeout, "moderation-timeout", d.ModerationTimeout, "how long a chat message waits for the moderation service before it is refused (env FOI_MODERATION_TIMEOUT)")
	fs.StringVar(&c.AdminToken, "admin-token", d.AdminToken, "the bearer token of the admin listener's run routes (POST /runs) and, once set, of POST /tokens; empty turns the run routes off (env FOI_ADMIN_TOKEN)")
	fs.DurationVar(&c.Grace, "grace", d.Grace, "how long an empty room other than the default stays open (env FOI_GRACE)")
	fs.DurationVar(&c.RejoinWindow, "rejoin-window", d.RejoinWindow, "how long a room holds a dropped player's character for them to take back, 0 for none (env FOI_REJOIN_WINDOW)")
	fs.IntVar(&c.MaxRooms, "max-rooms", d.MaxRooms, "the most rooms open at once, the default room among them; a join that would open one more is refused (env FOI_MAX_ROOMS)")
	fs.IntVar(&c.MaxRoomsFrom, "max-rooms-from", d.MaxRoomsFrom, "the most rooms open at once that joins from one address made; a join that would make one more is refused (env FOI_MAX_ROOMS_FROM)")
	fs.IntVar(&c.MaxPlayers, "max-players", d.MaxPlayers, fmt.Sprintf("the most players per room, 1 to %d: every per-player list of a room is sized by it; a join to a full room is refused (env FOI_MAX_PLAYERS)", server.MaxPlayers))
	fs.IntVar(&c.MaxPlayersFrom, "max-players-from", d.MaxPlayersFrom, "the most players joined from one address in all rooms together; a join past it is refused (env FOI_MAX_PLAYERS_FROM)")
	fs.IntVar(&c.ClientKbps, "client-kbps", d.ClientKbps, fmt.Sprintf("each client's downstream budget in kilobits per second, %d to %d: far entities' poses wait their turn by priority (env FOI_CLIENT_KBPS)", server.MinClientKbps, server.MaxClientKbps))
	fs.DurationVar(&c.DrainTimeout, "drain-timeout", d.DrainTimeout, "on SIGTERM, how long the players get before their rooms close: no new player joins, each is told the time left, runs end with a result; 0: close at once (env FOI_DRAIN_TIMEOUT)")
	fs.DurationVar(&c.Drain, "drain", d.Drain, "then how long the shutdown waits for the rooms to close, the accounts to be written and the connections to end (env FOI_DRAIN)")
	fs.BoolVar(&c.Agones, "agones", d.Agones, "talk to the Agones SDK server at localhost:$AGONES_SDK_HTTP_PORT (9358 unset); on by itself when that variable is set (env FOI_AGONES)")
	fs.DurationVar(&c.AgonesHealth, "agones-health", d.AgonesHealth, "how often the health ping goes to Agones while the server is healthy (env FOI_AGONES_HEALTH)")
	fs.StringVar(&c.LogLevel, "log-level", d.LogLevel, "debug, info, warn or error (env FOI_LOG_LEVEL)")
	fs.StringVar(&c.LogFormat, "log-format", d.LogFormat, "text (logfmt) or json (env FOI_LOG_FORMAT)")
	fs.BoolVar(&c.RTC, "rtc", d.RTC, "serve WebRTC joins at POST /rooms/{name}/rtc (env FOI_RTC)")
	fs.StringVar(&c.RTCIPs, "rtc-ips", d.RTCIPs, "comma-separated local IPs WebRTC gathers host candidates on; empty: every interface's and loopback (env FOI_RTC_IPS)")
	fs.StringVar(&c.RTCPublicIPs, "rtc-public-ips", d.RTCPublicIPs, "comma-separated public IPs announced instead of the host candidates', behind a 1:1 NAT (env FOI_RTC_PUBLIC_IPS)")
	fs.StringVar(&c.RTCPorts, "rtc-ports", d.RTCPorts, "UDP port range MIN-MAX for WebRTC; empty: ephemeral ports (env FOI_RTC_PORTS)")
	fs.StringVar(&c.Data, "data", d.Data, "directory of the account store's SQLite file, accounts.db, made if missing (env FOI_DATA)")
	fs.StringVar(&c.Store, "store", d.Store, "account store: empty for SQLite in -data, a postgres:// URL for PostgreSQL, none to keep nothing (env FOI_STORE)")
	fs.StringVar(&c.PublicAddr, "public-addr", d.PublicAddr, "the URL players reach this process at, for the fleet's room directory: http://host:port or https://host; empty: http:// and -addr (env FOI_PUBLIC_ADDR)")
	fs.DurationVar(&c.DirectoryTTL, "directory-ttl", d.DirectoryTTL, "how long the fleet's room directory (PostgreSQL) keeps a process's rooms after its last heartbeat; 0: no directory (env FOI_DIRECTORY_TTL)")
	if err := envflag.Set(fs, envFlags); err != nil {
		return c, err
	}
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	return c, nil
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stderr)
	stop()
	os.Exit(code)
}

// run runs the server until ctx ends and returns the exit code: 2 when the
// flags or the environment do not parse or a setting is refused (the
// message names the flag), 1 when the server fails to start or to drain
// in time.
func run(ctx context.Context, args []string, stderr io.Writer) int {
	c, err := parseFlags(args)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "server:", err)
		}
		return 2
	}
	if err := serve.Run(ctx, c, nil); err != nil {
		fmt.Fprintln(stderr, "server:", err)
		if errors.Is(err, serve.ErrSetting) {
			return 2
		}
		return 1
	}
	return 0
}

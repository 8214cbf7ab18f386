package serve

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fiveonit/engine/fleet/agones"
	"github.com/fiveonit/engine/fleet/directory"
	"github.com/fiveonit/engine/games"
	"github.com/fiveonit/engine/jointoken"
	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/social/httpmod"
	"github.com/fiveonit/engine/transport/webrtc"
)

// Config is the server's settings. Each field but LogTo is one of command
// server's flags, named in its comment; an error about a field names its
// flag. DefaultConfig holds the flags' defaults.
type Config struct {
	// Addr is the game and web listener's address (-addr).
	Addr string
	// AdminAddr is the admin listener's address: /metrics, /debug/pprof
	// and POST /tokens (-admin-addr).
	AdminAddr string
	// Level is the default room's level (-level).
	Level string
	// Game is the default room's game, and a new room's when its join
	// names none. Empty is games.Default (-game).
	Game string
	// Secret signs and checks the HS256 join tokens, at least 16 bytes.
	// Empty is a random secret for this run while JWTAlgs takes HS256
	// (-secret).
	Secret string
	// JWTAlgs are the algorithms of the join tokens the server accepts,
	// comma-separated: HS256 (with Secret), EdDSA and RS256 (with
	// JWTKeys). The tokens never choose (-jwt-algs).
	JWTAlgs string
	// JWTKeys is the platform's public keys for EdDSA and RS256 tokens: a
	// JWKS file, or an http or https URL, read again every 5 minutes
	// (-jwt-keys).
	JWTKeys string
	// AdminToken is the bearer token the admin listener's run routes
	// (POST /runs, POST /runs/{room}/seats) ask for, and POST /tokens
	// too when it is set. Empty turns the run routes off (-admin-token).
	AdminToken string
	// Origins are the browser origins allowed besides the same origin,
	// comma-separated (-origins).
	Origins string
	// AnyOrigin allows WebSocket joins from any origin, for development
	// (-any-origin).
	AnyOrigin bool
	// Debug honours every client's debug commands (-debug).
	Debug bool
	// DebugAccounts are the accounts whose debug commands are honoured in
	// every room, comma-separated (-debug-accounts).
	DebugAccounts string
	// ChatWords is a file of words the chat refuses, one per line, # for
	// comments. Empty is no list (-chat-words).
	ChatWords string
	// ModerationURL is a moderation service each chat message is POSTed
	// to, failing closed. Empty is the word list alone (-moderation-url).
	ModerationURL string
	// ModerationTimeout is how long a chat message waits for the
	// moderation service before it is refused (-moderation-timeout).
	ModerationTimeout time.Duration
	// Grace is how long an empty room other than the default stays open
	// (-grace).
	Grace time.Duration
	// RejoinWindow is how long a room holds the place of a player whose
	// connection dropped: their character and car stay, input held, for
	// them to take back (-rejoin-window). 0 holds none. A run room holds
	// its players' places a minute whatever it says.
	RejoinWindow time.Duration
	// MaxRooms is the most rooms open at once, the default room among
	// them. 0 is 64 (-max-rooms).
	MaxRooms int
	// MaxRoomsFrom is the most rooms open at once that joins from one
	// address made. 0 is 8 (-max-rooms-from).
	MaxRoomsFrom int
	// MaxPlayers is the most players per room, 1 to server.MaxPlayers
	// (1,024); 0 is server.DefaultMaxPlayers (64). Every per-player list
	// of a room is sized by it (-max-players).
	MaxPlayers int
	// ClientKbps is each client's downstream budget in kilobits per
	// second, server.MinClientKbps to server.MaxClientKbps (8 to 8,000);
	// 0 is server.DefaultClientKbps (128). Each snapshot's pose changes go by priority until its share is
	// spent, and a client's bytes over time stay within it
	// (-client-kbps).
	ClientKbps int
	// MaxPlayersFrom is the most players joined from one address in all
	// rooms together (-max-players-from).
	MaxPlayersFrom int
	// DrainTimeout is how long the players get once a shutdown begins,
	// before their rooms close: no new player joins, each is told the
	// time left, a run ends with a result, and the drain ends sooner once
	// nobody plays. 0 closes the rooms at once (-drain-timeout).
	DrainTimeout time.Duration
	// Drain is how long a shutdown then waits for the rooms to close,
	// the accounts to be written and the connections to end (-drain).
	Drain time.Duration
	// Agones talks to the Agones SDK server at localhost and the port in
	// AGONES_SDK_HTTP_PORT (package fleet/agones): it is on when set, or
	// when that variable is (-agones).
	Agones bool
	// AgonesHealth is how often the health ping goes to Agones while the
	// server is healthy (-agones-health).
	AgonesHealth time.Duration
	// LogLevel is debug, info, warn or error (-log-level).
	LogLevel string
	// LogFormat is text (logfmt) or json (-log-format).
	LogFormat string
	// RTC serves WebRTC joins at POST /rooms/{name}/rtc (-rtc).
	RTC bool
	// RTCIPs are the local IPs WebRTC gathers host candidates on,
	// comma-separated. Empty is every interface's and loopback (-rtc-ips).
	RTCIPs string
	// RTCPublicIPs are the public IPs announced instead of the host
	// candidates', behind a 1:1 NAT, comma-separated (-rtc-public-ips).
	RTCPublicIPs string
	// RTCPorts is the UDP port range MIN-MAX for WebRTC. Empty is
	// ephemeral ports (-rtc-ports).
	RTCPorts string
	// Data is the directory of the account store's SQLite file, made if
	// missing (-data).
	Data string
	// Store is the account store: empty for SQLite in Data, a postgres://
	// URL for PostgreSQL, none to keep nothing (-store).
	Store string
	// PublicAddr is the URL players reach this process's public listener
	// at, which the room directory gives for its rooms: http://host:port
	// or https://host, without a path. Empty is http:// and the public
	// listener's address, the machine's host name in place of an address
	// that listens on every interface (-public-addr).
	PublicAddr string
	// DirectoryTTL is how long the fleet's room directory (PostgreSQL
	// only) keeps this process's rooms after its last heartbeat, which
	// comes every third of it. 0 keeps no directory: each process lists
	// and makes its own rooms alone (-directory-ttl).
	DirectoryTTL time.Duration
	// LogTo is where the logs go; nil is stderr. It has no flag: the
	// tests set it to read the records back.
	LogTo io.Writer
}

// MaxRejoinWindow bounds -rejoin-window: a dropped player's place held
// longer would keep a character in the world that nobody steers.
const MaxRejoinWindow = 10 * time.Minute

// DefaultConfig returns the settings of a server started with no flags.
func DefaultConfig() Config {
	return Config{
		Addr:              ":8080",
		AdminAddr:         "127.0.0.1:6060",
		Level:             "main-city",
		Game:              games.Default,
		ModerationTimeout: httpmod.DefaultTimeout,
		Grace:             30 * time.Second,
		RejoinWindow:      30 * time.Second,
		MaxRooms:          64,
		MaxRoomsFrom:      8,
		MaxPlayers:        server.DefaultMaxPlayers,
		ClientKbps:        server.DefaultClientKbps,
		MaxPlayersFrom:    server.DefaultMaxPlayers,
		Drain:             5 * time.Second,
		JWTAlgs:           "HS256",
		DirectoryTTL:      15 * time.Second,
		AgonesHealth:      2 * time.Second,
		LogLevel:          "info",
		LogFormat:         "text",
		RTC:               true,
		Data:              "data",
	}
}

// ErrSetting is what Start's and Run's error is, by errors.Is, when a
// setting parses but is refused (out of range, unknown): cmd/server exits
// 2 on it, as on a flag that does not parse. The error's text names the
// flag.
var ErrSetting = errors.New("serve: a setting is refused")

// settingError is a refused setting's error: its text is the error's,
// and it is ErrSetting.
type settingError struct{ error }

func (e settingError) Is(target error) bool { return target == ErrSetting }

func (e settingError) Unwrap() error { return e.error }

// check refuses settings that parse but make no sense, naming the flag,
// and fills in the default game and token algorithm.
func (c *Config) check() error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.LogLevel)); err != nil {
		return fmt.Errorf("-log-level: %w", err)
	}
	if c.RejoinWindow < 0 || c.RejoinWindow > MaxRejoinWindow {
		return fmt.Errorf("-rejoin-window %v: from 0 (hold no place) to %v", c.RejoinWindow, MaxRejoinWindow)
	}
	if c.MaxRooms < 0 {
		return fmt.Errorf("-max-rooms %d: a number of rooms, the default room among them (0: 64)", c.MaxRooms)
	}
	if c.MaxRoomsFrom < 0 {
		return fmt.Errorf("-max-rooms-from %d: a number of rooms (0: 8)", c.MaxRoomsFrom)
	}
	if c.MaxPlayers < 0 || c.MaxPlayers > server.MaxPlayers {
		return fmt.Errorf("-max-players %d: out of range: a room takes 1 to %d players (0: %d)", c.MaxPlayers, server.MaxPlayers, server.DefaultMaxPlayers)
	}
	if c.ClientKbps != 0 && (c.ClientKbps < server.MinClientKbps || c.ClientKbps > server.MaxClientKbps) {
		return fmt.Errorf("-client-kbps %d: out of range: a client's budget is %d to %d kbps (0: %d)", c.ClientKbps, server.MinClientKbps, server.MaxClientKbps, server.DefaultClientKbps)
	}
	if c.Game == "" {
		c.Game = games.Default
	}
	if c.JWTAlgs == "" {
		c.JWTAlgs = jointoken.HS256
	}
	if c.DirectoryTTL != 0 && c.DirectoryTTL < directory.MinTTL {
		return fmt.Errorf("-directory-ttl %v: 0 (no directory) or at least %v", c.DirectoryTTL, directory.MinTTL)
	}
	if c.PublicAddr != "" {
		if err := directory.CheckAddr(c.PublicAddr); err != nil {
			return fmt.Errorf("-public-addr %w", err)
		}
	}
	if _, err := games.Lookup(c.Game); err != nil {
		return fmt.Errorf("-game: %w", err)
	}
	if c.MaxPlayersFrom < 0 {
		return fmt.Errorf("-max-players-from %d: a number of players (0: %d)", c.MaxPlayersFrom, server.DefaultMaxPlayers)
	}
	if c.DrainTimeout < 0 {
		return fmt.Errorf("-drain-timeout %v: a duration, 0 or more", c.DrainTimeout)
	}
	if c.agonesOn() && (c.AgonesHealth <= 0 || c.AgonesHealth > MaxAgonesHealth) {
		return fmt.Errorf("-agones-health %v: above 0 and at most %v (Agones' default check fails after 3 missed pings 5 s apart)", c.AgonesHealth, MaxAgonesHealth)
	}
	return nil
}

// MaxAgonesHealth bounds -agones-health: a ping rarer than this would let
// any health check Agones runs fail between two.
const MaxAgonesHealth = time.Minute

// agonesOn reports whether the server talks to Agones: -agones, or
// AGONES_SDK_HTTP_PORT set, as Agones sets it in a GameServer's pod.
func (c Config) agonesOn() bool {
	return c.Agones || os.Getenv(agones.PortEnv) != ""
}

// rtcOptions reads the WebRTC settings.
func (c Config) rtcOptions() (webrtc.Options, error) {
	o := webrtc.Options{Loopback: true}
	for _, s := range list(c.RTCIPs) {
		ip := net.ParseIP(s)
		if ip == nil {
			return o, fmt.Errorf("-rtc-ips: %q is not an IP", s)
		}
		o.IPs = append(o.IPs, ip)
	}
	for _, s := range list(c.RTCPublicIPs) {
		if net.ParseIP(s) == nil {
			return o, fmt.Errorf("-rtc-public-ips: %q is not an IP", s)
		}
		o.PublicIPs = append(o.PublicIPs, s)
	}
	if c.RTCPorts != "" {
		lo, hi, ok := strings.Cut(c.RTCPorts, "-")
		pmin, err1 := strconv.ParseUint(lo, 10, 16)
		pmax, err2 := strconv.ParseUint(hi, 10, 16)
		if !ok || err1 != nil || err2 != nil || pmin == 0 || pmax < pmin {
			return o, fmt.Errorf("-rtc-ports %q: want MIN-MAX, 1 <= MIN <= MAX <= 65535", c.RTCPorts)
		}
		o.PortMin, o.PortMax = uint16(pmin), uint16(pmax)
	}
	return o, nil
}

// joinSecret returns the HS256 join tokens' secret: Secret, or a random
// one for this run, which it warns about; nil when JWTAlgs does not take
// HS256 (a Secret then is an error: the server would hold a key it does
// not use, which mints any token).
func (c Config) joinSecret(log *slog.Logger) ([]byte, error) {
	secret := []byte(c.Secret)
	if !slices.Contains(list(c.JWTAlgs), jointoken.HS256) {
		if len(secret) > 0 {
			return nil, fmt.Errorf("-secret is set, but -jwt-algs %q does not take HS256: a fleet server given the platform's public keys holds no secret", c.JWTAlgs)
		}
		return nil, nil
	}
	if len(secret) == 0 {
		secret = make([]byte, 32)
		rand.Read(secret)
		log.Warn("no -secret (FOI_SECRET): join tokens are signed with a random secret for this run only")
	} else if len(secret) < 16 {
		return nil, errors.New("-secret must be at least 16 bytes")
	}
	return secret, nil
}

// social reads the chat's settings: the word list's file and the
// moderation service.
func (c Config) social(log *slog.Logger) (server.SocialConfig, error) {
	var sc server.SocialConfig
	if c.ChatWords != "" {
		b, err := os.ReadFile(c.ChatWords)
		if err != nil {
			return sc, fmt.Errorf("-chat-words: %w", err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				sc.Words = append(sc.Words, l)
			}
		}
	}
	if c.ModerationURL != "" {
		u, err := url.Parse(c.ModerationURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return sc, fmt.Errorf("-moderation-url %q: an http or https URL", c.ModerationURL)
		}
		if c.ModerationTimeout <= 0 {
			return sc, fmt.Errorf("-moderation-timeout %s: a duration above 0", c.ModerationTimeout)
		}
		sc.Moderator = httpmod.New(c.ModerationURL, httpmod.Options{Timeout: c.ModerationTimeout, Log: log.With("moderation", c.ModerationURL)})
	}
	return sc, nil
}

// list splits a comma-separated setting, dropping blanks.
func list(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

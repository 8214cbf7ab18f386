package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/fiveonit/engine/systems/motion"
	"github.com/fiveonit/engine/textframe"
	"github.com/fiveonit/engine/transport/webrtc"
	"github.com/fiveonit/engine/transport/websocket"
)

func testConfig() config {
	return config{
		addr: "127.0.0.1:0", adminAddr: "127.0.0.1:0", level: "test-flat",
		secret: "drain-test-secret-0123456789", grace: time.Second, drain: 10 * time.Second,
		logLevel: "warn", logFormat: "text", rtc: true, rtcIPs: "127.0.0.1", store: "none",
	}
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

// TestDrain starts the server on loopback ports with a WebSocket and a
// WebRTC client (and a join refused), checks the listeners serve what they
// should (the metrics, the refusal counted among them, and pprof on the
// admin listener only), then cancels run's context (what
// SIGTERM does): both clients get the close reason, run returns nil (the
// process exits 0) well within the drain timeout, no goroutine is left,
// and each join was logged with its room, session and transport.
// TestSIGTERM sends the real signal to the built binary.
func TestDrain(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs logBuf
	c := testConfig()
	c.logLevel, c.logFormat, c.logTo = "info", "json", &logs
	addr, admin, errc := startRun(t, ctx, c)

	dctx, dcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer dcancel()
	ws, err := websocket.Dial(dctx, "ws://"+addr+"/rooms/default")
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	rtc, err := webrtc.Dial(dctx, "ws://"+addr+"/rooms/default", webrtc.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer rtc.Close()
	welcome(t, "websocket", ws)
	welcome(t, "webrtc", rtc)
	bad, err := websocket.Dial(dctx, "ws://"+addr+"/rooms/BAD") // refused: counted by reason
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	closeReason(t, "BAD", bad)

	for _, path := range []string{"/metrics", "/debug/pprof/", "/debug/pprof/cmdline"} {
		if code, body := get(t, "http://"+addr+path); code == http.StatusOK || strings.Contains(body, "foi_") || strings.Contains(body, "goroutine") {
			t.Errorf("the public listener serves %s: %d %.80q", path, code, body)
		}
	}
	if code, _ := get(t, "http://"+admin+"/debug/pprof/"); code != http.StatusOK {
		t.Errorf("admin /debug/pprof/: %d", code)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		code, body := get(t, "http://"+admin+"/metrics")
		want := []string{
			`foi_clients{transport="websocket"} 1`, `foi_clients{transport="webrtc"} 1`, `foi_connections_pending{transport="webrtc"} 0`,
			`foi_tick_seconds_count{room="default"}`, `foi_system_seconds_bucket{room="default",system="` + motion.Name + `"`,
			`foi_entities{room="default"}`, `foi_players{room="default"} 2`, `foi_transport_bytes_total{direction="out",transport="webrtc"}`,
			`foi_joins_refused_total{reason="bad_request",transport="websocket"} 1`,
		}
		missing := ""
		for _, w := range want {
			if !strings.Contains(body, w) {
				missing = w
				break
			}
		}
		if code == http.StatusOK && missing == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("admin /metrics: %d, no %q in\n%s", code, missing, grep(body, "foi_"))
		}
		time.Sleep(100 * time.Millisecond)
	}

	start := time.Now()
	cancel()
	for name, c := range map[string]reader{"websocket": ws, "webrtc": rtc} {
		if r := closeReason(t, name, c); r != "server shutting down" {
			t.Errorf("%s: closed with %q", name, r)
		}
	}
	ws.Close()
	rtc.Close()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("run did not return")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the drain took %s", d)
	}
	for _, tr := range []string{"websocket", "webrtc"} {
		var joins []map[string]any
		for _, r := range logs.records(t, "client joined") {
			if r["transport"] == tr {
				joins = append(joins, r)
			}
		}
		if s := sessions(t, joins, tr); len(s) != 1 {
			t.Errorf("%s: %d joins logged with room, session and transport, want 1:\n%s", tr, len(s), logs.String())
		}
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

// TestFlagsAndEnv: each FOI_* variable sets its flag's default, a flag on
// the command line wins, and a value that does not parse, from either, is
// an error; the environment's names the variable and what its flag takes.
func TestFlagsAndEnv(t *testing.T) {
	def := config{addr: ":8080", adminAddr: "127.0.0.1:6060", level: "main-city", game: "free-roam", grace: 30 * time.Second,
		maxRooms: 64, maxRoomsFrom: 8, maxPlayers: 64, maxPlayersFrom: 64, drain: 5 * time.Second,
		logLevel: "info", logFormat: "text", rtc: true, moderationWait: 2 * time.Second, data: "data"}
	every := map[string]string{
		"FOI_ADDR": ":9000", "FOI_ADMIN_ADDR": "127.0.0.1:7000", "FOI_LEVEL": "test-flat", "FOI_GAME": "city-jobs",
		"FOI_SECRET": "a-secret-of-16-bytes", "FOI_ORIGINS": "a.example", "FOI_ANY_ORIGIN": "1", "FOI_DEBUG": "true",
		"FOI_DEBUG_ACCOUNTS": "ops-1,ops-2", "FOI_CHAT_WORDS": "/etc/words", "FOI_MODERATION_URL": "http://mod.internal/check",
		"FOI_MODERATION_TIMEOUT": "500ms",
		"FOI_GRACE":              "1m", "FOI_MAX_ROOMS": "5", "FOI_MAX_ROOMS_FROM": "3", "FOI_MAX_PLAYERS": "2",
		"FOI_MAX_PLAYERS_FROM": "7", "FOI_DRAIN": "2s", "FOI_LOG_LEVEL": "warn", "FOI_LOG_FORMAT": "json",
		"FOI_RTC": "false", "FOI_RTC_IPS": "127.0.0.1", "FOI_RTC_PUBLIC_IPS": "192.0.2.1", "FOI_RTC_PORTS": "50000-50100",
		"FOI_DATA": "/var/lib/foi", "FOI_STORE": "postgres://db/foi",
	}
	cases := []struct {
		name    string
		env     map[string]string
		args    []string
		want    config
		wantErr string // a substring of the error; "" for none
	}{
		{name: "defaults", want: def},
		{
			name: "every variable",
			env:  every,
			want: config{addr: ":9000", adminAddr: "127.0.0.1:7000", level: "test-flat", game: "city-jobs", secret: "a-secret-of-16-bytes",
				origins: "a.example", anyOrigin: true, debug: true, debugAccounts: "ops-1,ops-2", chatWords: "/etc/words",
				moderationURL: "http://mod.internal/check", moderationWait: 500 * time.Millisecond,
				grace: time.Minute, maxRooms: 5, maxRoomsFrom: 3,
				maxPlayers: 2, maxPlayersFrom: 7, drain: 2 * time.Second, logLevel: "warn", logFormat: "json",
				rtcIPs: "127.0.0.1", rtcPublicIPs: "192.0.2.1", rtcPorts: "50000-50100", data: "/var/lib/foi", store: "postgres://db/foi"},
		},
		{
			name: "flags win",
			env:  map[string]string{"FOI_MAX_PLAYERS": "2", "FOI_RTC": "false", "FOI_LOG_LEVEL": "warn"},
			args: []string{"-max-players", "3", "-rtc", "-log-level", "debug"},
			want: func() config { c := def; c.maxPlayers, c.logLevel = 3, "debug"; return c }(),
		},
		{name: "bool", env: map[string]string{"FOI_RTC": "yes"}, wantErr: `FOI_RTC="yes": -rtc takes 1, 0, true or false`},
		{name: "number", env: map[string]string{"FOI_MAX_PLAYERS": "many"}, wantErr: `FOI_MAX_PLAYERS="many": -max-players takes a whole number`},
		{name: "empty number", env: map[string]string{"FOI_MAX_ROOMS": ""}, wantErr: `FOI_MAX_ROOMS=""`},
		{name: "duration", env: map[string]string{"FOI_GRACE": "10"}, wantErr: `FOI_GRACE="10": -grace takes a duration`},
		{name: "flag", args: []string{"-drain", "soon"}, wantErr: "-drain"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, f := range envFlags {
				v, ok := c.env[f[1]]
				if !ok {
					t.Setenv(f[1], "") // restores the variable after the test
					os.Unsetenv(f[1])
					continue
				}
				t.Setenv(f[1], v)
			}
			got, err := parseFlags(c.args)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err %v, want one with %q", err, c.wantErr)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
	if len(every) != len(envFlags) {
		t.Errorf("the test sets %d variables, the server reads %d", len(every), len(envFlags))
	}
}

// TestSettingsRefused: settings that parse but make no sense are refused
// by run, naming the flag.
func TestSettingsRefused(t *testing.T) {
	c, err := parseFlags([]string{"-rtc-ips", "127.0.0.1, ::1", "-rtc-ports", "50000-50100"})
	if err != nil {
		t.Fatal(err)
	}
	o, err := c.rtcOptions()
	if err != nil || o.PortMin != 50000 || o.PortMax != 50100 || len(o.IPs) != 2 {
		t.Errorf("rtc options %+v, %v", o, err)
	}
	for _, bad := range []config{{rtcPorts: "9-1"}, {rtcPorts: "x"}, {rtcPorts: "0-5"}, {rtcIPs: "nope"}, {rtcPublicIPs: "1.2.3"}} {
		if _, err := bad.rtcOptions(); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
	for _, c := range []struct {
		flag string
		set  func(c *config)
	}{
		{"-log-format", func(c *config) { c.logFormat = "xml" }},
		{"-max-players", func(c *config) { c.maxPlayers = -1 }},
		{"-max-players", func(c *config) { c.maxPlayers = 65 }},
		{"-chat-words", func(c *config) { c.chatWords = "/no/such/file" }},
		{"-moderation-url", func(c *config) { c.moderationURL = "ftp://x" }},
		{"-moderation-timeout", func(c *config) { c.moderationURL, c.moderationWait = "http://x", 0 }},
		{"-store", func(c *config) { c.store = "mysql://db/foi" }},
		{"-data", func(c *config) { c.store, c.data = "", "" }},
		{"-data", func(c *config) { c.store, c.data = "", "/dev/null/not-a-dir" }},
		{"-game", func(c *config) { c.game = "deathmatch" }},
	} {
		bad := testConfig()
		c.set(&bad)
		if err := run(context.Background(), bad, nil); err == nil || !strings.Contains(err.Error(), c.flag) {
			t.Errorf("%s: %v, want an error naming it", c.flag, err)
		}
	}
}

// TestMaxPlayers: with -max-players 2 the default room takes two players;
// the third join is closed with "room full" over WebSocket and answered
// 503 over WebRTC.
func TestMaxPlayers(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := testConfig()
	cfg.maxPlayers = 2
	addr, _, errc := startRun(t, ctx, cfg)
	dctx, dcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer dcancel()
	for i := range 2 {
		ws, err := websocket.Dial(dctx, "ws://"+addr+"/rooms/default")
		if err != nil {
			t.Fatal(err)
		}
		welcome(t, fmt.Sprintf("player %d", i+1), ws)
		defer ws.Close()
	}
	ws, err := websocket.Dial(dctx, "ws://"+addr+"/rooms/default")
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if r := closeReason(t, "player 3", ws); r != "room full" {
		t.Errorf("the third join: closed with %q, want room full", r)
	}
	if rtc, err := webrtc.Dial(dctx, "ws://"+addr+"/rooms/default", webrtc.DialOptions{}); err == nil {
		rtc.Close()
		t.Error("a WebRTC join to the full room was answered")
	} else if !strings.Contains(err.Error(), "503") {
		t.Errorf("a WebRTC join to the full room: %v, want 503", err)
	}
	stopRun(t, cancel, errc, cfg.drain)
}

// TestRoomLimits: with -max-rooms 2 the default room and one more open;
// with -max-rooms-from 1 a client's address makes one room; with
// -max-players-from 2 it has two players in all. Past any, a join that
// would make a room is closed with the reason (WebSocket) or answered with
// an HTTP error (WebRTC: 503, and 429 for an address's bound); joins to
// open rooms still come in, but past -max-players-from. A negative value
// of any flag is refused.
func TestRoomLimits(t *testing.T) {
	for _, c := range []struct {
		flag         string
		set          func(c *config, n int)
		limit        int
		joins        []string // rooms joined, in order: each lands
		reason, code string   // a join making one more room: closed with reason; over WebRTC, HTTP code
		openRefused  bool     // a join to an open room is refused too, with reason
	}{
		{"-max-rooms", func(c *config, n int) { c.maxRooms = n }, 2, []string{"second", "default", "second"}, "this server runs at most 2", "503", false},
		{"-max-rooms-from", func(c *config, n int) { c.maxRoomsFrom = n }, 1, []string{"mine", "default", "mine"}, "rooms made from one address", "429", false},
		{"-max-players-from", func(c *config, n int) { c.maxPlayersFrom = n }, 2, []string{"mine", "default"}, "players joined from one address", "429", true},
	} {
		t.Run(c.flag, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			bad := testConfig()
			c.set(&bad, -1)
			if err := run(context.Background(), bad, nil); err == nil || !strings.Contains(err.Error(), c.flag) {
				t.Errorf("run with %s -1: %v", c.flag, err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cfg := testConfig()
			c.set(&cfg, c.limit)
			addr, _, errc := startRun(t, ctx, cfg)
			dctx, dcancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer dcancel()
			for _, room := range c.joins {
				ws, err := websocket.Dial(dctx, "ws://"+addr+"/rooms/"+room)
				if err != nil {
					t.Fatal(err)
				}
				welcome(t, room, ws)
				defer ws.Close()
			}
			refused := func(room, what string) {
				ws, err := websocket.Dial(dctx, "ws://"+addr+"/rooms/"+room)
				if err != nil {
					t.Fatal(err)
				}
				defer ws.Close()
				if reason := closeReason(t, room, ws); !strings.Contains(reason, c.reason) {
					t.Errorf("%s: closed with %q, want %q", what, reason, c.reason)
				}
			}
			refused("another", "a join making one room more")
			if c.openRefused {
				refused("default", "a join to an open room")
			}
			if rtc, err := webrtc.Dial(dctx, "ws://"+addr+"/rooms/another", webrtc.DialOptions{}); err == nil {
				rtc.Close()
				t.Error("a WebRTC join making one room more was answered")
			} else if !strings.Contains(err.Error(), c.code) {
				t.Errorf("a WebRTC join making one room more: %v, want %s", err, c.code)
			}
			stopRun(t, cancel, errc, cfg.drain)
		})
	}
}

package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// TestFlagsAndEnv: each FOI_* variable sets its flag's default, a flag on
// the command line wins, and a value that does not parse, from either, is
// an error; the environment's names the variable and what its flag takes.
func TestFlagsAndEnv(t *testing.T) {
	def := config{Addr: ":8080", AdminAddr: "127.0.0.1:6060", Level: "main-city", Game: "free-roam", Grace: 30 * time.Second,
		MaxRooms: 64, MaxRoomsFrom: 8, MaxPlayers: 64, MaxPlayersFrom: 64, ClientKbps: 128, Drain: 5 * time.Second, AgonesHealth: 2 * time.Second, RejoinWindow: 30 * time.Second,
		LogLevel: "info", LogFormat: "text", RTC: true, ModerationTimeout: 2 * time.Second, Data: "data",
		JWTAlgs: "HS256", DirectoryTTL: 15 * time.Second}
	every := map[string]string{
		"FOI_ADDR": ":9000", "FOI_ADMIN_ADDR": "127.0.0.1:7000", "FOI_LEVEL": "test-flat", "FOI_GAME": "city-jobs",
		"FOI_SECRET": "a-secret-of-16-bytes", "FOI_ORIGINS": "a.example", "FOI_ANY_ORIGIN": "1", "FOI_DEBUG": "true",
		"FOI_DEBUG_ACCOUNTS": "ops-1,ops-2", "FOI_CHAT_WORDS": "/etc/words", "FOI_MODERATION_URL": "http://mod.internal/check",
		"FOI_MODERATION_TIMEOUT": "500ms",
		"FOI_GRACE":              "1m", "FOI_ADMIN_TOKEN": "t0ken", "FOI_REJOIN_WINDOW": "45s", "FOI_MAX_ROOMS": "5", "FOI_MAX_ROOMS_FROM": "3", "FOI_MAX_PLAYERS": "2",
		"FOI_MAX_PLAYERS_FROM": "7", "FOI_CLIENT_KBPS": "256", "FOI_DRAIN": "2s", "FOI_LOG_LEVEL": "warn", "FOI_LOG_FORMAT": "json",
		"FOI_RTC": "false", "FOI_RTC_IPS": "127.0.0.1", "FOI_RTC_PUBLIC_IPS": "192.0.2.1", "FOI_RTC_PORTS": "50000-50100",
		"FOI_DATA": "/var/lib/foi", "FOI_STORE": "postgres://db/foi",
		"FOI_JWT_ALGS": "EdDSA,RS256", "FOI_JWT_KEYS": "https://platform.example/jwks.json",
		"FOI_PUBLIC_ADDR": "https://game-2.example", "FOI_DIRECTORY_TTL": "9s",
		"FOI_DRAIN_TIMEOUT": "45s", "FOI_AGONES": "1", "FOI_AGONES_HEALTH": "1s",
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
			want: config{Addr: ":9000", AdminAddr: "127.0.0.1:7000", Level: "test-flat", Game: "city-jobs", Secret: "a-secret-of-16-bytes",
				Origins: "a.example", AnyOrigin: true, Debug: true, DebugAccounts: "ops-1,ops-2", ChatWords: "/etc/words",
				ModerationURL: "http://mod.internal/check", ModerationTimeout: 500 * time.Millisecond,
				Grace: time.Minute, AdminToken: "t0ken", RejoinWindow: 45 * time.Second, MaxRooms: 5, MaxRoomsFrom: 3,
				MaxPlayers: 2, MaxPlayersFrom: 7, ClientKbps: 256, Drain: 2 * time.Second, LogLevel: "warn", LogFormat: "json",
				RTCIPs: "127.0.0.1", RTCPublicIPs: "192.0.2.1", RTCPorts: "50000-50100", Data: "/var/lib/foi", Store: "postgres://db/foi",
				JWTAlgs: "EdDSA,RS256", JWTKeys: "https://platform.example/jwks.json", PublicAddr: "https://game-2.example", DirectoryTTL: 9 * time.Second,
				DrainTimeout: 45 * time.Second, Agones: true, AgonesHealth: time.Second},
		},
		{
			name: "flags win",
			env:  map[string]string{"FOI_MAX_PLAYERS": "2", "FOI_RTC": "false", "FOI_LOG_LEVEL": "warn"},
			args: []string{"-max-players", "3", "-rtc", "-log-level", "debug"},
			want: func() config { c := def; c.MaxPlayers, c.LogLevel = 3, "debug"; return c }(),
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

// TestExitCodes: a flag that does not parse and a setting out of range
// exit 2 with a message naming the flag and its range.
func TestExitCodes(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-max-players", "5000"}, "-max-players 5000: out of range: a room takes 1 to 1024 players"},
		{[]string{"-client-kbps", "9000"}, "-client-kbps 9000: out of range: a client's budget is 8 to 8000 kbps"},
		{[]string{"-client-kbps", "7"}, "-client-kbps 7: out of range"},
		{[]string{"-client-kbps", "fast"}, "-client-kbps"},
	} {
		for _, f := range envFlags {
			t.Setenv(f[1], "")
			os.Unsetenv(f[1])
		}
		var out strings.Builder
		if code := run(context.Background(), c.args, &out); code != 2 || !strings.Contains(out.String(), c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, out.String(), c.want)
		}
	}
}

package serve

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fiveonit/engine/fleet/agones"
)

// TestSettingsRefused: settings that parse but make no sense are refused
// by Run, naming the flag.
func TestSettingsRefused(t *testing.T) {
	c := DefaultConfig()
	c.RTCIPs, c.RTCPorts = "127.0.0.1, ::1", "50000-50100"
	o, err := c.rtcOptions()
	if err != nil || o.PortMin != 50000 || o.PortMax != 50100 || len(o.IPs) != 2 {
		t.Errorf("rtc options %+v, %v", o, err)
	}
	for _, bad := range []Config{{RTCPorts: "9-1"}, {RTCPorts: "x"}, {RTCPorts: "0-5"}, {RTCIPs: "nope"}, {RTCPublicIPs: "1.2.3"}} {
		if _, err := bad.rtcOptions(); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
	for _, c := range []struct {
		flag string
		set  func(c *Config)
	}{
		{"-log-format", func(c *Config) { c.LogFormat = "xml" }},
		{"-max-players", func(c *Config) { c.MaxPlayers = -1 }},
		{"-max-players", func(c *Config) { c.MaxPlayers = 1025 }},
		{"-client-kbps", func(c *Config) { c.ClientKbps = 7 }},
		{"-client-kbps", func(c *Config) { c.ClientKbps = -1 }},
		{"-client-kbps", func(c *Config) { c.ClientKbps = 8001 }},
		{"-chat-words", func(c *Config) { c.ChatWords = "/no/such/file" }},
		{"-moderation-url", func(c *Config) { c.ModerationURL = "ftp://x" }},
		{"-moderation-timeout", func(c *Config) { c.ModerationURL, c.ModerationTimeout = "http://x", 0 }},
		{"-store", func(c *Config) { c.Store = "mysql://db/foi" }},
		{"-data", func(c *Config) { c.Store, c.Data = "", "" }},
		{"-data", func(c *Config) { c.Store, c.Data = "", "/dev/null/not-a-dir" }},
		{"-game", func(c *Config) { c.Game = "deathmatch" }},
		{"-drain-timeout", func(c *Config) { c.DrainTimeout = -time.Second }},
		{"-agones-health", func(c *Config) { c.Agones, c.AgonesHealth = true, 0 }},
		{"-agones-health", func(c *Config) { c.Agones, c.AgonesHealth = true, 2*time.Minute }},
	} {
		bad := testConfig()
		c.set(&bad)
		err := Run(context.Background(), bad, nil)
		if err == nil || !strings.Contains(err.Error(), c.flag) {
			t.Errorf("%s: %v, want an error naming it", c.flag, err)
		}
		// A setting out of range is ErrSetting: the command exits 2.
		if (c.flag == "-max-players" || c.flag == "-client-kbps") && !errors.Is(err, ErrSetting) {
			t.Errorf("%s: %v is not ErrSetting", c.flag, err)
		}
	}
	// Agones on, from the environment, with a port that is not one.
	t.Setenv(agones.PortEnv, "sidecar")
	bad := testConfig()
	bad.AgonesHealth = time.Second
	if err := Run(context.Background(), bad, nil); err == nil || !strings.Contains(err.Error(), "-agones") || !strings.Contains(err.Error(), agones.PortEnv) {
		t.Errorf("a bad %s: %v, want an error naming it and -agones", agones.PortEnv, err)
	}
}

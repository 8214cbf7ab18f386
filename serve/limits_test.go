package serve

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/fiveonit/engine/transport/webrtc"
	"github.com/fiveonit/engine/transport/websocket"
)

// TestMaxPlayers: with -max-players 2 the default room takes two players;
// the third join is closed with "room full" over WebSocket and answered
// 503 over WebRTC.
func TestMaxPlayers(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := testConfig()
	cfg.MaxPlayers = 2
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
	stopRun(t, cancel, errc, cfg.Drain)
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
		set          func(c *Config, n int)
		limit        int
		joins        []string // rooms joined, in order: each lands
		reason, code string   // a join making one more room: closed with reason; over WebRTC, HTTP code
		openRefused  bool     // a join to an open room is refused too, with reason
	}{
		{"-max-rooms", func(c *Config, n int) { c.MaxRooms = n }, 2, []string{"second", "default", "second"}, "this server runs at most 2", "503", false},
		{"-max-rooms-from", func(c *Config, n int) { c.MaxRoomsFrom = n }, 1, []string{"mine", "default", "mine"}, "rooms made from one address", "429", false},
		{"-max-players-from", func(c *Config, n int) { c.MaxPlayersFrom = n }, 2, []string{"mine", "default"}, "players joined from one address", "429", true},
	} {
		t.Run(c.flag, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			bad := testConfig()
			c.set(&bad, -1)
			if err := Run(context.Background(), bad, nil); err == nil || !strings.Contains(err.Error(), c.flag) {
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
			stopRun(t, cancel, errc, cfg.Drain)
		})
	}
}

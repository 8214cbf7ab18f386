package e2e

import (
	"strings"
	"testing"
	"time"
)

// firstMinuteJS reads what a new player sees round the world: the lobby's
// game, the welcome card, the free-roam objective, the key strip, and
// whether help and the network panel show.
const firstMinuteJS = `JSON.stringify((() => {
  const $ = (id) => document.getElementById(id), shown = (id) => !$(id).hidden;
  return {game: $("gameName").value, gameFixed: $("gameName").disabled,
    hint: shown("hint") ? $("hint").textContent : "", objective: shown("objective") ? $("objective").textContent : "",
    keys: $("keys").textContent, help: shown("help"), net: shown("net")};
})())`

type firstMinute struct {
	Game      string `json:"game"`
	GameFixed bool   `json:"gameFixed"`
	Hint      string `json:"hint"`
	Objective string `json:"objective"`
	Keys      string `json:"keys"`
	Help      bool   `json:"help"`
	Net       bool   `json:"net"`
}

// TestBrowserFirstMinute: the lobby shows the game the default room plays
// (free roam), not one to choose; a player who joins by a name is welcomed
// by it with the first keys, told what to do in free roam, and shown a
// strip of keys while help and the network panel stay behind them: ? opens
// help, ` the network panel.
func TestBrowserFirstMinute(t *testing.T) {
	skipShort(t)
	addr := startServer(t, "test-flat")
	p := browser(t, 45*time.Second)
	p.shot, p.more = "foi-web-first-minute-failed", firstMinuteJS
	p.open(addr)
	lobby := waitJSON(p, "the lobby showing the room's game", firstMinuteJS, 5*time.Second, func(f firstMinute) bool { return f.Game != "" })
	if lobby.Game != "free-roam" || !lobby.GameFixed {
		t.Errorf("the lobby's game %q (fixed %v), want the default room's free-roam, fixed", lobby.Game, lobby.GameFixed)
	}
	p.joinAs(addr, "Ava")
	in := waitJSON(p, "the welcome card", firstMinuteJS, 5*time.Second, func(f firstMinute) bool { return f.Hint != "" && f.Objective != "" })
	if !strings.Contains(in.Hint, "Welcome to default, Ava") || !strings.Contains(in.Hint, "W A S D") {
		t.Errorf("the welcome card %q, want Ava welcomed with the keys", in.Hint)
	}
	if !strings.Contains(in.Keys, "help") || !strings.Contains(in.Keys, "network") {
		t.Errorf("the key strip %q, want help and network named", in.Keys)
	}
	if in.Help || in.Net {
		t.Errorf("help shown %v, the network panel shown %v on joining: want both behind their keys", in.Help, in.Net)
	}
	p.screenshot("foi-web-first-minute")
	p.holdKey("?", "Slash", 191, 50*time.Millisecond)
	waitJSON(p, "help on ?", firstMinuteJS, 3*time.Second, func(f firstMinute) bool { return f.Help })
	p.holdKey("`", "Backquote", 192, 50*time.Millisecond)
	waitJSON(p, "the network panel on `", firstMinuteJS, 3*time.Second, func(f firstMinute) bool { return f.Net })
}

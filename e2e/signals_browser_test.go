package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/mlange-42/arche/generic"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/systems/signals"
)

// signalsInfo is the page's foiSignals.info().
type signalsInfo struct {
	Signals int            `json:"signals"`
	Held    map[string]int `json:"held"`
	Races   int            `json:"races"`
	Gates   int            `json:"gates"`
	Zones   int            `json:"zones"`
	Minimap bool           `json:"minimap"`
	Tick    uint64         `json:"tick"`
}

// readSignals reads the page's foiSignals.info().
func readSignals(p *tab) signalsInfo {
	p.t.Helper()
	var si signalsInfo
	if err := p.readJSON(`JSON.stringify(foiSignals.info())`, &si); err != nil {
		p.t.Fatalf("foiSignals.info: %v", err)
	}
	return si
}

// pageLights returns the page's light of every lane at tick.
func pageLights(p *tab, tick uint64) []components.Light {
	p.t.Helper()
	var out []components.Light
	if err := p.readJSON(fmt.Sprintf(`JSON.stringify(foiSignals.lightsAt(%d))`, tick), &out); err != nil {
		p.t.Fatalf("foiSignals.lightsAt: %v", err)
	}
	return out
}

// TestBrowserSignalsAndRaces joins main-city from the page: it works out
// every signal's lights from the level and the tick exactly as the server's
// signals system does, at ticks across cycles; it shows a signal a mission
// holds (here the debug command) as the server tells it, and lets it go
// again; and its minimap lists the level's races, their gates and the
// zones the welcome brought.
func TestBrowserSignalsAndRaces(t *testing.T) {
	skipShort(t)
	addr := startServer(t, "main-city", withDebug)
	p := browser(t, 45*time.Second)
	p.join(addr)
	p.waitState("joined", 15*time.Second, func(ps pageState) bool {
		return ps.State != nil && ps.State.Joined && ps.State.Snapshots > 5
	})
	l, err := levels.Load("main-city")
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	si := readSignals(p)
	for (si.Signals == 0 || !si.Minimap) && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		si = readSignals(p)
	}
	if si.Signals != len(l.Roads.Signals) || si.Races != len(l.Races) || si.Gates != 13 || si.Zones != len(l.Zones) || !si.Minimap {
		t.Fatalf("page: %+v; the level has %d signals, %d races of 13 gates, %d zones", si, len(l.Roads.Signals), len(l.Races), len(l.Zones))
	}
	if len(si.Held) != 0 {
		t.Fatalf("held %v on join, want none", si.Held)
	}

	// The server's own lights, by its signals system, at the same ticks.
	w, err := ecs.New(ecs.Config{Seed: 1, Level: l})
	if err != nil {
		t.Fatal(err)
	}
	sys := signals.New(w, l)
	res := generic.NewResource[components.Signals](w.Arche)
	for _, tick := range []uint64{0, 1, 179, 180, 359, 360, 1079, 1080, 1259, 1260, 2159, 2160, 99991, si.Tick, 1 << 40} {
		w.Clock.Tick = tick
		sys.Update(w)
		got := pageLights(p, tick)
		want := res.Get().Lanes
		if len(got) != len(want) {
			t.Fatalf("tick %d: the page has %d lanes' lights, the server %d", tick, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("tick %d: lane %d (id %d) shows %d on the page, %d on the server", tick, i, l.Roads.Lanes[i].ID, got[i], want[i])
			}
		}
	}

	// A hold, as a mission would make it.
	hold := func(cmd, what string, want map[string]int) {
		t.Helper()
		if _, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`foi.command('`+cmd+`')`)); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for si = readSignals(p); len(si.Held) != len(want) || si.Held["signal-4-4"] != want["signal-4-4"]; si = readSignals(p) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: the page holds %v, want %v", what, si.Held, want)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	hold(`{"type":"debug","cmd":"signal","value":"signal-4-4","phase":1}`, "hold", map[string]int{"signal-4-4": 1})
	lights := pageLights(p, si.Tick)
	sg := l.Roads.Signals[l.SignalAt(mustNode(t, l, 40))]
	for k, ph := range sg.Phases {
		for _, id := range ph.Lanes {
			li, _ := l.LaneIndex(id)
			want := components.LightGreen
			if k == 0 {
				want = components.LightRed
			}
			if lights[li] != want {
				t.Errorf("held on phase 1: lane %d of phase %d shows %d, want %d", id, k, lights[li], want)
			}
		}
	}
	time.Sleep(300 * time.Millisecond) // a few frames drawn with the hold
	p.screenshot("foi-web-signals")
	hold(`{"type":"debug","cmd":"signal","value":"signal-4-4"}`, "release", map[string]int{})
}

// mustNode returns the index of node id.
func mustNode(t *testing.T, l *levels.Level, id int) int {
	t.Helper()
	n, ok := l.NodeIndex(id)
	if !ok {
		t.Fatalf("no node %d", id)
	}
	return n
}

package e2e

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// combatPage is what the combat test reads of a page: what combat drew
// (foiCombat), the HUD (foiHUD) and the inventory.
type combatPage struct {
	Counts struct {
		Shots, Mine, Markers, Kills, Hurt int
	} `json:"counts"`
	LastHit *struct {
		X, Y, Ex, Ey float32
		Mine, Hit    bool
	} `json:"lastHit"` // the last tracer that ended on a body
	Crosshair  bool   `json:"crosshair"`
	Dead       bool   `json:"dead"`
	DeathText  string `json:"deathText"`
	DeathShown bool   `json:"deathShown"`
	Weapon     string `json:"weapon"`
}

const readCombat = `foiCombat.info()`

// hudPage is what the HUD shows (foiHUD.info()).
type hudPage struct {
	Cash     string `json:"cash"`
	Health   string `json:"health"`
	Stars    int    `json:"stars"`
	Watching string `json:"watching"`
	Car      string `json:"car"`
}

const readHUD = `foiHUD.info()`

// TestBrowserCombat plays three tabs in one room on test-flat (debug
// commands are on there): Ava and Bo, who name themselves in the lobby,
// and a spectator watching Ava. Each of issue 37's checks is a subtest;
// they run in order on the same pages.
//
//   - emote_by_number: an emote picked by number (B, then 1) plays the
//     emote and leaves the inventory alone: Ava's pistol in slot 1 stays
//     in the bar, not drawn.
//   - party_mate_blip: Ava invites Bo into her party from the roster, Bo
//     accepts: Ava's minimap draws Bo as a party mate, ringed in the mates'
//     blue.
//   - spectator_cash: the spectator's HUD shows Ava's cash, set by a debug
//     command, and says it watches Ava.
//   - shot_tracer_hit_marker: Ava draws her pistol (Q), aims at Bo 12 m
//     away and holds the mouse button: her page draws each shot's tracer
//     ending on Bo and marks her hits on the crosshair, the weapon HUD
//     counts her rounds down. Each shot sounded, and O mutes the sound.
//   - death_screen_cause: Bo's page shows the death screen: shot by Ava,
//     as the server's status frame says, back at the hospital in a few
//     seconds.
func TestBrowserCombat(t *testing.T) {
	skipShort(t)
	addr := startServer(t, "test-flat")
	a := browser(t, 90*time.Second)
	b := a.newTab()
	a.shot, a.more = "foi-web-combat-failed", readCombat
	a.joinAs(addr, "Ava")
	b.joinAs(addr, "Bo")
	for _, p := range []*tab{a, b} {
		p.holdKey("e", "KeyE", 69, 100*time.Millisecond)
		p.waitState("out of the car", 10*time.Second, func(ps pageState) bool {
			return ps.State != nil && ps.State.Own != nil && !ps.State.Own.Car
		})
	}
	// run runs one check as a subtest on pages bound to it.
	run := func(name string, f func(t *testing.T, a, b *tab)) bool {
		return t.Run(name, func(t *testing.T) { f(t, a.in(t), b.in(t)) })
	}

	// An emote by number: the inventory untouched. The shots below need
	// the pistol this gives.
	if !run("emote_by_number", func(t *testing.T, a, _ *tab) {
		t.Helper()
		a.run(`foi.command('{"type":"debug","cmd":"give-item","item":"pistol"}')`)
		a.run(`foi.command('{"type":"debug","cmd":"give-item","item":"pistol-ammo","count":24}')`)
		a.waitFor("the pistol in slot 1", `(() => { const s = foiItems.state.inv; return s && document.querySelector('#slots .slot[data-slot="0"][data-item="pistol"]') && s.slots[1].count === 24 ? "yes" : ""; })()`, 5*time.Second)
		a.holdKey("b", "KeyB", 66, 50*time.Millisecond)
		a.waitFor("the emote wheel", `document.getElementById("wheel").hidden ? "" : "open"`, 3*time.Second)
		a.holdKey("1", "Digit1", 49, 50*time.Millisecond)
		a.waitFor("Ava playing emote 0", `(() => { const s = JSON.parse(foi.state()), c = foiSocial.state.consts;
		  const me = (s.players || []).find((p) => p.player === s.welcome.player);
		  return me && c && me.act === c.emoteAct ? "yes" : ""; })()`, 5*time.Second)
		time.Sleep(300 * time.Millisecond) // a use of slot 1 would have come back by now
		if got := a.eval(`(() => { const s = foiItems.state.inv; return JSON.stringify({hand: s.hand, item: s.slots[0].count, wheel: document.getElementById("wheel").hidden}); })()`); got != `{"hand":0,"item":1,"wheel":true}` {
			t.Errorf("after the emote picked by 1: %s, want the pistol still in slot 1, not in hand, the wheel shut", got)
		}
	}) {
		return
	}

	// A party: Bo's blip on Ava's minimap is a mate's.
	run("party_mate_blip", func(t *testing.T, a, b *tab) {
		t.Helper()
		a.holdKey("Tab", "Tab", 9, 50*time.Millisecond)
		a.waitFor("Bo's Invite in the roster", `(() => { const r = [...document.querySelectorAll("#rosterTable tbody tr")].find((tr) => tr.textContent.includes("Bo"));
		  const b = r && [...r.querySelectorAll("button")].find((x) => x.textContent === "Invite"); if (!b) return ""; b.click(); return "yes"; })()`, 5*time.Second)
		a.holdKey("Tab", "Tab", 9, 50*time.Millisecond)
		b.waitFor("Ava's invitation, accepted", `(() => { const b = [...document.querySelectorAll("#partyPrompt button")].find((x) => x.textContent === "Accept");
		  if (!b) return ""; b.click(); return "yes"; })()`, 5*time.Second)
		blips := a.waitFor("Bo as a party mate on Ava's minimap", `(() => { const i = JSON.parse(foiMap.info()); return i.blips.some((b) => b.kind === "mate" && b.player === 2) ? JSON.stringify(i.blips) : ""; })()`, 10*time.Second)
		if got := a.eval(`(() => { const c = document.getElementById("minimap"), d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
		  let n = 0; for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - 61) < 12 && Math.abs(d[i+1] - 155) < 12 && d[i+2] > 235) n++; return String(n); })()`); got == "0" {
			t.Errorf("no pixel of the mates' ring on the minimap (blips %s)", blips)
		}
		a.screenshot("foi-web-party-minimap")
	})

	// A spectator watching Ava sees her cash. Its tab closes with the
	// subtest.
	run("spectator_cash", func(t *testing.T, a, _ *tab) {
		t.Helper()
		c := a.newTab()
		c.open(addr)
		c.run(`document.getElementById("watchN").value = "1"`)
		c.click("spectate")
		c.waitState("watching", 15*time.Second, func(ps pageState) bool {
			return ps.State != nil && ps.State.Joined && ps.State.Welcome != nil && ps.State.Welcome.Spectate
		})
		a.run(`foi.command('{"type":"debug","cmd":"cash","value":"4321"}')`)
		hud := waitJSON(c, "the spectator's HUD with Ava's cash", readHUD, 10*time.Second, func(h hudPage) bool {
			return h.Cash == "$4,321" && strings.Contains(h.Watching, "Ava")
		})
		if hud.Health != "100 / 100" {
			t.Errorf("the spectator's HUD shows health %q, want Ava's 100 / 100", hud.Health)
		}
		c.screenshot("foi-web-spectator-hud")
	})

	// Ava shoots Bo: her page draws the shots, his the death screen.
	if !run("shot_tracer_hit_marker", func(t *testing.T, a, b *tab) {
		t.Helper()
		a.run(`foi.command('{"type":"debug","cmd":"teleport","x":-40,"y":60}')`)
		b.run(`foi.command('{"type":"debug","cmd":"teleport","x":-28,"y":60}')`)
		a.waitState("Ava at (-40, 60)", 5*time.Second, func(ps pageState) bool {
			return ps.State != nil && ps.State.Own != nil && dist(ps.State.Own.X, ps.State.Own.Y, -40, 60) < 0.5
		})
		b.waitState("Bo at (-28, 60)", 5*time.Second, func(ps pageState) bool {
			return ps.State != nil && ps.State.Own != nil && dist(ps.State.Own.X, ps.State.Own.Y, -28, 60) < 0.5
		})
		a.holdKey("q", "KeyQ", 81, 50*time.Millisecond)
		weapon := a.waitFor("the pistol in hand", `(() => { const i = JSON.parse(foiCombat.info()); return foiItems.state.inv.hand ? i.weapon : ""; })()`, 5*time.Second)
		if !strings.Contains(weapon, "Pistol") || !strings.Contains(weapon, "24") {
			t.Errorf("weapon HUD %q, want the pistol with 24 rounds", weapon)
		}
		// The pointer on Bo: 12 m east of Ava, whom the camera centres.
		var at struct{ X, Y float64 }
		if err := a.readJSON(`(() => { const c = document.getElementById("view"), r = c.getBoundingClientRect();
		  return JSON.stringify({x: r.left + c.clientWidth / 2 + (-28 - game.cam.x) * game.zoomNow, y: r.top + c.clientHeight / 2 - (60 - game.cam.y) * game.zoomNow}); })()`, &at); err != nil {
			t.Fatal(err)
		}
		a.mouse(at.X, at.Y, "")
		a.mouse(at.X, at.Y, "press")
		b.waitFor("Bo's death screen", `(() => { const i = JSON.parse(foiCombat.info()); return i.deathShown ? i.deathText : ""; })()`, 10*time.Second)
		a.screenshot("foi-web-combat")
		a.mouse(at.X, at.Y, "release")
		var cp combatPage
		if err := a.readJSON(readCombat, &cp); err != nil {
			t.Fatal(err)
		}
		t.Logf("Ava's page: %+v", cp)
		if cp.Counts.Mine < 4 || cp.Counts.Markers < 4 || cp.Counts.Kills < 1 || !cp.Crosshair {
			t.Errorf("Ava's page drew %d of her shots, %d hit markers, %d kills, crosshair %v; want 4 shots and hits, the kill, the crosshair",
				cp.Counts.Mine, cp.Counts.Markers, cp.Counts.Kills, cp.Crosshair)
		}
		if tr := cp.LastHit; tr == nil || !tr.Mine || !tr.Hit || dist(tr.Ex, tr.Ey, -28, 60) > 1.5 || dist(tr.X, tr.Y, -40, 60) > 1.5 {
			t.Errorf("the last tracer that hit %+v, want Ava's, from (-40, 60) to Bo at (-28, 60)", tr)
		}
		if rounds := a.eval(`document.getElementById("weaponAmmo").textContent`); rounds == "24" || rounds == "" {
			t.Errorf("the weapon HUD shows %q rounds after the shots", rounds)
		}
		// Each shot sounded; O mutes the sound, and O again brings it back.
		if n, _ := strconv.Atoi(a.eval(`String(foiSound.state.played.shot)`)); n < 4 {
			t.Errorf("%d shots sounded on Ava's page, want 4", n)
		}
		a.holdKey("o", "KeyO", 79, 50*time.Millisecond)
		if m := a.eval(`String(foiSound.state.muted) + " " + document.getElementById("soundKey").textContent`); m != "true  O: sound is off" {
			t.Errorf("after O: %q, want the sound muted and the key saying so", m)
		}
		a.holdKey("o", "KeyO", 79, 50*time.Millisecond)
	}) {
		return
	}

	run("death_screen_cause", func(t *testing.T, _, b *tab) {
		t.Helper()
		death := b.eval(`JSON.parse(foiCombat.info()).deathText`)
		if !strings.Contains(death, "Shot by Ava") || !strings.Contains(death, "Back at the hospital in") {
			t.Errorf("Bo's death screen %q, want shot by Ava, back at the hospital in a few seconds", death)
		}
		if got := b.eval(`(() => { const d = JSON.parse(foi.state()).death; return d ? String(!!d.server) : "alive"; })()`); got != "true" {
			t.Errorf("Bo's death screen's cause from the server: %s, want true (the status frame's cause)", got)
		}
		var bo combatPage
		if err := b.readJSON(readCombat, &bo); err != nil || bo.Counts.Hurt < 4 {
			t.Errorf("Bo's page showed %d hits on him (err %v), want 4", bo.Counts.Hurt, err)
		}
		b.screenshot("foi-web-death")
	})
}

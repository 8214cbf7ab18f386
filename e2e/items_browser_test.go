package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserItems plays the items on the page, on main-city: out of the
// car, at the corner shop's counter the prompt offers the shop, R opens its
// window, Buy puts a water in the inventory bar and takes its price off the
// Cash shown; at the yard's crowbar the prompt offers it and R picks it up
// into the bar; at an open yard crate R opens the container window and a
// click on its ammo takes the ammo into the bar. The prompts and windows
// name the places by their titles (Corner shop, Yard crate 1). The walks are debug
// teleports (the server runs -debug).
func TestBrowserItems(t *testing.T) {
	skipShort(t)
	addr := startServer(t, "main-city", withDebug)
	p := browser(t, 60*time.Second)
	p.shot = "foi-web-items-failed"
	p.join(addr)
	p.waitState("joined, at the wheel", 20*time.Second, func(ps pageState) bool {
		return ps.State != nil && ps.State.Joined && ps.State.Own != nil && ps.State.Own.Car && ps.State.Snapshots > 5
	})
	eval, waitFor := p.eval, p.waitFor
	cash := func() string { return eval(`document.getElementById("invCash").textContent`) }
	p.holdKey("e", "KeyE", 69, 100*time.Millisecond)
	p.waitState("out of the car", 10*time.Second, func(ps pageState) bool {
		return ps.State != nil && ps.State.Own != nil && !ps.State.Own.Car
	})
	eval(`foi.command('{"type":"debug","cmd":"teleport","x":117.25,"y":10.9}')`)
	waitFor("the shop's prompt", `(() => { const p = document.getElementById("itemPrompt"); return !p.hidden && p.textContent.includes("R: shop at Corner shop") ? p.textContent : ""; })()`, 10*time.Second)
	before := cash()
	p.holdKey("r", "KeyR", 82, 50*time.Millisecond)
	if title := waitFor("the shop window", `document.getElementById("shopWindow").hidden ? "" : document.getElementById("shopTitle").textContent`, 5*time.Second); title != "Corner shop" {
		t.Errorf("shop window %q, want the shop's title, Corner shop", title)
	}
	if err := chromedp.Do(p.ctx, chromedp.Click(chromedp.CSS(`#shopItems button[data-buy="water"]`))); err != nil {
		t.Fatalf("buy: %v", err)
	}
	waitFor("the water in the inventory bar", `document.querySelector('#slots .slot[data-item="water"]') ? "yes" : ""`, 5*time.Second)
	if after := cash(); after == before {
		t.Errorf("the cash shown is %s before and after the buy", after)
	}
	t.Logf("bought a water: cash %s -> %s", before, cash())
	p.screenshot("foi-web-items-shop")

	eval(`foi.command('{"type":"debug","cmd":"teleport","x":268,"y":221}')`)
	prompt := waitFor("the crowbar's prompt", `(() => { const p = document.getElementById("itemPrompt"); return !p.hidden && p.textContent.includes("pick up") ? p.textContent : ""; })()`, 10*time.Second)
	if !strings.Contains(prompt, "Crowbar") {
		t.Errorf("prompt %q, want the crowbar named", prompt)
	}
	p.holdKey("r", "KeyR", 82, 50*time.Millisecond)
	waitFor("the crowbar in the inventory bar", `document.querySelector('#slots .slot[data-item="crowbar"]') ? "yes" : ""`, 5*time.Second)
	p.screenshot("foi-web-items-pickup")

	// yard-crate-0, open, holds pistol ammo: R opens its window, a click
	// on the ammo's slot takes it into the bar.
	eval(`foi.command('{"type":"debug","cmd":"teleport","x":208,"y":230.5}')`)
	waitFor("the crate's prompt", `(() => { const p = document.getElementById("itemPrompt"); return !p.hidden && p.textContent.includes("R: open Yard crate 1") ? p.textContent : ""; })()`, 10*time.Second)
	p.holdKey("r", "KeyR", 82, 50*time.Millisecond)
	title := waitFor("the container window", `document.getElementById("containerWindow").hidden ? "" : document.getElementById("containerTitle").textContent`, 5*time.Second)
	if title != "Yard crate 1" {
		t.Errorf("container window %q, want yard-crate-0's title, Yard crate 1", title)
	}
	if eval(`document.querySelector('#slots .slot[data-item="pistol-ammo"]') ? "yes" : ""`) != "" {
		t.Fatal("pistol ammo in the bar before it is taken")
	}
	if err := chromedp.Do(p.ctx, chromedp.Click(chromedp.CSS(`#containerSlots .slot[data-item="pistol-ammo"]`))); err != nil {
		t.Fatalf("take: %v", err)
	}
	waitFor("the ammo in the inventory bar", `document.querySelector('#slots .slot[data-item="pistol-ammo"]') ? "yes" : ""`, 5*time.Second)
	waitFor("the ammo gone from the crate", `document.querySelector('#containerSlots .slot[data-item="pistol-ammo"]') ? "" : "yes"`, 5*time.Second)
	p.screenshot("foi-web-items-crate")
}

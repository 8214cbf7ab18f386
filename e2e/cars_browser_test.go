package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/fiveonit/engine/games"
)

// carsPage is what the cars test reads of the page.
type carsPage struct {
	Prompt   string  `json:"prompt"`   // the car prompt's text
	Ring     string  `json:"ring"`     // the key ring's text
	Window   bool    `json:"window"`   // the garage window is shown
	Price    string  `json:"price"`    // its price line
	Note     string  `json:"note"`     // its last reply
	Kept     int     `json:"kept"`     // the garage frame's cars
	TakeOuts int     `json:"takeOuts"` // take-out buttons in the window
	KeepOn   bool    `json:"keepOn"`   // the keep button is enabled
	Garages  int     `json:"garages"`  // the welcome's garages
	Own      int     `json:"own"`      // the keys frame's own cars
	BayX     float32 `json:"bayX"`     // the first garage's first bay
	BayY     float32 `json:"bayY"`
	BayYaw   float32 `json:"bayYaw"`
	Title    string  `json:"title"` // the garage window's title
	List     string  `json:"list"`  // its list of cars kept
}

const readCars = `JSON.stringify((() => {
  const s = foiCars.state, el = (id) => document.getElementById(id);
  const b = s.garages.length ? s.garages[0].bays[0] : {pos: [0, 0], yaw: 0};
  return {prompt: el("carPrompt").hidden ? "" : el("carPrompt").textContent, ring: el("keyRing").hidden ? "" : el("keyRing").textContent,
    window: !el("garageWindow").hidden, price: el("garagePrice").textContent, note: el("garageNote").textContent,
    kept: s.kept.length, takeOuts: el("garageCars").querySelectorAll("button").length, keepOn: !el("garageKeep").disabled,
    garages: s.garages.length, own: s.own.size, bayX: b.pos[0], bayY: b.pos[1], bayYaw: b.yaw,
    title: el("garageTitle").textContent, list: el("garageCars").textContent};
})())`

// garagePrice returns the price free roam, the default room's game, asks
// to keep a car in main-city's garage, as the page writes it ("$100").
func garagePrice(t *testing.T) string {
	t.Helper()
	g, err := games.Lookup("free-roam")
	if err != nil {
		t.Fatal(err)
	}
	for _, gp := range g.Rules.Garages {
		if gp.Garage == "garage" {
			return fmt.Sprintf("$%d", gp.Price)
		}
	}
	t.Fatal("free roam prices no garage of main-city")
	return ""
}

// TestBrowserGarage plays main-city's garage on the page: the player's
// car (the prompt says it is theirs and open) is put in the garage's
// first bay; the garage window comes up with its price, and its Keep
// button keeps the car; a Take out button brings it back out. Then, on
// foot with the yard key beside a locked yard van, the prompt shows it
// locked and opened by a key carried, and L unlocks it.
func TestBrowserGarage(t *testing.T) {
	skipShort(t)
	addr := startServer(t, "main-city", withDebug)
	p := browser(t, 45*time.Second)
	p.join(addr)
	cp := waitJSON(p, "the welcome's garage and the spawn car owned", readCars, 10*time.Second, func(cp carsPage) bool {
		return cp.Garages == 1 && cp.Own == 1
	})
	teleport := fmt.Sprintf(`foi.command('{"type":"debug","cmd":"teleport","x":%g,"y":%g,"yaw":%g}')`, cp.BayX, cp.BayY, cp.BayYaw)
	p.run(teleport) // into the bay
	cp = waitJSON(p, "the garage window, in the car", readCars, 10*time.Second, func(cp carsPage) bool {
		return cp.Window && cp.KeepOn && strings.Contains(cp.Prompt, "yours")
	})
	if want := garagePrice(t); !strings.Contains(cp.Price, want) || !strings.Contains(cp.Prompt, "open") || cp.TakeOuts != 0 {
		t.Fatalf("before keeping: %+v, want the price %s", cp, want)
	}
	p.screenshot("foi-web-garage")
	p.click("garageKeep")
	cp = waitJSON(p, "the car kept", readCars, 10*time.Second, func(cp carsPage) bool {
		return cp.Kept == 1 && cp.TakeOuts == 1 && cp.Own == 0
	})
	if !strings.Contains(cp.Note, "keep: done") || cp.KeepOn {
		t.Fatalf("after keeping: %+v", cp)
	}
	// The window is titled by the garage's name, the car kept listed by
	// its model's (not "model 0").
	if cp.Title != "Garage" || !strings.HasPrefix(cp.List, "Bay 1: ") || strings.Contains(cp.List, "model") {
		t.Errorf("garage window %q listing %q, want Garage, bay 1 with the car's model named", cp.Title, cp.List)
	}
	// Off the bay (the driver stands beside it), then take the car out.
	away := fmt.Sprintf(`foi.command('{"type":"debug","cmd":"teleport","x":%g,"y":%g}')`, cp.BayX, cp.BayY-8)
	p.run(away)
	time.Sleep(300 * time.Millisecond)
	if err := chromedp.Do(p.ctx, chromedp.Click(`#garageCars button`)); err != nil {
		t.Fatalf("click take out: %v", err)
	}
	cp = waitJSON(p, "the car taken out", readCars, 10*time.Second, func(cp carsPage) bool {
		return cp.Kept == 0 && cp.Own == 1 && strings.Contains(cp.Note, "take out: done")
	})
	t.Logf("page: %+v", cp)

	// On foot with the yard key beside a locked yard van: the prompt says
	// locked, with the key; L unlocks it.
	van := `(() => { const b = game.level.vehicleSpawners.find((v) => v.id === "yard-vans").bays[0].pos;
	  foi.command('{"type":"debug","cmd":"give-item","item":"yard-key","count":1}');
	  foi.command(JSON.stringify({type: "debug", cmd: "teleport", x: b[0] - 2.5, y: b[1]}));
	  return true; })()`
	p.run(van) // give the yard key and go to the van
	cp = waitJSON(p, "the locked van's prompt with the key", readCars, 10*time.Second, func(cp carsPage) bool {
		return strings.Contains(cp.Prompt, "locked") && strings.Contains(cp.Prompt, "you have its key") && strings.Contains(cp.Ring, "yard")
	})
	p.screenshot("foi-web-car-key")
	p.holdKey("l", "KeyL", 76, 100*time.Millisecond)
	cp = waitJSON(p, "the van unlocked", readCars, 10*time.Second, func(cp carsPage) bool {
		return strings.Contains(cp.Prompt, "open") && strings.Contains(cp.Prompt, "L: lock")
	})
}

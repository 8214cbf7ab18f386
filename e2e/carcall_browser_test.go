package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fiveonit/engine/server"
)

// carCallPage is what the car call test reads of the page
// (foiCarCall.info()).
type carCallPage struct {
	Call *struct {
		State string     `json:"state"`
		Car   uint16     `json:"car"`
		At    [2]float32 `json:"at"`
		Fee   int64      `json:"fee"`
	} `json:"call"`
	Pos      []float32 `json:"pos"`  // the car's blip
	Blip     bool      `json:"blip"` // the blip shows
	Line     string    `json:"line"` // the line over the car prompt
	Sent     int       `json:"sent"`
	Refusals []string  `json:"refusals"`
}

const readCarCall = `foiCarCall.info()`

// TestBrowserCallCar calls the player's car back from the page on
// main-city: out of the car, the player is sent 270 m away on foot (a
// debug teleport); C (shown in the help) calls the car: the line counts
// the delivery down and the blip marks the car where it stands, far away;
// a few seconds later the car arrives beside the player (the blip moves
// there, the server's notice says so, the cash shows the fee paid). C
// again is refused, and the page says why.
func TestBrowserCallCar(t *testing.T) {
	skipShort(t)
	addr := startServer(t, "main-city", withDebug)
	p := browser(t, 60*time.Second)
	p.shot, p.more = "foi-web-carcall-failed", readCarCall
	p.join(addr)
	p.waitState("joined, at the wheel", 20*time.Second, func(ps pageState) bool {
		return ps.State != nil && ps.State.Joined && ps.State.Own != nil && ps.State.Own.Car && ps.State.Snapshots > 5
	})
	if help := p.eval(`document.getElementById("help").textContent`); !strings.Contains(help, "call your car") {
		t.Errorf("the help lacks the car call's key: %q", help)
	}
	cash := func() string { return p.eval(`document.getElementById("invCash").textContent`) }
	before := cash()

	p.holdKey("e", "KeyE", 69, 100*time.Millisecond)
	start := p.waitState("out of the car", 10*time.Second, func(ps pageState) bool {
		return ps.State != nil && ps.State.Own != nil && !ps.State.Own.Car
	})
	// Another player spawn of main-city, on the same street 270 m east.
	p.run(`foi.command('{"type":"debug","cmd":"teleport","x":-56,"y":-190.25}')`)
	away := p.waitState("270 m from the car", 10*time.Second, func(ps pageState) bool {
		return ps.State != nil && ps.State.Own != nil && !ps.State.Own.Car && dist(ps.State.Own.X, ps.State.Own.Y, -56, -190.25) < 2
	})
	if d := dist(start.State.Own.X, start.State.Own.Y, away.State.Own.X, away.State.Own.Y); d < 200 {
		t.Fatalf("only %.0f m from the car", d)
	}

	p.holdKey("c", "KeyC", 67, 50*time.Millisecond)
	cc := waitJSON(p, "the car on its way", readCarCall, 5*time.Second, func(cc carCallPage) bool {
		return cc.Call != nil && cc.Call.State == "coming" && cc.Blip && strings.Contains(cc.Line, "on its way")
	})
	if cc.Sent != 1 || cc.Call.Fee != server.CarCallFee || dist(cc.Pos[0], cc.Pos[1], start.State.Own.X, start.State.Own.Y) > 10 {
		t.Fatalf("coming: %+v, want the blip where the car was left (%g, %g)", cc, start.State.Own.X, start.State.Own.Y)
	}
	p.screenshot("foi-web-carcall-coming")

	cc = waitJSON(p, "the car arrived", readCarCall, 15*time.Second, func(cc carCallPage) bool {
		return cc.Call != nil && cc.Call.State == "arrived" && cc.Blip
	})
	ps, err := p.state()
	if err != nil {
		t.Fatal(err)
	}
	if d := dist(cc.Pos[0], cc.Pos[1], ps.State.Own.X, ps.State.Own.Y); d > 40 {
		t.Fatalf("the car's blip is %.0f m from the player: %+v", d, cc)
	}
	// The blip stays by the player while the snapshots catch up with the
	// frame: it does not go back to where the car was.
	for range 20 {
		time.Sleep(25 * time.Millisecond)
		cc = carCallPage{}
		if err := p.readJSON(readCarCall, &cc); err != nil {
			t.Fatal(err)
		}
		if d := dist(cc.Pos[0], cc.Pos[1], ps.State.Own.X, ps.State.Own.Y); d > 40 {
			t.Fatalf("after the arrival the car's blip went back %.0f m from the player: %+v", d, cc)
		}
	}
	p.waitFor("the server's notice", `JSON.parse(foiMissions.info()).notices.some((n) => n.includes("is here")) ? "yes" : ""`, 5*time.Second)
	p.waitFor("the fee paid", fmt.Sprintf(`document.getElementById("invCash").textContent !== %q ? "yes" : ""`, before), 5*time.Second)
	p.screenshot("foi-web-carcall-arrived")

	p.holdKey("c", "KeyC", 67, 50*time.Millisecond)
	cc = waitJSON(p, "a call again refused", readCarCall, 5*time.Second, func(cc carCallPage) bool {
		return len(cc.Refusals) == 1
	})
	if !strings.Contains(cc.Refusals[0], "delivered a moment ago") || !strings.Contains(cc.Line, "Can't call your car") {
		t.Fatalf("refusal %+v", cc)
	}
}

// TestBrowserCallCarPhone: in a game with a phone (city-jobs), the phone
// offers the call; at the wheel of the car, the server refuses it and the
// page says why.
func TestBrowserCallCarPhone(t *testing.T) {
	skipShort(t)
	addr := startServer(t, "main-city", withGame("city-jobs"))
	p := browser(t, 45*time.Second)
	p.shot, p.more = "foi-web-carcall-phone-failed", readCarCall
	p.join(addr)
	p.waitState("joined, at the wheel", 20*time.Second, func(ps pageState) bool {
		return ps.State != nil && ps.State.Joined && ps.State.Own != nil && ps.State.Own.Car && ps.State.Snapshots > 5
	})
	p.holdKey("p", "KeyP", 80, 50*time.Millisecond)
	p.waitFor("the phone", `document.getElementById("phone").hidden ? "" : "yes"`, 10*time.Second)
	p.click("phoneCallCar")
	cc := waitJSON(p, "the call refused", readCarCall, 5*time.Second, func(cc carCallPage) bool {
		return len(cc.Refusals) == 1
	})
	if cc.Sent != 1 || !strings.Contains(cc.Refusals[0], "you sit in it") || !strings.Contains(cc.Line, "Can't call your car") || cc.Call != nil {
		t.Fatalf("after the phone's call at the wheel: %+v", cc)
	}
}

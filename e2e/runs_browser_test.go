package e2e

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/jointoken"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/missions"
	"github.com/fiveonit/engine/rooms"
	"github.com/fiveonit/engine/runs"
	"github.com/fiveonit/engine/serve"
	"github.com/fiveonit/engine/textframe"
)

// The run of TestBrowserRun: a versus of two teams, Red and Blue, in
// which a player scores a point per runPoint metres between them and
// where they stood as the run went live, and the first to runWin points
// once the test has armed the win (driveRunArmed) wins for their team:
// a car that coasts on under a loaded machine does not end the run before
// the test is done with it.
const (
	runPoint = 5
	runWin   = 6
)

// driveRunArmed arms the win; driveRunTakeOut makes the mission take the
// first player of Blue out of the run.
var driveRunArmed, driveRunTakeOut atomic.Bool

var driveRunDef = &missions.RunDef{Name: "drive-off", Title: "Drive off",
	Teams: []missions.RunTeam{{Name: "Red"}, {Name: "Blue"}},
	New: func() missions.RunMission {
		return &driveRun{from: map[ecs.Entity]levels.Vec2{}, got: map[ecs.Entity]int{}}
	}}

type driveRun struct {
	from map[ecs.Entity]levels.Vec2 // where each player stood as the run went live
	got  map[ecs.Entity]int         // the points each has scored
	won  bool
	out  bool // Blue's player was taken out
}

func (r *driveRun) Start(h missions.RunHost) error {
	for _, p := range h.Players() {
		r.from[p.Char] = p.Pos
	}
	return nil
}

func (r *driveRun) Step(h missions.RunHost) {
	if r.won {
		return
	}
	if driveRunTakeOut.Load() && !r.out {
		for _, p := range h.Players() {
			if h.Team(p) == 1 {
				r.out = true
				h.TakeOut(p)
				return // the players changed under the loop
			}
		}
	}
	for _, p := range h.Players() {
		from, ok := r.from[p.Char]
		if !ok {
			r.from[p.Char] = p.Pos
			continue
		}
		n := int(math.Hypot(float64(p.Pos.X-from.X), float64(p.Pos.Y-from.Y)) / runPoint)
		if n > r.got[p.Char] {
			h.Score(p, n-r.got[p.Char])
			r.got[p.Char] = n
		}
		if n >= runWin && driveRunArmed.Load() {
			r.won = true
			h.Win(h.Team(p), fmt.Sprintf("Player %d drove off first.", p.Number))
			return
		}
	}
}

func (r *driveRun) Phone(missions.RunHost, missions.Player, missions.Command) error {
	return errors.New("no screen in this run")
}

func (r *driveRun) Leave(missions.RunHost, missions.Player) {}

// runInfo is what the page's run module holds (foiRuns.info()).
type runInfo struct {
	Run       *textframe.RunFrame      `json:"run"`
	Spect     *textframe.SpectateFrame `json:"spect"`
	Watching  bool                     `json:"watching"`
	Reply     string                   `json:"reply"`
	Countdown string                   `json:"countdown"`
}

// seat returns the seat of the run named name, nil for none.
func (ri runInfo) seat(name string) *textframe.RunSeat {
	if ri.Run == nil {
		return nil
	}
	for i := range ri.Run.Seats {
		if ri.Run.Seats[i].Name == name {
			return &ri.Run.Seats[i]
		}
	}
	return nil
}

const readRun = `foiRuns.info()`

// waitRun reads the page's run until ok, and returns it.
func (p *tab) waitRun(what string, d time.Duration, ok func(runInfo) bool) runInfo {
	p.t.Helper()
	return waitJSON(p, "run: "+what, readRun, d, ok)
}

// welcomeOf reads the welcome the page's client holds.
func (p *tab) welcomeOf() textframe.Welcome {
	p.t.Helper()
	var w textframe.Welcome
	if err := p.readJSON(`JSON.stringify(JSON.parse(foi.state()).welcome || null)`, &w); err != nil {
		p.t.Fatal(err)
	}
	return w
}

// TestBrowserRun plays a run room in three tabs: two players in seats of
// two teams (join tokens in the page's address), and a spectator. The
// first player joins and the run waits; the second joins and the run
// counts down in big numbers; it goes live and the scoreboard lists both
// seats by team, connected. The spectator switches whom it watches with ]
// and back with a click on a name, its view following. The second
// player's connection is cut by a proxy in front of it, as a network that
// fails cuts it (no close frame): its page shows "reconnecting...", the
// first sees its seat dropped, and once the network is back the page is
// in the world again with the same session, character and car, on a new
// reconnect token. The first player's tab is reloaded and comes back to
// its place by itself. The mission takes the second player out of the
// run: his page shows him out, watching the first player, his view on her
// car. The first player drives off and wins: both pages show the result,
// the scores in it.
func TestBrowserRun(t *testing.T) {
	skipShort(t)
	start := time.Now()
	const secret = "browser-run-secret-0123456789"
	s := startServe(t, "test-flat", func(c *serve.Config) { c.Secret = secret })
	driveRunArmed.Store(false)
	driveRunTakeOut.Store(false)
	roster := runs.Roster{Seats: []runs.Seat{{Account: "ada", Name: "Ada", Team: 0}, {Account: "bo", Name: "Bo", Team: 1}}}
	if _, err := s.Rooms().MakeRun(rooms.RunSpec{Room: "run-e2e", Roster: roster, Def: driveRunDef}); err != nil {
		t.Fatal(err)
	}
	token := func(acc, name string) string {
		tok, err := jointoken.Sign([]byte(secret), jointoken.Claims{Account: acc, Name: name, Expires: time.Now().Add(time.Hour).Unix()})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	px := newProxy(t, s.Addr())

	a := browser(t, 150*time.Second)
	a.more = readRun
	a.openURL("http://" + s.Addr() + "/?token=" + token("ada", "Ada") + "#run-e2e")
	if room := a.eval(`document.getElementById("room").value`); room != "run-e2e" {
		t.Fatalf("the lobby names room %q, want the address's run-e2e", room)
	}
	a.click("join")
	a.waitState("Ada joined", 15*time.Second, func(ps pageState) bool { return ps.Status == "connected" })
	ri := a.waitRun("waiting for Bo", 5*time.Second, func(ri runInfo) bool {
		bo := ri.seat("Bo")
		return ri.Run != nil && ri.Run.Phase == "waiting" && bo != nil && bo.State == "empty"
	})
	if ri.Run.You != 0 || ri.Run.Title != "Drive off" || ri.Run.Ends == 0 {
		t.Fatalf("Ada's run frame %+v, want seat 0 of Drive off, with the wait's end", ri.Run)
	}
	if txt := a.eval(`document.getElementById("runPhase").textContent`); !strings.HasPrefix(txt, "Waiting for the players · starts by 0:") {
		t.Errorf("the run panel says %q while waiting, want the time left", txt)
	}

	sp := a.newTab()
	sp.more = readRun
	sp.openURL("http://" + s.Addr() + "/#run-e2e")
	sp.click("spectate")
	sp.waitRun("the spectator's run frame", 15*time.Second, func(ri runInfo) bool { return ri.Run != nil && ri.Run.You == -1 })

	b := a.newTab()
	b.more = readRun
	b.openURL("http://" + px.addr() + "/?token=" + token("bo", "Bo") + "#run-e2e")
	b.click("join")
	b.waitState("Bo joined", 15*time.Second, func(ps pageState) bool { return ps.Status == "connected" })
	t.Logf("three pages in the run room at %v", time.Since(start).Round(time.Millisecond))

	// The countdown, as Ada's page shows it: big numbers going down to
	// live.
	var seen []string
	a.poll("the countdown to live", 12*time.Second, func() (bool, string) {
		var ri runInfo
		if err := a.readJSON(readRun, &ri); err != nil || ri.Run == nil {
			return false, fmt.Sprint(err)
		}
		if ri.Run.Phase == "countdown" && ri.Countdown != "" && (len(seen) == 0 || seen[len(seen)-1] != ri.Countdown) {
			seen = append(seen, ri.Countdown)
		}
		return ri.Run.Phase == "live", fmt.Sprintf("phase %s, countdown seen %v", ri.Run.Phase, seen)
	})
	if len(seen) < 3 || !slices.IsSortedFunc(seen, func(x, y string) int { return strings.Compare(y, x) }) || seen[0] > "5" || seen[len(seen)-1] != "1" {
		t.Errorf("the countdown showed %v, want the seconds from 5 or below down to 1", seen)
	}
	a.screenshot("foi-web-run-live")

	// The scoreboard: both teams, each seat connected.
	rows := a.eval(`Array.from(document.querySelectorAll("#runSeats tr")).map((tr) => tr.className + ":" + tr.textContent).join("\n")`)
	want := []string{"team:Red0", "seat playing connected me:Ada (you)playing0", "team:Blue0", "seat playing connected:Boplaying0"}
	if got := strings.Split(rows, "\n"); !slices.Equal(got, want) {
		t.Errorf("the scoreboard's rows:\n%s\nwant:\n%s", rows, strings.Join(want, "\n"))
	}

	// The spectator watches the first player, switches with ] to the
	// other, and back with a click on a name; its view follows.
	ri = sp.waitRun("the spectator watching", 5*time.Second, func(ri runInfo) bool { return ri.Spect != nil && ri.Spect.Session != 0 && ri.Watching })
	ada, bo := ri.seat("Ada"), ri.seat("Bo")
	if ri.Spect.Session != ada.Session || ri.Spect.Name != "Ada" || ri.Spect.Team != 0 {
		t.Fatalf("the spectator watches %+v, want Ada (session %d) of Red", ri.Spect, ada.Session)
	}
	sp.holdKey("]", "BracketRight", 221, 50*time.Millisecond)
	sp.waitRun("the spectator switched to Bo", 5*time.Second, func(ri runInfo) bool { return ri.Spect != nil && ri.Spect.Session == bo.Session })
	boAt := b.waitState("Bo's car", 5*time.Second, func(ps pageState) bool { return ps.State != nil && ps.State.Own != nil }).State.Own
	sp.waitState("the spectator's view on Bo's car", 5*time.Second, func(ps pageState) bool {
		w := ps.State.Watched
		return w != nil && dist(w.X, w.Y, boAt.X, boAt.Y) < 1
	})
	if txt := sp.eval(`document.getElementById("runWatching").textContent`); !strings.HasPrefix(txt, "Watching Bo (Blue)") {
		t.Errorf("the spectate bar says %q, want Bo of Blue", txt)
	}
	sp.screenshot("foi-web-run-spectate")
	sp.run(fmt.Sprintf(`document.querySelector('#runSeats button[data-session="%d"]').click()`, ada.Session))
	sp.waitRun("the spectator back on Ada", 5*time.Second, func(ri runInfo) bool { return ri.Spect != nil && ri.Spect.Session == ada.Session })
	t.Logf("the spectator switched at %v", time.Since(start).Round(time.Millisecond))

	// Ada drives off and scores.
	a.holdKey("w", "KeyW", 87, 2500*time.Millisecond)
	b.waitRun("Ada's points on Bo's scoreboard", 5*time.Second, func(ri runInfo) bool {
		ada := ri.seat("Ada")
		return ada != nil && ada.Score >= 1 && ri.Run.Teams[0].Score == ada.Score
	})

	// The network drops under Bo: the proxy cuts its connections and
	// refuses new ones until the test has seen both pages take it in.
	before := b.welcomeOf()
	boOwn := b.waitState("Bo's own car", time.Second, func(ps pageState) bool { return ps.State.Own != nil }).State.Own
	cut := time.Now()
	px.cut()
	b.waitFor("Bo's page reconnecting", `(() => { const d = document.getElementById("reconnect"); return !d.hidden && document.getElementById("reconnectTitle").textContent === "reconnecting..." ? "yes" : ""; })()`, 5*time.Second)
	a.waitRun("Bo's seat dropped on Ada's page", 5*time.Second, func(ri runInfo) bool {
		bo := ri.seat("Bo")
		return bo != nil && bo.State == "dropped" && !bo.Connected
	})
	a.waitFor("the seat's state in Ada's scoreboard", `document.querySelector('#runSeats tr[data-seat="1"]').className.includes("dropped") ? "yes" : ""`, time.Second)
	b.screenshot("foi-web-run-reconnecting")
	px.restore()
	ps := b.waitState("Bo back in the world", 20*time.Second, func(ps pageState) bool {
		return ps.Status == "connected" && ps.State != nil && ps.State.Own != nil
	})
	back := time.Since(cut)
	after := b.welcomeOf()
	if after.Session != before.Session || after.Player != before.Player || after.Character != before.Character || after.Car != before.Car {
		t.Errorf("Bo came back as session %d player %d character %d car %d, want %d %d %d %d",
			after.Session, after.Player, after.Character, after.Car, before.Session, before.Player, before.Character, before.Car)
	}
	if after.Rejoin == "" || after.Rejoin == before.Rejoin {
		t.Errorf("reconnect token %q after %q: want a new welcome's new one", after.Rejoin, before.Rejoin)
	}
	if d := dist(ps.State.Own.X, ps.State.Own.Y, boOwn.X, boOwn.Y); d > 1 {
		t.Errorf("Bo's car is back %.1f m from where it was held", d)
	}
	if hidden := b.eval(`String(document.getElementById("reconnect").hidden)`); hidden != "true" {
		t.Errorf("the reconnect dialog still shows once back")
	}
	a.waitRun("Bo's seat playing again", 5*time.Second, func(ri runInfo) bool {
		bo := ri.seat("Bo")
		return bo != nil && bo.State == "playing" && bo.Connected
	})
	b.waitRun("Bo's run panel again", 5*time.Second, func(ri runInfo) bool { return ri.Run != nil && ri.Run.Phase == "live" && ri.Run.You == 1 })
	t.Logf("Bo's page was back %v after the cut (the network down for part of it), at %v", back.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))

	// A reload of Ada's tab comes back to her place by itself.
	adaBefore := a.welcomeOf()
	if _, err := chromedp.Run(a.ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	a.waitState("Ada back after the reload", 20*time.Second, func(ps pageState) bool {
		return ps.Status == "connected" && ps.State != nil && ps.State.Own != nil
	})
	if w := a.welcomeOf(); w.Session != adaBefore.Session || w.Character != adaBefore.Character {
		t.Errorf("after the reload Ada is session %d character %d, want %d %d", w.Session, w.Character, adaBefore.Session, adaBefore.Character)
	}

	// Bo is taken out of the run: his page shows him out and watching his
	// only rival still in it, Ada, his view on her car.
	driveRunTakeOut.Store(true)
	ri = b.waitRun("Bo out, watching Ada", 5*time.Second, func(ri runInfo) bool {
		bo := ri.seat("Bo")
		return bo != nil && bo.State == "out" && ri.Watching && ri.Spect != nil && ri.Spect.Session == ada.Session
	})
	adaAt := a.waitState("Ada's car", 5*time.Second, func(ps pageState) bool { return ps.State != nil && ps.State.Own != nil }).State.Own
	b.waitState("Bo's view on Ada's car", 5*time.Second, func(ps pageState) bool {
		w := ps.State.Watched
		return ps.State.Own == nil && w != nil && dist(w.X, w.Y, adaAt.X, adaAt.Y) < 1
	})
	if txt := b.eval(`document.getElementById("runSpectate").hidden ? "" : document.getElementById("runWatching").textContent`); !strings.HasPrefix(txt, "Watching Ada (Red)") {
		t.Errorf("Bo's spectate bar says %q, want Ada of Red", txt)
	}
	b.screenshot("foi-web-run-out")

	// Ada drives on and wins: both pages show the result.
	driveRunArmed.Store(true)
	for i := 0; i < 4; i++ {
		var ri runInfo
		if err := a.readJSON(readRun, &ri); err == nil && ri.Run != nil && ri.Run.Result != nil {
			break
		}
		a.holdKey("w", "KeyW", 87, 1500*time.Millisecond)
	}
	ri = a.waitRun("the result on Ada's page", 5*time.Second, func(ri runInfo) bool { return ri.Run != nil && ri.Run.Result != nil })
	if r := ri.Run.Result; r.Outcome != "won" || r.Winner != 0 || r.NoPay || ri.Run.Phase != "ended" {
		t.Errorf("the run ended %+v in phase %s, want Red's win, paid", r, ri.Run.Phase)
	}
	if h := a.eval(`document.getElementById("runResult").hidden ? "" : document.getElementById("runOutcome").textContent`); h != "Red wins: your team!" {
		t.Errorf("Ada's result window says %q", h)
	}
	b.waitFor("the result on Bo's page", `document.getElementById("runResult").hidden ? "" : document.getElementById("runOutcome").textContent`, 5*time.Second)
	if h := b.eval(`document.getElementById("runOutcome").textContent + "|" + document.getElementById("runText").textContent`); h != fmt.Sprintf("Red wins|Player %d drove off first.", ada.Player) {
		t.Errorf("Bo's result window says %q", h)
	}
	b.screenshot("foi-web-run-result")
	t.Logf("the run ended at %v", time.Since(start).Round(time.Millisecond))
}

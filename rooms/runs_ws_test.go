package rooms

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fiveonit/engine/clock/clocktest"
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/ecs/ecstest"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/missions"
	"github.com/fiveonit/engine/runs"
	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/textframe"
	"github.com/fiveonit/engine/transport/websocket"
)

// runPlayer is a player over a real WebSocket: a goroutine reads its
// frames and keeps the last text frame of each type.
type runPlayer struct {
	conn *websocket.ClientConn
	mu   sync.Mutex
	last map[string][]byte
	done chan struct{}
	why  string // the close reason, once done
}

func dialRunPlayer(t *testing.T, u string) *runPlayer {
	t.Helper()
	c, err := websocket.Dial(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	p := &runPlayer{conn: c, last: map[string][]byte{}, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		for {
			f, text, err := c.Read(context.Background())
			var ce *websocket.CloseError
			switch {
			case errors.As(err, &ce):
				p.mu.Lock()
				p.why = ce.Reason
				p.mu.Unlock()
				return
			case err != nil:
				return
			case text:
				p.mu.Lock()
				p.last[textframe.Type(f)] = append([]byte(nil), f...)
				p.mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() { c.Drop() })
	return p
}

// text decodes p's last frame of type typ into v, reporting whether there
// was one.
func (p *runPlayer) text(typ string, v any) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	b, ok := p.last[typ]
	return ok && json.Unmarshal(b, v) == nil
}

// runWorld is a manager on a fake clock with its routes served over HTTP.
type runWorld struct {
	t    *testing.T
	m    *Manager
	clk  *clocktest.Fake
	ws   string // the ws:// base of the public routes
	http string // the http:// base of the admin's run routes
}

func newRunWorld(t *testing.T) *runWorld {
	t.Helper()
	clk := clocktest.New()
	m := newManager(t, Config{DefaultLevel: "test-flat", Clock: clk, RejoinWindow: 30 * time.Second})
	pub := httptest.NewServer(m.Handler(HTTPConfig{Secret: secret}))
	adm := httptest.NewServer(m.RunHandler("adm"))
	t.Cleanup(func() { pub.Close(); adm.Close() })
	return &runWorld{t: t, m: m, clk: clk, ws: "ws" + strings.TrimPrefix(pub.URL, "http"), http: adm.URL}
}

// until steps the fake clock a tick at a time until cond holds, at most
// limit ticks of room time.
func (w *runWorld) until(what string, limit time.Duration, cond func() bool) {
	w.t.Helper()
	for n := time.Duration(0); !cond(); n += TickPeriod {
		if n > limit {
			w.t.Fatalf("%s: not within %v of room time", what, limit)
		}
		w.clk.Step(w.t, TickPeriod)
	}
}

func (w *runWorld) join(room, account string, q ...string) *runPlayer {
	w.t.Helper()
	return dialRunPlayer(w.t, w.ws+"/rooms/"+room+"?token="+token(w.t, account)+strings.Join(q, ""))
}

// standStill is a run mission that does nothing: its run ends by forfeit
// or abandon. In co-op it saves a checkpoint at (60, -150) as it starts.
type standStill struct{ coop bool }

func (m standStill) Start(h missions.RunHost) error {
	if m.coop {
		h.Checkpoint(levels.Vec2{X: 60, Y: -150}, 0)
	}
	return nil
}
func (standStill) Step(missions.RunHost) {}
func (standStill) Phone(missions.RunHost, missions.Player, missions.Command) error {
	return errors.New("no screen")
}
func (standStill) Leave(missions.RunHost, missions.Player) {}

// TestVersusOverWebSocket: a 2 v 2 versus run over real WebSockets: a
// player whose socket drops comes back within the minute to the same
// character, car and pose; two who drop for good lose their team the run
// by forfeit.
func TestVersusOverWebSocket(t *testing.T) {
	w := newRunWorld(t)
	def := &missions.RunDef{Name: "stand", Title: "Stand", Teams: []missions.RunTeam{{Name: "Red"}, {Name: "Blue"}},
		New: func() missions.RunMission { return standStill{} }}
	r, err := w.m.MakeRun(RunSpec{Room: "vs", Def: def, Roster: runs.Roster{Seats: []runs.Seat{
		{Account: "a1", Team: 0}, {Account: "a2", Team: 0}, {Account: "b1", Team: 1}, {Account: "b2", Team: 1}}}})
	if err != nil {
		t.Fatal(err)
	}
	ps := map[string]*runPlayer{}
	for _, acc := range []string{"a1", "a2", "b1", "b2"} {
		ps[acc] = w.join("vs", acc)
	}
	var f textframe.RunFrame
	w.until("live", 10*time.Second, func() bool { return ps["a1"].text("run", &f) && f.Phase == "live" })

	var w1 textframe.Welcome
	ps["a1"].text("welcome", &w1)
	car, _ := r.gs.World().ByWireID(w1.Car)
	pose := *ecsPose(r, car)
	ps["a1"].conn.Drop()
	a1 := server.Who{Account: "a1"}
	w.until("a1's seat held", 5*time.Second, func() bool { return r.gs.Resumable(a1) })
	for range 10 * time.Second / TickPeriod { // ten seconds away
		w.clk.Step(t, TickPeriod)
	}

	back := w.join("vs", "a1", "&rejoin="+url.QueryEscape(w1.Rejoin))
	var w2 textframe.Welcome
	w.until("a1 back", 5*time.Second, func() bool { return back.text("welcome", &w2) })
	if w2.Character != w1.Character || w2.Car != w1.Car {
		t.Fatalf("a1 back as %d/%d, want %d/%d", w2.Character, w2.Car, w1.Character, w1.Car)
	}
	if got := *ecsPose(r, car); got != pose {
		t.Fatalf("a1's car moved while held: %+v, was %+v", got, pose)
	}

	ps["b1"].conn.Drop()
	ps["b2"].conn.Drop()
	w.until("blue forfeits", runs.HoldTicks*TickPeriod+5*time.Second, func() bool {
		return back.text("run", &f) && f.Result != nil
	})
	if f.Result.Outcome != "forfeit" || f.Result.Winner != 0 || f.Seats[2].State != "gone" || f.Seats[3].State != "gone" {
		t.Fatalf("after blue dropped for good: %+v %+v", f.Result, f.Seats)
	}
}

// TestCoopLateSeatOverWebSocket: a co-op run takes a seat added under way
// (through the admin route) at its checkpoint.
func TestCoopLateSeatOverWebSocket(t *testing.T) {
	w := newRunWorld(t)
	def := &missions.RunDef{Name: "stand", Title: "Stand", Coop: true, Teams: []missions.RunTeam{{Name: "Crew"}},
		New: func() missions.RunMission { return standStill{coop: true} }}
	r, err := w.m.MakeRun(RunSpec{Room: "coop", Def: def, Roster: runs.Roster{Seats: []runs.Seat{{Account: "c1"}}}})
	if err != nil {
		t.Fatal(err)
	}
	c1 := w.join("coop", "c1")
	var f textframe.RunFrame
	w.until("live", 10*time.Second, func() bool { return c1.text("run", &f) && f.Phase == "live" })
	w.clk.Step(t, TickPeriod) // the mission started and saved its checkpoint

	req, _ := http.NewRequest(http.MethodPost, w.http+"/runs/coop/seats", strings.NewReader(`{"account":"c2","team":0}`))
	req.Header.Set("Authorization", "Bearer adm")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST a seat: %s", resp.Status)
	}
	c2 := w.join("coop", "c2")
	var wl textframe.Welcome
	w.until("c2 in", 5*time.Second, func() bool { return c2.text("welcome", &wl) })
	char, _ := r.gs.World().ByWireID(wl.Character)
	p := ecsPose(r, char).Pos
	if d := (levels.Vec2{X: p.X, Y: p.Y}).Sub(levels.Vec2{X: 60, Y: -150}).Len(); d > 7 {
		t.Fatalf("the late seat came in %v m from the checkpoint, at %+v", d, p)
	}
	w.until("c2 in the run frame", time.Second, func() bool { return c2.text("run", &f) && len(f.Seats) == 2 })
	if !f.Seats[1].Late || f.You != 1 || f.Seats[1].State != "playing" {
		t.Fatalf("the late seat's run frame: %+v", f)
	}
}

// ecsPose returns e's pose in r's world, read between ticks (the fake
// clock is settled, the room idle).
func ecsPose(r *Room, e ecs.Entity) *components.Pose {
	return ecstest.Get[components.Pose](r.gs.World(), e)
}

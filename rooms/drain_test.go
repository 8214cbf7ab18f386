package rooms

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fiveonit/engine/clock/clocktest"
	"github.com/fiveonit/engine/missions"
	"github.com/fiveonit/engine/runs"
	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/server/servertest"
	"github.com/fiveonit/engine/textframe"
)

// endless is a run mission that never ends by itself.
type endless struct{}

func (endless) Start(missions.RunHost) error { return nil }
func (endless) Step(missions.RunHost)        {}
func (endless) Phone(missions.RunHost, missions.Player, missions.Command) error {
	return errors.New("no screen")
}
func (endless) Leave(missions.RunHost, missions.Player) {}

var endlessRun = &missions.RunDef{Name: "endless", Title: "Endless",
	Teams: []missions.RunTeam{{Name: "Red"}, {Name: "Blue"}},
	New:   func() missions.RunMission { return endless{} }}

// texts returns the text frames of type typ c got since the last call,
// releasing every frame.
func texts(c *servertest.MemConn, typ string) []map[string]any {
	var out []map[string]any
	fs := c.Recv()
	for _, f := range fs {
		if f.Text && textframe.Type(f.Data) == typ {
			var m map[string]any
			json.Unmarshal(f.Data, &m)
			out = append(out, m)
		}
	}
	c.Release(fs)
	return out
}

// TestDrain: once the manager drains, a new player, a new room and a new
// run are refused with the time left (ErrDraining, a shutting down), a
// held place is not; every player is told the time left as it starts and
// again at the marks; a run still playing ends with a result
// RunResultLead before the end; Idle holds once nobody plays.
func TestDrain(t *testing.T) {
	clk := clocktest.New()
	m := newManager(t, Config{DefaultLevel: "test-flat", Grace: time.Second, RejoinWindow: time.Minute, Clock: clk})
	if _, err := m.MakeRun(RunSpec{Room: "duel", Roster: duel(), Def: endlessRun}); err != nil {
		t.Fatal(err)
	}
	conns := map[string]*servertest.MemConn{}
	join := func(room, acc string) {
		c := servertest.NewMemConn(false, 0)
		if _, _, err := m.Join(room, Options{}, c, server.Who{Account: acc}); err != nil {
			t.Fatalf("%s in %s: %v", acc, room, err)
		}
		conns[acc] = c
	}
	join("duel", "a1")
	join("duel", "b1")
	join("default", "p1")
	step := func(d time.Duration) {
		for range d / TickPeriod {
			clk.Step(t, TickPeriod)
		}
	}
	step(runs.CountdownTicks*TickPeriod + time.Second) // live
	if m.Idle() {
		t.Fatal("idle with three players")
	}
	for _, c := range conns {
		texts(c, "")
	}

	m.Drain(clk.Now().Add(40 * time.Second))
	if !m.Draining() {
		t.Fatal("not draining")
	}
	newcomer := servertest.NewMemConn(false, 0)
	for _, room := range []string{"default", "another"} {
		_, _, err := m.Join(room, Options{}, newcomer, server.Who{Account: "late"})
		if !errors.Is(err, ErrDraining) || !errors.Is(err, ErrShuttingDown) || !strings.Contains(err.Error(), "it stops in 40 s") {
			t.Errorf("a new player in %s: %v, want ErrDraining with the time left", room, err)
		}
		if err := m.CanJoin(room, Options{}, server.Who{}); !errors.Is(err, ErrDraining) {
			t.Errorf("CanJoin %s: %v", room, err)
		}
	}
	if _, err := m.MakeRun(RunSpec{Room: "duel2", Roster: duel(), Def: endlessRun}); !errors.Is(err, ErrDraining) {
		t.Errorf("a new run: %v", err)
	}
	notices := func(want string) {
		t.Helper()
		for acc, c := range conns {
			ns := texts(c, "notice")
			if len(ns) != 1 || !strings.Contains(ns[0]["text"].(string), want) || ns[0]["kind"] != "info" {
				t.Errorf("%s: notices %v, want one saying %q", acc, ns, want)
			}
		}
	}
	step(TickPeriod)
	notices("shuts down in 40 s")
	step(9 * time.Second) // 31 s left: no mark crossed
	for acc, c := range conns {
		if ns := texts(c, "notice"); len(ns) != 0 {
			t.Errorf("%s: notices %v between two marks", acc, ns)
		}
	}
	step(time.Second + TickPeriod) // past 30 s left
	notices("shuts down in 30 s")
	step(20 * time.Second) // past 10 s left
	notices("shuts down in 10 s")

	// The run still plays until RunResultLead before the end.
	step(4 * time.Second)
	if res := lastRun(t, conns["a1"]); res != nil && res.Result != nil {
		t.Fatalf("the run ended %v before the end: %+v", 10*time.Second-4*time.Second, res.Result)
	}
	step(time.Second + 2*TickPeriod)
	f := lastRun(t, conns["a1"])
	if f == nil || f.Phase != "ended" || f.Result == nil || f.Result.Outcome != "failure" || f.Result.Text != runDrainedText {
		t.Fatalf("the run at %v left: %+v", RunResultLead, f)
	}
	// The rooms close at Shutdown, with the reason; Idle then.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := m.Shutdown(ctx, "server shutting down"); err != nil {
		t.Fatal(err)
	}
	if !m.Idle() {
		t.Error("not idle once shut down")
	}
}

// lastRun returns the last run frame c got since the last read, nil for
// none.
func lastRun(t *testing.T, c *servertest.MemConn) *textframe.RunFrame {
	t.Helper()
	fs := texts(c, "run")
	if len(fs) == 0 {
		return nil
	}
	var f textframe.RunFrame
	b, _ := json.Marshal(fs[len(fs)-1])
	json.Unmarshal(b, &f)
	return &f
}

// TestDrainResume: a player whose socket dropped takes their held place
// back while the server drains (and hears the drain); a new player is
// refused with the reason, its refusal counted as shutting_down.
func TestDrainResume(t *testing.T) {
	watch := &roomWatch{}
	m, base, refused := newHTTPWith(t, Config{DefaultLevel: "test-flat", RejoinWindow: 30 * time.Second,
		Observe: func(*Room) RoomObserver { return watch }})
	tok := token(t, "alice")
	first := dialRoom(t, base+"/rooms/default?token="+tok)
	if _, reason := firstText(t, first); reason != "" {
		t.Fatalf("join: %q", reason)
	}
	first.Drop()
	alice := server.Who{Account: "alice"}
	if !watch.until("default", 5*time.Second, func(r *Room) bool { return r.gs.Resumable(alice) }) {
		t.Fatal("the room does not hold alice's place")
	}
	m.Drain(time.Now().Add(time.Minute))
	back := dialRoom(t, base+"/rooms/default?token="+tok)
	if f, reason := firstText(t, back); reason != "" || textframe.Type(f) != "welcome" {
		t.Fatalf("alice back while draining: %q %.60q", reason, f)
	}
	late := dialRoom(t, base+"/rooms/default?token="+token(t, "bo"))
	if _, reason := firstText(t, late); !strings.Contains(reason, "the server is draining: it stops in") {
		t.Errorf("bo, new while draining: closed with %q", reason)
	}
	if r := refused(); !slices.Contains(r, "websocket shutting_down") {
		t.Errorf("refusals %v, want shutting_down", r)
	}
}

// stallObserver makes a room's tick wait while stalled is set, and says
// on in (if made) that a tick waits.
type stallObserver struct {
	stalled *atomic.Bool
	wake    *sync.Cond
	in      chan struct{}
}

func (o stallObserver) Ticked(*Room) {
	o.wake.L.Lock()
	if o.stalled.Load() && o.in != nil {
		o.in <- struct{}{}
	}
	for o.stalled.Load() {
		o.wake.Wait()
	}
	o.wake.L.Unlock()
}
func (o stallObserver) Closed(*Room) {}

// TestStalled: a room stuck in a tick shows in Stalled with how long on
// the rooms' clock, and leaves it once it ticks again; a manager shut
// down has none.
func TestStalled(t *testing.T) {
	var stalled atomic.Bool
	wake := sync.NewCond(&sync.Mutex{})
	in := make(chan struct{}, 1)
	clk := clocktest.New()
	m := newManager(t, Config{DefaultLevel: "test-flat", Clock: clk, Observe: func(*Room) RoomObserver { return stallObserver{&stalled, wake, in} }})
	clk.Step(t, TickPeriod)
	if s := m.Stalled(200 * time.Millisecond); len(s) != 0 {
		t.Fatalf("stalled at start: %v", s)
	}
	stalled.Store(true)
	clk.Advance(TickPeriod)
	<-in // the room's tick waits
	clk.Advance(400 * time.Millisecond)
	s := m.Stalled(200 * time.Millisecond)
	if len(s) != 1 || s[0].Room != "default" || s[0].For < 400*time.Millisecond {
		t.Errorf("stuck: %v", s)
	}
	wake.L.Lock()
	stalled.Store(false)
	wake.Broadcast()
	wake.L.Unlock()
	clk.Settle(t)
	clk.Step(t, TickPeriod)
	if s := m.Stalled(200 * time.Millisecond); len(s) != 0 {
		t.Errorf("ticking again: %v", s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	m.Shutdown(ctx, "over")
	if s := m.Stalled(0); s != nil {
		t.Errorf("shut down: %v", s)
	}
}

// TestLeft: the time left is written in whole seconds under 2 min, whole
// minutes from there, rounded up.
func TestLeft(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0 s", -time.Second: "0 s", 1500 * time.Millisecond: "2 s", 30 * time.Second: "30 s",
		119 * time.Second: "119 s", 2 * time.Minute: "2 min", 150 * time.Second: "3 min",
	} {
		if got := Left(d); got != want {
			t.Errorf("Left(%v) = %q, want %q", d, got, want)
		}
	}
}

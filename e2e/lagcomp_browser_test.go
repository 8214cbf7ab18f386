package e2e

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chewxy/math32"
	"github.com/mlange-42/arche/generic"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/prefab"
	"github.com/fiveonit/engine/rooms"
	"github.com/fiveonit/engine/systems/damage"
	"github.com/fiveonit/engine/systems/lagcomp"
	"github.com/fiveonit/engine/web"
)

// The crossing of the lag compensation's browser test: a sedan crosses
// crossRange north of the shooter at crossSpeed, back and forth between
// crossSwing either side of it; the page fires while the car it draws is
// within crossWindow either side (45° at most off straight ahead), as
// bench/loadgen's bot does. crossDelay is the delay each way between the
// page and the server; crossRounds the rounds fired with the rewind on,
// then as many with it off.
const (
	crossSpeed  = 15 // m/s
	crossRange  = 15 // m
	crossSwing  = 20 // m
	crossWindow = 15 // m
	crossDelay  = 100 * time.Millisecond
	crossRounds = 24
)

// TestBrowserLagComp: the page, 100 ms each way from the server, fires an
// SMG at a car crossing its view at 15 m/s, aiming at the car where it
// draws it. With the server's rewind (package systems/lagcomp) its rounds
// hit the car, and the page marks the hits; with the rewind off (the
// damage system's history taken away, as for a client that claims no view)
// the same rounds miss: the car the page draws is about 5 m behind the
// server's by then.
func TestBrowserLagComp(t *testing.T) {
	skipShort(t)
	cr := &crossing{rewind: true}
	addr := newDelayProxy(t, startCrossing(t, cr), crossDelay)
	p := browser(t, 60*time.Second)
	p.shot, p.more = "foi-web-lagcomp-failed", readCombat
	p.joinAs(addr, "Ava")
	// The delay is the page's: its measured round trip takes it in.
	p.waitState("a round trip of 200 ms or more", 10*time.Second, func(ps pageState) bool {
		return ps.State != nil && ps.State.PingMs >= float64(2*crossDelay/time.Millisecond)
	})
	// Out of the car, to open ground far from it, an SMG in hand.
	p.holdKey("e", "KeyE", 69, 100*time.Millisecond)
	p.waitState("out of the car", 10*time.Second, func(ps pageState) bool {
		return ps.State != nil && ps.State.Own != nil && !ps.State.Own.Car
	})
	const x, y = 100, 100
	p.run(`foi.command('{"type":"debug","cmd":"give-item","item":"smg"}')`)
	p.run(`foi.command('{"type":"debug","cmd":"give-item","item":"smg-ammo","count":240}')`)
	p.run(fmt.Sprintf(`foi.command('{"type":"debug","cmd":"teleport","x":%d,"y":%d}')`, x, y))
	p.waitState("at the range", 10*time.Second, func(ps pageState) bool {
		return ps.State != nil && ps.State.Own != nil && dist(ps.State.Own.X, ps.State.Own.Y, x, y) < 0.5
	})
	p.waitFor("the SMG in the bar", `document.querySelector('#slots .slot[data-item="smg"]') ? "yes" : ""`, 10*time.Second)
	p.holdKey("q", "KeyQ", 81, 50*time.Millisecond)
	p.waitFor("the SMG in hand", `(() => { const w = JSON.parse(foiCombat.info()).weapon; return foiItems.state.inv.hand && w.includes("SMG") ? w : ""; })()`, 10*time.Second)

	// The car, crossing. The page aims at it where it draws it, frame by
	// frame, with the pointer's own events, and holds the button while it
	// is in the window.
	var welcome struct {
		Welcome struct{ Character uint16 } `json:"welcome"`
	}
	if err := p.readJSON(`foi.state()`, &welcome); err != nil || welcome.Welcome.Character == 0 {
		t.Fatalf("the page's character: %+v, err %v", welcome, err)
	}
	cr.begin(welcome.Welcome.Character, x, y)
	var car uint16
	p.poll("the crossing car made", 5*time.Second, func() (bool, string) {
		car = cr.carID()
		return car != 0, fmt.Sprintf("none yet, err %v", cr.failed())
	})
	p.run(strings.NewReplacer("CAR", strconv.Itoa(int(car)), "WINDOW", strconv.Itoa(crossWindow)).Replace(aimJS))
	p.waitFor("the car drawn", `foiAim.seen ? "yes" : ""`, 10*time.Second)

	// fire fires crossRounds rounds with the rewind on or off, then
	// waits for the page to have drawn every round fired so far, and
	// returns what the server counted and the hit markers the page drew
	// for the rounds of this phase.
	markers := 0
	fire := func(rewind bool) (hitShare, int) {
		t.Helper()
		cr.setRewind(rewind)
		p.poll(fmt.Sprintf("the rewind %v in the damage system", rewind), 5*time.Second, func() (bool, string) {
			return cr.rewound() == rewind, fmt.Sprintf("%v", cr.rewound())
		})
		p.run(`foiAim.on = true`)
		p.poll(fmt.Sprintf("%d rounds fired, rewind %v", crossRounds, rewind), 20*time.Second, func() (bool, string) {
			s := cr.scoreOf(rewind)
			return s.shots >= crossRounds, s.String()
		})
		// The trigger let go at the server: half a second on, every
		// input the page made before is in.
		_, mark := cr.holding()
		p.run(`foiAim.on = false`)
		p.poll("the trigger let go at the server", 5*time.Second, func() (bool, string) {
			held, tick := cr.holding()
			return !held && tick >= mark+ecs.TickRate/2, fmt.Sprintf("held %v at tick %d, from %d", held, tick, mark)
		})
		total := cr.shots()
		var cp combatPage
		p.poll("the page drawing every round fired", 10*time.Second, func() (bool, string) {
			err := p.readJSON(readCombat, &cp)
			return err == nil && cp.Counts.Mine >= total, fmt.Sprintf("%d of %d, err %v", cp.Counts.Mine, total, err)
		})
		// A hit comes in the snapshot of its round; a moment more for the
		// last snapshots' events to be drawn.
		p.poll("the page's hit markers settled", 5*time.Second, func() (bool, string) {
			var again combatPage
			err := p.readJSON(readCombat, &again)
			done := err == nil && again.Counts.Markers == cp.Counts.Markers
			cp = again
			return done, fmt.Sprintf("%+v, err %v", cp.Counts, err)
		})
		n := cp.Counts.Markers - markers
		markers = cp.Counts.Markers
		return cr.scoreOf(rewind), n
	}
	on, onMarked := fire(true)
	p.screenshot("foi-web-lagcomp")
	off, offMarked := fire(false)
	t.Logf("%v each way: rewound %v, the page marked %d; at the present %v, the page marked %d", crossDelay, on, onMarked, off, offMarked)
	if err := cr.failed(); err != nil {
		t.Fatal(err)
	}
	if on.share() < 0.75 || float64(onMarked) < 0.75*float64(on.shots) {
		t.Errorf("rewound: %v, the page marked %d: want 75 %% or more of the rounds on the car", on, onMarked)
	}
	// The rewind's reach: the round trip (200 ms and more), the page's
	// interpolation (6 ticks) and the input's wait, short of the bound,
	// which would have cut it.
	if on.view[0] < 12 || on.view[1] >= lagcomp.MaxRewind {
		t.Errorf("rewound: %v: want views 12 to %d ticks back", on, lagcomp.MaxRewind-1)
	}
	if off.share() > 0.25 || float64(offMarked) > 0.25*float64(off.shots) {
		t.Errorf("at the present: %v, the page marked %d: want 25 %% or less (the test proves nothing)", off, offMarked)
	}
}

// aimJS makes the page aim at car CAR where it draws it: after each
// draw list (foi.view), it moves the pointer over the car and, while
// foiAim.on and the car is within WINDOW m either side ahead (north),
// holds the button, by the events the page's own handlers take.
const aimJS = `(() => {
  const car = CAR, win = WINDOW, D = foi.constants.draw, OWN = foi.constants.own;
  const view = foi.view, el = document.getElementById("view");
  window.foiAim = { on: false, seen: 0, down: false };
  const mouse = (type, x, y) => {
    const r = el.getBoundingClientRect();
    el.dispatchEvent(new MouseEvent(type, { bubbles: true, button: 0, clientX: r.left + x, clientY: r.top + y }));
  };
  foi.view = (...args) => {
    const n = view(...args);
    const f = new Float32Array(foi.drawBuf.buffer, 0, n * D.stride);
    let me = -1, it = -1;
    for (let i = 0; i < n; i++) {
      if (f[i * D.stride + D.own] & OWN.predicted) me = i * D.stride;
      if (f[i * D.stride + D.eid] === car) it = i * D.stride;
    }
    if (me < 0 || it < 0) return n;
    foiAim.seen++;
    const dx = f[it + D.x] - f[me + D.x], dy = f[it + D.y] - f[me + D.y];
    const x = el.clientWidth / 2 + dx * game.zoomNow, y = el.clientHeight / 2 - dy * game.zoomNow;
    mouse("mousemove", x, y);
    const fire = foiAim.on && Math.abs(dx) < win && dy > 0;
    if (fire !== foiAim.down) { foiAim.down = fire; mouse(fire ? "mousedown" : "mouseup", x, y); }
    return n;
  };
})()`

// startCrossing serves the page and the rooms, the default room on
// test-flat with cr watching it, and returns the address.
func startCrossing(t *testing.T, cr *crossing) string {
	t.Helper()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	m, err := rooms.NewManager(rooms.Config{DefaultLevel: "test-flat", Log: log, Observe: func(r *rooms.Room) rooms.RoomObserver {
		if r.Name != "default" {
			return nil
		}
		return cr
	}})
	if err != nil {
		t.Fatal(err)
	}
	routes := m.Handler(rooms.HTTPConfig{})
	mux := http.NewServeMux()
	mux.Handle("/rooms", routes)
	mux.Handle("/rooms/", routes)
	mux.Handle("/levels/", routes)
	mux.Handle("/games", routes)
	mux.Handle("/", web.Handler())
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		m.Shutdown(ctx, "test over")
		srv.Close()
	})
	return srv.Listener.Addr().String()
}

// hitShare is what the shooter's rounds did.
type hitShare struct {
	shots, hits int
	// view is how far back (ticks) the rounds' views were, smallest and
	// largest, as the server took them from the page's inputs (checked
	// and bounded): what a rewind goes back.
	view [2]uint64
}

func (h hitShare) share() float64 { return float64(h.hits) / float64(max(h.shots, 1)) }

func (h hitShare) String() string {
	return fmt.Sprintf("%d of %d rounds hit (%.0f %%), views %d..%d ticks back",
		h.hits, h.shots, 100*h.share(), h.view[0], h.view[1])
}

// crossing is the test's hand in the room, from the room's goroutine
// (a rooms.RoomObserver): after each tick it counts the shooter's rounds
// and their hits on the car, under the rewind the tick ran with, sets the
// rewind the test wants for the next, and moves the car on, whole again.
type crossing struct {
	mu      sync.Mutex
	shooter uint16 // the shooter's character's wire id, 0 before begin
	x, y    float32
	rewind  bool        // the test's wish
	ran     bool        // the rewind the last tick ran with
	car     uint16      // the car's wire id, 0 before it is made
	firing  bool        // the shooter's input held the trigger at the last tick
	tick    uint64      // the room's tick after the last
	score   [2]hitShare // at the present, rewound
	err     error

	// The room's goroutine only.
	from  ecs.Entity
	carE  ecs.Entity
	past  *lagcomp.History
	dm    *damage.System
	poses generic.Map3[components.Pose, components.Velocity, components.Health]
	drive generic.Map1[components.Drive]
}

// begin makes the car cross in front of shooter, standing at (x, y).
func (c *crossing) begin(shooter uint16, x, y float32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.shooter, c.x, c.y = shooter, x, y
}

func (c *crossing) carID() uint16 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.car
}

func (c *crossing) setRewind(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rewind = on
}

// rewound reports whether the last tick ran with the rewind.
func (c *crossing) rewound() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ran
}

func (c *crossing) scoreOf(rewound bool) hitShare {
	c.mu.Lock()
	defer c.mu.Unlock()
	if rewound {
		return c.score[1]
	}
	return c.score[0]
}

// shots returns the rounds counted so far.
func (c *crossing) shots() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.score[0].shots + c.score[1].shots
}

// holding reports whether the shooter's input held the trigger at the
// last tick, and the room's tick after it.
func (c *crossing) holding() (bool, uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.firing, c.tick
}

func (c *crossing) failed() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Ticked counts the tick's rounds, sets the next tick's rewind and moves
// the car: the room's goroutine.
func (c *crossing) Ticked(r *rooms.Room) {
	w := r.Server().World()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.shooter == 0 || c.err != nil {
		return
	}
	if c.carE.IsZero() {
		c.make(w)
		return
	}
	if !w.Arche.Alive(c.from) || !w.Arche.Alive(c.carE) {
		return // the page has left: the test is over
	}
	now := w.Tick() - 1 // the tick just run
	s := &c.score[0]
	if c.ran {
		s = &c.score[1]
	}
	for _, ev := range w.Events {
		switch {
		case ev.Kind == components.EventShot && ev.Source == c.from:
			back := now - lagcomp.Rewound(now, ev.View)
			if s.shots == 0 {
				s.view = [2]uint64{back, back}
			}
			s.view[0], s.view[1] = min(s.view[0], back), max(s.view[1], back)
			s.shots++
		case ev.Kind == components.EventHit && ev.Source == c.from && ev.Target == c.carE:
			s.hits++
		}
	}
	c.firing, c.tick = c.drive.Get(c.from).Held&components.BtnFire != 0, w.Tick()
	if c.rewind {
		c.dm.Rewind = c.past
	} else {
		c.dm.Rewind = nil
	}
	c.ran = c.rewind
	// Back and forth at crossSpeed: a triangle wave of the tick.
	k := float32(w.Tick()) / ecs.TickRate * crossSpeed
	swing := float32(4 * crossSwing)
	k -= swing * math32.Floor(k/swing)
	dx, v := k-crossSwing, float32(crossSpeed)
	if k > 2*crossSwing {
		dx, v = 3*crossSwing-k, -crossSpeed
	}
	pose, vel, hp := c.poses.Get(c.carE)
	pose.Pos = components.Vec3{X: c.x + dx, Y: c.y + crossRange}
	pose.Rot = components.YawQuat(0)
	*vel = components.Velocity{Lin: components.Vec3{X: v}}
	hp.HP = hp.Max
}

// make finds the shooter and the systems and makes the car.
func (c *crossing) make(w *ecs.World) {
	var ok bool
	if c.from, ok = w.ByWireID(c.shooter); !ok {
		c.err = fmt.Errorf("no entity %d for the shooter", c.shooter)
		return
	}
	c.past, _ = w.Sched.System(lagcomp.Name).(*lagcomp.History)
	c.dm, _ = w.Sched.System(damage.Name).(*damage.System)
	if c.past == nil || c.dm == nil || c.dm.Rewind != c.past {
		c.err = fmt.Errorf("the room's damage system %p does not rewind with its history %p", c.dm, c.past)
		return
	}
	c.ran = true
	car, err := prefab.New(w).Vehicle(components.KindCar, phys.ModelSedan, components.Vec3{X: c.x, Y: c.y + crossRange}, 0, ecs.Entity{})
	if err != nil {
		c.err = err
		return
	}
	ids := generic.NewMap1[components.Identity](w.Arche)
	c.carE, c.car = car, ids.Get(car).WireID
	c.poses = generic.NewMap3[components.Pose, components.Velocity, components.Health](w.Arche)
	c.drive = generic.NewMap1[components.Drive](w.Arche)
}

// Closed is the rooms.RoomObserver's end.
func (c *crossing) Closed(*rooms.Room) {}

// newDelayProxy listens on loopback in front of target and holds every
// byte delay in each direction, until the test ends: a network whose
// round trip is 2 delay longer. It returns its address.
func newDelayProxy(t *testing.T, target string, delay time.Duration) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, c, s)
			mu.Unlock()
			go delayed(s, c, delay)
			go delayed(c, s, delay)
		}
	}()
	return ln.Addr().String()
}

// delayed copies src to dst, each read written delay after it came, in
// order, until either ends; then it ends both.
func delayed(dst, src net.Conn, delay time.Duration) {
	type chunk struct {
		due time.Time
		b   []byte
	}
	q := make(chan chunk, 1024)
	go func() {
		defer close(q)
		for {
			b := make([]byte, 16<<10)
			n, err := src.Read(b)
			if n > 0 {
				q <- chunk{time.Now().Add(delay), b[:n]}
			}
			if err != nil {
				return
			}
		}
	}()
	for c := range q {
		time.Sleep(time.Until(c.due))
		if _, err := dst.Write(c.b); err != nil {
			break
		}
	}
	dst.Close()
	src.Close()
	for range q { // the reader ends on the closed src
	}
}

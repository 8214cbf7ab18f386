package missionhost_test

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/ecs/ecstest"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/missions"
	"github.com/fiveonit/engine/prefab"
	"github.com/fiveonit/engine/systems/missionhost"
	"github.com/fiveonit/engine/systems/stealth/book"
	"github.com/fiveonit/engine/systems/systemstest"
	"github.com/mlange-42/arche/generic"
)

// probe is a trivial mission for the host's tests: it parks a car, counts
// its steps, and does what the test sets (panic, succeed) at a step.
type probe struct {
	car      ecs.Entity
	steps    int
	panicAt  int
	left     []uint32
	startErr error
}

func (p *probe) Start(h missions.Host) error {
	if p.startErr != nil {
		h.SpawnVehicle("van", levels.Vec2{X: 10, Y: 10}, 0)
		return p.startErr
	}
	car, err := h.SpawnVehicle("van", levels.Vec2{X: 10, Y: 10}, 0)
	p.car = car
	h.SetTracker(missions.Tracker{Objective: "Wait."})
	return err
}

func (p *probe) Step(h missions.Host) {
	p.steps++
	if p.steps == p.panicAt {
		var m map[string]int
		m["boom"]++ // a nil map: the mission panics
	}
}

func (p *probe) Phone(h missions.Host, pl missions.Player, c missions.Command) error { return nil }

func (p *probe) Leave(h missions.Host, pl missions.Player) { p.left = append(p.left, pl.Session) }

// room is a bare world on test-flat with the host alone in its schedule
// and characters made as the server makes them.
type room struct {
	w    *ecs.World
	h    *missionhost.System
	pf   *prefab.Builder
	last *probe
	ids  generic.Map1[components.Identity]
	log  bytes.Buffer
}

func newRoom(t *testing.T, m func() *probe, party int) *room {
	t.Helper()
	l := systemstest.Load(t, "test-flat")
	w := ecstest.New(t, ecs.Config{Seed: 1, Level: l})
	r := &room{w: w, pf: prefab.New(w), ids: generic.NewMap1[components.Identity](w.Arche)}
	defs := []missions.Def{{Name: "probe", Title: "Probe", Contact: "Test", Offer: "Wait here.", Party: party,
		New: func() missions.Mission { r.last = m(); return r.last }}}
	r.h = missionhost.New(w, l, defs)
	r.h.Log = slog.New(slog.NewTextHandler(&r.log, nil))
	if err := w.SetSchedule([]ecs.Entry{{Name: missionhost.Name, Phase: ecs.PhasePostStep, System: r.h}}); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *room) join(t *testing.T, session uint32, party uint16) ecs.Entity {
	t.Helper()
	e, err := r.pf.Character(uint16(session), party, session, components.Vec3{X: float32(session) * 5}, 0)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func (r *room) offer(t *testing.T, e ecs.Entity) uint32 {
	t.Helper()
	ph := r.h.PhoneOf(e, r.ids.Get(e).WireID)
	if ph == nil {
		t.Fatal("no phone")
	}
	for _, m := range ph.Messages() {
		if m.Open {
			return m.Offer
		}
	}
	return 0
}

func notices(ph *missionhost.Phone, kind missionhost.NoticeKind) []string {
	var out []string
	for _, n := range ph.TakeNotices() {
		if n.Kind == kind {
			out = append(out, n.Text)
		}
	}
	return out
}

// TestPanickingMissionFails: a mission that panics in its step is ended
// with a failure its player is told, the panic is logged with the
// mission's name, what it spawned is gone, and the room ticks on.
func TestPanickingMissionFails(t *testing.T) {
	r := newRoom(t, func() *probe { return &probe{panicAt: 3} }, 0)
	a := r.join(t, 1, 0)
	r.w.Step()
	if err := r.h.Accept(r.w, a, r.offer(t, a)); err != nil {
		t.Fatal(err)
	}
	car := r.last.car
	for range 5 {
		r.w.Step()
	}
	ph := r.h.PhoneOf(a, r.ids.Get(a).WireID)
	if r.h.Running() != 0 || ph.Mission != "" {
		t.Fatalf("running %d, tracker %q after the panic", r.h.Running(), ph.Mission)
	}
	if n := notices(ph, missionhost.NoticeFailure); len(n) != 1 || !strings.Contains(n[0], "broke down") {
		t.Fatalf("failure notices %q", n)
	}
	if r.w.Arche.Alive(car) {
		t.Fatal("the mission's car is still in the world")
	}
	if !strings.Contains(r.log.String(), "mission panicked") || !strings.Contains(r.log.String(), "mission=probe") {
		t.Fatalf("log %q", r.log.String())
	}
	if r.last.steps != 3 {
		t.Fatalf("stepped %d times, want 3 (none after the panic)", r.last.steps)
	}
}

// TestStartRefusedChangesNothing: a Start that fails refuses the offer,
// which stays open, and takes back what it spawned.
func TestStartRefusedChangesNothing(t *testing.T) {
	r := newRoom(t, func() *probe { return &probe{startErr: errors.New("not today")} }, 0)
	a := r.join(t, 1, 0)
	r.w.Step()
	o := r.offer(t, a)
	if err := r.h.Accept(r.w, a, o); err == nil || err.Error() != "not today" {
		t.Fatalf("accept: %v", err)
	}
	r.w.Step()
	if r.h.Running() != 0 || r.offer(t, a) != o {
		t.Fatalf("running %d, offer %d (was %d)", r.h.Running(), r.offer(t, a), o)
	}
	f := generic.NewFilter1[components.Seats]()
	q := f.Query(r.w.Arche)
	if n := q.Count(); n != 0 {
		t.Fatalf("%d vehicles left after the refused start", n)
	}
	q.Close()
}

// TestPartyPlaysTogether: a mission accepted by a party member is one
// instance for the whole party: every member gets its tracker (and the
// offer closes on every phone); a member
// who leaves the party is told to the mission and loses the tracker; a
// member who leaves the room too; the last one out ends it. A party job
// refuses a player without the party it takes.
func TestPartyPlaysTogether(t *testing.T) {
	r := newRoom(t, func() *probe { return &probe{} }, 2)
	a, b, c := r.join(t, 1, 1), r.join(t, 2, 1), r.join(t, 3, 0)
	r.w.Step()
	if err := r.h.Accept(r.w, c, r.offer(t, c)); !errors.Is(err, missionhost.ErrParty) {
		t.Fatalf("a party job accepted alone: %v", err)
	}
	if err := r.h.Accept(r.w, a, r.offer(t, a)); err != nil {
		t.Fatal(err)
	}
	if o := r.offer(t, b); o != 0 {
		t.Fatalf("the offer stays open on b's phone (%d): b is on the party's mission", o)
	}
	r.w.Step()
	pa, pb := r.h.PhoneOf(a, r.ids.Get(a).WireID), r.h.PhoneOf(b, r.ids.Get(b).WireID)
	if r.h.Running() != 1 || pa.Mission != "probe" || pb.Mission != "probe" || pb.Tracker.Objective != "Wait." {
		t.Fatalf("running %d, trackers %q %q", r.h.Running(), pa.Mission, pb.Mission)
	}
	r.ids.Get(b).Party = 0 // b leaves the party
	r.w.Step()
	if len(r.last.left) != 1 || r.last.left[0] != 2 || pb.Mission != "" || pa.Mission != "probe" {
		t.Fatalf("left %v, trackers %q %q", r.last.left, pa.Mission, pb.Mission)
	}
	r.w.Despawn(a) // a leaves the room: the last one out
	r.w.Step()
	if r.h.Running() != 0 || len(r.last.left) != 2 {
		t.Fatalf("running %d, left %v", r.h.Running(), r.last.left)
	}
}

// watcher is a mission that only reads the Watch, for TestWatch.
type watcher struct {
	probe
	w missions.Watch
	p missions.Player
}

func (m *watcher) Step(h missions.Host) { m.w, m.p = h.Watch(), h.Players()[0] }

// TestWatch: a mission reads the room's book through Watch, read only: a
// room without one sees nobody; entries about its player show as seen
// since their tick, the last one with where and by what, an alert or a
// camera's spotting as the alarm raised over them; another player's
// entries and a camera shot out are not theirs; the room's alert shows.
func TestWatch(t *testing.T) {
	r := newRoom(t, func() *probe { return &probe{} }, 0)
	var m *watcher
	defs := []missions.Def{{Name: "watch", Title: "Watch", Contact: "Test", Offer: "Look.",
		New: func() missions.Mission { m = &watcher{}; return m }}}
	r.h = missionhost.New(r.w, r.w.Level, defs)
	if err := r.w.SetSchedule([]ecs.Entry{{Name: missionhost.Name, Phase: ecs.PhasePostStep, System: r.h}}); err != nil {
		t.Fatal(err)
	}
	b := &book.Book{}
	book.Keep(r.w, b)
	a, other := r.join(t, 1, 0), r.join(t, 2, 0)
	r.w.Step()
	if err := r.h.Accept(r.w, a, r.offer(t, a)); err != nil {
		t.Fatal(err)
	}
	r.w.Step()
	v, p := m.w, m.p
	if v.SeenSince(p, 0) || v.Alarmed(p, 0) {
		t.Fatal("seen in an empty book")
	}
	if _, ok := v.LastSeen(p); ok {
		t.Fatal("a sighting in an empty book")
	}
	b.Add(book.Entry{Tick: 10, What: book.Suspicious, Player: a, Pos: components.Vec3{X: 3, Y: 4}, Camera: -1})
	b.Add(book.Entry{Tick: 12, What: book.Alert, Player: other, Camera: -1})
	b.Add(book.Entry{Tick: 14, What: book.Broken, Camera: 0})
	if !v.SeenSince(p, 10) || v.SeenSince(p, 11) || v.Alarmed(p, 0) {
		t.Fatalf("after a suspicion at 10: seen since 10 %v, since 11 %v, alarmed %v", v.SeenSince(p, 10), v.SeenSince(p, 11), v.Alarmed(p, 0))
	}
	if s, ok := v.LastSeen(p); !ok || s.Tick != 10 || s.At != (levels.Vec2{X: 3, Y: 4}) || s.Camera || s.Alarm {
		t.Fatalf("last seen %+v %v", s, ok)
	}
	b.Add(book.Entry{Tick: 20, What: book.Spotted, Player: a, Camera: 1})
	b.Raise(20)
	if s, ok := v.LastSeen(p); !ok || s.Tick != 20 || !s.Camera || !s.Alarm || !v.Alarmed(p, 20) || v.Alarmed(p, 21) {
		t.Fatalf("after a camera's spotting: %+v, alarmed since 20 %v", s, v.Alarmed(p, 20))
	}
	if on, since := v.Alarm(); !on || since != 20 {
		t.Fatalf("alarm %v since %d", on, since)
	}
}

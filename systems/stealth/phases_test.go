package stealth

import (
	"slices"
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/systems/stealth/book"
	"github.com/fiveonit/engine/systems/weapons"
	"github.com/mlange-42/arche/generic"
)

// TestGuardWeaponIsThePistol: the weapon an alert sentry draws is the one
// the weapons system fires.
func TestGuardWeaponIsThePistol(t *testing.T) {
	if GuardWeapon != weapons.Pistol {
		t.Fatalf("GuardWeapon %d, weapons.Pistol %d", GuardWeapon, weapons.Pistol)
	}
}

// phaseLog records a sentry's phases as they change, and when.
type phaseLog struct {
	phases []components.SentryPhase
	ticks  []uint64
}

func (l *phaseLog) note(tick uint64, p components.SentryPhase) {
	if n := len(l.phases); n == 0 || l.phases[n-1] != p {
		l.phases = append(l.phases, p)
		l.ticks = append(l.ticks, tick)
	}
}

// TestPhases: a guard sees a player in the open by day: suspicious, then
// alert (it calls the guard near, not the one far; its Chaser goes after
// the player, it draws, the room's alert goes up, the book says so); the
// player gets away out of sight: searching where they were last seen, then
// idle, holstered; the room's alert goes down AlertHold after the last
// guard was alert.
func TestPhases(t *testing.T) {
	r := newRig(t, 12)
	tu := &r.s.Tuning
	g := r.guard(0, 0, 0)
	near := r.guard(0, 20, 1.57) // faces north: cannot see the player, but hears the call
	far := r.guard(-60, 60, 0)
	p := r.player(8, -3)
	flags := generic.NewMap1[components.Flags](r.W.Arche)
	chaserOf := generic.NewMap1[components.Chaser](r.W.Arche)
	actions := generic.NewMap1[components.PersonAction](r.W.Arche)
	drives := generic.NewMap1[components.Drive](r.W.Arche)
	var log phaseLog
	for range 2 * ecs.TickRate {
		r.Step(1)
		log.note(r.W.Tick(), r.sentryOf.Get(g).Phase)
	}
	if want := []components.SentryPhase{components.SentryIdle, components.SentrySuspicious, components.SentryAlert}; !slices.Equal(log.phases, want) {
		t.Fatalf("phases %v, want %v", log.phases, want)
	}
	if d := log.ticks[2] - log.ticks[1]; d < 10 || d > ecs.TickRate {
		t.Errorf("suspicious %d ticks before alert", d)
	}
	se := r.sentryOf.Get(g)
	if se.Target != p || se.Called || chaserOf.Get(g).Target != p || actions.Get(g).Weapon != GuardWeapon {
		t.Errorf("alert sentry %+v, chasing %v, weapon %d", *se, chaserOf.Get(g).Target, actions.Get(g).Weapon)
	}
	if f := flags.Get(g).Bits & components.SentryFlags; f != components.FlagAlert {
		t.Errorf("alert flags %#x", f)
	}
	if n := r.sentryOf.Get(near); n.Phase != components.SentryAlert || !n.Called || n.Target != p {
		t.Errorf("the guard near: %+v, want called to the alert", *n)
	}
	if f := r.sentryOf.Get(far); f.Phase != components.SentryIdle {
		t.Errorf("the guard far: phase %s, want idle", f.Phase)
	}
	if on, _ := r.s.book.Alert(); !on {
		t.Error("the room's alert is down")
	}
	if guard, _, chased := r.s.PlayerSeen(p); !guard || !chased {
		t.Errorf("player seen by a guard %v, chased %v", guard, chased)
	}
	var whats []book.What
	for i := range r.s.book.Len() {
		whats = append(whats, r.s.book.At(i).What)
	}
	if want := []book.What{book.Suspicious, book.Alert, book.Called}; !slices.Equal(whats, want) {
		t.Errorf("book %v, want %v", whats, want)
	}
	if !r.s.book.SeenSince(p, 0) {
		t.Error("the book has not seen the player")
	}

	// Away, out of sight: the guards lose them and search.
	r.move(p, -90, -90)
	lost := r.W.Tick()
	for range tu.LoseTicks + tu.LookEvery + 1 {
		r.Step(1)
	}
	se = r.sentryOf.Get(g)
	if se.Phase != components.SentrySearching || !chaserOf.Get(g).Target.IsZero() {
		t.Fatalf("after %d ticks unseen: phase %s, chasing %v", r.W.Tick()-lost, se.Phase, chaserOf.Get(g).Target)
	}
	if f := flags.Get(g).Bits & components.SentryFlags; f != components.FlagAlert|components.FlagSuspicious {
		t.Errorf("searching flags %#x", f)
	}
	if d := drives.Get(g); d.MoveY != 1 { // to (8, -3), where it saw them last, 8.5 m off
		t.Errorf("a searching sentry stands: %+v", *d)
	}
	if guard, _, chased := r.s.PlayerSeen(p); guard || chased {
		t.Errorf("an unseen player: seen %v, chased %v", guard, chased)
	}
	for range tu.SearchTicks + tu.LookEvery {
		r.Step(1)
	}
	se = r.sentryOf.Get(g)
	if se.Phase != components.SentryIdle || se.Suspicion != 0 || !se.Target.IsZero() || actions.Get(g).Weapon != 0 {
		t.Fatalf("after the search: %+v, weapon %d", *se, actions.Get(g).Weapon)
	}
	if flags.Get(g).Bits&components.SentryFlags != 0 {
		t.Error("an idle sentry shows a phase")
	}
	if on, _ := r.s.book.Alert(); !on {
		t.Error("the room's alert went down before its hold")
	}
	r.Step(int(tu.AlertHold))
	if on, _ := r.s.book.Alert(); on {
		t.Error("the room's alert is still up")
	}
}

// TestSearchWalksToLastSeen: a searching sentry walks to where its target
// was last seen, and at the spot looks about.
func TestSearchWalksToLastSeen(t *testing.T) {
	r := newRig(t, 12)
	g := r.guard(0, 0, 0)
	se := r.sentryOf.Get(g)
	se.Phase, se.Since, se.LastSeen, se.Suspicion = components.SentrySearching, 0, components.Vec3{X: 6, Y: 0}, 0.5
	drives := generic.NewMap1[components.Drive](r.W.Arche)
	r.Step(1)
	if d := drives.Get(g); d.MoveY != 1 || d.LookYaw != 0 {
		t.Fatalf("walking to the spot: %+v", *d)
	}
	r.move(g, 6, 0.5)
	r.Step(30)
	if d := drives.Get(g); d.MoveY != 0 || d.LookYaw == 0 {
		t.Fatalf("at the spot: %+v", *d)
	}
}

// TestSuspicionFades: a player glimpsed and gone: the guard grows
// suspicious, then calms down to idle without an alarm.
func TestSuspicionFades(t *testing.T) {
	r := newRig(t, 12)
	g := r.guard(0, 0, 0)
	p := r.player(25, -14)
	for range 2 * ecs.TickRate {
		r.Step(1)
		if r.sentryOf.Get(g).Phase == components.SentrySuspicious {
			break
		}
	}
	if r.sentryOf.Get(g).Phase != components.SentrySuspicious {
		t.Fatal("never suspicious")
	}
	r.move(p, -90, -90)
	r.Step(10 * ecs.TickRate)
	if se := r.sentryOf.Get(g); se.Phase != components.SentryIdle || se.Suspicion != 0 {
		t.Fatalf("after 10 s unseen: %+v", *se)
	}
	if on, _ := r.s.book.Alert(); on || r.s.book.Len() != 1 {
		t.Fatalf("alert %v, %d entries: want no alarm, one entry", on, r.s.book.Len())
	}
}

// TestNightIsSlower: the same glimpse takes longer to alarm at night.
func TestNightIsSlower(t *testing.T) {
	alarm := func(hour float64) uint64 {
		r := newRig(t, hour)
		g := r.guard(0, 0, 0)
		r.player(12, -6)
		for r.W.Tick() < 30*ecs.TickRate {
			r.Step(1)
			if r.sentryOf.Get(g).Phase == components.SentryAlert {
				return r.W.Tick()
			}
		}
		return 1 << 40
	}
	day, night := alarm(12), alarm(1)
	if !(night > 2*day) || night > 30*ecs.TickRate {
		t.Fatalf("alert after %d ticks by day, %d at night", day, night)
	}
}

// TestShelteredAndTheft: a player driving past in a car of their own is
// paid no mind; one seen getting into a car parked in a level bay is seen
// stealing it, and in it from then on.
func TestShelteredAndTheft(t *testing.T) {
	r := newRig(t, 12)
	g := r.guard(-30, 40, 1.57) // faces north, the bay (-30, 50) 10 m before it
	own := r.car(-25, 55, 0)
	p := r.player(-25, 55)
	r.seat(p, own)
	r.Step(2 * ecs.TickRate)
	if se := r.sentryOf.Get(g); se.Suspicion != 0 || r.s.book.Len() != 0 {
		t.Fatalf("a player in their own car: %+v, %d entries", *se, r.s.book.Len())
	}
	// Out of their car, getting into the bay's.
	act, in := r.person.Get(p)
	act.Act, in.Vehicle = components.ActOnFoot, ecs.Entity{}
	r.seats.Get(own).Occupant[0] = ecs.Entity{}
	r.move(p, -32, 48)
	bayCar := r.car(-30, 50, 0)
	act.Act, in.Vehicle, act.Timer = components.ActEntering, bayCar, 20
	r.Step(int(r.s.Tuning.LookEvery) + 1)
	if !r.s.book.Stolen(bayCar) || r.s.book.Stolen(own) {
		t.Fatal("the theft was not seen")
	}
	if e, ok := r.s.book.Last(p, book.Theft); !ok || e.Car != bayCar || e.Camera != -1 {
		t.Fatalf("theft entry %+v", e)
	}
	r.seat(p, bayCar)
	before := r.sentryOf.Get(g).Suspicion
	r.Step(int(r.s.Tuning.LookEvery) + 1)
	if r.sentryOf.Get(g).Suspicion <= before {
		t.Fatal("the thief at the wheel of the stolen car is not seen")
	}
}

// TestCameraSweep: a camera faces its yaw, turned by its sweep along a
// sine of its period; the entity faces it each tick.
func TestCameraSweep(t *testing.T) {
	r := newRig(t, 12)
	lc := &r.Level.Cameras[0] // yaw π, sweep 0.5, period 4 s
	period := uint64(4 * ecs.TickRate)
	for _, c := range []struct {
		tick uint64
		want float32
	}{
		{0, lc.Yaw}, {period / 4, lc.Yaw + lc.Sweep}, {period / 2, lc.Yaw}, {3 * period / 4, lc.Yaw - lc.Sweep}, {period, lc.Yaw},
	} {
		if got := CameraYaw(lc, c.tick); absf(got-c.want) > 1e-4 {
			t.Errorf("tick %d: yaw %g, want %g", c.tick, got, c.want)
		}
	}
	still := *lc
	still.Sweep, still.Period = 0, 0
	if got := CameraYaw(&still, 77); got != lc.Yaw {
		t.Errorf("a still camera turned to %g", got)
	}
	r.Step(int(period / 4))
	e := r.s.cams[0]
	want := CameraYaw(lc, r.W.Tick()-1)
	got, _ := r.poses.Get(e)
	if y := got.Rot.Yaw(); absf(normAngle(y-want)) > 1e-3 {
		t.Errorf("the camera faces %g, want %g", y, want)
	}
}

func absf(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

// normAngle brings a into (-π, π].
func normAngle(a float32) float32 {
	for a > 3.1415927 {
		a -= 2 * 3.1415927
	}
	for a <= -3.1415927 {
		a += 2 * 3.1415927
	}
	return a
}

package stealth

import (
	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/nav"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems/stealth/book"
)

// look runs a sentry's look when it is due: who it sees and how well, its
// suspicion, and the phase that follows.
func (s *System) look(w *ecs.World, sn *sentry) {
	se := s.sentryOf.Get(sn.e)
	if s.health.Get(sn.e).HP == 0 {
		*se = components.Sentry{Home: se.Home, HomeYaw: se.HomeYaw}
		return
	}
	tick := w.Tick()
	t := &s.Tuning
	if (tick+uint64(sn.wid))%max(t.LookEvery, 1) != 0 {
		return
	}
	dt := float32(t.LookEvery) * ecs.Dt
	rng := t.RangeAt(s.light)
	boost := float32(1)
	if on, _ := s.book.Alert(); on {
		boost = t.Vigilant
	}
	if se.Phase == components.SentrySearching {
		boost *= t.SearchBoost
	}
	var best *target
	bestRate := float32(0)
	targetSeen, cut := false, false
	x0, y0, x1, y1 := s.targets.Range(sn.pos.Sub(nav.Vec{X: rng, Y: rng}), sn.pos.Add(nav.Vec{X: rng, Y: rng}))
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			for _, i := range s.targets.Cell(x, y) {
				tg := &s.players[i]
				rate, ok := s.sentryRate(w, sn, tg, rng, tg.e == se.Target && se.Phase != components.SentryIdle)
				if !ok {
					cut = true
					break // no rays left this tick: the rest are not looked at
				}
				if rate <= 0 {
					continue
				}
				rate *= boost
				s.stateOf(tg.e).guardUntil = tick + t.LookEvery + 1
				if !tg.entering.IsZero() && s.inBay(tg.entering) {
					s.theft(w, tg, tg.entering, sn.wid, -1)
				}
				if tg.e == se.Target {
					targetSeen = true
					se.LastSeen, se.Seen = components.Vec3{X: tg.pos.X, Y: tg.pos.Y, Z: tg.z}, tick+1
				}
				if rate > bestRate {
					best, bestRate = tg, rate
				}
			}
		}
	}
	if cut && best == nil {
		return // a look that saw nothing for want of rays is no look
	}
	s.decide(w, sn, se, best, bestRate*dt, targetSeen)
}

// sentryRate returns the suspicion a second sn gains on tg (before the
// alert's and the search's boosts): 0 when tg is out of its range, out of
// its cone (unless close), out of sight or sheltered in a car. known says
// tg is the player the sentry is after. ok is false when the tick's rays
// ran out.
func (s *System) sentryRate(w *ecs.World, sn *sentry, tg *target, rng float32, known bool) (rate float32, ok bool) {
	t := &s.Tuning
	if s.sheltered(tg, known) {
		return 0, true
	}
	d := tg.pos.Sub(sn.pos)
	dist := d.Len()
	if dist > rng {
		return 0, true
	}
	factor := float32(1)
	if !inCone(sn.pos, sn.fwd, tg.pos, t.ConeHalf) {
		if dist > t.CloseRange {
			return 0, true
		}
		factor = t.CloseFactor
	}
	vis, ok := s.sight(w, sn.pos, tg, sn.e, true)
	if !ok {
		return 0, false
	}
	return t.Rate(dist, rng, s.light, vis) * factor, true
}

// decide moves a sentry's suspicion by gain (seeing best) or lets it fall
// (seeing nobody), and its phase on.
func (s *System) decide(w *ecs.World, sn *sentry, se *components.Sentry, best *target, gain float32, targetSeen bool) {
	tick := w.Tick()
	t := &s.Tuning
	dt := float32(t.LookEvery) * ecs.Dt
	switch se.Phase {
	case components.SentryIdle, components.SentrySuspicious:
		if best == nil {
			se.Suspicion = max(se.Suspicion-t.Decay*dt, 0)
			if se.Suspicion == 0 {
				if se.Phase == components.SentrySuspicious {
					s.enter(w, se, components.SentryIdle)
				}
				se.Target = ecs.Entity{}
			}
			return
		}
		if best.e != se.Target {
			se.Target = best.e
			se.LastSeen, se.Seen = components.Vec3{X: best.pos.X, Y: best.pos.Y, Z: best.z}, tick+1
		}
		se.Suspicion = min(se.Suspicion+gain, 1)
		if se.Suspicion >= 1 {
			s.alarm(w, sn, se, best)
		} else if se.Phase == components.SentryIdle && se.Suspicion >= t.SuspiciousAt {
			s.enter(w, se, components.SentrySuspicious)
			s.record(w, book.Suspicious, best, sn.wid, -1)
		}
	case components.SentryAlert:
		switch {
		case !s.alive(w, se.Target):
			s.search(w, se)
		case targetSeen:
		case best != nil && se.Seen != 0 && tick-(se.Seen-1) >= t.LoseTicks/2:
			// Lost its own target a while, and sees another: after them.
			s.alarm(w, sn, se, best)
		case se.Seen == 0 || tick-(se.Seen-1) >= t.LoseTicks:
			s.search(w, se)
		}
	case components.SentrySearching:
		if best != nil {
			if best.e != se.Target {
				se.Target = best.e
			}
			se.LastSeen, se.Seen = components.Vec3{X: best.pos.X, Y: best.pos.Y, Z: best.z}, tick+1
			se.Suspicion = min(se.Suspicion+gain, 1)
			if se.Suspicion >= 1 {
				s.alarm(w, sn, se, best)
			}
			return
		}
		if tick-se.Since >= t.SearchTicks {
			s.enter(w, se, components.SentryIdle)
			se.Suspicion, se.Target, se.Called = 0, ecs.Entity{}, false
		}
	}
}

// enter moves a sentry to phase from now.
func (s *System) enter(w *ecs.World, se *components.Sentry, phase components.SentryPhase) {
	se.Phase, se.Since = phase, w.Tick()
}

// search sends an alert sentry that lost its target to where it was last
// seen.
func (s *System) search(w *ecs.World, se *components.Sentry) {
	s.enter(w, se, components.SentrySearching)
	se.Suspicion = s.Tuning.SearchSuspicion
}

// alarm makes sn alert on tg, seen with its own eyes: the book, the room's
// alert, and the sentries within CallRange called to it.
func (s *System) alarm(w *ecs.World, sn *sentry, se *components.Sentry, tg *target) {
	s.alertOn(w, se, tg, false)
	s.record(w, book.Alert, tg, sn.wid, -1)
	s.raise(w, tg)
	s.call(w, sn.pos, s.Tuning.CallRange, tg, sn.e)
}

// alertOn makes a sentry alert on tg, called by another or by its own
// sight.
func (s *System) alertOn(w *ecs.World, se *components.Sentry, tg *target, called bool) {
	s.enter(w, se, components.SentryAlert)
	se.Suspicion, se.Target, se.Called = 1, tg.e, called
	se.LastSeen, se.Seen = components.Vec3{X: tg.pos.X, Y: tg.pos.Y, Z: tg.z}, w.Tick()+1
}

// call makes every sentry within r of p that is not alert yet (but self)
// alert on tg. The sentries are few (a yard's, a mission's group): the
// call goes through this tick's list of them.
func (s *System) call(w *ecs.World, p phys.Vec, r float32, tg *target, self ecs.Entity) {
	for i := range s.sentries {
		o := &s.sentries[i]
		if o.e == self || o.pos.Sub(p).Len() > r || s.health.Get(o.e).HP == 0 {
			continue
		}
		se := s.sentryOf.Get(o.e)
		if se.Phase == components.SentryAlert {
			continue
		}
		s.alertOn(w, se, tg, true)
		s.record(w, book.Called, tg, o.wid, -1)
	}
}

func (s *System) alive(w *ecs.World, e ecs.Entity) bool {
	if e.IsZero() || !w.Arche.Alive(e) {
		return false
	}
	h := s.health.Get(e)
	return h == nil || h.HP > 0
}

// steer makes a sentry act on its phase, every tick: suspicious, it stands
// and looks toward what it saw; alert, its Chaser goes after its target
// and it draws its weapon (the AI runs it); searching, it walks to where
// its target was last seen and looks about; idle, it walks its patrol
// (the spawners') or goes back to its post. Its Flags show the phase.
func (s *System) steer(w *ecs.World, sn *sentry) {
	se := s.sentryOf.Get(sn.e)
	fl := s.flags.Get(sn.e)
	fl.Bits = fl.Bits&^components.SentryFlags | se.Phase.Flags()
	ch := s.chaserOf.Get(sn.e)
	act, _ := s.person.Get(sn.e)
	alert := se.Phase == components.SentryAlert
	if alert {
		if ch.Target != se.Target {
			ch.Target, ch.Since = se.Target, w.Tick()
		}
		if s.alive(w, se.Target) {
			s.stateOf(se.Target).chasedUntil = w.Tick() + 2
		}
	} else {
		ch.Target = ecs.Entity{}
	}
	if act.Act == components.ActOnFoot {
		switch {
		case alert:
			act.Weapon = GuardWeapon
		case act.Weapon == GuardWeapon:
			act.Weapon = 0
		}
	}
	if s.health.Get(sn.e).HP == 0 {
		return
	}
	d := s.drives.Get(sn.e)
	switch se.Phase {
	case components.SentrySuspicious:
		*d = components.Drive{LookYaw: yawTo(sn.pos, phys.Flat(se.LastSeen), d.LookYaw)}
	case components.SentrySearching:
		to := phys.Flat(se.LastSeen)
		if to.Sub(sn.pos).Len() > s.Tuning.Reach {
			*d = components.Drive{MoveY: 1, LookYaw: yawTo(sn.pos, to, d.LookYaw)}
			return
		}
		// There: look about, to and fro across the way it came.
		base := yawTo(phys.Flat(se.Home), to, d.LookYaw)
		phase := float32(w.Tick()-se.Since) / ecs.TickRate * (2 * math32.Pi / 4)
		*d = components.Drive{LookYaw: base + 1.2*math32.Sin(phase)}
	case components.SentryIdle:
		if s.walksPatrol(sn.e) {
			return // the spawners walk it
		}
		home := phys.Flat(se.Home)
		if home.Sub(sn.pos).Len() > s.Tuning.Reach {
			*d = components.Drive{MoveY: 1, LookYaw: yawTo(sn.pos, home, d.LookYaw)}
			return
		}
		*d = components.Drive{LookYaw: se.HomeYaw}
	}
}

// walksPatrol reports whether sentry e walks a patrol of its NPC spawner.
func (s *System) walksPatrol(e ecs.Entity) bool {
	n := s.npc.Get(e)
	return n != nil && n.Spawner >= 0 && int(n.Spawner) < len(s.patrols) && s.patrols[n.Spawner]
}

// yawTo returns the heading from a to b, or keep when they are one point.
func yawTo(a, b phys.Vec, keep float32) float32 {
	d := b.Sub(a)
	if d.Dot(d) < 1e-6 {
		return keep
	}
	return math32.Atan2(d.Y, d.X)
}

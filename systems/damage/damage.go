// Package damage is the system that turns the physics step's collisions
// into harm: every contact that exchanged an impulse above a threshold hurts
// the people and vehicles in it in proportion (a pedestrian run over is hurt
// or killed, a car crashed hard enough is wrecked), each hit goes into the
// tick's events and each harm a player did into the tick's crimes. A wrecked
// car stops and, a few seconds later, explodes: a blast that hurts what is
// round it.
//
// Nobody is hurt inside a safe zone or while a ghost (just respawned); a
// player hurts another player only where the game's rules let them.
//
// A player it kills is told how (components.Death): shot, run over,
// crashed, caught in a blast, or in the vehicle they sat in when it blew
// up; and by what: the player answerable, else the kind of what did it (the
// vehicle, the shooter; for a wreck, what wrecked it).
//
// A thrown grenade (a components.Projectile) blows here when its fuse runs
// out (Projectile.Blast): a blast like a wreck's, of its own radius and
// harm, the thrower the offender of what it does; the grenade is gone.
//
// Shots (EventShot, from the weapons system) are resolved here too: the
// round flies from the muzzle along its direction up to ShotRange and hits
// the first body in its way, unless a building is nearer; the body takes
// the round's harm (the event's Amount) under the same rules. A player's
// shot is tested against the bodies as the player saw them (the event's
// View, lag compensation: package lagcomp), the buildings as they are; the
// harm is done now.
//
// It runs in the post-step phase, right after the physics (it reads
// w.Contacts, the step's collisions).
package damage

import (
	"slices"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems/city/zones"
	"github.com/fiveonit/engine/systems/lagcomp"
	"github.com/mlange-42/arche/generic"
)

// Name is the system's name in the schedule.
const Name = "damage"

// Collision damage: an impulse (N s) above the threshold hurts by the
// factor per N s beyond it.
//
// PersonThreshold is 450 N s: a 75 kg person's change of speed of 6 m/s, so
// sprinting (5.5 m/s) into a wall or a parked car hurts nobody, while a car
// at 10 m/s (about 800 N s on a pedestrian) hurts and one at 20 m/s (about
// 1,600 N s) kills. VehicleThreshold is 3,000 N s: two sedans closing at
// about 4 m/s scrape by unhurt; a sedan into a wall at 30 m/s (about
// 48,000 N s) is wrecked in one hit.
const (
	PersonThreshold  = 450
	PersonPerNs      = 0.1
	VehicleThreshold = 3000
	VehiclePerNs     = 0.025
)

// A wrecked car is slowed by WreckDecel (m/s², more than any engine's
// acceleration, so a driver's throttle cannot move it) and its spin by
// WreckSpinDecel (rad/s²) until it stands.
const (
	WreckDecel     = 15
	WreckSpinDecel = 6
)

// Blasts: a wrecked car explodes BlastDelay ticks (four seconds, time to get
// away) after it was wrecked, hurting people (up to BlastPerson) and
// vehicles (up to BlastVehicle) within BlastRadius metres, the harm falling
// off linearly with the distance, and pushing them away at up to BlastPush
// m/s.
const (
	BlastDelay   = 4 * ecs.TickRate
	BlastRadius  = 8
	BlastPerson  = 150
	BlastVehicle = 600
	BlastPush    = 6
)

// RamMemory (ticks) is how long a vehicle rammed by another keeps the
// rammer's blame for its wreck: a car shoved into a wall is put down to
// whoever shoved it, two seconds on.
const RamMemory = 2 * ecs.TickRate

// ShotRange (m) is how far a round flies: a block and a half of main-city,
// farther than anyone aims at what they see.
const ShotRange = 60

// System is the damage system. Make it with New.
type System struct {
	// Rewind is the history of the bodies a shot with a view (a
	// player's) is tested against; nil tests every shot against the
	// bodies as they are.
	Rewind *lagcomp.History

	zones  *zones.Zones
	static *phys.Static

	kinds    generic.Map1[components.Kind]
	ids      generic.Map1[components.Identity]
	health   generic.Map1[components.Health]
	flags    generic.Map1[components.Flags]
	poses    generic.Map2[components.Pose, components.Velocity]
	bodyOf   generic.Map1[components.Body]
	seats    generic.Map1[components.Seats]
	actions  generic.Map1[components.PersonAction]
	seated   generic.Map1[components.SeatedIn]
	playerOf generic.Map1[components.Player]
	ghostOf  generic.Map1[components.Ghost]
	deaths   generic.Map1[components.Death]

	moving *generic.Filter3[components.Flags, components.Velocity, components.Seats]
	all    *generic.Filter3[components.Kind, components.Pose, components.Health]
	fused  *generic.Filter2[components.Projectile, components.Pose]

	blasts []pending
	due    []pending
	near   []nearby
	rammed []ram
}

// ram is a vehicle rammed at tick at, and who rammed it.
type ram struct {
	e  ecs.Entity
	c  cause
	at uint64
}

// pending is a wrecked car (or a grenade) waiting to explode; by is the
// player who wrecked it or threw it (the offender of what the blast
// does), or zero; blame is who a death by its blast is put down to (what
// wrecked it, or the thrower). A grenade's blast has its own radius and
// harm.
type pending struct {
	car    ecs.Entity
	at     uint64
	by     ecs.Entity
	blame  cause
	radius float32
	person float32
}

// cause is how a harm came about, for the Death of a player it kills:
// what caused it, and the kind and player number of who is answerable
// (components.Death's By and Player).
type cause struct {
	how    components.DeathCause
	by     components.Kind
	player uint16
}

// roomWrecks and roomNear are the room made once for the wrecks waiting to
// explode and for the things within a blast's radius.
const (
	roomWrecks = 64
	roomNear   = 128
)

type nearby struct {
	e    ecs.Entity
	dist float32
}

// New returns the damage system of w; z are the level's zones (nil: no safe
// zone), static the level's geometry, which stops rounds (nil: nothing
// does).
func New(w *ecs.World, z *zones.Zones, static *phys.Static) *System {
	s := &System{
		zones:    z,
		static:   static,
		kinds:    generic.NewMap1[components.Kind](w.Arche),
		ids:      generic.NewMap1[components.Identity](w.Arche),
		health:   generic.NewMap1[components.Health](w.Arche),
		flags:    generic.NewMap1[components.Flags](w.Arche),
		poses:    generic.NewMap2[components.Pose, components.Velocity](w.Arche),
		bodyOf:   generic.NewMap1[components.Body](w.Arche),
		seats:    generic.NewMap1[components.Seats](w.Arche),
		actions:  generic.NewMap1[components.PersonAction](w.Arche),
		seated:   generic.NewMap1[components.SeatedIn](w.Arche),
		playerOf: generic.NewMap1[components.Player](w.Arche),
		ghostOf:  generic.NewMap1[components.Ghost](w.Arche),
		deaths:   generic.NewMap1[components.Death](w.Arche),
		moving:   generic.NewFilter3[components.Flags, components.Velocity, components.Seats](),
		all:      generic.NewFilter3[components.Kind, components.Pose, components.Health](),
		fused:    generic.NewFilter2[components.Projectile, components.Pose](),
		// Room made once for many wrecks waiting and for a blast's
		// neighbours: the lists are kept, so a blast in play allocates
		// only past these.
		blasts: make([]pending, 0, roomWrecks),
		due:    make([]pending, 0, roomWrecks),
		near:   make([]nearby, 0, roomNear),
		rammed: make([]ram, 0, roomWrecks),
	}
	s.moving.Register(w.Arche)
	s.all.Register(w.Arche)
	s.fused.Register(w.Arche)
	return s
}

// Pending returns how many wrecked cars are waiting to explode.
func (s *System) Pending() int { return len(s.blasts) }

// Update hurts what the tick's shots and the last step's collisions hurt,
// sets off the blasts that are due and slows the wrecks.
func (s *System) Update(w *ecs.World) {
	keep := s.rammed[:0]
	for _, r := range s.rammed {
		if w.Tick()-r.at < RamMemory {
			keep = append(keep, r)
		}
	}
	s.rammed = keep
	for i, n := 0, len(w.Events); i < n; i++ {
		if ev := w.Events[i]; ev.Kind == components.EventShot {
			s.shot(w, &ev)
		}
	}
	for i := range w.Contacts {
		c := w.Contacts[i]
		s.contact(w, &c)
	}
	s.explode(w)
	s.stopWrecks(w)
}

// contact hurts both sides of one collision.
func (s *System) contact(w *ecs.World, c *components.Contact) {
	if !s.alive(w, c.A) || !(c.Impulse > 0) {
		return
	}
	if c.B.IsZero() {
		s.hurtBy(w, c.A, ecs.Entity{}, c.Impulse, c.Point, false)
		return
	}
	if !s.alive(w, c.B) {
		return
	}
	aRams := s.aRams(c)
	s.hurtBy(w, c.A, c.B, c.Impulse, c.Point, !aRams)
	s.hurtBy(w, c.B, c.A, c.Impulse, c.Point, aRams)
}

// aRams reports whether A was the one driving into B: the one closing
// faster along the contact normal before the impulse. The step's velocities
// are after the impulse, so it is added back: A was pushed back by
// Impulse/mass along -Normal, B forward along it.
func (s *System) aRams(c *components.Contact) bool {
	_, va := s.poses.Get(c.A)
	_, vb := s.poses.Get(c.B)
	ia, ib := invMass(s.bodyOf.Get(c.A)), invMass(s.bodyOf.Get(c.B))
	n := c.Normal
	a := va.Lin.X*n.X + va.Lin.Y*n.Y + c.Impulse*ia
	b := -(vb.Lin.X*n.X + vb.Lin.Y*n.Y) + c.Impulse*ib
	return a >= b
}

func invMass(b *components.Body) float32 {
	if b == nil || !(b.Mass > 0) {
		return 0
	}
	return 1 / b.Mass
}

// hurtBy hurts victim by a collision impulse with other; otherRams says
// whether other drove into victim (only a rammer commits a crime against a
// vehicle).
func (s *System) hurtBy(w *ecs.World, victim, other ecs.Entity, impulse float32, at components.Vec3, otherRams bool) {
	kind := *s.kinds.Get(victim)
	var threshold, per float32
	switch {
	case kind.IsPerson():
		threshold, per = PersonThreshold, PersonPerNs
	case kind.IsVehicle():
		threshold, per = VehicleThreshold, VehiclePerNs
	default:
		return
	}
	if impulse <= threshold {
		return
	}
	offender := s.responsible(w, other)
	c := s.blame(w, other)
	c.how = components.DeathCrash
	switch {
	case kind.IsVehicle() && !otherRams:
		offender = ecs.Entity{}
		c = s.rammedBy(victim) // its own crash, unless it was shoved
	case kind.IsVehicle() && c.by != components.KindNone:
		s.noteRam(w, victim, c)
	}
	if !other.IsZero() && s.kinds.Get(other).IsVehicle() && kind.IsPerson() {
		c.how = components.DeathRunOver
	}
	s.harm(w, victim, other, offender, (impulse-threshold)*per, at, c)
}

// noteRam notes that vehicle e was rammed this tick, as c says.
func (s *System) noteRam(w *ecs.World, e ecs.Entity, c cause) {
	for i := range s.rammed {
		if s.rammed[i].e == e {
			s.rammed[i].c, s.rammed[i].at = c, w.Tick()
			return
		}
	}
	s.rammed = append(s.rammed, ram{e: e, c: c, at: w.Tick()})
}

// rammedBy returns who a crash of vehicle e is put down to: whoever
// rammed it within RamMemory, else nobody.
func (s *System) rammedBy(e ecs.Entity) cause {
	for _, r := range s.rammed {
		if r.e == e {
			return r.c
		}
	}
	return cause{how: components.DeathCrash}
}

// blame returns who a harm by e is put down to: the player answerable for
// it (its character, or the player at its wheel), else e's kind; none for
// nothing (a building).
func (s *System) blame(w *ecs.World, e ecs.Entity) cause {
	if !s.alive(w, e) {
		return cause{}
	}
	if p := s.responsible(w, e); !p.IsZero() {
		return cause{by: components.KindCharacter, player: s.ids.Get(p).Player}
	}
	return cause{by: *s.kinds.Get(e)}
}

// responsible returns the player answerable for what e does: e itself when
// it is a player's character, the player at the wheel when it is a
// vehicle; zero for anything else.
func (s *System) responsible(w *ecs.World, e ecs.Entity) ecs.Entity {
	if !s.alive(w, e) {
		return ecs.Entity{}
	}
	if s.playerOf.Get(e) != nil {
		return e
	}
	if st := s.seats.Get(e); st != nil {
		if d := st.Occupant[0]; s.alive(w, d) && s.playerOf.Get(d) != nil {
			return d
		}
	}
	return ecs.Entity{}
}

// harm takes amount hit points from victim (hit by source, through
// offender's doing, as c says), records the hit, the death (a player's
// Death) or the wreck, and the crime. It does nothing to the dead, the
// wrecked, ghosts, what stands in a safe zone, or a player another player
// may not hurt.
func (s *System) harm(w *ecs.World, victim, source, offender ecs.Entity, amount float32, at components.Vec3, c cause) {
	h := s.health.Get(victim)
	if h == nil || h.HP == 0 {
		return
	}
	pose, vel := s.poses.Get(victim)
	if s.zones.Safe(pose.Pos) {
		return
	}
	fl := s.flags.Get(victim)
	if fl != nil && fl.Bits&components.FlagGhost != 0 {
		return
	}
	if g := s.ghostOf.Get(victim); g != nil && g.Until > w.Tick() {
		return
	}
	if offender == victim {
		offender = ecs.Entity{}
	}
	if !offender.IsZero() && s.playerOf.Get(victim) != nil &&
		!w.Rules.MayHurt(s.ids.Get(offender).Party, s.ids.Get(victim).Party) {
		return
	}
	n := uint16(min(amount+0.5, 65535))
	n = max(n, 1)
	n = min(n, h.HP)
	h.HP -= n
	w.Events = append(w.Events, components.Event{Kind: components.EventHit, Source: source, Target: victim, Pos: at, Amount: float32(n)})
	killed := h.HP == 0
	kind := *s.kinds.Get(victim)
	if killed {
		if kind.IsPerson() {
			act := s.actions.Get(victim)
			act.Act, act.Timer = components.ActDead, 0
			if sd := s.seated.Get(victim); sd.Vehicle.IsZero() {
				*vel = components.Velocity{}
			}
			if d := s.deaths.Get(victim); d != nil {
				*d = components.Death{Cause: c.how, By: c.by, Player: c.player, Tick: w.Tick()}
			}
		} else if kind == components.KindCamera {
			fl.Bits |= components.FlagWrecked // shot out: the stealth system blinds it
		} else if fl != nil {
			fl.Bits |= components.FlagWrecked
			fl.Bits &^= components.FlagSiren | components.FlagHorn
			s.blasts = append(s.blasts, pending{car: victim, at: w.Tick() + BlastDelay, by: offender, blame: c, radius: BlastRadius, person: BlastPerson})
		}
	}
	s.crime(w, kind, victim, offender, killed, at)
}

// crime records what offender (a player, or zero) did to victim.
func (s *System) crime(w *ecs.World, kind components.Kind, victim, offender ecs.Entity, killed bool, at components.Vec3) {
	if offender.IsZero() {
		return
	}
	var k components.CrimeKind
	switch {
	case kind.IsPerson() && s.playerOf.Get(victim) != nil:
		k = components.CrimeAssault
	case kind.IsPerson() && killed:
		k = components.CrimeKillPedestrian
	case kind.IsPerson():
		k = components.CrimeHitPedestrian
	case kind == components.KindPoliceCar:
		k = components.CrimeRamPolice
	default:
		return
	}
	w.Crimes = append(w.Crimes, components.Crime{Kind: k, Offender: offender, Victim: victim, Pos: at})
}

// explode sets off the blasts that are due: the grenades whose fuse ran
// out (by wire id), then the wrecks in the order they were wrecked. A
// blast may wreck more cars: they wait their own delay.
func (s *System) explode(w *ecs.World) {
	tick := w.Tick()
	s.due = s.due[:0]
	q := s.fused.Query(w.Arche)
	for q.Next() {
		p, _ := q.Get()
		if p.Blast <= tick {
			s.due = append(s.due, pending{car: q.Entity(), at: p.Blast, by: p.By, blame: s.blame(w, p.By), radius: p.Radius, person: p.Harm})
		}
	}
	if len(s.due) > 1 {
		slices.SortFunc(s.due, func(a, b pending) int { return int(s.ids.Get(a.car).WireID) - int(s.ids.Get(b.car).WireID) })
	}
	for _, p := range s.due {
		s.blast(w, p)
		w.Despawn(p.car)
	}
	if len(s.blasts) == 0 {
		return
	}
	s.due = s.due[:0]
	keep := s.blasts[:0]
	for _, p := range s.blasts {
		if p.at <= tick {
			s.due = append(s.due, p)
		} else {
			keep = append(keep, p)
		}
	}
	s.blasts = keep
	for _, p := range s.due {
		s.blast(w, p)
	}
}

// blast explodes the wreck (or grenade) of p: an EventBlast, then harm
// and a push to everything with health within p's radius. Vehicles take
// BlastVehicle/BlastPerson times a person's harm.
func (s *System) blast(w *ecs.World, p pending) {
	if !s.alive(w, p.car) {
		return
	}
	pose, _ := s.poses.Get(p.car)
	c := pose.Pos
	r := p.radius
	w.Events = append(w.Events, components.Event{Kind: components.EventBlast, Source: p.car, Other: p.by, Pos: c, Amount: r})
	s.near = s.near[:0]
	q := s.all.Query(w.Arche)
	for q.Next() {
		_, pp, _ := q.Get()
		dx, dy := pp.Pos.X-c.X, pp.Pos.Y-c.Y
		if d2 := dx*dx + dy*dy; d2 < r*r && q.Entity() != p.car {
			s.near = append(s.near, nearby{q.Entity(), math32.Sqrt(d2)})
		}
	}
	for _, n := range s.near {
		if !s.alive(w, n.e) {
			continue
		}
		f := 1 - n.dist/r
		kind := *s.kinds.Get(n.e)
		how := p.blame
		how.how = components.DeathExplosion
		if sd := s.seated.Get(n.e); sd != nil && sd.Vehicle == p.car {
			how.how = components.DeathWreck
		}
		switch {
		case kind.IsPerson():
			s.harm(w, n.e, p.car, p.by, p.person*f, c, how)
		case kind.IsVehicle():
			s.harm(w, n.e, p.car, p.by, p.person*BlastVehicle/BlastPerson*f, c, how)
		default:
			continue
		}
		s.push(n.e, c, n.dist, f)
	}
}

// push throws e (a vehicle, or a person on foot) away from the blast at c.
func (s *System) push(e ecs.Entity, c components.Vec3, dist, f float32) {
	if sd := s.seated.Get(e); sd != nil && !sd.Vehicle.IsZero() {
		return
	}
	if b := s.bodyOf.Get(e); b == nil || !(b.Mass > 0) || dist < 0.01 {
		return
	}
	pose, vel := s.poses.Get(e)
	k := BlastPush * f / dist
	vel.Lin.X += (pose.Pos.X - c.X) * k
	vel.Lin.Y += (pose.Pos.Y - c.Y) * k
}

// stopWrecks slows every wrecked vehicle until it stands.
func (s *System) stopWrecks(w *ecs.World) {
	q := s.moving.Query(w.Arche)
	for q.Next() {
		fl, vel, _ := q.Get()
		if fl.Bits&components.FlagWrecked == 0 {
			continue
		}
		v := math32.Sqrt(vel.Lin.X*vel.Lin.X + vel.Lin.Y*vel.Lin.Y)
		if v > 0 {
			k := max(v-WreckDecel*ecs.Dt, 0) / v
			vel.Lin.X *= k
			vel.Lin.Y *= k
		}
		vel.Ang.Z = toward0(vel.Ang.Z, WreckSpinDecel*ecs.Dt)
	}
}

func toward0(x, d float32) float32 {
	switch {
	case x > d:
		return x - d
	case x < -d:
		return x + d
	}
	return 0
}

func (s *System) alive(w *ecs.World, e ecs.Entity) bool {
	return !e.IsZero() && w.Arche.Alive(e)
}

// shot finds what the round of ev hits and harms it.
func (s *System) shot(w *ecs.World, ev *components.Event) {
	o := phys.Flat(ev.Pos)
	d := phys.Flat(ev.Dir)
	if l := d.Len(); l > 0 {
		d = d.Scale(1 / l)
	} else {
		return
	}
	var vehicle ecs.Entity // the shooter's own (none: they are on foot)
	if s.alive(w, ev.Source) {
		if sd := s.seated.Get(ev.Source); sd != nil {
			vehicle = sd.Vehicle
		}
	}
	best, bestT := ecs.Entity{}, float32(ShotRange)
	if past, ok := s.past(w, ev); ok {
		// What the shooter saw: the bodies of that tick still alive.
		for i := range past {
			h := &past[i]
			if h.E == ev.Source || h.E == vehicle || !w.Arche.Alive(h.E) {
				continue
			}
			if t, ok := h.Ray(o, d); ok && t < bestT {
				best, bestT = h.E, t
			}
		}
	} else {
		q := s.all.Query(w.Arche)
		for q.Next() {
			_, pose, _ := q.Get()
			e := q.Entity()
			if e == ev.Source || e == vehicle {
				continue
			}
			b := s.bodyOf.Get(e)
			if b == nil {
				continue
			}
			if sd := s.seated.Get(e); sd != nil && !sd.Vehicle.IsZero() {
				continue // inside a vehicle: the vehicle takes the round
			}
			h := lagcomp.Box(e, pose, b)
			if t, ok := h.Ray(o, d); ok && t < bestT {
				best, bestT = e, t
			}
		}
	}
	if best.IsZero() {
		return
	}
	at := o.Add(d.Scale(bestT))
	if s.static != nil && !s.static.SegmentClear(o, at) {
		return // a building first
	}
	hit := components.Vec3{X: at.X, Y: at.Y, Z: ev.Pos.Z}
	c := s.blame(w, ev.Source)
	c.how = components.DeathShot
	s.harm(w, best, ev.Source, s.responsible(w, ev.Source), ev.Amount, hit, c)
}

// past returns the hitboxes the shot of ev is tested against when it is
// rewound (lagcomp.History.Past), and false when it is tested against the
// present.
func (s *System) past(w *ecs.World, ev *components.Event) ([]lagcomp.Hitbox, bool) {
	if s.Rewind == nil {
		return nil, false
	}
	return s.Rewind.Past(w.Tick(), ev.View)
}

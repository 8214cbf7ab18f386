// Package stealth is the system of the guards' eyes and the level's
// cameras, and of the room's alert:
//
//   - Sentries. Every guard (components.Sentry, given by prefab) sees the
//     players with a view cone, a range and a line of sight: the level's
//     buildings taller than its eyes and the cars and people in the way
//     block it, three rays to the player's middle and sides giving how
//     much of them is in the open. What it sees raises its Suspicion over
//     time (Rate): faster near and in the open, slower at night by the room
//     clock (Light), not at all for a player in a car it does not know to
//     be stolen (unless that player is the one it is after). A sentry goes
//     idle -> suspicious ("?": it stops and looks toward the player) ->
//     alert ("!": its Chaser is sent after the player, the AI runs it
//     there and it fires when it sees them near) -> searching (it lost
//     them: it walks to where they were last seen and looks about) -> idle
//     (back to its patrol, or to its post). A sentry going alert calls the
//     others within CallRange to the alert.
//   - Cameras. The level's cameras are entities (components.KindCamera,
//     made here with the world and again on a level reset). Each turns to
//     and fro over its sweep and sees a player within its arc and range
//     along a clear line; kept in view a moment, the player is spotted: the
//     room's alert goes up and the sentries near the player are called to
//     it. A camera shot out (its Health at 0, as the damage system leaves
//     it) is blind and still until a level reset puts it back whole.
//   - The book (package book): who was seen, where and when, the cars
//     known stolen (seen being taken: a carjack, or a car got into in one
//     of the level's bays) and the room's alert, which goes down
//     Tuning.AlertHold after it was last raised. The police learn of it
//     through the crimes: a player seen in a watched restricted zone
//     (zones.Watched) when the alarm goes up commits a CrimeRestricted,
//     once an alert.
//
// Sight is bounded per tick: only the players within some sentry's or
// camera's reach are gathered; each sentry and camera looks every
// LookEvery ticks (spread over the ticks by wire id) and asks a grid of
// those players (TargetCell) for the ones within its range rather than
// going through every player; the bodies in the way are filed in a grid
// of their own (BodyCell), once a tick and only when a look needs them,
// those within the sentries' reach; and the rays cast in a tick stop at
// MaxRays.
//
// It runs in the pre-step phase after the spawners (which put the guards
// in and walk their patrols: a sentry that is not idle is steered here
// instead) and before the AI, which chases with an alert sentry's Chaser.
// It keeps its state in the Sentry and Camera components and the book,
// goes through the sentries and players by wire id and allocates nothing
// per tick once its lists have grown.
package stealth

import (
	"slices"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/nav"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/prefab"
	"github.com/fiveonit/engine/systems/city/zones"
	"github.com/fiveonit/engine/systems/stealth/book"
	"github.com/mlange-42/arche/generic"
)

// Name is the system's name in the schedule.
const Name = "stealth"

// GuardWeapon is the PersonAction.Weapon an alert sentry draws: the pistol
// (systems/weapons.Pistol, which this package may not import; a test holds
// them equal).
const GuardWeapon uint8 = 1

// TargetCell (m) is the side of the cells the players are filed under for
// the sentries' and cameras' looks: a look asks the few cells its range
// covers.
const TargetCell = 32

// BodyCell (m) is the side of the cells the bodies in the way are filed
// under, and bodyReach (m) how far a body's shape reaches from its centre
// at most (a truck's half diagonal and a little).
const (
	BodyCell  = 8
	bodyReach = 5
)

// Tuning holds the sentries' and cameras' senses and rates. DefaultTuning
// gives the game's.
type Tuning struct {
	// LookEvery (ticks) is how often each sentry and camera looks.
	LookEvery uint64
	// Range (m) is how far a sentry sees by day; at night it sees
	// RangeAt(light) of it. ConeHalf (rad) is half its field of view.
	Range, ConeHalf float32
	// CloseRange (m): a player this near is noticed outside the cone too,
	// at CloseFactor of the rate.
	CloseRange, CloseFactor float32
	// BaseRate is the suspicion a second a sentry gains on a player in the
	// open, by day, at the end of its range; NearBoost more of it at its
	// feet (Rate).
	BaseRate, NearBoost float32
	// NightLight is the light at night (1 by day): it scales the rates,
	// and the range through RangeAt.
	NightLight float32
	// SuspiciousAt is the suspicion at which a sentry becomes suspicious
	// (alert at 1); Decay the suspicion a second it loses seeing nobody.
	SuspiciousAt, Decay float32
	// LoseTicks is how long an alert sentry goes without seeing its target
	// before it searches; SearchTicks how long it searches.
	LoseTicks, SearchTicks uint64
	// SearchSuspicion is a searching sentry's suspicion, and SearchBoost
	// how much faster it grows: it is on the lookout.
	SearchSuspicion, SearchBoost float32
	// Reach (m) is how near a searching sentry comes to where its target
	// was last seen, or an idle one to its post.
	Reach float32
	// CallRange (m): a sentry going alert calls the others this near.
	CallRange float32
	// Vigilant multiplies the rates while the room's alert is up.
	Vigilant float32
	// CameraRate is a camera's Spot a second on a player in view by day at
	// the end of its range (NearBoost more at its foot); CameraDecay the
	// Spot a second it loses with nobody in view; CameraCall (m) how near
	// the spotted player the sentries are called from.
	CameraRate, CameraDecay, CameraCall float32
	// AlertHold (ticks) is how long the room's alert stays up after it
	// was last raised (while no sentry is alert).
	AlertHold uint64
	// MaxRays caps the lines of sight cast in a tick.
	MaxRays int
	// EyeHeight (m): buildings lower than it do not block a look.
	// CoverHeight (m): bodies at least this tall (a car, a person) do.
	EyeHeight, CoverHeight float32
}

// DefaultTuning returns the game's tuning.
func DefaultTuning() Tuning {
	return Tuning{
		LookEvery: 6,
		Range:     30, ConeHalf: 1,
		CloseRange: 3, CloseFactor: 0.5,
		BaseRate: 0.6, NearBoost: 2,
		NightLight:   0.35,
		SuspiciousAt: 0.25, Decay: 0.2,
		LoseTicks: 4 * ecs.TickRate, SearchTicks: 12 * ecs.TickRate,
		SearchSuspicion: 0.5, SearchBoost: 2,
		Reach:      1.5,
		CallRange:  35,
		Vigilant:   1.5,
		CameraRate: 0.6, CameraDecay: 0.5, CameraCall: 60,
		AlertHold: 30 * ecs.TickRate,
		MaxRays:   192,
		EyeHeight: 1.6, CoverHeight: 1,
	}
}

// Light returns the light at hour (0..24) of the room clock: 1 from 7 to
// 19, night from 21 to 5, a straight ramp between.
func (t *Tuning) Light(hour float32) float32 {
	switch {
	case hour >= 7 && hour <= 19:
		return 1
	case hour >= 21 || hour <= 5:
		return t.NightLight
	case hour < 7:
		return t.NightLight + (1-t.NightLight)*(hour-5)/2
	}
	return 1 - (1-t.NightLight)*(hour-19)/2
}

// RangeAt returns how far a sentry sees in light: its Range by day, less
// in the dark (0.4 + 0.6 light of it).
func (t *Tuning) RangeAt(light float32) float32 {
	return t.Range * (0.4 + 0.6*light)
}

// Rate returns the suspicion a second a sentry gains on a player dist
// metres away, within its range rng, in light, with vis of the player in
// the open (0..1: the share of its rays that are clear): BaseRate at the
// end of the range, up to 1+NearBoost times it at its feet, scaled by the
// light and by vis. Nothing beyond the range.
func (t *Tuning) Rate(dist, rng, light, vis float32) float32 {
	if !(dist <= rng) || !(vis > 0) {
		return 0
	}
	near := 1 + t.NearBoost*(1-dist/rng)
	return t.BaseRate * near * light * vis
}

// System is the stealth system. Make it with New.
type System struct {
	// Tuning is the senses and rates; change it before the first Update.
	Tuning Tuning

	world   *ecs.World
	level   *levels.Level
	static  *phys.Static
	zones   *zones.Zones
	build   *prefab.Builder
	book    *book.Book
	started bool
	reset   bool
	active  bool

	players  []target // this tick's players, by wire id
	state    []pstate // per player, by player number (Identity.Player)
	sentries []sentry // this tick's sentries, by wire id
	cams     []ecs.Entity
	patrols  []bool     // per NPC spawner: it walks a patrol
	bays     []phys.Vec // the level's bays, where a car got into is stolen

	tpts     []nav.Vec
	targets  *nav.Grid
	bodies   []occluder
	bpts     []nav.Vec
	bgrid    *nav.Grid
	bodiesAt uint64 // the tick the bodies were gathered, +1
	rays     int    // lines of sight cast this tick
	light    float32

	playerQ  *generic.Filter4[components.Player, components.Identity, components.Pose, components.Health]
	sentryQ  *generic.Filter3[components.Sentry, components.Identity, components.Pose]
	vehicleQ *generic.Filter3[components.Pose, components.Body, components.Seats]
	personQ  *generic.Filter4[components.Pose, components.Body, components.SeatedIn, components.Health]

	sentryOf generic.Map1[components.Sentry]
	chaserOf generic.Map1[components.Chaser]
	drives   generic.Map1[components.Drive]
	flags    generic.Map1[components.Flags]
	person   generic.Map2[components.PersonAction, components.SeatedIn]
	health   generic.Map1[components.Health]
	poses    generic.Map1[components.Pose]
	ids      generic.Map1[components.Identity]
	npc      generic.Map1[components.NPC]
	camera   generic.Map1[components.Camera]
}

// target is a player this tick, as the sentries and cameras see them.
type target struct {
	e        ecs.Entity
	wid      uint16
	number   uint16
	pos      phys.Vec   // their body's, or the vehicle's they ride
	z        float32    // the ground under them
	r        float32    // how far their body reaches across a line of sight
	car      ecs.Entity // the vehicle they ride, zero on foot
	entering ecs.Entity // the vehicle they are getting into, zero none
	zone     int16      // the restricted zone they are in, -1 none
}

// pstate is what the system keeps of a player between ticks.
type pstate struct {
	e ecs.Entity
	// guardUntil, cameraUntil and chasedUntil are the first ticks at
	// which the player is no longer seen by a sentry, by a camera, and
	// chased by an alert sentry.
	guardUntil, cameraUntil, chasedUntil uint64
	// reported: the player's crime of this alert is filed.
	reported bool
}

// sentry is a sentry this tick.
type sentry struct {
	e   ecs.Entity
	wid uint16
	pos phys.Vec
	fwd phys.Vec // unit heading
}

// busyList is the room the per-tick lists are made with: more than a busy
// room holds.
const busyList = 64

// busyBodies is the room made once for the bodies in the way: more than a
// city room holds (about 600).
const busyBodies = 1024

// New returns the stealth system of w on level l, with static its baked
// geometry (nil: no buildings), and makes the room's book (book.Of).
func New(w *ecs.World, l *levels.Level, static *phys.Static) *System {
	bounds := phys.Rect{Min: phys.Vec{X: l.Ground.Min.X, Y: l.Ground.Min.Y}, Max: phys.Vec{X: l.Ground.Max.X, Y: l.Ground.Max.Y}}
	s := &System{
		Tuning:   DefaultTuning(),
		world:    w,
		level:    l,
		static:   static,
		zones:    zones.New(l),
		build:    prefab.New(w),
		book:     &book.Book{},
		targets:  nav.NewGrid(bounds, TargetCell),
		bgrid:    nav.NewGrid(bounds, BodyCell),
		playerQ:  generic.NewFilter4[components.Player, components.Identity, components.Pose, components.Health](),
		sentryQ:  generic.NewFilter3[components.Sentry, components.Identity, components.Pose](),
		vehicleQ: generic.NewFilter3[components.Pose, components.Body, components.Seats](),
		personQ:  generic.NewFilter4[components.Pose, components.Body, components.SeatedIn, components.Health](),
		sentryOf: generic.NewMap1[components.Sentry](w.Arche),
		chaserOf: generic.NewMap1[components.Chaser](w.Arche),
		drives:   generic.NewMap1[components.Drive](w.Arche),
		flags:    generic.NewMap1[components.Flags](w.Arche),
		person:   generic.NewMap2[components.PersonAction, components.SeatedIn](w.Arche),
		health:   generic.NewMap1[components.Health](w.Arche),
		poses:    generic.NewMap1[components.Pose](w.Arche),
		ids:      generic.NewMap1[components.Identity](w.Arche),
		npc:      generic.NewMap1[components.NPC](w.Arche),
		camera:   generic.NewMap1[components.Camera](w.Arche),
	}
	s.playerQ.Register(w.Arche)
	s.sentryQ.Register(w.Arche)
	s.vehicleQ.Register(w.Arche)
	s.personQ.Register(w.Arche)
	book.Keep(w, s.book)
	for i := range l.NPCSpawners {
		s.patrols = append(s.patrols, len(l.NPCSpawners[i].Patrol) >= 2)
	}
	for i := range l.VehicleSpawners {
		for _, b := range l.VehicleSpawners[i].Bays {
			s.bays = append(s.bays, phys.Vec{X: b.Pos.X, Y: b.Pos.Y})
		}
	}
	// Room made once for a busy tick's lists, which are kept: in play
	// they grow only past these, not at each new high.
	s.players = make([]target, 0, w.Players())
	s.state = make([]pstate, w.Players()+1) // by player number, 1 to the room's size
	s.sentries = make([]sentry, 0, busyList)
	s.tpts = make([]nav.Vec, 0, w.Players())
	s.bodies = make([]occluder, 0, busyBodies)
	s.bpts = make([]nav.Vec, busyBodies)
	s.bgrid.Build(s.bpts) // its room made on a busy city's worth of points
	s.bpts = s.bpts[:0]
	s.bgrid.Build(s.bpts)
	s.tpts = s.tpts[:w.Players()]
	s.targets.Build(s.tpts)
	s.tpts = s.tpts[:0]
	s.targets.Build(s.tpts)
	return s
}

// Book returns the room's book.
func (s *System) Book() *book.Book { return s.book }

// Active reports whether the room has had sentries or cameras: the players
// of such a room are told whether they are seen.
func (s *System) Active() bool { return s.active }

// ResetLevel puts the stealth back as the level was made, at the next Update:
// the book emptied (no sightings, no stolen cars, the alert down), every
// camera back on, whole and facing its yaw, every sentry idle. The
// spawners' reset puts the guards back in (systems.ResetLevel does both).
func (s *System) ResetLevel() { s.reset = true }

// Update runs the sentries and the cameras for one tick.
func (s *System) Update(w *ecs.World) {
	if s.reset {
		s.restore(w)
		s.reset = false
	}
	if !s.started {
		s.started = true
		s.makeCameras()
	}
	s.rays = 0
	s.light = s.Tuning.Light(float32(w.Clock.Minutes() / 60))
	s.gatherSentries(w)
	s.gatherPlayers(w)
	if len(s.sentries) > 0 || len(s.cams) > 0 {
		s.active = true
	}
	s.carjacks(w)
	for i := range s.sentries {
		s.look(w, &s.sentries[i])
	}
	s.runCameras(w)
	for i := range s.sentries {
		s.steer(w, &s.sentries[i])
	}
	s.calm(w)
}

// gatherPlayers lists the living players within reach of a sentry or a
// camera (watched), by wire id, and files them in the targets grid. The
// others are left out: nothing sees them this tick.
func (s *System) gatherPlayers(w *ecs.World) {
	s.players = s.players[:0]
	if len(s.sentries) == 0 && len(s.cams) == 0 {
		return
	}
	q := s.playerQ.Query(w.Arche)
	for q.Next() {
		_, id, pose, hp := q.Get()
		if hp.HP == 0 || !s.watched(phys.Flat(pose.Pos)) {
			continue
		}
		e := q.Entity()
		t := target{e: e, wid: id.WireID, number: id.Player, pos: phys.Flat(pose.Pos), z: pose.Pos.Z,
			r: phys.DefaultWalker.Radius, zone: -1}
		act, in := s.person.Get(e)
		if v := in.Vehicle; !v.IsZero() && w.Arche.Alive(v) {
			switch act.Act {
			case components.ActDriving, components.ActPassenger:
				t.car = v
				if p := s.poses.Get(v); p != nil {
					t.pos = phys.Flat(p.Pos)
				}
				t.r = phys.CarModel(s.ids.Get(v).Model).HalfY
			case components.ActEntering:
				t.entering = v
			}
		}
		t.zone = int16(s.zones.Restricted(components.Vec3{X: t.pos.X, Y: t.pos.Y}))
		s.players = append(s.players, t)
	}
	slices.SortFunc(s.players, func(a, b target) int { return int(a.wid) - int(b.wid) })
	s.tpts = s.tpts[:0]
	for i := range s.players {
		s.tpts = append(s.tpts, s.players[i].pos)
	}
	s.targets.Build(s.tpts)
}

// watchMargin (m) is added to the reach of the sentries and cameras when
// a player is checked for being within it: a seated player's body rides a
// little off their vehicle's centre, and a player moves in a tick.
const watchMargin = 8

// watched reports whether p lies within the reach of a sentry (this tick's)
// or a camera: its range and watchMargin.
func (s *System) watched(p phys.Vec) bool {
	r := s.Tuning.RangeAt(s.light) + watchMargin
	for i := range s.sentries {
		if d := s.sentries[i].pos.Sub(p); d.Dot(d) <= r*r {
			return true
		}
	}
	for i := range s.level.Cameras {
		c := &s.level.Cameras[i]
		dx, dy := c.Pos.X-p.X, c.Pos.Y-p.Y
		if rc := c.Range + watchMargin; dx*dx+dy*dy <= rc*rc {
			return true
		}
	}
	return false
}

// gatherSentries lists the sentries by wire id.
func (s *System) gatherSentries(w *ecs.World) {
	s.sentries = s.sentries[:0]
	q := s.sentryQ.Query(w.Arche)
	for q.Next() {
		_, id, pose := q.Get()
		co, si := pose.Rot.Heading()
		s.sentries = append(s.sentries, sentry{e: q.Entity(), wid: id.WireID, pos: phys.Flat(pose.Pos), fwd: phys.Vec{X: co, Y: si}})
	}
	slices.SortFunc(s.sentries, func(a, b sentry) int { return int(a.wid) - int(b.wid) })
}

// stateOf returns the kept state of player e (alive), new when e was not
// seen before under its player number.
func (s *System) stateOf(e ecs.Entity) *pstate {
	st := &s.state[s.ids.Get(e).Player]
	if st.e != e {
		*st = pstate{e: e}
	}
	return st
}

// PlayerSeen reports, for player e after the last tick, whether a sentry
// and whether a camera has them in sight, and whether an alert sentry is
// after them.
func (s *System) PlayerSeen(e ecs.Entity) (guard, camera, chased bool) {
	if e.IsZero() || !s.world.Arche.Alive(e) {
		return false, false, false
	}
	st := &s.state[s.ids.Get(e).Player]
	if st.e != e {
		return false, false, false
	}
	now := s.world.Tick()
	return now < st.guardUntil, now < st.cameraUntil, now < st.chasedUntil
}

// carjacks marks stolen every car a player was seen carjacking this tick
// (the seats' EventCarjack, by a player a sentry or a camera has in sight).
func (s *System) carjacks(w *ecs.World) {
	tick := w.Tick()
	for i := range w.Events {
		ev := &w.Events[i]
		if ev.Kind != components.EventCarjack {
			continue
		}
		t := s.playerOf(ev.Source)
		if t == nil {
			continue
		}
		st := s.stateOf(t.e)
		if tick < st.guardUntil || tick < st.cameraUntil {
			s.theft(w, t, ev.Other, 0, -1)
		}
	}
}

// playerOf returns this tick's target of player e, nil when e is none.
func (s *System) playerOf(e ecs.Entity) *target {
	for i := range s.players {
		if s.players[i].e == e {
			return &s.players[i]
		}
	}
	return nil
}

// theft records that t was seen taking car (by wire id by, camera index
// cam or -1), once a car.
func (s *System) theft(w *ecs.World, t *target, car ecs.Entity, by uint16, cam int16) {
	if car.IsZero() || s.book.Stolen(car) {
		return
	}
	s.book.MarkStolen(car)
	e := s.entry(w, book.Theft, t, by, cam)
	e.Car = car
	s.book.Add(e)
}

// inBay reports whether vehicle v stands in one of the level's bays: a car
// parked there is the level's, and a player seen getting into it is seen
// stealing it.
func (s *System) inBay(v ecs.Entity) bool {
	p := s.poses.Get(v)
	if p == nil {
		return false
	}
	c := phys.Flat(p.Pos)
	for _, b := range s.bays {
		if d := b.Sub(c); d.Dot(d) <= bayRadius*bayRadius {
			return true
		}
	}
	return false
}

// bayRadius (m) is how near its bay a parked car stands (the spawners'
// BayRadius).
const bayRadius = 3

// entry is a book entry about t, seen now by wire id by (camera index cam,
// or -1 for a sentry).
func (s *System) entry(w *ecs.World, what book.What, t *target, by uint16, cam int16) book.Entry {
	return book.Entry{
		Tick: w.Tick(), What: what, Player: t.e, Wire: t.wid, Number: t.number,
		Pos: components.Vec3{X: t.pos.X, Y: t.pos.Y, Z: t.z}, By: by, Camera: cam,
	}
}

// record writes an entry about t into the book.
func (s *System) record(w *ecs.World, what book.What, t *target, by uint16, cam int16) {
	s.book.Add(s.entry(w, what, t, by, cam))
}

// raise puts the room's alert up against t: the book's alert, and t's
// crime when they are in a watched restricted zone (once an alert).
func (s *System) raise(w *ecs.World, t *target) {
	s.book.Raise(w.Tick())
	st := s.stateOf(t.e)
	if st.reported || t.zone < 0 || !s.zones.Watched(int(t.zone)) {
		return
	}
	st.reported = true
	w.Crimes = append(w.Crimes, components.Crime{Kind: components.CrimeRestricted, Offender: t.e,
		Pos: components.Vec3{X: t.pos.X, Y: t.pos.Y, Z: t.z}})
}

// calm keeps the room's alert up while a sentry is alert, takes it down
// AlertHold after it was last raised, and then forgets the crimes filed.
func (s *System) calm(w *ecs.World) {
	for i := range s.sentries {
		if s.sentryOf.Get(s.sentries[i].e).Phase == components.SentryAlert {
			s.book.Raise(w.Tick())
			return
		}
	}
	if s.book.Calm(w.Tick(), s.Tuning.AlertHold) {
		for i := range s.state {
			s.state[i].reported = false
		}
	}
}

// restore puts everything back for a level reset.
func (s *System) restore(w *ecs.World) {
	s.book.Clear()
	for i := range s.state {
		s.state[i] = pstate{e: s.state[i].e}
	}
	q := s.sentryQ.Query(w.Arche)
	for q.Next() {
		se, _, _ := q.Get()
		e := q.Entity()
		*se = components.Sentry{Home: se.Home, HomeYaw: se.HomeYaw}
		s.chaserOf.Get(e).Target = ecs.Entity{}
		s.flags.Get(e).Bits &^= components.SentryFlags
		if act, _ := s.person.Get(e); act != nil && act.Weapon == GuardWeapon {
			act.Weapon = 0
		}
	}
	s.repairCameras(w)
}

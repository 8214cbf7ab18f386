// Package spawners is the system that puts the level's own cars and NPCs in
// the room (the clients never spawn anything):
//
//   - Vehicle spawners park a car (of the spawner's model, no driver,
//     nobody's, locked where the spawner says, its key the spawner's key
//     tag) in each of their bays when the world
//     is made (the first Update) and again on a level reset (Reset), and
//     put the next car in a bay whose car is gone (driven more than
//     BayRadius away, wrecked or removed) once the spawner's respawn time
//     has passed and the bay is clear.
//   - NPC spawners put their Count NPCs (components.NPC with the role and
//     the spawner's index) round their point: guards (KindGuard, walking
//     their patrol here unless the AI drives them), civilians, targets and
//     VIPs (KindPedestrian), and drivers, each at the wheel of a car of its
//     own. Without a schedule they come once (and again on a reset); with
//     one they are about in the schedule's hours of the room clock (all
//     filled when the hours begin, taken away once out of every player's
//     way when they end) and one that is gone or dead is replaced after
//     the schedule's Every seconds (never when Every is 0). What the
//     spawner says its NPCs carry (a key on a guard) is dropped on the
//     ground where one dies, a loose item anyone may pick up (a level
//     reset takes it away again, as it does everything dropped in play).
//   - A garage's spawner without a model parks nothing: its bays are the
//     garage's, for the cars the players keep (systems/cars).
//
// It runs first in the pre-step phase (systems.Entries).
package spawners

import (
	"math"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/nav"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/prefab"
	"github.com/mlange-42/arche/generic"
)

// Name is the system's name in the schedule.
const Name = "spawners"

// Tuning of the spawners.
const (
	// BayRadius (m): a car whose centre is farther than this from its bay
	// has been driven away; the bay is empty.
	BayRadius = 3
	// BayClear (m) is the room a bay needs free of any other body's centre
	// before a car is put in it: a car's half length and a little.
	BayClear = 3
	// RetryEvery (ticks) spaces the tries to fill an empty bay or slot
	// whose time has come but whose place is taken: half a second.
	RetryEvery = 30
	// HideRange (m): an NPC whose hours are over is taken away only when
	// no player is this near, so nobody sees it vanish.
	HideRange = 60
	// PatrolReach (m) is how near a guard comes to a patrol point before
	// walking on to the next.
	PatrolReach = 0.8
	// scatterTries is how many random spots round an NPC spawner are
	// tried before the spawner's own point is used.
	scatterTries = 8
)

// DriverModel is the car model of an NPC spawner's drivers.
const DriverModel = phys.ModelSedan

// System is the spawners system. Make it with New.
type System struct {
	// KeyID numbers the level's key tags (the gates system's KeyID): the
	// cars of a spawner with a key tag answer to its id. Nil: the cars
	// have no key.
	KeyID func(tag string) (components.KeyID, bool)

	level  *levels.Level
	static *phys.Static
	build  *prefab.Builder

	bays    []bay
	groups  []group
	slots   []slot
	started bool
	reset   bool

	bodies  nav.Points // where the bodies are this tick, and the cars parked
	players nav.Points // where the players are this tick

	shapes   *generic.Filter2[components.Pose, components.Body]
	chars    *generic.Filter2[components.Player, components.Pose]
	poses    generic.Map1[components.Pose]
	health   generic.Map1[components.Health]
	flags    generic.Map1[components.Flags]
	seats    generic.Map1[components.Seats]
	seated   generic.Map1[components.SeatedIn]
	drives   generic.Map1[components.Drive]
	playerOf generic.Map1[components.Player]
}

// bay is one parking place of a vehicle spawner.
type bay struct {
	spawner int
	pos     levels.Vec2
	yaw     float32
	model   uint8
	locked  bool
	keyTag  string
	respawn uint64 // ticks
	car     ecs.Entity
	wreck   ecs.Entity // the bay's own car, wrecked where it stood
	freeAt  uint64     // the tick from which an empty bay may be filled
}

// group is one NPC spawner: its slots are slots[first : first+Count].
type group struct {
	spawner int
	first   int
	active  bool
	carry   []components.Stack // what each of its NPCs carries
}

// slot is one NPC of a spawner: its person (and car, for a driver).
type slot struct {
	e, car ecs.Entity
	lost   bool
	lostAt uint64
	patrol int // the patrol point a guard walks to
}

// New returns the spawners system of w on level l; static is the level's
// geometry, to keep NPCs out of buildings (nil: nothing is in the way).
func New(w *ecs.World, l *levels.Level, static *phys.Static) *System {
	s := &System{
		level:    l,
		static:   static,
		build:    prefab.New(w),
		shapes:   generic.NewFilter2[components.Pose, components.Body](),
		chars:    generic.NewFilter2[components.Player, components.Pose](),
		poses:    generic.NewMap1[components.Pose](w.Arche),
		health:   generic.NewMap1[components.Health](w.Arche),
		flags:    generic.NewMap1[components.Flags](w.Arche),
		seats:    generic.NewMap1[components.Seats](w.Arche),
		seated:   generic.NewMap1[components.SeatedIn](w.Arche),
		drives:   generic.NewMap1[components.Drive](w.Arche),
		playerOf: generic.NewMap1[components.Player](w.Arche),
	}
	s.shapes.Register(w.Arche)
	s.chars.Register(w.Arche)
	// Room for a full room's players' points, made now rather than in
	// the tick of the first check, minutes into play.
	for range w.Players() {
		s.players.Add(phys.Vec{})
	}
	s.players.Invalidate()
	for i := range l.VehicleSpawners {
		vs := &l.VehicleSpawners[i]
		if vs.Model == "" {
			continue // a garage's bays: nothing of the spawner's own is parked there
		}
		model, _ := prefab.ModelByName(vs.Model)
		for _, b := range vs.Bays {
			s.bays = append(s.bays, bay{spawner: i, pos: b.Pos, yaw: b.Yaw, model: model, locked: vs.Locked, keyTag: vs.KeyTag,
				respawn: uint64(math32.Round(max(vs.Respawn, 0) * ecs.TickRate))})
		}
	}
	for i := range l.NPCSpawners {
		g := group{spawner: i, first: len(s.slots)}
		for _, st := range l.NPCSpawners[i].Items {
			if id, ok := w.Items.ByName(st.Item); ok { // games.Game.Check refuses a level naming another
				g.carry = append(g.carry, components.Stack{Item: id, Count: uint16(min(st.Count, math.MaxUint16))})
			}
		}
		s.groups = append(s.groups, g)
		for range l.NPCSpawners[i].Count {
			s.slots = append(s.slots, slot{})
		}
	}
	return s
}

// ResetLevel puts the level's cars and NPCs back as they were made: the next
// Update takes away every car still in its bay (unless a player sits in
// it), every wreck in a bay and every NPC of the spawners (and a driver's
// car, unless a player sits in it), and fills every bay and spawner again.
func (s *System) ResetLevel() { s.reset = true }

// Bay returns the car in bay j of vehicle spawner i (zero when empty).
func (s *System) Bay(i, j int) ecs.Entity {
	for k := range s.bays {
		if s.bays[k].spawner == i {
			if j == 0 {
				return s.bays[k].car
			}
			j--
		}
	}
	return ecs.Entity{}
}

// NPC returns NPC k of NPC spawner i, and the car of a driver (zero when
// the slot is empty).
func (s *System) NPC(i, k int) (person, car ecs.Entity) {
	sl := s.slots[s.groups[i].first+k]
	return sl.e, sl.car
}

// Update runs the spawners for one tick.
func (s *System) Update(w *ecs.World) {
	if s.reset {
		s.takeAll(w)
		s.reset, s.started = false, false
	}
	if !s.started {
		s.started = true
		for i := range s.bays {
			s.bays[i].freeAt = w.Tick()
		}
	}
	s.vehicles(w)
	s.npcs(w)
	s.patrol(w)
}

// vehicles notices the cars gone from their bays and fills the empty bays
// whose time has come.
func (s *System) vehicles(w *ecs.World) {
	tick := w.Tick()
	for i := range s.bays {
		b := &s.bays[i]
		if !b.car.IsZero() {
			if s.inBay(w, b, b.car) && !s.wrecked(b.car) {
				continue
			}
			if alive(w, b.car) && s.inBay(w, b, b.car) {
				b.wreck = b.car
			}
			b.car = ecs.Entity{}
			b.freeAt = tick + b.respawn
			continue
		}
		if tick < b.freeAt || (b.freeAt != tick && tick%RetryEvery != 0) {
			continue
		}
		s.fillBay(w, b)
	}
}

func (s *System) inBay(w *ecs.World, b *bay, car ecs.Entity) bool {
	if !alive(w, car) {
		return false
	}
	p := s.poses.Get(car).Pos
	dx, dy := p.X-b.pos.X, p.Y-b.pos.Y
	return dx*dx+dy*dy <= BayRadius*BayRadius
}

func (s *System) wrecked(e ecs.Entity) bool {
	f := s.flags.Get(e)
	return f != nil && f.Bits&components.FlagWrecked != 0
}

// fillBay parks the bay's next car, first towing away its own wreck if
// nobody sits in it; it waits while anything else stands in the bay.
func (s *System) fillBay(w *ecs.World, b *bay) {
	if s.inBay(w, b, b.wreck) && !s.occupied(w, b.wreck) {
		w.Despawn(b.wreck)
		s.bodies.Invalidate()
	}
	b.wreck = ecs.Entity{}
	if !s.room(w, phys.Vec{X: b.pos.X, Y: b.pos.Y}, BayClear) {
		return
	}
	pos := components.Vec3{X: b.pos.X, Y: b.pos.Y, Z: s.level.Ground.Height}
	car, err := s.build.ParkedCar(b.model, pos, b.yaw, b.locked)
	if err != nil {
		return // no wire id left: try again later
	}
	if id, ok := s.keyID(b.keyTag); ok {
		s.build.SetCarLock(car, components.CarLock{}.WithKey(id), b.locked)
	}
	b.car = car
	s.bodies.Add(phys.Flat(pos))
}

// occupied reports whether anyone sits in vehicle e.
func (s *System) occupied(w *ecs.World, e ecs.Entity) bool {
	st := s.seats.Get(e)
	if st == nil {
		return false
	}
	for i := range st.Count {
		if alive(w, st.Occupant[i]) {
			return true
		}
	}
	return false
}

// playerAboard reports whether a player sits in vehicle e.
func (s *System) playerAboard(w *ecs.World, e ecs.Entity) bool {
	st := s.seats.Get(e)
	if st == nil {
		return false
	}
	for i := range st.Count {
		if o := st.Occupant[i]; alive(w, o) && s.playerOf.Get(o) != nil {
			return true
		}
	}
	return false
}

// room reports whether no body's centre lies within r of p.
func (s *System) room(w *ecs.World, p phys.Vec, r float32) bool {
	if s.bodies.Stale(w.Tick()) {
		q := s.shapes.Query(w.Arche)
		for q.Next() {
			pose, _ := q.Get()
			s.bodies.Add(phys.Flat(pose.Pos))
		}
	}
	return !s.bodies.Near(p, r)
}

// npcs runs the NPC spawners: their hours, their losses and refills.
func (s *System) npcs(w *ecs.World) {
	tick := w.Tick()
	hour := float32(w.Clock.Minutes() / 60)
	for gi := range s.groups {
		g := &s.groups[gi]
		sp := &s.level.NPCSpawners[g.spawner]
		active := Within(sp.Schedule, hour)
		opening := active && !g.active
		g.active = active
		slots := s.slots[g.first : g.first+sp.Count]
		for k := range slots {
			sl := &slots[k]
			switch {
			case !active:
				s.leave(w, sl, tick)
			case opening && (sl.e.IsZero() || sl.lost):
				s.fillSlot(w, g, sl, k)
			case sl.lost:
				if sp.Schedule != nil && sp.Schedule.Every > 0 && tick%RetryEvery == 0 &&
					tick >= sl.lostAt+uint64(math32.Round(sp.Schedule.Every*ecs.TickRate)) {
					s.fillSlot(w, g, sl, k)
				}
			case sl.e.IsZero():
			case s.gone(w, sl.e):
				sl.lost, sl.lostAt = true, tick
				s.drop(w, g, sl.e)
			}
		}
	}
}

// drop lays what g's NPCs carry on the ground where NPC e lies dead (one
// taken out of the world drops nothing).
func (s *System) drop(w *ecs.World, g *group, e ecs.Entity) {
	if len(g.carry) == 0 || !alive(w, e) {
		return
	}
	p := s.poses.Get(e).Pos
	for _, st := range g.carry {
		s.build.Item(st.Item, st.Count, -1, p) // no wire id left: it is lost
	}
}

// Within reports whether the room clock's hour (0..24) lies in the
// schedule's hours: from From up to To, across midnight when From > To,
// all day when they are equal or there is no schedule.
func Within(sc *levels.Schedule, hour float32) bool {
	if sc == nil || sc.From == sc.To {
		return true
	}
	if sc.From < sc.To {
		return hour >= sc.From && hour < sc.To
	}
	return hour >= sc.From || hour < sc.To
}

// gone reports whether an NPC is lost: removed, or dead.
func (s *System) gone(w *ecs.World, e ecs.Entity) bool {
	if !alive(w, e) {
		return true
	}
	h := s.health.Get(e)
	return h != nil && h.HP == 0
}

// leave takes a slot's NPC away when its hours are over, once no player is
// near (tried every RetryEvery ticks).
func (s *System) leave(w *ecs.World, sl *slot, tick uint64) {
	if sl.e.IsZero() || tick%RetryEvery != 0 {
		return
	}
	if alive(w, sl.e) && s.playerNear(w, phys.Flat(s.poses.Get(sl.e).Pos), HideRange) {
		return
	}
	s.take(w, sl)
}

// take removes a slot's NPC (dead or alive) and a driver's car unless a
// player sits in it, and empties the slot.
func (s *System) take(w *ecs.World, sl *slot) {
	if alive(w, sl.e) && s.playerOf.Get(sl.e) == nil {
		if sd := s.seated.Get(sl.e); sd != nil && alive(w, sd.Vehicle) {
			if st := s.seats.Get(sd.Vehicle); st != nil && st.Occupant[sd.Seat] == sl.e {
				st.Occupant[sd.Seat] = ecs.Entity{}
			}
		}
		w.Despawn(sl.e)
	}
	if alive(w, sl.car) && !s.playerAboard(w, sl.car) {
		w.Despawn(sl.car)
	}
	*sl = slot{}
}

// playerNear reports whether a player's character is within r of p.
func (s *System) playerNear(w *ecs.World, p phys.Vec, r float32) bool {
	if s.players.Stale(w.Tick()) {
		q := s.chars.Query(w.Arche)
		for q.Next() {
			_, pose := q.Get()
			s.players.Add(phys.Flat(pose.Pos))
		}
	}
	return s.players.Near(p, r)
}

// fillSlot puts slot k of group g's NPC in the room, taking away what is
// left of the one before (a dead body, a driver's empty car).
func (s *System) fillSlot(w *ecs.World, g *group, sl *slot, k int) {
	if !sl.e.IsZero() {
		s.take(w, sl)
	}
	sp := &s.level.NPCSpawners[g.spawner]
	z := s.level.Ground.Height
	idx := int16(g.spawner)
	var err error
	switch sp.Role {
	case levels.NPCDriver:
		spec := phys.CarModel(DriverModel)
		p := s.scatter(w, sp, spec.HalfX)
		sl.car, sl.e, err = s.build.NPCCar(components.RoleDriver, idx, DriverModel, components.Vec3{X: p.X, Y: p.Y, Z: z}, sp.Yaw)
	default:
		kind, role := npcKind(sp.Role)
		p := s.scatter(w, sp, phys.DefaultWalker.Radius)
		sl.e, err = s.build.NPCPerson(kind, role, idx, components.Vec3{X: p.X, Y: p.Y, Z: z}, sp.Yaw)
	}
	if err != nil {
		*sl = slot{} // no wire id left: an empty slot, filled as the schedule allows
		sl.lost, sl.lostAt = true, w.Tick()
		return
	}
	sl.lost, sl.patrol = false, k%max(len(sp.Patrol), 1)
}

// npcKind is the entity kind and NPC role of a spawner role.
func npcKind(r levels.NPCRole) (components.Kind, components.NPCRole) {
	switch r {
	case levels.NPCGuard:
		return components.KindGuard, components.RoleGuard
	case levels.NPCTarget:
		return components.KindPedestrian, components.RoleTarget
	case levels.NPCVIP:
		return components.KindPedestrian, components.RoleVIP
	case levels.NPCDriver:
		return components.KindPedestrian, components.RoleDriver
	}
	return components.KindPedestrian, components.RoleCivilian
}

// scatter picks a spot within the spawner's radius of its point (drawn
// from w.RNG) where a body of radius r is clear of the buildings; the
// spawner's point itself when no try finds one.
func (s *System) scatter(w *ecs.World, sp *levels.NPCSpawner, r float32) phys.Vec {
	c := phys.Vec{X: sp.Pos.X, Y: sp.Pos.Y}
	if sp.Radius > 0 {
		for range scatterTries {
			a := w.RNG.Float32() * 2 * math32.Pi
			d := sp.Radius * math32.Sqrt(w.RNG.Float32())
			sn, co := math32.Sincos(a)
			p := c.Add(phys.Vec{X: co * d, Y: sn * d})
			if s.static == nil || !s.static.Overlaps(p, r) {
				return p
			}
		}
	}
	if s.static != nil {
		if p, ok := s.static.ClosestFree(c, r, 4*r+2); ok {
			return p
		}
	}
	return c
}

// patrol walks every guard with a patrol round its points, in order and
// back to the first. The AI, which runs later in the tick, may drive a
// guard otherwise (an alert).
func (s *System) patrol(w *ecs.World) {
	for gi := range s.groups {
		g := &s.groups[gi]
		sp := &s.level.NPCSpawners[g.spawner]
		if sp.Role != levels.NPCGuard || len(sp.Patrol) < 2 {
			continue
		}
		for k := range sp.Count {
			sl := &s.slots[g.first+k]
			if sl.e.IsZero() || sl.lost || !alive(w, sl.e) {
				continue
			}
			if h := s.health.Get(sl.e); h.HP == 0 {
				continue
			}
			pos := s.poses.Get(sl.e).Pos
			t := sp.Patrol[sl.patrol%len(sp.Patrol)]
			dx, dy := t.X-pos.X, t.Y-pos.Y
			if dx*dx+dy*dy < PatrolReach*PatrolReach {
				sl.patrol = (sl.patrol + 1) % len(sp.Patrol)
				t = sp.Patrol[sl.patrol]
				dx, dy = t.X-pos.X, t.Y-pos.Y
			}
			d := s.drives.Get(sl.e)
			*d = components.Drive{MoveY: 1, LookYaw: math32.Atan2(dy, dx)}
		}
	}
}

// takeAll takes away, for a reset, the cars still in their bays (unless a
// player sits in one), the wrecks in the bays and every spawner's NPC.
func (s *System) takeAll(w *ecs.World) {
	for i := range s.bays {
		b := &s.bays[i]
		for _, e := range [2]ecs.Entity{b.car, b.wreck} {
			if s.inBay(w, b, e) && !s.playerAboard(w, e) {
				s.emptyOut(w, e)
				w.Despawn(e)
			}
		}
		b.car, b.wreck, b.freeAt = ecs.Entity{}, ecs.Entity{}, 0
	}
	for i := range s.slots {
		s.take(w, &s.slots[i])
	}
	for i := range s.groups {
		s.groups[i].active = false
	}
	s.bodies.Invalidate()
}

// emptyOut takes the NPCs out of a vehicle that is about to go (its seats'
// people are let go by the seats system; NPCs inside are removed too).
func (s *System) emptyOut(w *ecs.World, e ecs.Entity) {
	st := s.seats.Get(e)
	for i := range st.Count {
		if o := st.Occupant[i]; alive(w, o) && s.playerOf.Get(o) == nil {
			w.Despawn(o)
		}
	}
}

// keyID returns the id of a bay's key tag, false for none.
func (s *System) keyID(tag string) (components.KeyID, bool) {
	if tag == "" || s.KeyID == nil {
		return 0, false
	}
	return s.KeyID(tag)
}

func alive(w *ecs.World, e ecs.Entity) bool { return !e.IsZero() && w.Arche.Alive(e) }

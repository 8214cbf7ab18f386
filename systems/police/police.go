// Package police is the system that turns the players' crimes into their
// Wanted level and the Wanted level into police: the last step's crimes
// (w.LastCrimes: a pedestrian hit or run over, a carjack, a shot, a
// restricted zone entered, a police car rammed, a car broken into) build each offending
// player's Heat up to the next star (0 to MaxStars); the stars bring police
// cars out of the level's police spawn points (or a lane of its police
// spawn areas, levels.SpawnArea: round a corner from the player, out of
// their sight, on a lane that runs toward them), each with an officer at the wheel and a
// components.Chaser after the player, which the AI drives; the stars decay
// while no police sees the player, but hold while a unit sent after them
// is on its way (coming nearer, not yet in sight of them); the chasers are recalled (and taken out
// of the world once no player sees them) when the stars are gone; and a
// player who stands stopped beside an officer or a police car for
// ArrestTicks is arrested: the fine of their stars is taken from their
// Cash and the stars are cleared.
//
// Crimes are committed by players only (the offender is a character with
// components.Player). The seats system reports a carjack as an
// EventCarjack, not a crime: this system reads the tick's events and files
// each carjack by a player as a CrimeCarjack in w.Crimes, acted on with the
// next tick's crimes like every other (so the seats need no hook).
//
// Whether a room has police at all is ecs.Rules.Police; without, the
// Wanted levels stay as they are and any police car of this system is
// recalled.
//
// It runs in the pre-step phase after the spawners and the gates and before
// the pedestrians and the AI (systems.Entries), so the AI drives a chaser
// the tick it comes out.
package police

import (
	"slices"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/prefab"
	"github.com/mlange-42/arche/generic"
)

// Name is the system's name in the schedule.
const Name = "police"

// MaxStars is the highest Wanted level.
const MaxStars = 5

// CarsPerStar is how many police cars chase a player of each Wanted level:
// one more a star, and two more at the top.
var CarsPerStar = [MaxStars + 1]int{0, 1, 2, 3, 4, 6}

// Fines is the fine of an arrest at each Wanted level, in cash. A new
// player holds prefab.StartCash (500): a fine or two of the lower levels.
var Fines = [MaxStars + 1]int64{0, 100, 200, 350, 500, 750}

// CrimeHeat is the Heat each crime adds (a star is 1): running over a
// pedestrian, ramming the police and entering a restricted zone are a star
// at once, a hit, an assault or a break-in half of one, a shot a quarter.
var CrimeHeat = [...]float32{
	components.CrimeHitPedestrian:  0.4,
	components.CrimeKillPedestrian: 1,
	components.CrimeCarjack:        0.5,
	components.CrimeShooting:       0.25,
	components.CrimeRestricted:     1,
	components.CrimeRamPolice:      1,
	components.CrimeAssault:        0.5,
	components.CrimeBreakIn:        0.5,
}

// Tuning of the police.
const (
	// MaxUnits caps the police cars of a room: sixteen chasing cars are a
	// city's worth, and the AI's work grows with each.
	MaxUnits = 16
	// SightRange (m) is how far police see a player, along a line no
	// building crosses: about half a block of main-city.
	SightRange = 60
	// SightEvery is how often (ticks) the police look for each player, a
	// sixth of a second; the looks of the players are spread over the
	// ticks by wire id.
	SightEvery = 10
	// DecayTicks is how long a player must stay unseen to lose a star:
	// twelve seconds, so five stars take a minute of hiding.
	DecayTicks = 12 * ecs.TickRate
	// HeatDecay is the Heat lost per second by a player with no star: a
	// hit (0.4) is forgotten in twenty seconds.
	HeatDecay = 0.02
	// ArrestTicks is how long a wanted player must stand stopped beside
	// the police to be arrested: three seconds.
	ArrestTicks = 3 * ecs.TickRate
	// ArrestReach (m) is the gap between a player (or the car they sit in)
	// and an officer or a police car that counts as beside: a door's
	// width.
	ArrestReach = 2.5
	// StopSpeed (m/s) is the speed under which a player counts as stopped:
	// the physics' rest speed.
	StopSpeed = phys.RestSpeed
	// SpawnEvery (ticks) spaces the police cars that come out, half a
	// second, so they leave a spawn point one by one.
	SpawnEvery = 30
	// SpawnClear (m) is the room a police spawn point needs free of any
	// body to put a car there.
	SpawnClear = 4
	// AreaMin (m) is the least distance from the player they are sent
	// after at which a police car comes out of a spawn area: round a
	// corner, not on top of them. AreaStep and AreaEnd (m) space the
	// lane points of an area a car may come out at, and keep them clear
	// of the crossings.
	AreaMin  = 40
	AreaStep = 4
	AreaEnd  = 10
	// RecallSight (m) is how far a player must be from a recalled car (or
	// see it past a building) before it is taken out of the world.
	RecallSight = 80
	// RecallTicks is the longest a recalled car stays: a minute.
	RecallTicks = 60 * ecs.TickRate
	// HoldTicks is the longest a unit on its way holds its player's
	// stars: forty seconds, a drive across main-city. ProgressTicks and
	// ProgressStep (m): a unit is on its way while it has come
	// ProgressStep nearer its player within the last ProgressTicks (two
	// seconds), so one that stands, or is stuck, holds nothing.
	HoldTicks     = 40 * ecs.TickRate
	ProgressTicks = 2 * ecs.TickRate
	ProgressStep  = 1
)

// System is the police system. Make it with New.
type System struct {
	level  *levels.Level
	static *phys.Static
	build  *prefab.Builder
	spawns []int32       // the level's police spawn points
	areas  [][]areaPoint // the lane points of the level's police spawn areas, area by area

	units   []unit   // the police cars this system made, by wire id
	wanted  []target // this tick's wanted players, by wire id
	players []phys.Vec
	cops    []cop
	bodies  []phys.Vec
	used    []bool // police spawn points taken this tick
	usedIn  []bool // police spawn areas taken this tick
	copsAt  uint64 // tick the cops were gathered, +1 (0: never)

	chars    *generic.Filter6[components.Player, components.Wanted, components.Identity, components.Pose, components.Velocity, components.Health]
	shapes   *generic.Filter3[components.Kind, components.Pose, components.Body]
	chaserOf generic.Map1[components.Chaser]
	wants    generic.Map2[components.Player, components.Wanted]
	ids      generic.Map1[components.Identity]
	kinds    generic.Map1[components.Kind]
	poses    generic.Map1[components.Pose]
	bodyOf   generic.Map1[components.Body]
	health   generic.Map1[components.Health]
	flags    generic.Map1[components.Flags]
	seats    generic.Map1[components.Seats]
	seated   generic.Map1[components.SeatedIn]
	cash     generic.Map1[components.Cash]
	playerOf generic.Map1[components.Player]
}

// unit is a police car this system made, its officer and the player it
// chases; a recalled unit has lost its Chaser and waits to be taken away.
// since is the tick it came out; closest the nearest it has come to its
// player, closerAt the tick it last came ProgressStep nearer (0: never);
// arrived says it has had its player in sight.
type unit struct {
	car, officer, target ecs.Entity
	wid                  uint16
	recalled, arrived    bool
	recallAt, since      uint64
	closerAt             uint64
	closest              float32
}

// areaPoint is a lane point of a police spawn area: where a car comes
// out, facing the lane's way.
type areaPoint struct {
	pos, dir phys.Vec
	yaw      float32
}

// spot is where a police car comes out: a spawn point (point, an index
// into System.spawns) or a lane point of a spawn area (area, an index into
// System.areas); the other is -1.
type spot struct {
	pos         phys.Vec
	yaw         float32
	point, area int
}

// target is a player with stars this tick.
type target struct {
	e     ecs.Entity
	wid   uint16
	pos   phys.Vec
	stars uint8
}

// cop is a police car or an officer on foot, as a shape to be beside and
// eyes to see with.
type cop struct {
	pos    phys.Vec
	co, si float32
	hx, hy float32 // a box's half extents; a circle has hx = hy = radius
	box    bool
}

// busyList is the room the system's per-tick lists are made with: more than
// a busy city tick holds.
const busyList = 64

// busyBodies is the room made once for the bodies' points: more than a
// city room holds (about 600).
const busyBodies = 1024

// New returns the police system of w on level l; static is the level's
// geometry, for lines of sight (nil: nothing blocks them).
func New(w *ecs.World, l *levels.Level, static *phys.Static) *System {
	s := &System{
		level:    l,
		static:   static,
		build:    prefab.New(w),
		spawns:   l.SpawnsOf(levels.RolePolice),
		chars:    generic.NewFilter6[components.Player, components.Wanted, components.Identity, components.Pose, components.Velocity, components.Health](),
		shapes:   generic.NewFilter3[components.Kind, components.Pose, components.Body](),
		chaserOf: generic.NewMap1[components.Chaser](w.Arche),
		wants:    generic.NewMap2[components.Player, components.Wanted](w.Arche),
		ids:      generic.NewMap1[components.Identity](w.Arche),
		kinds:    generic.NewMap1[components.Kind](w.Arche),
		poses:    generic.NewMap1[components.Pose](w.Arche),
		bodyOf:   generic.NewMap1[components.Body](w.Arche),
		health:   generic.NewMap1[components.Health](w.Arche),
		flags:    generic.NewMap1[components.Flags](w.Arche),
		seats:    generic.NewMap1[components.Seats](w.Arche),
		seated:   generic.NewMap1[components.SeatedIn](w.Arche),
		cash:     generic.NewMap1[components.Cash](w.Arche),
		playerOf: generic.NewMap1[components.Player](w.Arche),
	}
	s.used = make([]bool, len(s.spawns))
	for _, a := range l.SpawnAreas {
		if a.Role != levels.RolePolice {
			continue
		}
		var pts []areaPoint
		for _, lp := range l.LanePointsIn(a.Polygon, AreaStep, AreaEnd) {
			pts = append(pts, areaPoint{pos: phys.Vec{X: lp.Pos.X, Y: lp.Pos.Y}, dir: phys.Vec{X: lp.Dir.X, Y: lp.Dir.Y}, yaw: math32.Atan2(lp.Dir.Y, lp.Dir.X)})
		}
		if len(pts) > 0 {
			s.areas = append(s.areas, pts)
		}
	}
	s.usedIn = make([]bool, len(s.areas))
	// Room made once for a busy tick's lists, which are kept: in play
	// they grow only past these, not at each new high.
	s.units = make([]unit, 0, MaxUnits)
	s.wanted = make([]target, 0, busyList)
	s.cops = make([]cop, 0, busyList)
	s.bodies = make([]phys.Vec, 0, busyBodies)
	s.chars.Register(w.Arche)
	s.shapes.Register(w.Arche)
	return s
}

// Units returns how many police cars the system has out, and how many of
// them are chasing (not recalled).
func (s *System) Units() (all, chasing int) {
	for _, u := range s.units {
		if !u.recalled {
			chasing++
		}
	}
	return len(s.units), chasing
}

// Update runs the police for one tick.
func (s *System) Update(w *ecs.World) {
	s.fileCarjacks(w)
	if w.Rules.Police {
		s.applyCrimes(w)
	}
	s.look(w)
	s.check(w)
	if w.Rules.Police {
		s.dispatch(w)
	}
	s.takeAway(w)
}

// fileCarjacks files every carjack of the tick by a player (the seats'
// EventCarjack) as a crime, acted on next tick.
func (s *System) fileCarjacks(w *ecs.World) {
	for i := range w.Events {
		ev := &w.Events[i]
		if ev.Kind != components.EventCarjack || !s.isPlayer(w, ev.Source) {
			continue
		}
		w.Crimes = append(w.Crimes, components.Crime{Kind: components.CrimeCarjack, Offender: ev.Source, Victim: ev.Target, Pos: ev.Pos})
	}
}

// applyCrimes adds the Heat of the last tick's crimes to their offenders.
func (s *System) applyCrimes(w *ecs.World) {
	for _, c := range w.LastCrimes() {
		if !alive(w, c.Offender) || int(c.Kind) >= len(CrimeHeat) {
			continue
		}
		_, wt := s.wants.Get(c.Offender)
		if wt == nil {
			continue
		}
		if h := s.health.Get(c.Offender); h != nil && h.HP == 0 {
			continue
		}
		AddHeat(wt, CrimeHeat[c.Kind])
		wt.Unseen = 0
	}
}

// AddHeat adds heat to a Wanted level, turning each whole star of it into a
// star up to MaxStars (where the Heat stays full).
func AddHeat(wt *components.Wanted, heat float32) {
	if !(heat > 0) {
		return
	}
	wt.Heat += heat
	for wt.Heat >= 1 && wt.Stars < MaxStars {
		wt.Stars++
		wt.Heat--
	}
	if wt.Stars >= MaxStars {
		wt.Stars = MaxStars
		wt.Heat = min(wt.Heat, 1)
	}
}

// look runs every player's Wanted level for the tick: the police's look,
// the decay, the arrest, the death; and lists the wanted players by wire
// id.
func (s *System) look(w *ecs.World) {
	tick := w.Tick()
	police := w.Rules.Police
	s.progress(w)
	s.wanted = s.wanted[:0]
	s.players = s.players[:0]
	q := s.chars.Query(w.Arche)
	for q.Next() {
		_, wt, id, pose, vel, hp := q.Get()
		e := q.Entity()
		p := phys.Flat(pose.Pos)
		if hp.HP == 0 {
			// Wasted: a dead player's stars are gone.
			wt.Stars, wt.Heat, wt.Unseen, wt.Arrest = 0, 0, 0, 0
			continue
		}
		s.players = append(s.players, p)
		if !police {
			continue
		}
		if wt.Unseen < 1<<31 && (wt.Stars == 0 || !s.onTheWay(e, tick)) {
			wt.Unseen++
		}
		if wt.Stars == 0 {
			wt.Heat = max(wt.Heat-HeatDecay*ecs.Dt, 0)
			wt.Arrest = 0
			continue
		}
		if (tick+uint64(id.WireID))%SightEvery == 0 && s.seen(w, e, p) {
			wt.Unseen = 0
		}
		if wt.Unseen >= DecayTicks {
			wt.Stars--
			wt.Unseen, wt.Heat = 0, 0
		}
		if wt.Stars > 0 && speed(vel) < StopSpeed && s.beside(w, e, pose) {
			wt.Arrest++
		} else {
			wt.Arrest = 0
		}
		if wt.Arrest >= ArrestTicks {
			s.arrest(e, wt)
		}
		if wt.Stars > 0 {
			s.wanted = append(s.wanted, target{e: e, wid: id.WireID, pos: p, stars: wt.Stars})
		}
	}
	slices.SortFunc(s.wanted, func(a, b target) int { return int(a.wid) - int(b.wid) })
}

// arrest takes the fine of the player's stars from their Cash (never below
// 0) and clears the stars. Wanted.Fine is what was taken.
func (s *System) arrest(e ecs.Entity, wt *components.Wanted) {
	fine := Fines[min(wt.Stars, MaxStars)]
	if c := s.cash.Get(e); c != nil {
		fine = min(fine, max(c.Amount, 0))
		c.Amount -= fine
	} else {
		fine = 0
	}
	wt.Fine = fine
	wt.Arrests++
	wt.Stars, wt.Heat, wt.Unseen, wt.Arrest = 0, 0, 0, 0
}

// progress notes, for every unit chasing, whether it has its player in
// sight (the AI's Chaser.Sees) and whether it came nearer them.
func (s *System) progress(w *ecs.World) {
	tick := w.Tick()
	for i := range s.units {
		u := &s.units[i]
		if u.recalled || u.arrived || !alive(w, u.car) || !alive(w, u.target) {
			continue
		}
		if c := s.chaserOf.Get(u.car); c != nil && c.Sees {
			u.arrived = true
			continue
		}
		d := phys.Flat(s.poses.Get(u.car).Pos).Sub(phys.Flat(s.poses.Get(u.target).Pos)).Len()
		if d <= u.closest-ProgressStep {
			u.closest, u.closerAt = d, tick
		}
	}
}

// onTheWay reports whether a unit is on its way to the player e: chasing
// them, not yet in sight of them, out for less than HoldTicks and come
// nearer within the last ProgressTicks.
func (s *System) onTheWay(e ecs.Entity, tick uint64) bool {
	for i := range s.units {
		u := &s.units[i]
		if u.target == e && !u.recalled && !u.arrived && u.closerAt != 0 &&
			tick-u.closerAt <= ProgressTicks && tick-u.since < HoldTicks {
			return true
		}
	}
	return false
}

func speed(v *components.Velocity) float32 {
	return math32.Sqrt(v.Lin.X*v.Lin.X + v.Lin.Y*v.Lin.Y)
}

// seen reports whether any police sees the player e at p: a chaser of this
// system that saw it in the AI's last look (Chaser.Sees), or a police car
// or an officer on foot within SightRange with a clear line to it.
func (s *System) seen(w *ecs.World, e ecs.Entity, p phys.Vec) bool {
	for _, u := range s.units {
		if u.recalled || u.target != e || !alive(w, u.car) {
			continue
		}
		if c := s.chaserOf.Get(u.car); c != nil && c.Sees {
			return true
		}
	}
	s.gatherCops(w)
	for i := range s.cops {
		c := &s.cops[i]
		d := c.pos.Sub(p)
		if d.Dot(d) > SightRange*SightRange {
			continue
		}
		if s.static == nil || s.static.SegmentClear(c.pos, p) {
			return true
		}
	}
	return false
}

// gatherCops lists, once a tick, every police car that is not wrecked and
// every officer on foot and alive.
func (s *System) gatherCops(w *ecs.World) {
	if s.copsAt == w.Tick()+1 {
		return
	}
	s.copsAt = w.Tick() + 1
	s.cops = s.cops[:0]
	q := s.shapes.Query(w.Arche)
	for q.Next() {
		kind, pose, body := q.Get()
		e := q.Entity()
		switch *kind {
		case components.KindPoliceCar:
			if f := s.flags.Get(e); f != nil && f.Bits&components.FlagWrecked != 0 {
				continue
			}
		case components.KindOfficer:
			if h := s.health.Get(e); h != nil && h.HP == 0 {
				continue
			}
			if sd := s.seated.Get(e); sd != nil && !sd.Vehicle.IsZero() {
				continue
			}
		default:
			continue
		}
		s.cops = append(s.cops, shapeOf(pose, body))
	}
}

func shapeOf(pose *components.Pose, body *components.Body) cop {
	c := cop{pos: phys.Flat(pose.Pos)}
	if body.Shape == components.ShapeCircle {
		c.hx, c.hy = body.Radius, body.Radius
		return c
	}
	c.box = true
	c.co, c.si = pose.Rot.Heading()
	c.hx, c.hy = body.HalfX, body.HalfY
	return c
}

// dist returns the distance from p to the shape (0 inside).
func (c *cop) dist(p phys.Vec) float32 {
	d := p.Sub(c.pos)
	if !c.box {
		return max(d.Len()-c.hx, 0)
	}
	lx, ly := d.X*c.co+d.Y*c.si, -d.X*c.si+d.Y*c.co
	ex := max(math32.Abs(lx)-c.hx, 0)
	ey := max(math32.Abs(ly)-c.hy, 0)
	return math32.Sqrt(ex*ex + ey*ey)
}

// inner is the radius of the largest circle in the shape.
func (c *cop) inner() float32 { return min(c.hx, c.hy) }

// outer bounds the shape's reach from its centre (hx + hy is at least the
// half diagonal, and needs no square root).
func (c *cop) outer() float32 {
	if !c.box {
		return c.hx
	}
	return c.hx + c.hy
}

// beside reports whether the player e (or the car it sits in) is within
// ArrestReach of a police car or an officer on foot. The gap between two
// shapes is taken as the distance from one's centre to the other's outline
// less the first's inner radius, the smaller of the two ways round: exact
// for a person, a little generous at a car's corners.
func (s *System) beside(w *ecs.World, e ecs.Entity, pose *components.Pose) bool {
	me := s.shapeOfPlayer(w, e, pose)
	s.gatherCops(w)
	reach := ArrestReach + me.outer()
	for i := range s.cops {
		c := &s.cops[i]
		if d := c.pos.Sub(me.pos); d.Dot(d) > (reach+c.outer())*(reach+c.outer()) {
			continue
		}
		gap := min(c.dist(me.pos)-me.inner(), me.dist(c.pos)-c.inner())
		if gap <= ArrestReach {
			return true
		}
	}
	return false
}

// shapeOfPlayer is the player's body, or the body of the vehicle they sit
// in.
func (s *System) shapeOfPlayer(w *ecs.World, e ecs.Entity, pose *components.Pose) cop {
	if sd := s.seated.Get(e); sd != nil && alive(w, sd.Vehicle) {
		if b := s.bodyOf.Get(sd.Vehicle); b != nil {
			return shapeOf(s.poses.Get(sd.Vehicle), b)
		}
	}
	if b := s.bodyOf.Get(e); b != nil {
		return shapeOf(pose, b)
	}
	return cop{pos: phys.Flat(pose.Pos)}
}

// check recalls every unit that has nothing left to chase: its player has
// no stars (or is dead or gone), its car is wrecked or taken by a player,
// or the room has no police. A unit whose car is gone leaves the list (its
// officer with it).
func (s *System) check(w *ecs.World) {
	keep := s.units[:0]
	for _, u := range s.units {
		if !alive(w, u.car) {
			if alive(w, u.officer) && !s.isPlayer(w, u.officer) {
				w.Despawn(u.officer)
			}
			continue
		}
		if !u.recalled && s.shouldRecall(w, &u) {
			s.recall(w, &u)
		}
		keep = append(keep, u)
	}
	s.units = keep
}

func (s *System) shouldRecall(w *ecs.World, u *unit) bool {
	if !w.Rules.Police || !alive(w, u.target) {
		return true
	}
	if _, wt := s.wants.Get(u.target); wt == nil || wt.Stars == 0 {
		return true
	}
	if h := s.health.Get(u.target); h != nil && h.HP == 0 {
		return true
	}
	if f := s.flags.Get(u.car); f != nil && f.Bits&components.FlagWrecked != 0 {
		return true
	}
	st := s.seats.Get(u.car)
	return st.Occupant[0] != u.officer
}

// recall takes the unit off the chase: the Chaser goes (the AI stops
// driving it), the siren goes off.
func (s *System) recall(w *ecs.World, u *unit) {
	u.recalled, u.recallAt = true, w.Tick()
	if s.chaserOf.Get(u.car) != nil {
		s.chaserOf.Remove(u.car)
	}
	if f := s.flags.Get(u.car); f != nil {
		f.Bits &^= components.FlagSiren
	}
}

// dispatch sends police cars after the wanted players, one car each
// SpawnEvery ticks at most for each, out of the free police spawn point
// nearest to the player (or a spawn area's lane point nearer, AreaMin away
// at least: freeSpawn), and recalls a player's cars beyond what their
// stars ask for (the farthest first).
func (s *System) dispatch(w *ecs.World) {
	spawnTick := w.Tick()%SpawnEvery == 0
	clear(s.used)
	clear(s.usedIn)
	s.bodies = s.bodies[:0]
	gathered := false
	for _, t := range s.wanted {
		need := CarsPerStar[min(t.stars, MaxStars)]
		have := s.chasing(t.e)
		for ; have > need; have-- {
			s.recallFarthest(w, t)
		}
		if have >= need || !spawnTick || s.active() >= MaxUnits {
			continue
		}
		if !gathered {
			s.gatherBodies(w)
			gathered = true
		}
		if sp, ok := s.freeSpawn(t.pos); ok {
			s.spawn(w, sp, t.e)
		}
	}
}

func (s *System) chasing(e ecs.Entity) int {
	n := 0
	for _, u := range s.units {
		if !u.recalled && u.target == e {
			n++
		}
	}
	return n
}

func (s *System) active() int {
	_, n := s.Units()
	return n
}

func (s *System) recallFarthest(w *ecs.World, t target) {
	best, bestD := -1, float32(0)
	for i, u := range s.units {
		if u.recalled || u.target != t.e {
			continue
		}
		d := phys.Flat(s.poses.Get(u.car).Pos).Sub(t.pos)
		if d2 := d.Dot(d); best < 0 || d2 > bestD {
			best, bestD = i, d2
		}
	}
	if best >= 0 {
		s.recall(w, &s.units[best])
	}
}

// gatherBodies lists where every body stands, for the spawn points' room.
func (s *System) gatherBodies(w *ecs.World) {
	q := s.shapes.Query(w.Arche)
	if n := q.Count(); cap(s.bodies)-len(s.bodies) < n {
		s.bodies = slices.Grow(s.bodies, 2*n) // twice: the crowd creeps up
	}
	for q.Next() {
		_, pose, _ := q.Get()
		s.bodies = append(s.bodies, phys.Flat(pose.Pos))
	}
}

// freeSpawn returns the police spawn point nearest to p that has
// SpawnClear metres free of bodies and was not used this tick; or, nearer
// still, a lane point of a spawn area not used this tick, on a lane that
// runs toward p (a car coming out there need not turn round), at least
// AreaMin from p, with the room: the nearest one out of sight of p (a
// building between them), else the nearest one. false when there is none. The
// spawn points win a tie, and an area's earlier point.
func (s *System) freeSpawn(p phys.Vec) (spot, bool) {
	best, bestD := spot{point: -1, area: -1}, float32(0)
	for i, si := range s.spawns {
		if s.used[i] {
			continue
		}
		sp := s.level.Spawns[si]
		c := phys.Vec{X: sp.Pos.X, Y: sp.Pos.Y}
		if !s.roomAt(c) {
			continue
		}
		d := c.Sub(p)
		if d2 := d.Dot(d); best.point < 0 || d2 < bestD {
			best, bestD = spot{pos: c, yaw: sp.Yaw, point: i, area: -1}, d2
		}
	}
	found := best.point >= 0
	// The areas' nearest point out of sight, and their nearest point in
	// sight; each only when nearer than the best spawn point.
	hidden, hiddenD, hasHidden := best, bestD, found
	seen, seenD, hasSeen := best, bestD, found
	for a, pts := range s.areas {
		if s.usedIn[a] {
			continue
		}
		for _, ap := range pts {
			d := ap.pos.Sub(p)
			d2 := d.Dot(d)
			if d2 < AreaMin*AreaMin || hasHidden && d2 >= hiddenD && hasSeen && d2 >= seenD || d.Dot(ap.dir) > 0 {
				continue
			}
			sp := spot{pos: ap.pos, yaw: ap.yaw, point: -1, area: a}
			if s.static != nil && !s.static.SegmentClear(p, ap.pos) {
				if (!hasHidden || d2 < hiddenD) && s.roomAt(ap.pos) {
					hidden, hiddenD, hasHidden = sp, d2, true
				}
				continue
			}
			if (!hasSeen || d2 < seenD) && s.roomAt(ap.pos) {
				seen, seenD, hasSeen = sp, d2, true
			}
		}
	}
	switch {
	case hidden.area >= 0:
		return hidden, true
	case seen.area >= 0:
		return seen, true
	}
	return best, found
}

func (s *System) roomAt(c phys.Vec) bool {
	for _, b := range s.bodies {
		d := b.Sub(c)
		if d.Dot(d) < SpawnClear*SpawnClear {
			return false
		}
	}
	return true
}

// spawn brings a police car out at sp after the player e.
func (s *System) spawn(w *ecs.World, sp spot, e ecs.Entity) {
	pos := components.Vec3{X: sp.pos.X, Y: sp.pos.Y, Z: s.level.Ground.Height}
	car, officer, err := s.build.PoliceCar(pos, sp.yaw, e, w.Tick())
	if err != nil {
		return // no wire id left: try again later
	}
	if sp.point >= 0 {
		s.used[sp.point] = true
	} else {
		s.usedIn[sp.area] = true
	}
	s.bodies = append(s.bodies, phys.Flat(pos))
	u := unit{car: car, officer: officer, target: e, wid: s.ids.Get(car).WireID, since: w.Tick(),
		closest: sp.pos.Sub(phys.Flat(s.poses.Get(e).Pos)).Len()}
	at, _ := slices.BinarySearchFunc(s.units, u.wid, func(x unit, wid uint16) int { return int(x.wid) - int(wid) })
	s.units = slices.Insert(s.units, at, u)
}

// takeAway takes every recalled unit out of the world once no player sees
// it (none within RecallSight with a clear line), or RecallTicks after its
// recall: the officer always, the car unless a player sits in it (a player
// who took a police car keeps it).
func (s *System) takeAway(w *ecs.World) {
	tick := w.Tick()
	keep := s.units[:0]
	for _, u := range s.units {
		if !u.recalled {
			keep = append(keep, u)
			continue
		}
		late := tick-u.recallAt >= RecallTicks
		if !late && ((tick+uint64(u.wid))%SightEvery != 0 || s.inSight(u.car)) {
			keep = append(keep, u)
			continue
		}
		st := s.seats.Get(u.car)
		if alive(w, u.officer) {
			if sd := s.seated.Get(u.officer); sd != nil && sd.Vehicle == u.car && st.Occupant[sd.Seat] == u.officer {
				st.Occupant[sd.Seat] = ecs.Entity{}
			}
			w.Despawn(u.officer)
		}
		taken := false
		for i := range st.Count {
			if s.isPlayer(w, st.Occupant[i]) {
				taken = true
			}
		}
		if !taken {
			w.Despawn(u.car)
		}
	}
	s.units = keep
}

// inSight reports whether a player sees e.
func (s *System) inSight(e ecs.Entity) bool {
	p := phys.Flat(s.poses.Get(e).Pos)
	for _, pl := range s.players {
		d := pl.Sub(p)
		if d.Dot(d) > RecallSight*RecallSight {
			continue
		}
		if s.static == nil || s.static.SegmentClear(pl, p) {
			return true
		}
	}
	return false
}

func (s *System) isPlayer(w *ecs.World, e ecs.Entity) bool {
	return alive(w, e) && s.playerOf.Get(e) != nil
}

func alive(w *ecs.World, e ecs.Entity) bool { return !e.IsZero() && w.Arche.Alive(e) }

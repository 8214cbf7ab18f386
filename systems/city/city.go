// Package city is the system of the city's rules for the players:
//
//   - Where a joining player comes in: PlayerSpawn picks a free player
//     spawn point of the level (the server calls it).
//   - Death and respawn: a player at 0 health comes back RespawnTicks
//     later where the game's rules say (ecs.Rules.Respawn): "hospital", at
//     the hospital spawn point nearest to where they died (a player spawn
//     when the level has no hospital), "spawn", at a player spawn point;
//     "" leaves them dead. RespawnAt, when set, may name another place
//     (a co-op run's checkpoint). The player's components.Death says when
//     (Back; a death the damage system did not see, a debug command's or
//     a mission's, gets DeathUnknown). They come back on foot, out of any vehicle, with
//     full health, and a ghost for ecs.Rules.GhostSeconds: components.Ghost
//     and FlagGhost (no damage: the damage system asks), and their Body on
//     LayerGhost colliding only with the world's props (gates) and
//     buildings, not with players or cars, until it runs out.
//   - Restricted zones: a player entering one (on foot or in a car)
//     commits a CrimeRestricted, which the police turn into Heat; in a
//     watched zone (guards or cameras in it: zones.Watched) only when they
//     see it, which the stealth system files.
//   - Safe zones are the zones package's: the damage system asks it.
//   - The room clock: ecs.New sets it from the rules (free roam: noon, an
//     hour a minute); it is a pure function of the tick. ResetClock sets it
//     again from the rules (a level reset, or rules changed after the world
//     was made); a mission or a debug command sets it with Clock.SetNow.
//     The server sends it when Clock.Revision changes.
//
// It runs in the post-step phase after the damage system, so a death of
// this tick is seen this tick and a respawned player is sent where they
// came back.
package city

import (
	"slices"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/nav"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems/city/zones"
	"github.com/mlange-42/arche/generic"
)

// Name is the system's name in the schedule.
const Name = "city"

// The rules' respawn places (ecs.Rules.Respawn).
const (
	RespawnHospital = "hospital"
	RespawnSpawn    = "spawn"
)

// Tuning of the city.
const (
	// RespawnTicks is how long a dead player lies before coming back:
	// five seconds, long enough to see what happened.
	RespawnTicks = 5 * ecs.TickRate
	// SpawnClear (m) is the room a joining player's spawn point needs free
	// of any other body's centre: a car's half length and a little.
	SpawnClear = 3.5
	// SpawnRowGap (m) and SpawnRows: when every player spawn point is
	// taken, the spots behind each one (along its heading) are tried, a
	// car's length and a gap apart, SpawnRows deep.
	SpawnRowGap = 7
	SpawnRows   = 8
	// carRadius (m) keeps a joining player's car clear of the buildings.
	carRadius = 1.2
	// PersonGap (m) is the room a respawning player needs from another
	// body's centre; HospitalSpread (m) is the step sideways to the next
	// spot when it is taken.
	PersonGap      = 0.8
	HospitalSpread = 1.2
)

// GhostMask is the collision mask of a ghost: the world's props (gates)
// only; buildings always collide.
const GhostMask = components.LayerProp

// System is the city system. Make it with New.
type System struct {
	// RespawnAt, if set, says where dead player e comes back instead of
	// the rules' place: false leaves it to the rules. The server's run
	// rooms bring a co-op crew back at its last checkpoint. It is called
	// in Update, for each player who comes back.
	RespawnAt func(e ecs.Entity) (levels.Spawn, bool)

	level  *levels.Level
	static *phys.Static
	zones  *zones.Zones
	walker components.Body

	state    []pstate           // by entity index
	overflow []levels.LanePoint // where players come in once the spawns' rows are full
	respawns []respawn
	expired  []ecs.Entity
	bodies   nav.Points // where the bodies are this tick, and the spots given

	chars   *generic.Filter5[components.Player, components.Identity, components.Pose, components.Health, components.PersonAction]
	ghosts  *generic.Filter3[components.Ghost, components.Flags, components.Body]
	shapes  *generic.Filter2[components.Pose, components.Body]
	person  generic.Map8[components.Pose, components.Velocity, components.Drive, components.Health, components.Flags, components.Body, components.PersonAction, components.SeatedIn]
	seats   generic.Map1[components.Seats]
	ghostOf generic.Map1[components.Ghost]
	deaths  generic.Map1[components.Death]
}

// pstate is what the city keeps of a player between ticks.
type pstate struct {
	e      ecs.Entity
	zone   int16 // the restricted zone the player was in, -1
	dead   bool
	deadAt uint64
}

type respawn struct {
	e   ecs.Entity
	wid uint16
}

// busyList is the room the system's per-tick lists are made with: more than
// a busy city tick holds.
const busyList = 64

// busyBodies is the room made once for the points of the bodies: more than
// a city room holds (about 500).
const busyBodies = 1024

// New returns the city system of w on level l; static is the level's
// geometry (nil: no buildings), z the level's zones (zones.New).
func New(w *ecs.World, l *levels.Level, static *phys.Static, z *zones.Zones) *System {
	s := &System{
		level:   l,
		static:  static,
		zones:   z,
		walker:  phys.DefaultWalker.Body(),
		chars:   generic.NewFilter5[components.Player, components.Identity, components.Pose, components.Health, components.PersonAction](),
		ghosts:  generic.NewFilter3[components.Ghost, components.Flags, components.Body](),
		shapes:  generic.NewFilter2[components.Pose, components.Body](),
		person:  generic.NewMap8[components.Pose, components.Velocity, components.Drive, components.Health, components.Flags, components.Body, components.PersonAction, components.SeatedIn](w.Arche),
		seats:   generic.NewMap1[components.Seats](w.Arche),
		ghostOf: generic.NewMap1[components.Ghost](w.Arche),
		deaths:  generic.NewMap1[components.Death](w.Arche),
	}
	s.chars.Register(w.Arche)
	s.ghosts.Register(w.Arche)
	s.shapes.Register(w.Arche)
	// Room made once for a busy tick's lists, which are kept: in play
	// they grow only past these, not at each new high.
	s.respawns = make([]respawn, 0, busyList)
	for range busyBodies { // room for a busy city's bodies' points
		s.bodies.Add(phys.Vec{})
	}
	s.bodies.Invalidate()
	s.expired = make([]ecs.Entity, 0, busyList)
	if l != nil {
		g := l.Ground
		s.overflow = l.LanePointsIn([]levels.Vec2{g.Min, {X: g.Max.X, Y: g.Min.Y}, g.Max, {X: g.Min.X, Y: g.Max.Y}}, OverflowStep, OverflowEnd)
	}
	return s
}

// OverflowStep and OverflowEnd (m) space the spots a crowded room's
// players come in at once the player spawns' rows are full: along the
// traffic lanes, a car's length and a gap apart, clear of the crossings.
const (
	OverflowStep = 9
	OverflowEnd  = 12
)

// ResetClock sets the room clock from the rules: ClockStart at ClockPace,
// from this tick.
func ResetClock(w *ecs.World) { w.Clock.SetNow(w.Rules.ClockStart, w.Rules.ClockPace) }

// Update runs the city's rules for one tick.
func (s *System) Update(w *ecs.World) {
	tick := w.Tick()
	s.respawns = s.respawns[:0]
	back := w.Rules.Respawn == RespawnHospital || w.Rules.Respawn == RespawnSpawn
	q := s.chars.Query(w.Arche)
	for q.Next() {
		_, id, pose, hp, _ := q.Get()
		e := q.Entity()
		st, fresh := s.stateOf(e)
		if hp.HP == 0 {
			if !st.dead {
				st.dead, st.deadAt = true, tick
				s.died(e, tick, back)
			}
			if back && tick-st.deadAt >= RespawnTicks {
				s.respawns = append(s.respawns, respawn{e, id.WireID})
			}
			continue
		}
		st.dead = false
		z := int16(s.zones.Restricted(pose.Pos))
		if z >= 0 && z != st.zone && !fresh && !s.zones.Watched(int(z)) {
			w.Crimes = append(w.Crimes, components.Crime{Kind: components.CrimeRestricted, Offender: e, Pos: pose.Pos})
		}
		st.zone = z
	}
	slices.SortFunc(s.respawns, func(a, b respawn) int { return int(a.wid) - int(b.wid) })
	for _, r := range s.respawns {
		s.respawn(w, r.e)
	}
	s.expireGhosts(w)
}

// died writes on the Death of player e, who died this tick, when they
// come back (back: the rules bring them back); a death the damage system
// did not record this tick has no known cause.
func (s *System) died(e ecs.Entity, tick uint64, back bool) {
	d := s.deaths.Get(e)
	if d == nil {
		return
	}
	if d.Tick != tick {
		*d = components.Death{Tick: tick}
	}
	d.Back = 0
	if back {
		d.Back = tick + RespawnTicks
	}
}

// stateOf returns e's state, new (and fresh) when e was not seen before.
func (s *System) stateOf(e ecs.Entity) (*pstate, bool) {
	i := int(e.ID())
	if i >= len(s.state) {
		if i >= cap(s.state) {
			// Twice the index: entity indices creep up to new highs
			// now and then, and each would otherwise allocate.
			s.state = slices.Grow(s.state, 2*(i+1)-len(s.state))
		}
		s.state = s.state[:i+1] // never written past its length: zeros
	}
	st := &s.state[i]
	if st.e == e {
		return st, false
	}
	*st = pstate{e: e, zone: -1}
	return st, true
}

// respawn brings the dead player e back where the rules say.
func (s *System) respawn(w *ecs.World, e ecs.Entity) {
	pose, vel, drive, hp, fl, body, act, sd := s.person.Get(e)
	var at phys.Vec
	var yaw float32
	if sp, ok := s.respawnAt(e); ok {
		at, yaw = s.personSpot(w, sp)
	} else if sp, ok := s.level.NearestSpawn(levels.RoleHospital, levels.Vec2{X: pose.Pos.X, Y: pose.Pos.Y}); ok && w.Rules.Respawn == RespawnHospital {
		at, yaw = s.personSpot(w, sp)
	} else {
		p, y, _ := s.spawnSpot(w, uint16(e.ID()))
		at, yaw = phys.Flat(p), y
	}
	if !sd.Vehicle.IsZero() && w.Arche.Alive(sd.Vehicle) {
		if st := s.seats.Get(sd.Vehicle); st != nil && int(sd.Seat) < len(st.Occupant) && st.Occupant[sd.Seat] == e {
			st.Occupant[sd.Seat] = ecs.Entity{}
		}
	}
	*sd = components.SeatedIn{}
	*pose = components.Pose{Pos: components.Vec3{X: at.X, Y: at.Y, Z: s.level.Ground.Height}, Rot: components.YawQuat(yaw)}
	*vel = components.Velocity{}
	*drive = components.Drive{LookYaw: yaw}
	*act = components.PersonAction{Act: components.ActOnFoot, AimYaw: yaw}
	hp.HP = hp.Max
	s.bodies.Add(at)
	ticks := uint64(math32.Ceil(max(w.Rules.GhostSeconds, 0) * ecs.TickRate))
	if ticks == 0 {
		return
	}
	fl.Bits |= components.FlagGhost
	body.Layer, body.Mask = components.LayerGhost, GhostMask
	g := components.Ghost{Until: w.Tick() + ticks}
	if old := s.ghostOf.Get(e); old != nil {
		*old = g
		return
	}
	s.ghostOf.Assign(e, &g)
}

// respawnAt asks RespawnAt, if set, where e comes back.
func (s *System) respawnAt(e ecs.Entity) (levels.Spawn, bool) {
	if s.RespawnAt == nil {
		return levels.Spawn{}, false
	}
	return s.RespawnAt(e)
}

// personSpot returns a spot on foot at spawn point sp: the point itself,
// else the nearest free spot sideways along its front, clear of buildings
// and of other bodies.
func (s *System) personSpot(w *ecs.World, sp levels.Spawn) (phys.Vec, float32) {
	c := phys.Vec{X: sp.Pos.X, Y: sp.Pos.Y}
	sn, co := math32.Sincos(sp.Yaw)
	right := phys.Vec{X: sn, Y: -co}
	r := s.walker.Radius
	for k := 0; k < 16; k++ {
		off := float32((k+1)/2) * HospitalSpread
		if k%2 == 1 {
			off = -off
		}
		p := c.Add(right.Scale(off))
		if (s.static == nil || !s.static.Overlaps(p, r)) && s.room(w, p, PersonGap) {
			return p, sp.Yaw
		}
	}
	if s.static != nil {
		if p, ok := s.static.ClosestFree(c, r, 10); ok {
			return p, sp.Yaw
		}
	}
	return c, sp.Yaw
}

// PlayerSpawn returns where joining player number player (1-based) comes
// in, at the wheel of their car, and its heading: the first free player
// spawn point counting from the player's own (player-1 modulo the count),
// then the spots behind each, a row at a time, then (a crowded room) the
// spots along the traffic lanes (OverflowStep apart). A spot is free when no
// body's centre lies within SpawnClear and a car fits clear of the
// buildings. false (with the player's own spawn point) when the level has
// none or every spot is taken. The same world and player give the same
// answer.
func (s *System) PlayerSpawn(w *ecs.World, player uint16) (components.Vec3, float32, bool) {
	s.bodies.Invalidate() // the server moves things between ticks
	return s.spawnSpot(w, player)
}

func (s *System) spawnSpot(w *ecs.World, player uint16) (components.Vec3, float32, bool) {
	z := s.level.Ground.Height
	spawns := s.level.SpawnsOf(levels.RolePlayer)
	if len(spawns) == 0 {
		return components.Vec3{Z: z}, 0, false
	}
	first := (int(player) + len(spawns) - 1) % len(spawns)
	for row := 0; row <= SpawnRows; row++ {
		for k := range spawns {
			sp := s.level.Spawns[spawns[(first+k)%len(spawns)]]
			sn, co := math32.Sincos(sp.Yaw)
			back := float32(row) * SpawnRowGap
			p := phys.Vec{X: sp.Pos.X - co*back, Y: sp.Pos.Y - sn*back}
			if (s.static == nil || !s.static.Overlaps(p, carRadius)) && s.room(w, p, SpawnClear) {
				return components.Vec3{X: p.X, Y: p.Y, Z: z}, sp.Yaw, true
			}
		}
	}
	// Every row full (a room of hundreds): the lanes' spots, from one that
	// depends on the player, so that joins spread over the city.
	if n := len(s.overflow); n > 0 {
		start := int(player) * 7919 % n // a prime stride: neighbours land apart
		for k := range n {
			lp := s.overflow[(start+k)%n]
			p := phys.Vec{X: lp.Pos.X, Y: lp.Pos.Y}
			if (s.static == nil || !s.static.Overlaps(p, carRadius)) && s.room(w, p, SpawnClear) {
				return components.Vec3{X: p.X, Y: p.Y, Z: z}, math32.Atan2(lp.Dir.Y, lp.Dir.X), true
			}
		}
	}
	sp := s.level.Spawns[spawns[first]]
	return components.Vec3{X: sp.Pos.X, Y: sp.Pos.Y, Z: z}, sp.Yaw, false
}

// TeamSpread (m) is how far apart a team's players start beside their
// place: a car's width and a gap. TeamSpots bounds the spots tried, to
// either side in turn.
const (
	TeamSpread = 3
	TeamSpots  = 16
)

// SpotNear returns the first free spot for a car at place at, facing yaw:
// the place itself, then TeamSpread to its right, to its left, twice that
// to its right, and so on (the side across its heading), TeamSpots in all.
// A spot is free when no body's centre lies within TeamSpread of it and a
// car fits clear of the buildings. false (with the place) when none is.
func (s *System) SpotNear(w *ecs.World, at levels.Vec2, yaw float32) (components.Vec3, bool) {
	s.bodies.Invalidate() // the server moves things between ticks
	z := s.level.Ground.Height
	sn, co := math32.Sincos(yaw)
	for k := range TeamSpots {
		off := float32((k+1)/2) * TeamSpread
		if k%2 == 1 {
			off = -off // right of the heading first: (sin, -cos)
		}
		p := phys.Vec{X: at.X - sn*off, Y: at.Y + co*off}
		if (s.static == nil || !s.static.Overlaps(p, carRadius)) && s.room(w, p, TeamSpread) {
			return components.Vec3{X: p.X, Y: p.Y, Z: z}, true
		}
	}
	return components.Vec3{X: at.X, Y: at.Y, Z: z}, false
}

// room reports whether no body's centre lies within r of p (the bodies are
// gathered once a tick, and the spots given this tick added).
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

// expireGhosts ends every ghost whose time is up: the body collides with
// everything again and the Ghost goes.
func (s *System) expireGhosts(w *ecs.World) {
	tick := w.Tick()
	s.expired = s.expired[:0]
	q := s.ghosts.Query(w.Arche)
	for q.Next() {
		g, fl, body := q.Get()
		if g.Until > tick {
			continue
		}
		fl.Bits &^= components.FlagGhost
		if body.Layer == components.LayerGhost {
			layer, mask := components.LayerPerson, s.walker.Mask
			if body.Shape == components.ShapeBox {
				layer, mask = components.LayerVehicle, 0xFFFF
			}
			body.Layer, body.Mask = layer, mask
		}
		s.expired = append(s.expired, q.Entity())
	}
	for _, e := range s.expired {
		s.ghostOf.Remove(e)
	}
}

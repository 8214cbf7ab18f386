// Package ai is the AI world beside the simulation: every tick, before the
// physics step, it writes the inputs (the Drive components) of the NPCs it
// runs, and never moves an entity itself: the physics does.
//
// It runs three things:
//
//   - Ambient traffic. It keeps the room's traffic count of cars (the
//     rules' Traffic, else the level's, else DefaultTrafficMain on a main-*
//     level and none on a test-* one), less the guards' cars a mission
//     sent after a player, so that a mission's chase costs the tick no
//     more cars than the room's budget. It brings them out of the level's
//     traffic spawn points and traffic spawn areas (levels.SpawnArea: an
//     area's lane point nearest to the players, at the spawn distance)
//     (or, when every one in reach is taken or the level has none, points
//     along the traffic's lanes) near the players
//     (anywhere while there are none) but out of every player's
//     sight, drives them along the lanes of the road graph (a lookahead
//     point on the lane and the next, the next chosen at each node from the
//     world's random source), keeps them behind what is in their way
//     (cars, people, players), within the speed limits and slow through the
//     turns, takes them through the crossings by the traffic signals
//     (stopping at amber and red: the components.Signals resource the
//     signals system writes) and the junction rules of junction.go, and
//     takes them away far from every player, unseen. The count is the
//     room's, shared by its players (share.go): a player with under three
//     quarters of their fair part round them gets the new cars, and the
//     cars of one over their part make room for them, unseen. A car
//     whose driver is no longer its NPC (carjacked) is released: it becomes
//     an ordinary car, and its driver, on foot, a pedestrian (the
//     pedestrian system makes them flee). A spawner's driver (RoleDriver)
//     is driven the same way, but neither counted nor taken away.
//   - The crowd. It keeps the room's pedestrians count around the players:
//     new ones on the pavements near a player (drawn at random) but out of
//     sight, with a role (walker, jogger, idler); those far from every
//     player, unseen, are taken off; the count is shared by the players
//     as the traffic's is. The pedestrian system
//     (systems/pedestrians) walks them.
//   - Chasers. Every vehicle with a components.Chaser (the police give it)
//     is driven after its Target: along the road graph's shortest way
//     (nav.Field) while far, straight at it when close with a clear way,
//     round buildings by probing ahead, past slower vehicles on the left,
//     ramming a moving target and boxing a standing one in. Chaser.Sees says
//     whether it has the target in sight, for the police. An officer on foot
//     with a Chaser walks (runs) to the target; so does an alert guard (the
//     stealth system sets its Chaser's target), which stops and fires at a
//     target it sees within FireRange. An NPC's vehicle the AI has no job
//     for (a police car taken off its chase) is braked to a stop.
//
// The AI keeps its state in the world: the NPC components, and a Route on
// every vehicle it drives (a component of this package, plain data). It
// goes through the vehicles and people by wire id wherever the random
// source is drawn or entities come and go, so a replay draws the same
// numbers and gives the same wire ids, and it allocates nothing per tick
// once its buffers have grown, unless it spawns. In a room of many players
// it files them on a grid each tick, so that finding the player nearest
// to a car or a pedestrian reads the players round it, not every one
// (near.go). Readout gives the debug readout (the counts and every
// chaser's state).
package ai

import (
	"slices"
	"strings"

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
const Name = "ai"

// The counts kept when neither the room's rules nor the level say: a few
// dozen cars and a crowd on a main-* level, nothing on any other (test-*).
const (
	DefaultTrafficMain     = 40
	DefaultPedestriansMain = 60
)

// PedModels is the number of person models (skins) the AI chooses from.
const PedModels = 8

// trafficModels are the car models of the ambient traffic, sedans twice as
// often as the rest.
var trafficModels = [...]uint8{phys.ModelCompact, phys.ModelSedan, phys.ModelSedan, phys.ModelSports, phys.ModelVan, phys.ModelTruck}

// BodyCell is the side (m) of the cells the bodies are filed under each
// tick: a car scanning the road ahead looks at a few.
const BodyCell = 16

// Tuning holds the AI's distances and rates. DefaultTuning gives the
// game's; tests on small levels shrink the distances.
type Tuning struct {
	// SightRange (m) is how far a player can see anything: beyond it
	// nothing is sent to them (netsync's AOI leave radius, 275 m), nearer
	// it the buildings decide (a line of sight along the ground).
	SightRange float32
	// TrafficSpawnMin and TrafficSpawnMax (m): a car comes out of a spawn
	// point at least Min from every player and within Max of one (so it
	// comes where the players are); TrafficDespawn: a car farther than it
	// from every player, and seen by none, is taken away. Max is well under
	// TrafficDespawn so a new car is not taken away at once.
	TrafficSpawnMin, TrafficSpawnMax, TrafficDespawn float32
	// PedSpawnMin, PedSpawnMax, PedDespawn and PedSight are the crowd's:
	// pedestrians come nearer and go sooner; PedSight is how far a player
	// makes out a pedestrian.
	PedSpawnMin, PedSpawnMax, PedDespawn, PedSight float32
	// CarsPerTick and PedsPerTick cap the spawns of one tick, so a room
	// fills over a second or so instead of in one long tick.
	CarsPerTick, PedsPerTick int
	// CheckEvery is how often (ticks) each NPC is checked for being taken
	// away, spread over the ticks by wire id: a quarter of a second.
	CheckEvery uint64
	// WaitDespawn is how long (ticks) a car may stand blocked before it is
	// taken away when no player sees it: a minute.
	WaitDespawn uint32
	// ChaseSight (m) is how far a chaser sees its target (with a clear
	// line); DirectRange (m) is how near it must be, with a clear way, to
	// leave the roads and go straight at it.
	ChaseSight, DirectRange float32
	// FieldEvery is how often (ticks) a target's road distances are solved
	// again: half a second, or sooner when the target moved FieldMove m.
	FieldEvery uint64
	FieldMove  float32
}

// DefaultTuning returns the game's tuning.
func DefaultTuning() Tuning {
	return Tuning{
		SightRange:      275,
		TrafficSpawnMin: 60, TrafficSpawnMax: 240, TrafficDespawn: 300,
		PedSpawnMin: 35, PedSpawnMax: 110, PedDespawn: 140, PedSight: 160,
		CarsPerTick: 1, PedsPerTick: 2,
		CheckEvery:  15,
		WaitDespawn: 60 * ecs.TickRate,
		ChaseSight:  120, DirectRange: 60,
		FieldEvery: 30, FieldMove: 15,
	}
}

// System is the AI system. Make it with New.
type System struct {
	// Tuning is the AI's distances and rates; change it before the first
	// Update.
	Tuning Tuning

	nav    *nav.Map
	static *phys.Static
	level  *levels.Level
	build  *prefab.Builder

	playerQ  *generic.Filter2[components.Identity, components.Pose]
	vehicleQ *generic.Filter6[components.Kind, components.Identity, components.Pose, components.Velocity, components.Body, components.Seats]
	personQ  *generic.Filter6[components.Kind, components.Identity, components.Pose, components.Velocity, components.Body, components.SeatedIn]
	trafficQ *generic.Filter3[components.NPC, components.Identity, components.Seats]
	chaserQ  *generic.Filter3[components.Chaser, components.Identity, components.Seats]
	officerQ *generic.Filter3[components.Chaser, components.Identity, components.SeatedIn]
	crowdQ   *generic.Filter5[components.NPC, components.Identity, components.Pose, components.SeatedIn, components.Health]

	npc      generic.Map1[components.NPC]
	routeOf  generic.Map1[Route]
	drives   generic.Map1[components.Drive]
	poses    generic.Map2[components.Pose, components.Velocity]
	kinds    generic.Map2[components.Kind, components.Identity]
	bodyOf   generic.Map1[components.Body]
	seats    generic.Map1[components.Seats]
	seated   generic.Map1[components.SeatedIn]
	actions  generic.Map1[components.PersonAction]
	health   generic.Map1[components.Health]
	chaserOf generic.Map1[components.Chaser]
	signals  generic.Resource[components.Signals]

	// lights is this tick's light at the end of each lane (the signals
	// system's resource), nil in a world without one.
	lights   []components.Light
	sentryOf generic.Map[components.Sentry]

	players       []player
	bodies        []body
	pts           []nav.Vec
	grid          *nav.Grid
	pgrid         playerGrid
	few           int     // fewPlayers; LoopPlayers, in a test, raises it
	byWire        []int32 // wire id -> body index this tick, -1 none
	cars          []car
	chasers       []chaser
	fields        []field
	gone          []victim // to take away at the end of the tick
	release       []ecs.Entity
	routes        []routeAdd
	wids          []int32   // scratch: wire ids, spawn point indices
	spawned       []nav.Vec // where things came into the world this tick
	trafficSpawns []spawnPoint
	// areaSpawns are the lane points of the level's traffic spawn areas,
	// area after area: area k's are areaSpawns[areaEnds[k-1]:areaEnds[k]].
	areaSpawns []spawnPoint
	areaEnds   []int

	traffic, crowd         int // counted this tick, after what was taken away
	trafficWant, crowdWant int
	// guardCars are the guards' chaser cars a mission sent, counted by
	// driveChasers: the ambient traffic gives them room in its count, so
	// that a room's cars stay within what its rules budget.
	guardCars int
	// pops share the traffic's and the crowd's budgets among the
	// players this tick (share.go).
	pops    [popCount]pop
	readout Readout
}

// player is a player's character this tick, and the ambient cars and
// pedestrians that count for them (share.go).
type player struct {
	e     ecs.Entity
	wid   uint16
	pos   nav.Vec
	n     [popCount]int32
	lacks [popCount]bool
}

// body is one body of this tick (a vehicle, or a person on foot), for the
// neighbour queries.
type body struct {
	e      ecs.Entity
	wid    uint16
	kind   components.Kind
	pos    nav.Vec
	vel    nav.Vec
	fwd    nav.Vec // unit heading
	hx, hy float32 // half extents along and across the heading (a person's radius twice)
	car    int32   // index in System.cars, -1
}

// victim is an entity to take away.
type victim struct {
	e   ecs.Entity
	wid uint16
}

// routeAdd is a Route to give a vehicle that has none.
type routeAdd struct {
	e ecs.Entity
	r Route
}

// spawnPoint is a traffic spawn point and the lane it stands on.
type spawnPoint struct {
	pos  nav.Vec
	yaw  float32
	lane int32
}

// busyList is the room the system's per-tick lists are made with: more than
// a busy city tick holds.
const busyList = 64

// busyBodies is the room made once for the crowd's points: more than a city
// room's bodies (about 500).
const busyBodies = 1024

// New returns the AI system of w on level l (nil: no level, no traffic or
// crowd) with static its baked geometry (nil: no buildings).
func New(w *ecs.World, l *levels.Level, static *phys.Static) *System {
	return NewWithMap(w, nav.New(l), static)
}

// NewWithMap returns the AI system of w on a navigation map already built
// (nav.New of the room's level: one map serves every room, and the
// pedestrian system, on a level).
func NewWithMap(w *ecs.World, m *nav.Map, static *phys.Static) *System {
	l := m.Level
	s := &System{
		Tuning:   DefaultTuning(),
		nav:      m,
		static:   static,
		level:    l,
		build:    prefab.New(w),
		playerQ:  generic.NewFilter2[components.Identity, components.Pose]().With(generic.T[components.Player]()),
		vehicleQ: generic.NewFilter6[components.Kind, components.Identity, components.Pose, components.Velocity, components.Body, components.Seats](),
		personQ:  generic.NewFilter6[components.Kind, components.Identity, components.Pose, components.Velocity, components.Body, components.SeatedIn](),
		trafficQ: generic.NewFilter3[components.NPC, components.Identity, components.Seats](),
		chaserQ:  generic.NewFilter3[components.Chaser, components.Identity, components.Seats](),
		officerQ: generic.NewFilter3[components.Chaser, components.Identity, components.SeatedIn]().Without(generic.T[components.Player]()),
		crowdQ:   generic.NewFilter5[components.NPC, components.Identity, components.Pose, components.SeatedIn, components.Health](),
		npc:      generic.NewMap1[components.NPC](w.Arche),
		routeOf:  generic.NewMap1[Route](w.Arche),
		drives:   generic.NewMap1[components.Drive](w.Arche),
		poses:    generic.NewMap2[components.Pose, components.Velocity](w.Arche),
		kinds:    generic.NewMap2[components.Kind, components.Identity](w.Arche),
		bodyOf:   generic.NewMap1[components.Body](w.Arche),
		seats:    generic.NewMap1[components.Seats](w.Arche),
		seated:   generic.NewMap1[components.SeatedIn](w.Arche),
		actions:  generic.NewMap1[components.PersonAction](w.Arche),
		health:   generic.NewMap1[components.Health](w.Arche),
		chaserOf: generic.NewMap1[components.Chaser](w.Arche),
		signals:  generic.NewResource[components.Signals](w.Arche),
		sentryOf: generic.NewMap[components.Sentry](w.Arche),
		grid:     nav.NewGrid(m.Bounds(), BodyCell),
		pgrid:    newPlayerGrid(m.Bounds()),
		few:      fewPlayers,
		byWire:   make([]int32, ecs.MaxWireIDs+1),
	}
	s.playerQ.Register(w.Arche)
	s.vehicleQ.Register(w.Arche)
	s.personQ.Register(w.Arche)
	s.trafficQ.Register(w.Arche)
	s.chaserQ.Register(w.Arche)
	s.officerQ.Register(w.Arche)
	s.crowdQ.Register(w.Arche)
	// Room made once for a busy tick's lists, which are kept: in play
	// they grow only past these, not at each new high.
	s.chasers = make([]chaser, 0, busyList)
	s.readout.Chasers = make([]ChaserState, 0, busyList)
	s.gone = make([]victim, 0, busyList)
	s.release = make([]ecs.Entity, 0, busyList)
	s.routes = make([]routeAdd, 0, busyList)
	s.warmFields()
	// The crowd's grid built once on a busy city's worth of points (at
	// the origin), then on none: its room is made, and the tick's Build
	// grows it only past them.
	s.pts = make([]nav.Vec, busyBodies)
	s.grid.Build(s.pts)
	s.pts = s.pts[:0]
	s.grid.Build(s.pts)
	for i := range s.byWire {
		s.byWire[i] = -1
	}
	if l != nil {
		for _, i := range l.SpawnsOf(levels.RoleTraffic) {
			sp := l.Spawns[i]
			pos := nav.Vec{X: sp.Pos.X, Y: sp.Pos.Y}
			si, co := math32.Sincos(sp.Yaw)
			if lane, _ := s.nav.NearestLane(pos, nav.Vec{X: co, Y: si}, 6, 40, true); lane >= 0 {
				s.trafficSpawns = append(s.trafficSpawns, spawnPoint{pos: pos, yaw: sp.Yaw, lane: lane})
			}
		}
		for _, a := range l.SpawnAreas {
			if a.Role != levels.RoleTraffic {
				continue
			}
			for _, lp := range l.LanePointsIn(a.Polygon, AreaStep, laneEnd) {
				s.areaSpawns = append(s.areaSpawns, spawnPoint{pos: nav.Vec{X: lp.Pos.X, Y: lp.Pos.Y},
					yaw: math32.Atan2(lp.Dir.Y, lp.Dir.X), lane: int32(lp.Lane)})
			}
			s.areaEnds = append(s.areaEnds, len(s.areaSpawns))
		}
	}
	return s
}

// Nav returns the navigation map the system drives on.
func (s *System) Nav() *nav.Map { return s.nav }

// TrafficWant returns the ambient cars a room playing rules on level l
// keeps: the rules' Traffic, else the level's, else DefaultTrafficMain on a
// main-* level and none on any other.
func TrafficWant(rules *ecs.Rules, l *levels.Level) int {
	return want(rules.Traffic, l, func(r levels.Rules) *int { return r.Traffic }, DefaultTrafficMain)
}

// PedestriansWant returns the pedestrians a room playing rules on level l
// keeps around the players: the rules' Pedestrians, else the level's, else
// DefaultPedestriansMain on a main-* level and none on any other.
func PedestriansWant(rules *ecs.Rules, l *levels.Level) int {
	return want(rules.Pedestrians, l, func(r levels.Rules) *int { return r.Pedestrians }, DefaultPedestriansMain)
}

func want(room int, l *levels.Level, field func(levels.Rules) *int, mainDefault int) int {
	switch {
	case room >= 0:
		return room
	case l == nil:
		return 0
	case field(l.Rules) != nil:
		return max(*field(l.Rules), 0)
	case strings.HasPrefix(l.Name, "main-"):
		return mainDefault
	}
	return 0
}

// Update runs the AI for one tick.
func (s *System) Update(w *ecs.World) {
	s.trafficWant = TrafficWant(&w.Rules, s.level)
	s.crowdWant = PedestriansWant(&w.Rules, s.level)
	s.lights = nil
	if s.signals.Has() {
		s.lights = s.signals.Get().Lanes
	}
	s.gather(w)
	s.driveTraffic(w)
	s.driveChasers(w)
	s.walkOfficers(w)
	s.countCrowd(w)
	s.applyChanges(w)
	s.spawnTraffic(w)
	s.spawnCrowd(w)
	s.fillReadout(w)
	for i := range s.bodies {
		s.byWire[s.bodies[i].wid] = -1
	}
}

// gather lists the players and the bodies of this tick and files them in
// their grids: the players only from fewPlayers on (near.go).
func (s *System) gather(w *ecs.World) {
	s.players = s.players[:0]
	pq := s.playerQ.Query(w.Arche)
	for pq.Next() {
		id, pose := pq.Get()
		s.players = append(s.players, player{e: pq.Entity(), wid: id.WireID, pos: phys.Flat(pose.Pos)})
	}
	slices.SortFunc(s.players, func(a, b player) int { return int(a.wid) - int(b.wid) })
	if len(s.players) >= s.few {
		s.pgrid.file(s.players)
	}

	s.bodies = s.bodies[:0]
	vq := s.vehicleQ.Query(w.Arche)
	for vq.Next() {
		kind, id, pose, vel, b, _ := vq.Get()
		if b.Mask == 0 {
			continue // collides with nothing: an open gate
		}
		s.addBody(vq.Entity(), *kind, id, pose, vel, b.HalfX, b.HalfY)
	}
	bq := s.personQ.Query(w.Arche)
	for bq.Next() {
		kind, id, pose, vel, b, in := bq.Get()
		if !in.Vehicle.IsZero() {
			continue // a seated person rides their vehicle and is no body
		}
		s.addBody(bq.Entity(), *kind, id, pose, vel, b.Radius, b.Radius)
	}
	s.pts = s.pts[:0]
	for i := range s.bodies {
		s.pts = append(s.pts, s.bodies[i].pos)
	}
	s.grid.Build(s.pts)
}

func (s *System) addBody(e ecs.Entity, kind components.Kind, id *components.Identity, pose *components.Pose, vel *components.Velocity, hx, hy float32) {
	co, si := pose.Rot.Heading()
	s.byWire[id.WireID] = int32(len(s.bodies))
	s.bodies = append(s.bodies, body{
		e: e, wid: id.WireID, kind: kind, pos: phys.Flat(pose.Pos), vel: phys.Flat(vel.Lin),
		fwd: nav.Vec{X: co, Y: si}, hx: hx, hy: hy, car: -1,
	})
}

// due reports whether entity wid is checked for being taken away this
// tick (each is checked once every CheckEvery ticks, spread by wire id).
func (s *System) due(w *ecs.World, wid uint16) bool {
	n := max(s.Tuning.CheckEvery, 1)
	return (w.Tick()+uint64(wid))%n == 0
}

// takeAway records e and every NPC seated in it, to take away at the end
// of the tick.
func (s *System) takeAway(w *ecs.World, e ecs.Entity, wid uint16) {
	s.gone = append(s.gone, victim{e, wid})
	st := s.seats.Get(e)
	if st == nil {
		return
	}
	for _, o := range st.Occupant {
		if o.IsZero() || !w.Arche.Alive(o) || s.npc.Get(o) == nil {
			continue
		}
		_, id := s.kinds.Get(o)
		s.gone = append(s.gone, victim{o, id.WireID})
	}
}

// applyChanges makes the tick's structural changes, with no query open:
// the Routes given, the cars released from the AI, the entities taken
// away (by wire id).
func (s *System) applyChanges(w *ecs.World) {
	for _, ra := range s.routes {
		if w.Arche.Alive(ra.e) && s.routeOf.Get(ra.e) == nil {
			r := ra.r
			s.routeOf.Assign(ra.e, &r)
		}
	}
	s.routes = s.routes[:0]
	for _, e := range s.release {
		if !w.Arche.Alive(e) {
			continue
		}
		if s.routeOf.Get(e) != nil {
			s.routeOf.Remove(e)
		}
		if s.npc.Get(e) != nil {
			s.npc.Remove(e)
		}
	}
	s.release = s.release[:0]
	slices.SortFunc(s.gone, func(a, b victim) int { return int(a.wid) - int(b.wid) })
	for _, v := range s.gone {
		w.Despawn(v.e)
	}
	s.gone = s.gone[:0]
}

// unit returns v scaled to length 1, or zero for a zero v.
func unit(v nav.Vec) nav.Vec {
	l := v.Len()
	if l <= 1e-6 {
		return nav.Vec{}
	}
	return v.Scale(1 / l)
}

func clamp(x, lo, hi float32) float32 {
	switch {
	case x > hi:
		return hi
	case x < lo:
		return lo
	case x != x:
		return lo
	}
	return x
}

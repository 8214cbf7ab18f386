// Package pedestrians is the simulation's pedestrian system: every tick,
// before the AI, it walks the crowd the AI keeps (systems/ai) by writing
// their Drive: walkers and joggers along their pavement's centreline, each
// on the right-hand side of its way, idlers standing about and taking a
// few steps now and then. It makes them flee from danger: a shot, a blast,
// someone hurt or pulled out of a car near them, a car on the pavement or
// one coming fast at them. A fleeing pedestrian runs away (round the
// buildings) for a few seconds, then walks back to the nearest pavement.
//
// A traffic driver pulled out of their car (on foot, still of RoleTraffic)
// becomes a walker here, and flees.
//
// The events of a tick are emptied when the next one starts, so the system
// reads the tick's events so far when it runs and, through Watcher (an
// entry late in the schedule), those that came after it.
package pedestrians

import (
	"slices"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/nav"
	phys "github.com/fiveonit/engine/physics"
	"github.com/mlange-42/arche/generic"
)

// Name is the system's name in the schedule; WatchName the name of its
// watcher's entry.
const (
	Name      = "pedestrians"
	WatchName = "pedestrians-watch"
)

// The modes of a pedestrian (the low bits of NPC.Mode), and Back, the bit
// of a pedestrian walking its pavement against the order of its points.
const (
	ModeNew    uint8 = iota // just come: chooses its way
	ModeWalk                // along its pavement (NPC.Lane, NPC.Along)
	ModeIdle                // standing about, NPC.Timer ticks more
	ModeWander              // a few steps, NPC.Timer ticks more
	ModeFlee                // running from NPC.Flee, NPC.Timer ticks more
	ModeReturn              // walking back to the nearest pavement
	Back       uint8 = 0x80
	modeMask   uint8 = 0x7f
)

// Tuning of the crowd.
const (
	// FleeTicks is how long a pedestrian runs from a danger: five seconds.
	FleeTicks = 5 * ecs.TickRate
	// Look (m) is how far ahead along its pavement a walker aims: past
	// an inside corner, where its side of the way is shorter than the
	// centreline by twice its offset, so its aim is always ahead of it.
	Look = 3
	// ShotRange, HitRange and CarjackRange (m) are how far a shot, someone
	// hurt and a carjack frighten people; a blast frightens out to
	// BlastFactor times its radius, at least BlastRange.
	ShotRange    = 40
	HitRange     = 15
	CarjackRange = 15
	BlastRange   = 30
	BlastFactor  = 3
	// CarNear (m) is how near a car on the pavement frightens people;
	// CarFast (m/s) how fast a car coming at someone frightens them, from
	// CarWarn seconds away.
	CarNear = 10
	CarFast = 6
	CarWarn = 1.5
	// JogStick is the stick of a jogger, who holds sprint: a jog, not a run.
	JogStick = 0.6
	// WanderStick is the stick of an idler's few steps.
	WanderStick = 0.5
)

// CrowdCell is the side (m) of the cells the pedestrians are filed under
// each tick: a danger's reach (10 to 50 m) covers a few, and a big level
// has few enough of them to clear each tick.
const CrowdCell = 32

// danger is a place people run from, and how far it frightens them.
type danger struct {
	pos    nav.Vec
	r      float32
	target ecs.Entity // a carjack's driver, who runs whatever the distance
}

// vehicle is a moving vehicle of this tick.
type vehicle struct {
	e        ecs.Entity
	pos, vel nav.Vec
	hy       float32
	onPav    bool
}

// decision is a pedestrian who draws from the random source this tick.
type decision struct {
	e   ecs.Entity
	wid uint16
}

// System is the pedestrian system. Make it with New.
type System struct {
	nav    *nav.Map
	static *phys.Static
	walker phys.WalkSpec

	peds     *generic.Filter7[components.NPC, components.Identity, components.Pose, components.Drive, components.SeatedIn, components.Health, components.PersonAction]
	vehicles *generic.Filter4[components.Identity, components.Pose, components.Velocity, components.Body]
	npcs     generic.Map3[components.NPC, components.Pose, components.Drive]

	cars    []vehicle
	pts     []nav.Vec // the pedestrians' places, in query order
	grid    *nav.Grid // of pts
	fear    []fear    // what each pedestrian runs from this tick, by pts index
	dangers []danger
	watched []danger
	decide  []decision
	watch   watcher
}

// fear is the nearest danger a pedestrian has seen this tick.
type fear struct {
	from nav.Vec
	dist float32 // -1: none
}

// watcher is the system's second entry: it keeps the tick's dangers.
type watcher struct{ s *System }

// busyList is the room the system's per-tick lists are made with: more than
// a busy city tick holds.
const busyList = 64

// New returns the pedestrian system of w on level l (nil: no pavements)
// with static its baked geometry (nil: no buildings).
func New(w *ecs.World, l *levels.Level, static *phys.Static) *System {
	return NewWithMap(w, nav.New(l), static)
}

// NewWithMap returns the pedestrian system on a navigation map already
// built (one map serves every room on a level).
func NewWithMap(w *ecs.World, m *nav.Map, static *phys.Static) *System {
	s := &System{
		nav:      m,
		static:   static,
		walker:   phys.DefaultWalker,
		peds:     generic.NewFilter7[components.NPC, components.Identity, components.Pose, components.Drive, components.SeatedIn, components.Health, components.PersonAction](),
		vehicles: generic.NewFilter4[components.Identity, components.Pose, components.Velocity, components.Body]().With(generic.T[components.Seats]()),
		npcs:     generic.NewMap3[components.NPC, components.Pose, components.Drive](w.Arche),
		grid:     nav.NewGrid(m.Bounds(), CrowdCell),
	}
	s.watch.s = s
	// Room made once for a busy tick's dangers, which are kept: in play
	// they grow only past these, not at each new high.
	s.dangers = make([]danger, 0, busyList)
	s.watched = make([]danger, 0, busyList)
	s.peds.Register(w.Arche)
	s.vehicles.Register(w.Arche)
	return s
}

// Watcher returns the system's watcher, to schedule after every system
// that makes events (the sync phase): it keeps the tick's shots, blasts,
// hits and carjacks for the next tick's Update.
func (s *System) Watcher() ecs.System { return &s.watch }

// Update records the tick's dangers (WatchName's entry).
func (wt *watcher) Update(w *ecs.World) {
	wt.s.watched = appendDangers(wt.s.watched[:0], w.Events)
}

// appendDangers appends the dangers of events to ds.
func appendDangers(ds []danger, events []components.Event) []danger {
	for i := range events {
		ev := &events[i]
		p := phys.Flat(ev.Pos)
		switch ev.Kind {
		case components.EventShot:
			ds = append(ds, danger{pos: p, r: ShotRange})
		case components.EventBlast:
			ds = append(ds, danger{pos: p, r: max(BlastRange, BlastFactor*ev.Amount)})
		case components.EventHit:
			ds = append(ds, danger{pos: p, r: HitRange})
		case components.EventCarjack:
			ds = append(ds, danger{pos: p, r: CarjackRange, target: ev.Target})
		}
	}
	return ds
}

// isPedestrian reports whether the system walks an NPC of role.
func isPedestrian(role components.NPCRole) bool {
	switch role {
	case components.RoleWalker, components.RoleJogger, components.RoleIdler, components.RoleCivilian:
		return true
	}
	return false
}

// Update walks the pedestrians for one tick.
func (s *System) Update(w *ecs.World) {
	s.dangers = append(s.dangers[:0], s.watched...)
	s.watched = s.watched[:0]
	s.dangers = appendDangers(s.dangers, w.Events)
	s.gather(w)
	s.frighten()
	s.decide = s.decide[:0]
	i := 0
	q := s.peds.Query(w.Arche)
	for q.Next() {
		npc, id, pose, drive, in, hp, act := q.Get()
		if !in.Vehicle.IsZero() {
			continue
		}
		f := s.fear[i]
		i++
		e := q.Entity()
		if npc.Role == components.RoleTraffic {
			s.pulledOut(e, npc, pose)
		}
		if !isPedestrian(npc.Role) {
			continue
		}
		if hp.HP == 0 || act.Act == components.ActDead {
			*drive = components.Drive{LookYaw: drive.LookYaw}
			continue
		}
		if f.dist >= 0 {
			flee(npc, f.from)
		}
		if s.step(npc, id, phys.Flat(pose.Pos), pose, drive) {
			s.decide = append(s.decide, decision{e, id.WireID})
		}
	}
	slices.SortFunc(s.decide, func(a, b decision) int { return int(a.wid) - int(b.wid) })
	for _, d := range s.decide {
		s.choose(w, d.e)
	}
}

// gather lists the people on foot with an NPC (in the order Update goes
// through them) and files them in the grid, and lists the moving vehicles.
func (s *System) gather(w *ecs.World) {
	s.pts = s.pts[:0]
	q := s.peds.Query(w.Arche)
	for q.Next() {
		_, _, pose, _, in, _, _ := q.Get()
		if in.Vehicle.IsZero() {
			s.pts = append(s.pts, phys.Flat(pose.Pos))
		}
	}
	s.grid.Build(s.pts)
	s.fear = s.fear[:0]
	for range s.pts {
		s.fear = append(s.fear, fear{dist: -1})
	}
	s.cars = s.cars[:0]
	vq := s.vehicles.Query(w.Arche)
	for vq.Next() {
		_, pose, vel, body := vq.Get()
		v := phys.Flat(vel.Lin)
		if v.Dot(v) < 1 {
			continue
		}
		p := phys.Flat(pose.Pos)
		s.cars = append(s.cars, vehicle{e: vq.Entity(), pos: p, vel: v, hy: body.HalfY, onPav: s.nav.OnPavement(p, 0.5)})
	}
}

// frighten finds, for every pedestrian, the nearest danger that frightens
// them: an event in its range, a car on the pavement near them or coming
// fast at them. It goes from the dangers (few) to the people near each.
func (s *System) frighten() {
	for _, d := range s.dangers {
		s.near(d.pos, d.r, func(p nav.Vec) (nav.Vec, float32, bool) {
			dist := p.Sub(d.pos).Len()
			return d.pos, dist, dist <= d.r
		})
	}
	for ci := range s.cars {
		c := &s.cars[ci]
		speed := c.vel.Len()
		reach := max(CarNear, speed*CarWarn+2)
		s.near(c.pos, reach, func(p nav.Vec) (nav.Vec, float32, bool) {
			return s.carThreat(c, p)
		})
	}
	// A carjacked driver runs from the carjack, however far: see pulledOut.
}

// near offers every pedestrian within r of p to judge, and keeps what it
// finds if it is the nearest danger of that pedestrian so far (ties go to
// the point of least x, then y, so the order of the dangers does not
// matter).
func (s *System) near(p nav.Vec, r float32, judge func(q nav.Vec) (nav.Vec, float32, bool)) {
	x0, y0, x1, y1 := s.grid.Range(nav.Vec{X: p.X - r, Y: p.Y - r}, nav.Vec{X: p.X + r, Y: p.Y + r})
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			for _, i := range s.grid.Cell(x, y) {
				from, dist, ok := judge(s.pts[i])
				if !ok {
					continue
				}
				f := &s.fear[i]
				if f.dist < 0 || dist < f.dist || dist == f.dist && (from.X < f.from.X || from.X == f.from.X && from.Y < f.from.Y) {
					*f = fear{from: from, dist: dist}
				}
			}
		}
	}
}

// pulledOut makes a traffic driver on foot (pulled out of their car) a
// walker running from the car.
func (s *System) pulledOut(e ecs.Entity, npc *components.NPC, pose *components.Pose) {
	p := phys.Flat(pose.Pos)
	co, si := pose.Rot.Heading()
	from := p.Sub(nav.Vec{X: co, Y: si}) // no carjack seen: away from where it faced
	for _, d := range s.dangers {
		if d.target == e {
			from = d.pos
			break
		}
	}
	*npc = components.NPC{Role: components.RoleWalker, Spawner: -1, Lane: -1, Mode: ModeFlee, Timer: FleeTicks, Flee: components.Vec3{X: from.X, Y: from.Y}}
}

// carThreat reports whether car c frightens a pedestrian at p, and the
// point of its way to run from (so they run out of its path).
func (s *System) carThreat(c *vehicle, p nav.Vec) (from nav.Vec, dist float32, ok bool) {
	rel := p.Sub(c.pos)
	dist = rel.Len()
	speed := c.vel.Len()
	dir := c.vel.Scale(1 / speed)
	along := rel.Dot(dir)
	from = c.pos.Add(dir.Scale(along))
	if abs(dir.Cross(rel)) < 0.3 { // right in its path: run to its left
		from = from.Sub(nav.Vec{X: -dir.Y, Y: dir.X})
	}
	if c.onPav && dist < CarNear {
		return from, dist, true
	}
	if speed > CarFast && along > 0 && along < speed*CarWarn+2 && abs(dir.Cross(rel)) < c.hy+1.5 {
		return from, dist, true
	}
	return from, dist, false
}

// flee sets npc running from the point from.
func flee(npc *components.NPC, from nav.Vec) {
	npc.Mode = ModeFlee | npc.Mode&Back
	npc.Timer = FleeTicks
	npc.Flee = components.Vec3{X: from.X, Y: from.Y}
}

// step writes a pedestrian's Drive for its mode; true when it must draw
// from the random source (choose).
func (s *System) step(npc *components.NPC, id *components.Identity, p nav.Vec, pose *components.Pose, d *components.Drive) bool {
	look := d.LookYaw
	*d = components.Drive{LookYaw: look}
	switch npc.Mode & modeMask {
	case ModeNew:
		return true
	case ModeWalk:
		return s.walk(npc, id, p, d)
	case ModeIdle:
		if npc.Timer > 0 {
			npc.Timer--
			return false
		}
		return true
	case ModeWander:
		if npc.Timer > 0 {
			npc.Timer--
			d.MoveY = WanderStick
			return false
		}
		npc.Mode = ModeIdle | npc.Mode&Back
		return true
	case ModeFlee:
		s.run(npc, p, pose, d)
		return false
	case ModeReturn:
		s.goBack(npc, p, d)
		return false
	}
	npc.Mode = ModeNew
	return true
}

// walk walks a walker or jogger along its pavement, on the right-hand
// side of its way, turning round at an open pavement's end.
func (s *System) walk(npc *components.NPC, id *components.Identity, p nav.Vec, d *components.Drive) bool {
	m := s.nav
	if npc.Lane < 0 || int(npc.Lane) >= len(m.Pavements) {
		npc.Mode = ModeReturn | npc.Mode&Back
		return false
	}
	along, _ := m.ProjectPavement(npc.Lane, p, npc.Along)
	npc.Along = along
	pv := &m.Pavements[npc.Lane]
	back := npc.Mode&Back != 0
	if !pv.Closed && (back && along <= Look || !back && along >= pv.Len-Look) {
		npc.Mode ^= Back
		back = !back
	}
	sign := float32(1)
	if back {
		sign = -1
	}
	q, dir := m.PavementAt(npc.Lane, along+sign*Look)
	dir = dir.Scale(sign)
	right := nav.Vec{X: dir.Y, Y: -dir.X}
	q = q.Add(right.Scale(pv.Width / 4))
	to := q.Sub(p)
	if to.Dot(to) > 1e-4 {
		d.LookYaw = math32.Atan2(to.Y, to.X)
	}
	d.MoveY = 0.8 + 0.05*float32(id.WireID%5) // a pace of their own
	if npc.Role == components.RoleJogger {
		d.MoveY = JogStick
		d.Held |= components.BtnSprint
	}
	if npc.Role == components.RoleIdler || npc.Role == components.RoleCivilian {
		npc.Mode = ModeIdle | npc.Mode&Back
		return true
	}
	return false
}

// run runs a fleeing pedestrian away from NPC.Flee, round the buildings,
// and sends them back to the pavements when the time is up.
func (s *System) run(npc *components.NPC, p nav.Vec, pose *components.Pose, d *components.Drive) {
	if npc.Timer > 0 {
		npc.Timer--
	}
	if npc.Timer == 0 {
		npc.Mode = ModeReturn | npc.Mode&Back
		return
	}
	away := unit(p.Sub(phys.Flat(npc.Flee)))
	if away == (nav.Vec{}) {
		co, si := pose.Rot.Heading()
		away = nav.Vec{X: co, Y: si}
	}
	away = s.clearHeading(p, away)
	d.LookYaw = math32.Atan2(away.Y, away.X)
	d.MoveY = 1
	d.Held |= components.BtnSprint
}

// fleeTurns are the headings (cos, sin) a fleeing pedestrian tries when
// the way straight from danger is blocked: 30° steps each side to 120°.
var fleeTurns = func() (t [8][2]float32) {
	for k := range 4 {
		s, c := math32.Sincos(float32(k+1) * math32.Pi / 6)
		t[2*k] = [2]float32{c, s}
		t[2*k+1] = [2]float32{c, -s}
	}
	return
}()

// clearHeading returns dir, or the nearest heading to it on which a
// person at p can run a few metres without meeting a building.
func (s *System) clearHeading(p, dir nav.Vec) nav.Vec {
	if s.static == nil || s.runClear(p, dir) {
		return dir
	}
	for _, t := range fleeTurns {
		d := nav.Vec{X: dir.X*t[0] - dir.Y*t[1], Y: dir.X*t[1] + dir.Y*t[0]}
		if s.runClear(p, d) {
			return d
		}
	}
	return dir
}

func (s *System) runClear(p, dir nav.Vec) bool {
	end := p.Add(dir.Scale(3))
	return s.static.SegmentClear(p, end) && !s.static.Overlaps(end, s.walker.Radius)
}

// goBack walks a pedestrian to the nearest pavement and onto it.
func (s *System) goBack(npc *components.NPC, p nav.Vec, d *components.Drive) {
	pav, along, dist := s.nav.NearestPavement(p, 3*nav.PavementCell)
	if pav < 0 {
		npc.Mode = ModeIdle | npc.Mode&Back // nowhere to go back to: stay about here
		npc.Lane = -1
		return
	}
	if dist < 1 {
		npc.Lane, npc.Along = pav, along
		npc.Mode = ModeWalk | npc.Mode&Back
		return
	}
	q, _ := s.nav.PavementAt(pav, along)
	to := q.Sub(p)
	d.LookYaw = math32.Atan2(to.Y, to.X)
	d.MoveY = 1
}

// choose makes a pedestrian's random choices, in wire id order: a new one
// picks its way along its pavement (and a jogger or walker starts), an
// idler done standing takes a few steps or stands a while more.
func (s *System) choose(w *ecs.World, e ecs.Entity) {
	npc, pose, d := s.npcs.Get(e)
	switch npc.Mode & modeMask {
	case ModeNew:
		npc.Mode = ModeWalk
		if w.RNG.IntN(2) == 1 {
			npc.Mode |= Back
		}
		if npc.Role == components.RoleIdler || npc.Role == components.RoleCivilian {
			npc.Mode = ModeIdle | npc.Mode&Back
			npc.Timer = uint32(ecs.TickRate * (2 + w.RNG.IntN(6)))
		}
	case ModeIdle, ModeWalk:
		if w.RNG.IntN(3) > 0 {
			npc.Mode = ModeIdle | npc.Mode&Back
			npc.Timer = uint32(ecs.TickRate * (2 + w.RNG.IntN(6)))
			return
		}
		s.wander(w, npc, phys.Flat(pose.Pos), d)
	}
}

// wander starts an idler's few steps: along its pavement when it has one,
// else any way round the buildings.
func (s *System) wander(w *ecs.World, npc *components.NPC, p nav.Vec, d *components.Drive) {
	steps := 1 + 3*w.RNG.Float32() // metres
	var dir nav.Vec
	if npc.Lane >= 0 && int(npc.Lane) < len(s.nav.Pavements) {
		along, _ := s.nav.ProjectPavement(npc.Lane, p, npc.Along)
		if w.RNG.IntN(2) == 1 {
			steps = -steps
		}
		q, _ := s.nav.PavementAt(npc.Lane, along+steps)
		npc.Along = along
		dir = unit(q.Sub(p))
	} else {
		sn, cs := math32.Sincos(w.RNG.Float32() * 2 * math32.Pi)
		dir = s.clearHeading(p, nav.Vec{X: cs, Y: sn})
	}
	if dir == (nav.Vec{}) {
		npc.Mode, npc.Timer = ModeIdle|npc.Mode&Back, ecs.TickRate
		return
	}
	d.LookYaw = math32.Atan2(dir.Y, dir.X)
	npc.Mode = ModeWander | npc.Mode&Back
	npc.Timer = uint32(abs(steps) / (s.walker.WalkSpeed * WanderStick) * ecs.TickRate)
}

func unit(v nav.Vec) nav.Vec {
	l := v.Len()
	if l <= 1e-6 {
		return nav.Vec{}
	}
	return v.Scale(1 / l)
}

func abs(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

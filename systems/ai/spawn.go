package ai

import (
	"slices"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/nav"
	phys "github.com/fiveonit/engine/physics"
)

// Spawn tries: how many places a tick looks at for each car or pedestrian
// it wants, so a room where every place is in sight costs little.
const (
	carTries = 8
	pedTries = 4
)

// CarRoom and PedRoom (m) are the free room a car and a pedestrian need
// round the place they come into the world.
const (
	CarRoom = 7
	PedRoom = 1.2
)

// isCrowd reports whether an NPC is one of the crowd the AI keeps.
func isCrowd(npc *components.NPC) bool {
	switch npc.Role {
	case components.RoleWalker, components.RoleJogger, components.RoleIdler:
		return npc.Spawner < 0
	}
	return false
}

// countCrowd counts the crowd and takes away those far from every player,
// dead ones out of sight, those over the count, unseen, and those of a
// player over their part of the crowd while another lacks (share.go),
// unseen.
func (s *System) countCrowd(w *ecs.World) {
	s.tallyCrowd(w)
	s.crowd = 0
	q := s.crowdQ.Query(w.Arche)
	for q.Next() {
		npc, id, pose, in, hp := q.Get()
		if !isCrowd(npc) || !in.Vehicle.IsZero() {
			continue
		}
		e := q.Entity()
		dead := hp.HP == 0
		if !s.due(w, id.WireID) {
			if !dead {
				s.crowd++
			}
			continue
		}
		p := phys.Flat(pose.Pos)
		i, d := s.nearest(p)
		far := i >= 0 && d > s.Tuning.PedDespawn
		if (far || dead || s.pops[popPeds].spare > 0) && !s.seen(p, s.Tuning.PedSight) &&
			(far || dead || s.moveOff(popPeds, i, d, s.Tuning.PedSpawnMin)) {
			s.gone = append(s.gone, victim{e, id.WireID})
			continue
		}
		if !dead {
			s.crowd++
		}
	}
	if s.crowd > s.crowdWant {
		s.trimCrowd(w)
	}
}

// tallyCrowd counts the crowd on foot and alive for their nearest players
// and shares the crowd's budget.
func (s *System) tallyCrowd(w *ecs.World) {
	if len(s.players) < 2 {
		s.pops[popPeds] = pop{}
		return
	}
	have := 0
	q := s.crowdQ.Query(w.Arche)
	for q.Next() {
		npc, _, pose, in, hp := q.Get()
		if !isCrowd(npc) || !in.Vehicle.IsZero() || hp.HP == 0 {
			continue
		}
		if k, _ := s.nearest(phys.Flat(pose.Pos)); k >= 0 {
			s.players[k].n[popPeds]++
			have++
		}
	}
	s.share(popPeds, s.crowdWant, have)
}

// trimCrowd takes away pedestrians over the count (the room's option
// went down), by wire id, those no player sees.
func (s *System) trimCrowd(w *ecs.World) {
	s.wids = s.wids[:0]
	q := s.crowdQ.Query(w.Arche)
	for q.Next() {
		npc, id, pose, in, _ := q.Get()
		if isCrowd(npc) && in.Vehicle.IsZero() && s.due(w, id.WireID) && !s.seen(phys.Flat(pose.Pos), s.Tuning.PedSight) {
			s.wids = append(s.wids, int32(id.WireID))
		}
	}
	sortInt32(s.wids)
	for _, wid := range s.wids {
		if s.crowd <= s.crowdWant {
			break
		}
		if e, ok := w.ByWireID(uint16(wid)); ok {
			s.gone = append(s.gone, victim{e, uint16(wid)})
			s.crowd--
		}
	}
}

// AreaStep (m) spaces the lane points of a traffic spawn area a car may
// come out at.
const AreaStep = 8

// spawnTraffic brings ambient cars out of the traffic spawn points and
// spawn areas until the count is kept: a point at least TrafficSpawnMin
// from every player, within TrafficSpawnMax of one, out of every player's
// sight, with room (of an area, its lane point nearest to the players
// that has the distance and the room); or, when every such point is taken
// (or the level has none), a point along a traffic lane that is all of
// that.
func (s *System) spawnTraffic(w *ecs.World) {
	need := min(s.trafficWant-s.guardCars-s.traffic, s.Tuning.CarsPerTick)
	if need <= 0 {
		return
	}
	// Room for the tick's cap at once: the first tick that spawns two
	// might come a thousand ticks into a room, and allocate.
	s.spawned = slices.Grow(s.spawned[:0], s.Tuning.CarsPerTick)
	// The points at the right distance with room, then a few of them
	// drawn at random for the (dearer) look for a player in sight.
	s.wids = s.wids[:0]
	for i := range s.trafficSpawns {
		p := s.trafficSpawns[i].pos
		if d, any := s.nearestPlayer(p); any && (d < s.Tuning.TrafficSpawnMin || d > s.Tuning.TrafficSpawnMax) {
			continue
		}
		if s.forLacking(popCars, p) && s.free(p, CarRoom) {
			s.wids = append(s.wids, int32(i))
		}
	}
	s.areaCandidates()
	for try := 0; try < carTries*need && need > 0 && len(s.wids) > 0; try++ {
		k := w.RNG.IntN(len(s.wids))
		sp := s.spawnAt(s.wids[k])
		s.wids[k] = s.wids[len(s.wids)-1]
		s.wids = s.wids[:len(s.wids)-1]
		if s.seen(sp.pos, s.Tuning.SightRange) || !s.free(sp.pos, CarRoom) {
			continue
		}
		if !s.spawnCar(w, sp) {
			return
		}
		need--
	}
	// Every spawn point in reach is taken or in sight (a corner of the
	// city, a crowd of players), or the level has none: a point along a
	// lane near a player, or anywhere on the lanes when there is none.
	for try := 0; try < carTries*need && need > 0 && len(s.nav.Lanes) > 0; try++ {
		sp, ok := s.lanePoint(w)
		if !ok || !s.forLacking(popCars, sp.pos) || !s.spawnable(sp.pos, s.Tuning.TrafficSpawnMin, s.Tuning.TrafficSpawnMax, s.Tuning.SightRange, CarRoom) {
			continue
		}
		if !s.spawnCar(w, sp) {
			return
		}
		need--
	}
}

// areaCandidates adds to s.wids each traffic spawn area's lane point
// nearest to the players (any, with none) that lies at a spawn distance
// from them and has the room: numbered after the spawn points.
func (s *System) areaCandidates() {
	from := 0
	for _, to := range s.areaEnds {
		best, bestD := -1, float32(0)
		for i := from; i < to; i++ {
			p := s.areaSpawns[i].pos
			d, any := s.nearestPlayer(p)
			if any && (d < s.Tuning.TrafficSpawnMin || d > s.Tuning.TrafficSpawnMax) || best >= 0 && d >= bestD {
				continue
			}
			if s.forLacking(popCars, p) && s.free(p, CarRoom) {
				best, bestD = i, d
			}
		}
		if best >= 0 {
			s.wids = append(s.wids, int32(len(s.trafficSpawns)+best))
		}
		from = to
	}
}

// spawnAt returns the candidate place i of spawnTraffic: a spawn point, or
// past them a lane point of a spawn area.
func (s *System) spawnAt(i int32) spawnPoint {
	if int(i) < len(s.trafficSpawns) {
		return s.trafficSpawns[i]
	}
	return s.areaSpawns[int(i)-len(s.trafficSpawns)]
}

// laneEnd (m) is how far from a lane's ends a car is spawned on it: clear
// of the crossings.
const laneEnd = 15

// lanePoint draws a point on a traffic lane at a spawn distance from a
// player drawn at random; with no player, on a lane drawn at random.
func (s *System) lanePoint(w *ecs.World) (spawnPoint, bool) {
	m := s.nav
	lane := int32(-1)
	if len(s.players) == 0 {
		lane = int32(w.RNG.IntN(len(m.Lanes)))
	} else {
		pl := s.spawnPlayer(w, popCars).pos
		sn, cs := math32.Sincos(w.RNG.Float32() * 2 * math32.Pi)
		rad := s.Tuning.TrafficSpawnMin + w.RNG.Float32()*(s.Tuning.TrafficSpawnMax-s.Tuning.TrafficSpawnMin)
		lane, _ = m.NearestLane(pl.Add(nav.Vec{X: cs * rad, Y: sn * rad}), nav.Vec{}, 2*nav.LaneCell, 0, true)
	}
	if lane < 0 || !m.Lanes[lane].Traffic || m.Lanes[lane].Len < 2*laneEnd {
		return spawnPoint{}, false
	}
	l := &m.Lanes[lane]
	along := laneEnd + w.RNG.Float32()*(l.Len-2*laneEnd)
	return spawnPoint{pos: l.A.Add(l.Dir.Scale(along)), yaw: math32.Atan2(l.Dir.Y, l.Dir.X), lane: lane}, true
}

// spawnCar brings an ambient car out at sp; false when no wire id is
// left.
func (s *System) spawnCar(w *ecs.World, sp spawnPoint) bool {
	model := trafficModels[w.RNG.IntN(len(trafficModels))]
	skin := uint8(w.RNG.IntN(PedModels))
	pos := components.Vec3{X: sp.pos.X, Y: sp.pos.Y, Z: s.groundZ()}
	car, _, err := s.build.TrafficCar(model, skin, pos, sp.yaw, sp.lane)
	if err != nil {
		return false // try again next tick
	}
	s.routeOf.Assign(car, &Route{Lane: sp.lane, Next: -1})
	s.spawned = append(s.spawned, sp.pos)
	s.traffic++
	return true
}

// spawnCrowd brings pedestrians onto the pavements until the count is
// kept: near a player (drawn at random) but out of sight, at least
// PedSpawnMin from every player; anywhere on the pavements when there is
// no player.
func (s *System) spawnCrowd(w *ecs.World) {
	need := min(s.crowdWant-s.crowd, s.Tuning.PedsPerTick)
	m := s.nav
	if need <= 0 || m.PavementLen <= 0 {
		return
	}
	s.spawned = slices.Grow(s.spawned[:0], s.Tuning.PedsPerTick) // as spawnTraffic's
	for try := 0; try < pedTries*need && need > 0; try++ {
		var pav int32
		var along float32
		if len(s.players) > 0 {
			pl := s.spawnPlayer(w, popPeds).pos
			sn, cs := math32.Sincos(w.RNG.Float32() * 2 * math32.Pi)
			rad := s.Tuning.PedSpawnMin + w.RNG.Float32()*(s.Tuning.PedSpawnMax-s.Tuning.PedSpawnMin)
			pav, along, _ = m.NearestPavement(pl.Add(nav.Vec{X: cs * rad, Y: sn * rad}), 2*nav.PavementCell)
		} else {
			pav, along = m.PavementPoint(w.RNG.Float32() * m.PavementLen)
		}
		if pav < 0 {
			continue
		}
		p, dir := m.PavementAt(pav, along)
		if !s.forLacking(popPeds, p) || !s.spawnable(p, s.Tuning.PedSpawnMin, s.Tuning.PedSpawnMax+2*nav.PavementCell, s.Tuning.PedSight, PedRoom) {
			continue
		}
		if s.static != nil && s.static.Overlaps(p, phys.DefaultWalker.Radius) {
			continue
		}
		role := components.RoleWalker
		switch roll := w.RNG.IntN(100); {
		case roll >= 80:
			role = components.RoleIdler
		case roll >= 60:
			role = components.RoleJogger
		}
		skin := uint8(w.RNG.IntN(PedModels))
		pos := components.Vec3{X: p.X, Y: p.Y, Z: s.groundZ()}
		if _, err := s.build.Pedestrian(role, skin, pos, math32.Atan2(dir.Y, dir.X), pav, along); err != nil {
			return
		}
		s.spawned = append(s.spawned, p)
		s.crowd++
		need--
	}
}

// spawnable reports whether something may come into the world at p: at
// least lo from every player and within hi of one, seen by none within
// sight, and no body (nor anything spawned this tick) within room.
func (s *System) spawnable(p nav.Vec, lo, hi, sight, room float32) bool {
	if d, any := s.nearestPlayer(p); any && (d < lo || d > hi) {
		return false
	}
	if !s.free(p, room) {
		return false
	}
	return !s.seen(p, sight)
}

// free reports whether no body, nor anything spawned this tick, is within
// room of p.
func (s *System) free(p nav.Vec, room float32) bool {
	for _, q := range s.spawned {
		if q.Sub(p).Len() < room {
			return false
		}
	}
	x0, y0, x1, y1 := s.grid.Range(nav.Vec{X: p.X - room, Y: p.Y - room}, nav.Vec{X: p.X + room, Y: p.Y + room})
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			for _, bi := range s.grid.Cell(x, y) {
				if s.bodies[bi].pos.Sub(p).Len() < room {
					return false
				}
			}
		}
	}
	return true
}

// groundZ returns the ground's height.
func (s *System) groundZ() float32 {
	if s.level == nil {
		return 0
	}
	return s.level.Ground.Height
}

// sortInt32 sorts a few values in place (an insertion sort: no closure,
// no allocation).
func sortInt32(a []int32) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

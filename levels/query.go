package levels

import "slices"

// The lookups below are for the systems (AI, physics, spawners). They use
// only slices built once by Validate (Parse and Load validate), allocate
// nothing and break every tie by the lowest index, so the same level and
// point give the same answer everywhere. A Level that has not passed
// Validate has no lookups: it finds nothing (NearestLane and BuildingAt
// give -1, LanesOut nil), and LaneNodes and LaneLine panic.

// index holds the lookups Validate builds.
type index struct {
	nodeByID []idIndex // sorted by id
	laneFrom []int32   // node index of each lane's From
	laneTo   []int32   // node index of each lane's To
	laneA    []Vec2    // each lane's centreline, From end
	laneB    []Vec2    // each lane's centreline, To end
	outStart []int32   // lanes out of node n: outLanes[outStart[n]:outStart[n+1]]
	outLanes []int32
	inStart  []int32 // lanes into node n: inLanes[inStart[n]:inStart[n+1]]
	inLanes  []int32
	bboxes   []box     // of each building
	byRole   [][]int32 // spawn indices of each role, parallel to SpawnRoles
}

// idIndex pairs a node id with the node's index in Roads.Nodes.
type idIndex struct {
	id int
	i  int32
}

// buildIndex builds the lookups from what the validator gathered.
func (v *validator) buildIndex() index {
	l := v.l
	x := index{
		nodeByID: v.nodeByID,
		laneFrom: v.laneFrom, laneTo: v.laneTo,
		laneA: v.laneA, laneB: v.laneB,
		bboxes: v.bboxes,
	}
	x.outStart, x.outLanes = adjacency(len(l.Roads.Nodes), v.laneFrom)
	x.inStart, x.inLanes = adjacency(len(l.Roads.Nodes), v.laneTo)
	x.byRole = make([][]int32, len(SpawnRoles))
	for i := range l.Spawns {
		r := slices.Index(SpawnRoles, l.Spawns[i].Role)
		x.byRole[r] = append(x.byRole[r], int32(i))
	}
	return x
}

// adjacency groups the lanes by the node end gives for each lane: a
// compressed table where the lanes of node n are lanes[start[n]:start[n+1]],
// in ascending lane index.
func adjacency(nodes int, end []int32) (start, lanes []int32) {
	start = make([]int32, nodes+1)
	for _, n := range end {
		start[n+1]++
	}
	for n := range nodes {
		start[n+1] += start[n]
	}
	lanes = make([]int32, len(end))
	next := slices.Clone(start[:nodes])
	for i, n := range end {
		lanes[next[n]] = int32(i)
		next[n]++
	}
	return start, lanes
}

// findID returns the index of the node with the given id in the sorted
// table.
func findID(byID []idIndex, id int) (int, bool) {
	k, found := slices.BinarySearchFunc(byID, id, func(e idIndex, id int) int {
		switch {
		case e.id < id:
			return -1
		case e.id > id:
			return 1
		}
		return 0
	})
	if !found {
		return -1, false
	}
	return int(byID[k].i), true
}

// NodeIndex returns the index in Roads.Nodes of the node with the given id.
func (l *Level) NodeIndex(id int) (int, bool) { return findID(l.idx.nodeByID, id) }

// LaneNodes returns the indices in Roads.Nodes of lane's From and To nodes
// (lane is an index into Roads.Lanes).
func (l *Level) LaneNodes(lane int) (from, to int) {
	return int(l.idx.laneFrom[lane]), int(l.idx.laneTo[lane])
}

// LanesOut returns the indices of the lanes that leave node (an index into
// Roads.Nodes), ascending; nil for a node out of range. The slice is the
// level's: do not change it.
func (l *Level) LanesOut(node int) []int32 {
	if node < 0 || node+1 >= len(l.idx.outStart) {
		return nil
	}
	return l.idx.outLanes[l.idx.outStart[node]:l.idx.outStart[node+1]]
}

// LanesIn returns the indices of the lanes that enter node (an index into
// Roads.Nodes), ascending; nil for a node out of range. The slice is the
// level's: do not change it.
func (l *Level) LanesIn(node int) []int32 {
	if node < 0 || node+1 >= len(l.idx.inStart) {
		return nil
	}
	return l.idx.inLanes[l.idx.inStart[node]:l.idx.inStart[node+1]]
}

// LaneLine returns lane's centreline (lane is an index into Roads.Lanes):
// its nodes' segment moved Offset to the right, from a to b.
func (l *Level) LaneLine(lane int) (a, b Vec2) {
	return l.idx.laneA[lane], l.idx.laneB[lane]
}

// NearestLane returns the index of the lane whose centreline passes nearest
// to p, and that distance; (-1, 0) when the level has no lanes. It scans
// every lane: a few hundred on main-city.
func (l *Level) NearestLane(p Vec2) (lane int, dist float32) {
	lane = -1
	var best float32
	for i := range l.idx.laneA {
		d := dist2ToSegment(p, l.idx.laneA[i], l.idx.laneB[i])
		if lane < 0 || d < best {
			lane, best = i, d
		}
	}
	if lane < 0 {
		return -1, 0
	}
	return lane, sqrt32(best)
}

// SpawnsOf returns the indices into Spawns of the spawn points of role, in
// the level's order. The slice is the level's: do not change it.
func (l *Level) SpawnsOf(role SpawnRole) []int32 {
	r := slices.Index(SpawnRoles, role)
	if r < 0 || l.idx.byRole == nil {
		return nil
	}
	return l.idx.byRole[r]
}

// NearestSpawn returns the spawn point of role nearest to p (the hospital a
// player comes back at); false when the level has none of that role.
func (l *Level) NearestSpawn(role SpawnRole, p Vec2) (Spawn, bool) {
	best, bestD := -1, float32(0)
	for _, i := range l.SpawnsOf(role) {
		d := l.Spawns[i].Pos.Sub(p)
		if d2 := d.Dot(d); best < 0 || d2 < bestD {
			best, bestD = int(i), d2
		}
	}
	if best < 0 {
		return Spawn{}, false
	}
	return l.Spawns[best], true
}

// BuildingPolygons returns every building's footprint, in the order of
// Buildings (for the physics to bake its static colliders). The footprints
// are the level's: do not change them.
func (l *Level) BuildingPolygons() [][]Vec2 {
	out := make([][]Vec2, len(l.Buildings))
	for i := range l.Buildings {
		out[i] = l.Buildings[i].Footprint
	}
	return out
}

// BuildingAt returns the index of the building whose footprint holds p, or
// -1.
func (l *Level) BuildingAt(p Vec2) int { return buildingAt(l.Buildings, l.idx.bboxes, p) }

// buildingAt returns the first building (of bounding boxes bb) that holds
// p, or -1.
func buildingAt(bs []Building, bb []box, p Vec2) int {
	for i := range bb {
		if bb[i].contains(p) && PointInPolygon(p, bs[i].Footprint) {
			return i
		}
	}
	return -1
}

// ZoneAt returns the index of the first zone of kind that holds p, or -1.
func (l *Level) ZoneAt(p Vec2, kind ZoneKind) int {
	for i := range l.Zones {
		if l.Zones[i].Kind == kind && PointInPolygon(p, l.Zones[i].Polygon) {
			return i
		}
	}
	return -1
}

// Place returns the place named id: a spawn point of that ID, or the
// centre of the zone of that ID (its vertices' mean, facing east). false
// when the level has neither.
func (l *Level) Place(id string) (Spawn, bool) {
	if id == "" {
		return Spawn{}, false
	}
	for _, s := range l.Spawns {
		if s.ID == id {
			return s, true
		}
	}
	for _, z := range l.Zones {
		if z.ID != id || len(z.Polygon) == 0 {
			continue
		}
		var c Vec2
		for _, p := range z.Polygon {
			c = c.Add(p)
		}
		return Spawn{ID: id, Pos: c.Scale(1 / float32(len(z.Polygon)))}, true
	}
	return Spawn{}, false
}

// LanePoint is a point on a lane's centreline: where a car may come into
// the world, facing Dir (the lane's way, a unit vector).
type LanePoint struct {
	Pos, Dir Vec2
	// Lane is the lane's index in Roads.Lanes.
	Lane int
}

// LanePointsIn returns the points every step metres along each lane open
// to the traffic (not NoTraffic), at least end metres from either of its
// ends (clear of the crossings), that lie inside poly: lane by lane in the
// order of Roads.Lanes, each from its From end. A level that has not
// passed Validate has none. It allocates the slice it returns: call it
// once, when a system is made.
func (l *Level) LanePointsIn(poly []Vec2, step, end float32) []LanePoint {
	if step <= 0 || len(poly) < 3 {
		return nil
	}
	var out []LanePoint
	for i := range l.idx.laneA {
		if l.Roads.Lanes[i].NoTraffic {
			continue
		}
		a, b := l.idx.laneA[i], l.idx.laneB[i]
		d := b.Sub(a)
		n := d.Len()
		if n <= 2*end {
			continue
		}
		dir := d.Scale(1 / n)
		for k := float32(0); end+k*step <= n-end; k++ {
			if p := a.Add(dir.Scale(end + k*step)); PointInPolygon(p, poly) {
				out = append(out, LanePoint{Pos: p, Dir: dir, Lane: i})
			}
		}
	}
	return out
}

// With returns a copy of l with spawns added after its spawn points and
// areas after its spawn areas, validated whole (file names it in the
// errors): what a game adds to a level it plays. l itself is left as it
// was, and the copy shares every other list with it, so change neither.
// The additions' paths in an error are those of the copy: spawns[n] for
// the first added spawn when l has n.
func (l *Level) With(file string, spawns []Spawn, areas []SpawnArea) (*Level, error) {
	c := *l
	c.Spawns = append(slices.Clip(l.Spawns), spawns...)
	c.SpawnAreas = append(slices.Clip(l.SpawnAreas), areas...)
	if err := c.Validate(file); err != nil {
		return nil, err
	}
	return &c, nil
}

package levels

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Limits of a valid level, beside MaxFileSize and MaxEntries.
const (
	// MaxGroundSize is the largest side of the ground, in metres. At 50 km
	// from the origin a float32 still resolves about 4 mm.
	MaxGroundSize = 100_000
	// MaxPolygonPoints caps a footprint's or a zone's points: plenty for a
	// building, and it bounds the quadratic simple-polygon check.
	MaxPolygonPoints = 128
	// MaxIDLen caps ids, names, models, key tags and item ids, in bytes.
	MaxIDLen = 64
	// MaxNPCCount caps the NPCs one spawner keeps.
	MaxNPCCount = 64
	// MaxStack caps the count of one item in a container or a pickup.
	MaxStack = 10_000
	// MaxRuleCount caps the level's default traffic and pedestrians.
	MaxRuleCount = 10_000
	// MaxLaneWidth caps a lane's width and MaxLaneOffset its offset, in
	// metres: anything wider is a mistake, not a road.
	MaxLaneWidth  = 20
	MaxLaneOffset = 50
	// MaxSpeedLimit caps a lane's speed limit, in metres per second
	// (360 km/h).
	MaxSpeedLimit = 100
	// MaxGateWidth caps a gate's width, in metres.
	MaxGateWidth = 50
	// MaxCameraRange caps a camera's range, in metres: a street's length,
	// more than any camera of a city makes out a face at.
	MaxCameraRange = 200
	// MaxCameraPeriod caps a camera's sweep period, in seconds.
	MaxCameraPeriod = 3600
)

// twoPi bounds a yaw: a level gives headings within one turn either way.
const twoPi = 2 * math.Pi

// Validate checks every value of l against the format (FORMAT.md) and
// returns the first problem as an *Error naming file and the JSON path, or
// nil. On success it (re)builds the lookups the query methods use. Parse
// and Load call it; call it yourself on a Level built in code.
func (l *Level) Validate(file string) error {
	l.idx = index{}
	v := validator{file: file, l: l, ids: make(map[string]string)}
	steps := []func(){
		v.header, v.ground, v.rules, v.buildings, v.nodes, v.lanes, v.signals, v.pavements,
		v.spawns, v.zones, v.spawnAreas, v.gates, v.races, v.vehicleSpawners, v.npcSpawners, v.shops,
		v.containers, v.pickups, v.cameras, v.overlaps,
	}
	for _, step := range steps {
		step()
		if v.err != nil {
			return v.err
		}
	}
	l.idx = v.buildIndex()
	return nil
}

// validator is the state of one Validate.
type validator struct {
	file string
	l    *Level
	err  *Error
	// ids maps every string id seen so far to the path of its owner; it
	// is only looked up, never iterated.
	ids      map[string]string
	bboxes   []box     // of each building's footprint
	nodeByID []idIndex // sorted by id
	laneFrom []int32   // node index of each lane's From
	laneTo   []int32
	laneA    []Vec2 // each lane's centreline
	laneB    []Vec2
}

// fail records the first problem.
func (v *validator) fail(path, format string, args ...any) {
	if v.err == nil {
		v.err = &Error{File: v.file, Path: path, Msg: fmt.Sprintf(format, args...)}
	}
}

func finite(f float32) bool { return !math.IsNaN(float64(f)) && !math.IsInf(float64(f), 0) }

// ValidName reports whether s is a valid name of the format: a level's
// ids, key tags and item ids, and the games' names.
func ValidName(s string) bool { return validName(s) }

// validName reports whether s is a valid id: 1..MaxIDLen bytes of a-z, 0-9,
// '-', '_' and '.', starting with a letter or digit.
func validName(s string) bool {
	if len(s) == 0 || len(s) > MaxIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case (c == '-' || c == '_' || c == '.') && i > 0:
		default:
			return false
		}
	}
	return true
}

// name checks a required name (model, item id).
func (v *validator) name(path, s string) {
	if !validName(s) {
		v.fail(path, "%q is not a valid name: 1 to %d of a-z, 0-9, '-', '_', '.', starting with a letter or digit", s, MaxIDLen)
	}
}

// tag checks an optional name (a key tag): "" or a valid name.
func (v *validator) tag(path, s string) {
	if s != "" {
		v.name(path, s)
	}
}

// id checks a string id and claims it: ids are unique across the level.
func (v *validator) id(path, s string) {
	v.name(path, s)
	if v.err != nil {
		return
	}
	if owner, taken := v.ids[s]; taken {
		v.fail(path, "%q is already the id of %s", s, owner)
		return
	}
	v.ids[s] = path
}

// number checks that f is finite and within [lo, hi].
func (v *validator) number(path string, f, lo, hi float32, unit string) {
	switch {
	case !finite(f):
		v.fail(path, "must be a finite number, got %g", f)
	case f < lo || f > hi:
		v.fail(path, "must be from %g to %g %s, got %g", lo, hi, unit, f)
	}
}

// positive checks that f is finite, > 0 and <= hi.
func (v *validator) positive(path string, f, hi float32, unit string) {
	switch {
	case !finite(f):
		v.fail(path, "must be a finite number, got %g", f)
	case f <= 0:
		v.fail(path, "must be > 0 %s, got %g", unit, f)
	case f > hi:
		v.fail(path, "must be at most %g %s, got %g", hi, unit, f)
	}
}

// yaw checks a heading.
func (v *validator) yaw(path string, f float32) {
	v.number(path, f, -twoPi, twoPi, "radians")
}

// oneOf checks that s is one of known.
func oneOf[T ~string](v *validator, path string, s T, known []T) {
	if !slices.Contains(known, s) {
		v.fail(path, "unknown value %q, want one of %q", s, known)
	}
}

// point checks that p is finite and on the ground.
func (v *validator) point(path string, p Vec2) {
	g := v.l.Ground
	switch {
	case !finite(p.X) || !finite(p.Y):
		v.fail(path, "must be finite, got [%g, %g]", p.X, p.Y)
	case p.X < g.Min.X || p.X > g.Max.X || p.Y < g.Min.Y || p.Y > g.Max.Y:
		v.fail(path, "[%g, %g] lies outside the ground [%g, %g]..[%g, %g]", p.X, p.Y, g.Min.X, g.Min.Y, g.Max.X, g.Max.Y)
	}
}

// clearPoint checks that p is on the ground and outside every building.
func (v *validator) clearPoint(path string, p Vec2) {
	v.point(path, p)
	if v.err != nil {
		return
	}
	if i := buildingAt(v.l.Buildings, v.bboxes, p); i >= 0 {
		v.fail(path, "[%g, %g] lies inside buildings[%d] (%q)", p.X, p.Y, i, v.l.Buildings[i].ID)
	}
}

// count checks an integer count within [lo, hi].
func (v *validator) count(path string, n, lo, hi int) {
	if n < lo || n > hi {
		v.fail(path, "must be from %d to %d, got %d", lo, hi, n)
	}
}

// polygon checks a simple counter-clockwise polygon on the ground.
func (v *validator) polygon(path string, poly []Vec2) {
	n := len(poly)
	if n < 3 || n > MaxPolygonPoints {
		v.fail(path, "must have 3 to %d points, got %d", MaxPolygonPoints, n)
		return
	}
	for i, p := range poly {
		v.point(fmt.Sprintf("%s[%d]", path, i), p)
		if v.err != nil {
			return
		}
	}
	for i := range n {
		if poly[i] == poly[(i+1)%n] {
			v.fail(fmt.Sprintf("%s[%d]", path, (i+1)%n), "repeats the point before it")
			return
		}
	}
	// Simple: no two edges meet except neighbours at their shared point,
	// and neighbours do not fold back onto each other.
	for i := range n {
		a, b := poly[i], poly[(i+1)%n]
		for j := i + 1; j < n; j++ {
			c, d := poly[j], poly[(j+1)%n]
			adjacent := j == i+1 || (i == 0 && j == n-1)
			if adjacent {
				// Neighbours share one point; they overlap only when
				// collinear and folding back.
				p, q, r := a, b, d // i then j = i+1: a-b, b-d
				if i == 0 && j == n-1 {
					p, q, r = c, a, b // j then i: c-a, a-b
				}
				if orient(p, q, r) == 0 && (q.Sub(p)).Dot(r.Sub(q)) < 0 {
					v.fail(path, "edges %d and %d fold back onto each other", i, j)
					return
				}
				continue
			}
			if segmentsTouch(a, b, c, d) {
				v.fail(path, "edges %d and %d cross or touch: the polygon must be simple", i, j)
				return
			}
		}
	}
	if SignedArea(poly) <= 0 {
		v.fail(path, "must wind counter-clockwise (seen from above), its signed area is %g m²", SignedArea(poly))
	}
}

func (v *validator) header() {
	l := v.l
	if !validName(l.Name) {
		v.fail("name", "%q is not a valid level name: 1 to %d of a-z, 0-9, '-', '_', '.'", l.Name, MaxIDLen)
	}
	if l.Version != FormatVersion {
		v.fail("version", "this loader reads version %d, got %d", FormatVersion, l.Version)
	}
}

func (v *validator) ground() {
	g := v.l.Ground
	for _, c := range []struct {
		path string
		p    Vec2
	}{{"ground.min", g.Min}, {"ground.max", g.Max}} {
		v.number(c.path+"[0]", c.p.X, -MaxGroundSize, MaxGroundSize, "m")
		v.number(c.path+"[1]", c.p.Y, -MaxGroundSize, MaxGroundSize, "m")
	}
	if v.err != nil {
		return
	}
	if !(g.Max.X > g.Min.X && g.Max.Y > g.Min.Y) {
		v.fail("ground.max", "[%g, %g] must lie north-east of ground.min [%g, %g]", g.Max.X, g.Max.Y, g.Min.X, g.Min.Y)
		return
	}
	if g.Max.X-g.Min.X > MaxGroundSize || g.Max.Y-g.Min.Y > MaxGroundSize {
		v.fail("ground", "is %g x %g m, more than %d m a side", g.Max.X-g.Min.X, g.Max.Y-g.Min.Y, MaxGroundSize)
	}
	v.number("ground.height", g.Height, -MaxGroundSize, MaxGroundSize, "m")
}

func (v *validator) rules() {
	r := v.l.Rules
	if r.Traffic != nil {
		v.count("rules.traffic", *r.Traffic, 0, MaxRuleCount)
	}
	if r.Pedestrians != nil {
		v.count("rules.pedestrians", *r.Pedestrians, 0, MaxRuleCount)
	}
}

func (v *validator) buildings() {
	v.bboxes = make([]box, len(v.l.Buildings))
	for i := range v.l.Buildings {
		b := &v.l.Buildings[i]
		p := fmt.Sprintf("buildings[%d]", i)
		v.id(p+".id", b.ID)
		v.polygon(p+".footprint", b.Footprint)
		v.positive(p+".height", b.Height, MaxGroundSize, "m")
		oneOf(v, p+".use", b.Use, BuildingUses)
		if v.err != nil {
			return
		}
		v.bboxes[i] = boundsOf(b.Footprint)
	}
}

func (v *validator) nodes() {
	nodes := v.l.Roads.Nodes
	v.nodeByID = make([]idIndex, len(nodes))
	for i := range nodes {
		n := &nodes[i]
		p := fmt.Sprintf("roads.nodes[%d]", i)
		if n.ID < 0 {
			v.fail(p+".id", "must be >= 0, got %d", n.ID)
		}
		v.point(p+".pos", n.Pos)
		if v.err != nil {
			return
		}
		v.nodeByID[i] = idIndex{id: n.ID, i: int32(i)}
	}
	slices.SortFunc(v.nodeByID, func(a, b idIndex) int { return cmp.Or(cmp.Compare(a.id, b.id), cmp.Compare(a.i, b.i)) })
	for k := 1; k < len(v.nodeByID); k++ {
		if a, b := v.nodeByID[k-1], v.nodeByID[k]; a.id == b.id {
			v.fail(fmt.Sprintf("roads.nodes[%d].id", b.i), "%d is already the id of roads.nodes[%d]", b.id, a.i)
			return
		}
	}
}

func (v *validator) lanes() {
	lanes := v.l.Roads.Lanes
	nodes := v.l.Roads.Nodes
	n := len(lanes)
	v.laneFrom, v.laneTo = make([]int32, n), make([]int32, n)
	v.laneA, v.laneB = make([]Vec2, n), make([]Vec2, n)
	type laneKey struct {
		from, to int
		offset   float32
	}
	seenID := make(map[int]int, n)
	seenWay := make(map[laneKey]int, n)
	for i := range lanes {
		ln := &lanes[i]
		p := fmt.Sprintf("roads.lanes[%d]", i)
		if ln.ID < 0 {
			v.fail(p+".id", "must be >= 0, got %d", ln.ID)
		} else if j, dup := seenID[ln.ID]; dup {
			v.fail(p+".id", "%d is already the id of roads.lanes[%d]", ln.ID, j)
		}
		seenID[ln.ID] = i
		from, okFrom := findID(v.nodeByID, ln.From)
		to, okTo := findID(v.nodeByID, ln.To)
		switch {
		case !okFrom:
			v.fail(p+".from", "node %d does not exist", ln.From)
		case !okTo:
			v.fail(p+".to", "node %d does not exist", ln.To)
		case ln.From == ln.To:
			v.fail(p+".to", "is the lane's from node %d: a lane joins two nodes", ln.To)
		case nodes[from].Pos == nodes[to].Pos:
			v.fail(p+".to", "node %d lies where node %d does: the lane has no length", ln.To, ln.From)
		}
		v.positive(p+".width", ln.Width, MaxLaneWidth, "m")
		v.number(p+".offset", ln.Offset, 0, MaxLaneOffset, "m")
		v.positive(p+".speedLimit", ln.SpeedLimit, MaxSpeedLimit, "m/s")
		if v.err != nil {
			return
		}
		key := laneKey{ln.From, ln.To, ln.Offset}
		if j, dup := seenWay[key]; dup {
			v.fail(p, "runs from node %d to node %d at offset %g like roads.lanes[%d]", ln.From, ln.To, ln.Offset, j)
			return
		}
		seenWay[key] = i
		v.laneFrom[i], v.laneTo[i] = int32(from), int32(to)
		v.laneA[i], v.laneB[i] = laneLine(nodes[from].Pos, nodes[to].Pos, ln.Offset)
		v.point(p+".offset", v.laneA[i])
		v.point(p+".offset", v.laneB[i])
	}
}

func (v *validator) pavements() {
	for i := range v.l.Pavements {
		pv := &v.l.Pavements[i]
		p := fmt.Sprintf("pavements[%d]", i)
		v.id(p+".id", pv.ID)
		least := 2
		if pv.Closed {
			least = 3
		}
		if len(pv.Points) < least || len(pv.Points) > MaxEntries {
			v.fail(p+".points", "must have %d to %d points, got %d", least, MaxEntries, len(pv.Points))
			return
		}
		for k, q := range pv.Points {
			v.point(fmt.Sprintf("%s.points[%d]", p, k), q)
			if k > 0 && q == pv.Points[k-1] {
				v.fail(fmt.Sprintf("%s.points[%d]", p, k), "repeats the point before it")
			}
		}
		if pv.Closed && pv.Points[0] == pv.Points[len(pv.Points)-1] {
			v.fail(fmt.Sprintf("%s.points[%d]", p, len(pv.Points)-1), "repeats the first point: a closed pavement joins its ends itself")
		}
		v.positive(p+".width", pv.Width, MaxLaneWidth, "m")
		if v.err != nil {
			return
		}
	}
}

func (v *validator) zones() {
	for i := range v.l.Zones {
		z := &v.l.Zones[i]
		p := fmt.Sprintf("zones[%d]", i)
		v.id(p+".id", z.ID)
		oneOf(v, p+".kind", z.Kind, ZoneKinds)
		v.polygon(p+".polygon", z.Polygon)
		if v.err != nil {
			return
		}
	}
}

func (v *validator) spawns() {
	for i := range v.l.Spawns {
		s := &v.l.Spawns[i]
		p := fmt.Sprintf("spawns[%d]", i)
		if s.ID != "" {
			v.id(p+".id", s.ID)
		}
		oneOf(v, p+".role", s.Role, SpawnRoles)
		if s.Role == RolePlace && s.ID == "" && v.err == nil {
			v.fail(p+".id", "a place needs an id: nothing comes out of it, it is found by its id")
		}
		v.clearPoint(p+".pos", s.Pos)
		v.yaw(p+".yaw", s.Yaw)
		if v.err != nil {
			return
		}
	}
}

func (v *validator) spawnAreas() {
	for i := range v.l.SpawnAreas {
		a := &v.l.SpawnAreas[i]
		p := fmt.Sprintf("spawnAreas[%d]", i)
		v.id(p+".id", a.ID)
		oneOf(v, p+".role", a.Role, AreaRoles)
		v.polygon(p+".polygon", a.Polygon)
		if v.err != nil {
			return
		}
	}
}

func (v *validator) gates() {
	for i := range v.l.Gates {
		g := &v.l.Gates[i]
		p := fmt.Sprintf("gates[%d]", i)
		v.id(p+".id", g.ID)
		oneOf(v, p+".kind", g.Kind, GateKinds)
		v.clearPoint(p+".pos", g.Pos)
		v.yaw(p+".yaw", g.Yaw)
		v.positive(p+".width", g.Width, MaxGateWidth, "m")
		v.tag(p+".rule.keyTag", g.Rule.KeyTag)
		if v.err != nil {
			return
		}
	}
}

func (v *validator) vehicleSpawners() {
	for i := range v.l.VehicleSpawners {
		s := &v.l.VehicleSpawners[i]
		p := fmt.Sprintf("vehicleSpawners[%d]", i)
		v.id(p+".id", s.ID)
		if s.Model != "" || s.Garage == "" {
			v.name(p+".model", s.Model)
		}
		if len(s.Bays) == 0 {
			v.fail(p+".bays", "must have at least one bay")
		}
		for k, b := range s.Bays {
			v.clearPoint(fmt.Sprintf("%s.bays[%d].pos", p, k), b.Pos)
			v.yaw(fmt.Sprintf("%s.bays[%d].yaw", p, k), b.Yaw)
		}
		v.number(p+".respawn", s.Respawn, 0, math.MaxFloat32, "s")
		v.tag(p+".keyTag", s.KeyTag)
		if s.Garage != "" {
			v.buildingRef(p+".garage", s.Garage, UseGarage)
		}
		if s.Price < 0 {
			v.fail(p+".price", "must be >= 0, got %d", s.Price)
		}
		if s.Price > 0 && s.Garage == "" {
			v.fail(p+".price", "is a garage's price: set garage too")
		}
		if v.err != nil {
			return
		}
	}
}

// buildingRef checks that id names a building, of the given use unless use
// is "".
func (v *validator) buildingRef(path, id string, use BuildingUse) {
	for i := range v.l.Buildings {
		b := &v.l.Buildings[i]
		if b.ID != id {
			continue
		}
		if use != "" && b.Use != use {
			v.fail(path, "building %q is a %q, not a %q", id, b.Use, use)
		}
		return
	}
	v.fail(path, "building %q does not exist", id)
}

func (v *validator) npcSpawners() {
	for i := range v.l.NPCSpawners {
		s := &v.l.NPCSpawners[i]
		p := fmt.Sprintf("npcSpawners[%d]", i)
		v.id(p+".id", s.ID)
		oneOf(v, p+".role", s.Role, NPCRoles)
		v.clearPoint(p+".pos", s.Pos)
		v.yaw(p+".yaw", s.Yaw)
		v.count(p+".count", s.Count, 1, MaxNPCCount)
		v.number(p+".radius", s.Radius, 0, MaxGroundSize, "m")
		if len(s.Patrol) == 1 {
			v.fail(p+".patrol", "must have no points or at least 2, got 1")
		}
		for k, q := range s.Patrol {
			v.clearPoint(fmt.Sprintf("%s.patrol[%d]", p, k), q)
		}
		if sc := s.Schedule; sc != nil {
			v.number(p+".schedule.every", sc.Every, 0, math.MaxFloat32, "s")
			v.number(p+".schedule.from", sc.From, 0, 24, "h")
			v.number(p+".schedule.to", sc.To, 0, 24, "h")
		}
		v.stacks(p+".items", s.Items)
		if v.err != nil {
			return
		}
	}
}

func (v *validator) shops() {
	for i := range v.l.Shops {
		s := &v.l.Shops[i]
		p := fmt.Sprintf("shops[%d]", i)
		v.id(p+".id", s.ID)
		if s.Building != "" {
			v.buildingRef(p+".building", s.Building, "")
		}
		v.clearPoint(p+".pos", s.Pos)
		v.yaw(p+".yaw", s.Yaw)
		if len(s.Items) == 0 {
			v.fail(p+".items", "must list at least one item")
		}
		for k, it := range s.Items {
			v.name(fmt.Sprintf("%s.items[%d]", p, k), it)
			if slices.Contains(s.Items[:k], it) {
				v.fail(fmt.Sprintf("%s.items[%d]", p, k), "%q is listed twice", it)
			}
		}
		if v.err != nil {
			return
		}
	}
}

func (v *validator) containers() {
	for i := range v.l.Containers {
		c := &v.l.Containers[i]
		p := fmt.Sprintf("containers[%d]", i)
		v.id(p+".id", c.ID)
		oneOf(v, p+".kind", c.Kind, ContainerKinds)
		v.clearPoint(p+".pos", c.Pos)
		v.yaw(p+".yaw", c.Yaw)
		v.tag(p+".keyTag", c.KeyTag)
		v.stacks(p+".items", c.Items)
		if v.err != nil {
			return
		}
	}
}

// stacks checks a list of item stacks at path.
func (v *validator) stacks(path string, list []Stack) {
	for k, s := range list {
		v.name(fmt.Sprintf("%s[%d].item", path, k), s.Item)
		v.count(fmt.Sprintf("%s[%d].count", path, k), s.Count, 1, MaxStack)
	}
}

func (v *validator) pickups() {
	for i := range v.l.Pickups {
		s := &v.l.Pickups[i]
		p := fmt.Sprintf("pickups[%d]", i)
		v.name(p+".item", s.Item)
		v.count(p+".count", s.Count, 1, MaxStack)
		v.clearPoint(p+".pos", s.Pos)
		if v.err != nil {
			return
		}
	}
}

func (v *validator) cameras() {
	for i := range v.l.Cameras {
		c := &v.l.Cameras[i]
		p := fmt.Sprintf("cameras[%d]", i)
		v.id(p+".id", c.ID)
		v.clearPoint(p+".pos", c.Pos)
		v.yaw(p+".yaw", c.Yaw)
		v.positive(p+".arc", c.Arc, twoPi, "radians")
		v.positive(p+".range", c.Range, MaxCameraRange, "m")
		v.number(p+".sweep", c.Sweep, 0, math.Pi, "radians")
		switch {
		case v.err != nil:
		case c.Sweep > 0:
			v.positive(p+".period", c.Period, MaxCameraPeriod, "s")
		case c.Period != 0:
			v.fail(p+".period", "must be left out (0) for a camera that does not sweep, got %g", c.Period)
		}
		if v.err != nil {
			return
		}
	}
}

// overlaps checks that no building stands on a lane or a pavement: the
// traffic and the pedestrians would walk into a wall.
func (v *validator) overlaps() {
	for i := range v.l.Buildings {
		b := &v.l.Buildings[i]
		bb := v.bboxes[i]
		for k := range v.l.Roads.Lanes {
			ln := &v.l.Roads.Lanes[k]
			a, c := v.laneA[k], v.laneB[k]
			if !bb.overlaps(boundsOf([]Vec2{a, c}).grow(ln.Width / 2)) {
				continue
			}
			if segmentNearPolygon(a, c, ln.Width/2, b.Footprint) {
				v.fail(fmt.Sprintf("buildings[%d].footprint", i), "building %q stands on roads.lanes[%d] (lane %d)", b.ID, k, ln.ID)
				return
			}
		}
		for k := range v.l.Pavements {
			pv := &v.l.Pavements[k]
			if s := pavementOn(pv, bb, b.Footprint); s >= 0 {
				v.fail(fmt.Sprintf("buildings[%d].footprint", i), "building %q stands on pavements[%d] (%q), segment %d", b.ID, k, pv.ID, s)
				return
			}
		}
	}
}

// pavementOn returns the first segment of pv that overlaps the polygon poly
// (bounding box bb), or -1.
func pavementOn(pv *Pavement, bb box, poly []Vec2) int {
	n := len(pv.Points)
	segs := n - 1
	if pv.Closed {
		segs = n
	}
	r := pv.Width / 2
	for s := range segs {
		a, b := pv.Points[s], pv.Points[(s+1)%n]
		if !bb.overlaps(boundsOf([]Vec2{a, b}).grow(r)) {
			continue
		}
		if segmentNearPolygon(a, b, r, poly) {
			return s
		}
	}
	return -1
}

// laneLine returns a lane's centreline: the segment a-b moved offset to its
// right.
func laneLine(a, b Vec2, offset float32) (Vec2, Vec2) {
	d := b.Sub(a)
	r := d.Right().Scale(offset / d.Len())
	return a.Add(r), b.Add(r)
}

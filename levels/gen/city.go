package main

import (
	"fmt"
	"math"

	"github.com/fiveonit/engine/levels"
)

// The city's plan. Every length is a multiple of 0.25 m and every sum of
// them is exact in float64, so no rounding (or fused multiply-add) can make
// two machines disagree.
const (
	lines         = 9                        // road lines each way: 8 x 8 blocks between them
	pitch         = 96.0                     // metres between neighbouring road centrelines
	half          = pitch * (lines - 1) / 2  // the outer ring road's distance from the origin
	margin        = 96.0                     // open ground beyond the ring road
	laneWidth     = 3.5                      // every lane
	pavementWidth = 4.0                      // every pavement
	setback       = 1.0                      // between a pavement and the lots behind it
	alley         = 4.0                      // between neighbouring lots
	wallThick     = 0.5                      // the yard's walls
	seed          = uint64(0x5eed_c17e_2026) // the random choices' seed
)

// Headings.
const (
	east  float32 = 0
	north float32 = math.Pi / 2
	west  float32 = math.Pi
	south float32 = -math.Pi / 2
)

// Speed limits, in metres per second.
const (
	majorSpeed    = 20 // 72 km/h on the ring and the central avenues
	minorSpeed    = 14 // about 50 km/h on the other streets
	drivewaySpeed = 5
)

// The special blocks, by (column, row) from the south-west.
var (
	hospitalBlock = [2]int{1, 6}
	policeBlock   = [2]int{6, 1}
	garageBlock   = [2]int{2, 2}
	yardBlock     = [2]int{6, 6}
	parkBlock     = [2]int{3, 3}
	shopBlocks    = [][2]int{{5, 4}, {2, 5}, {4, 5}}
)

// major reports whether road line i is a major road (two lanes each way):
// the ring road and the central avenues.
func major(i int) bool { return i == 0 || i == lines/2 || i == lines-1 }

// halfWidth is the half-width of road line i, kerb to kerb.
func halfWidth(i int) float64 {
	if major(i) {
		return 7.5
	}
	return 5
}

// line is the coordinate of road line i's centreline.
func line(i int) float64 { return -half + pitch*float64(i) }

// rect is an axis-aligned rectangle.
type rect struct{ x0, y0, x1, y1 float64 }

func (r rect) cx() float64 { return (r.x0 + r.x1) / 2 }
func (r rect) w() float64  { return r.x1 - r.x0 }
func (r rect) h() float64  { return r.y1 - r.y0 }

// poly returns r counter-clockwise from its south-west corner.
func (r rect) poly() []levels.Vec2 {
	return []levels.Vec2{v(r.x0, r.y0), v(r.x1, r.y0), v(r.x1, r.y1), v(r.x0, r.y1)}
}

// inset returns r shrunk by d on every side.
func (r rect) inset(d float64) rect { return rect{r.x0 + d, r.y0 + d, r.x1 - d, r.y1 - d} }

func v(x, y float64) levels.Vec2 { return levels.Vec2{X: float32(x), Y: float32(y)} }

// blockArea is block (bx, by) with its pavements: kerb to kerb.
func blockArea(bx, by int) rect {
	return rect{
		line(bx) + halfWidth(bx), line(by) + halfWidth(by),
		line(bx+1) - halfWidth(bx+1), line(by+1) - halfWidth(by+1),
	}
}

// lotArea is block (bx, by) inside its pavements and setback: where its
// buildings stand.
func lotArea(bx, by int) rect { return blockArea(bx, by).inset(pavementWidth + setback) }

// floorHalf rounds x down to a multiple of 0.5.
func floorHalf(x float64) float64 { return math.Floor(x*2) / 2 }

// rng is splitmix64: small, fast and the same everywhere.
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// intn returns a number in [0, n).
func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

// segKey names a road segment: between road lines seg and seg+1 along road
// line `line`, horizontal (east-west) or vertical.
type segKey struct {
	vertical  bool
	line, seg int
}

// split is a node that cuts a road segment (a driveway's junction).
type split struct {
	node int
	at   float64 // coordinate along the segment
}

// builder gathers the level.
type builder struct {
	l        *levels.Level
	nextNode int
	nextLane int
	splits   map[segKey][]split // looked up by key, never iterated
}

func city() *levels.Level {
	traffic, pedestrians := 40, 60
	b := &builder{
		l: &levels.Level{
			Name:    "main-city",
			Version: levels.FormatVersion,
			Ground: levels.Ground{
				Min: v(-half-margin, -half-margin), Max: v(half+margin, half+margin),
			},
			Rules: levels.Rules{Traffic: &traffic, Pedestrians: &pedestrians},
		},
		nextNode: 100, // after the grid's nodes
		splits:   make(map[segKey][]split),
	}
	policeLot := b.driveway(policeBlock, 14)
	yardIn := b.driveway(yardBlock, 16)
	b.roads()
	b.drivewayLanes(policeLot)
	b.drivewayLanes(yardIn)
	b.signals() // signals.go
	b.races()
	b.playerSpawns()
	b.blocks()
	b.trafficSpawns()
	b.policeBeats()
	b.cameras()
	b.missionSpawns() // missions.go
	b.keys()          // keys.go
	return b.l
}

// node adds a road node.
func (b *builder) node(id int, x, y float64, intersection bool) {
	b.l.Roads.Nodes = append(b.l.Roads.Nodes, levels.Node{ID: id, Pos: v(x, y), Intersection: intersection})
}

// lane adds a lane.
func (b *builder) lane(from, to int, offset float64, speed float32, noTraffic bool) {
	b.l.Roads.Lanes = append(b.l.Roads.Lanes, levels.Lane{
		ID: b.nextLane, From: from, To: to, Width: laneWidth, Offset: float32(offset),
		SpeedLimit: speed, NoTraffic: noTraffic,
	})
	b.nextLane++
}

// twoWay adds the lanes of a two-way road between two nodes: perWay lanes
// each way, side by side to the right of the centreline.
func (b *builder) twoWay(p, q, perWay int, speed float32, noTraffic bool) {
	for k := range perWay {
		b.lane(p, q, laneWidth/2+laneWidth*float64(k), speed, noTraffic)
	}
	for k := range perWay {
		b.lane(q, p, laneWidth/2+laneWidth*float64(k), speed, noTraffic)
	}
}

// gridNode is the id of the intersection of road lines i (x) and j (y).
func gridNode(i, j int) int { return j*lines + i }

// drivewayPlan is a driveway from the road south of a block north into it.
type drivewayPlan struct {
	junction, end int // node ids
}

// driveway plans a driveway into block (bx, by) from the road on its south
// side, at the block's middle, depth metres into the lot area. Plan every
// driveway before roads: its junction cuts the road's segment.
func (b *builder) driveway(block [2]int, depth float64) drivewayPlan {
	bx, by := block[0], block[1]
	a := lotArea(bx, by)
	x := a.cx()
	p := drivewayPlan{junction: b.nextNode, end: b.nextNode + 1}
	b.nextNode += 2
	key := segKey{vertical: false, line: by, seg: bx}
	b.splits[key] = append(b.splits[key], split{node: p.junction, at: x})
	b.node(p.junction, x, line(by), true)
	b.node(p.end, x, a.y0+depth, false)
	return p
}

// drivewayLanes adds a planned driveway's lanes, off limits to the traffic.
func (b *builder) drivewayLanes(p drivewayPlan) {
	b.twoWay(p.junction, p.end, 1, drivewaySpeed, true)
}

// roads adds the grid's intersections and the two-way roads between them,
// cut where driveways join.
func (b *builder) roads() {
	for j := range lines {
		for i := range lines {
			b.node(gridNode(i, j), line(i), line(j), true)
		}
	}
	for _, vertical := range []bool{false, true} {
		for ln := range lines {
			perWay, speed := 1, float32(minorSpeed)
			if major(ln) {
				perWay, speed = 2, majorSpeed
			}
			for seg := range lines - 1 {
				start, end := gridNode(seg, ln), gridNode(seg+1, ln)
				if vertical {
					start, end = gridNode(ln, seg), gridNode(ln, seg+1)
				}
				prev := start
				for _, s := range b.splits[segKey{vertical, ln, seg}] {
					b.twoWay(prev, s.node, perWay, speed, false)
					prev = s.node
				}
				b.twoWay(prev, end, perWay, speed, false)
			}
		}
	}
}

// spawn adds a spawn point.
func (b *builder) spawn(role levels.SpawnRole, x, y float64, yaw float32) {
	b.l.Spawns = append(b.l.Spawns, levels.Spawn{Role: role, Pos: v(x, y), Yaw: yaw})
}

// onLane returns the point d metres along the inner lane of the segment
// between road lines seg and seg+1 on horizontal road line j, driving east
// (or west when west is set), and its heading.
func onLane(seg, j int, d float64, westward bool) (x, y float64, yaw float32) {
	if westward {
		return line(seg+1) - d, line(j) + laneWidth/2, west
	}
	return line(seg) + d, line(j) - laneWidth/2, east
}

// playerSpawns puts the players' spawn points on the streets, spread over
// the city, each on a lane facing its way.
func (b *builder) playerSpawns() {
	for k, at := range [][2]int{{0, 2}, {3, 2}, {6, 2}, {1, 5}, {4, 5}, {7, 5}, {2, 7}, {5, 7}, {3, 1}, {4, 3}} {
		x, y, yaw := onLane(at[0], at[1], 56, k%2 == 1)
		b.spawn(levels.RolePlayer, x, y, yaw)
	}
}

// trafficSpawns puts a traffic spawn point on about two road segments of
// three, on its inner lane 40 m from the intersection it leaves.
func (b *builder) trafficSpawns() {
	for j := range lines {
		for seg := range lines - 1 {
			switch (seg + j) % 3 {
			case 0:
				x, y, yaw := onLane(seg, j, 40, false)
				b.spawn(levels.RoleTraffic, x, y, yaw)
			case 1:
				x, y, yaw := onLane(seg, j, 40, true)
				b.spawn(levels.RoleTraffic, x, y, yaw)
			}
		}
	}
	for i := range lines {
		for seg := range lines - 1 {
			switch (seg + i) % 3 {
			case 0: // northbound: its right is east
				b.spawn(levels.RoleTraffic, line(i)+laneWidth/2, line(seg)+40, north)
			case 1:
				b.spawn(levels.RoleTraffic, line(i)-laneWidth/2, line(seg+1)-40, south)
			}
		}
	}
}

// policeBeats puts a police spawn area over each quarter of the city, the
// ring road's stretch of it included: the police station alone is 500 m
// and more from the far quarters, a drive longer than two stars last
// unseen, so a police car sent after a player comes out of a lane of
// their quarter (round a corner from them: systems/police).
func (b *builder) policeBeats() {
	edge := half + margin/2 // between the ring road and the level's edge
	for _, q := range []struct {
		id     string
		sx, sy float64
	}{{"police-beat-sw", -1, -1}, {"police-beat-se", 1, -1}, {"police-beat-nw", -1, 1}, {"police-beat-ne", 1, 1}} {
		r := rect{min(0, q.sx*edge), min(0, q.sy*edge), max(0, q.sx*edge), max(0, q.sy*edge)}
		b.l.SpawnAreas = append(b.l.SpawnAreas, levels.SpawnArea{ID: q.id, Role: levels.RolePolice, Polygon: r.poly()})
	}
}

// building adds a building.
func (b *builder) building(id string, footprint []levels.Vec2, height float64, use levels.BuildingUse) {
	b.l.Buildings = append(b.l.Buildings, levels.Building{ID: id, Footprint: footprint, Height: float32(height), Use: use})
}

// blocks lays out every block: its pavement, a pedestrian spawn point on
// it and what stands inside.
func (b *builder) blocks() {
	for by := range lines - 1 {
		for bx := range lines - 1 {
			blk := [2]int{bx, by}
			p := blockArea(bx, by).inset(pavementWidth / 2) // the pavement's centreline
			b.l.Pavements = append(b.l.Pavements, levels.Pavement{
				ID: fmt.Sprintf("pavement-%d-%d", bx, by), Points: p.poly(),
				Width: pavementWidth, Closed: true,
			})
			b.spawn(levels.RolePedestrian, p.cx(), p.y0, east)
			switch {
			case blk == hospitalBlock:
				b.hospital(bx, by)
			case blk == policeBlock:
				b.police(bx, by)
			case blk == garageBlock:
				b.garage(bx, by)
			case blk == yardBlock:
				b.yard(bx, by)
			case blk == parkBlock:
				b.park(bx, by)
			default:
				b.lots(bx, by)
			}
		}
	}
}

// lots fills an ordinary block with 2 or 3 by 2 or 3 lots, each with a
// building (a box or an L) or left empty. A shop block's south-west lot is
// its shop.
func (b *builder) lots(bx, by int) {
	r := rng{s: seed ^ uint64(by*lines+bx)*0x100000001b3}
	a := lotArea(bx, by)
	cols, rows := 2+r.intn(2), 2+r.intn(2)
	shop := -1
	for k, s := range shopBlocks {
		if s == [2]int{bx, by} {
			shop = k
		}
	}
	// How tall: the rings round the centre, 0 (the middle four) to 3.
	ring := max(abs(2*bx-7), abs(2*by-7)) / 2
	n := 0
	for row := range rows {
		for col := range cols {
			lot := rect{
				cut(a.x0, a.w(), cols, col), cut(a.y0, a.h(), rows, row),
				cut(a.x0, a.w(), cols, col+1) - alley, cut(a.y0, a.h(), rows, row+1) - alley,
			}
			if col == cols-1 {
				lot.x1 = a.x1
			}
			if row == rows-1 {
				lot.y1 = a.y1
			}
			id := fmt.Sprintf("b-%d-%d-%d", bx, by, n)
			n++
			if shop >= 0 && row == 0 && col == 0 {
				b.shop(shop, id, lot.inset(1))
				continue
			}
			if r.intn(8) == 0 {
				continue // an empty lot: a car park, a yard
			}
			fp := lot.inset(0.5 * float64(r.intn(5)))
			floors := 2 + r.intn(3) + 4*(3-ring) + r.intn(1+3*(3-ring))
			use := lotUse(ring, r.intn(4))
			if fp.w() >= 24 && fp.h() >= 24 && r.intn(5) == 0 {
				b.building(id, lShape(fp), 3.5*float64(floors)+2, use)
				continue
			}
			b.building(id, fp.poly(), 3.5*float64(floors)+2, use)
		}
	}
}

// cut returns where part k of n parts of a length from start begins, the
// parts separated by alleys and rounded to half metres.
func cut(start, length float64, n, k int) float64 {
	if k == 0 {
		return start
	}
	part := floorHalf((length - alley*float64(n-1)) / float64(n))
	return start + float64(k)*(part+alley)
}

// lotUse chooses a building's use by its ring (0 the middle) and a roll of
// 0..3.
func lotUse(ring, roll int) levels.BuildingUse {
	uses := [4][4]levels.BuildingUse{
		{levels.UseOffice, levels.UseOffice, levels.UseCommercial, levels.UseOffice},
		{levels.UseCommercial, levels.UseOffice, levels.UseResidential, levels.UseCommercial},
		{levels.UseResidential, levels.UseResidential, levels.UseCommercial, levels.UseGeneric},
		{levels.UseResidential, levels.UseIndustrial, levels.UseWarehouse, levels.UseResidential},
	}
	return uses[ring][roll]
}

// lShape returns r without its north-east quarter, counter-clockwise.
func lShape(r rect) []levels.Vec2 {
	xm, ym := r.x0+floorHalf(r.w()/2), r.y0+floorHalf(r.h()/2)
	return []levels.Vec2{v(r.x0, r.y0), v(r.x1, r.y0), v(r.x1, ym), v(xm, ym), v(xm, r.y1), v(r.x0, r.y1)}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// shops' names and stock.
var shopStock = []struct {
	id    string
	items []string
}{
	{"corner-shop", []string{"water", "snack", "bandage"}},
	{"pharmacy", []string{"bandage", "medkit", "painkillers"}},
	// By the first player spawn: what a player new to the city wants
	// first, to force a locked car and to fight back.
	{"pawn-shop", []string{"crowbar", "pistol", "pistol-ammo"}},
}

// shop puts shop k's building on lot r, its counter in front of it (south)
// and a few customers by day.
func (b *builder) shop(k int, id string, r rect) {
	s := shopStock[k]
	b.building(id, r.poly(), 8, levels.UseShop)
	b.l.Shops = append(b.l.Shops, levels.Shop{
		ID: s.id, Building: id, Pos: v(r.cx(), r.y0-1.5), Yaw: south, Items: s.items,
	})
	b.l.NPCSpawners = append(b.l.NPCSpawners, levels.NPCSpawner{
		ID: s.id + "-customers", Role: levels.NPCCivilian, Pos: v(r.cx(), r.y0-3), Yaw: north,
		Count: 2, Radius: 3, Schedule: &levels.Schedule{Every: 120, From: 8, To: 20},
	})
}

// hospital fills its block with the hospital: a forecourt to the south
// with the hospital spawn points, and the block a safe zone.
func (b *builder) hospital(bx, by int) {
	a := lotArea(bx, by)
	b.building("hospital", rect{a.x0 + 8, a.y0 + 18, a.x1 - 8, a.y1 - 6}.poly(), 30, levels.UseHospital)
	b.spawn(levels.RoleHospital, a.cx()-6, a.y0+8, south)
	b.spawn(levels.RoleHospital, a.cx()+6, a.y0+8, south)
	b.l.Zones = append(b.l.Zones, levels.Zone{ID: "hospital-grounds", Kind: levels.ZoneSafe, Polygon: blockArea(bx, by).poly()})
}

// police fills its block with the police station: the station to the
// north, a car park to the south behind a barrier with the police cars'
// spawn points (a restricted zone), an evidence locker and the mayor's
// office hours.
func (b *builder) police(bx, by int) {
	a := lotArea(bx, by)
	cx := a.cx()
	b.building("police-station", rect{a.x0 + 6, a.y0 + 34, a.x1 - 6, a.y1 - 2}.poly(), 16, levels.UsePolice)
	for _, dx := range []float64{-12, 12, 24} {
		b.spawn(levels.RolePolice, cx+dx, a.y0+22, south)
	}
	b.l.Gates = append(b.l.Gates, levels.Gate{
		ID: "police-barrier", Kind: levels.GateBarrier, Pos: v(cx, a.y0+0.5), Yaw: north, Width: 8,
		Rule: levels.GateRule{Police: true},
	})
	b.l.Zones = append(b.l.Zones, levels.Zone{ID: "police-lot", Kind: levels.ZoneRestricted, Polygon: rect{a.x0, a.y0, a.x1, a.y0 + 32}.poly()})
	b.l.Containers = append(b.l.Containers, levels.Container{
		ID: "evidence-locker", Kind: levels.ContainerLocker, Pos: v(a.x0+3, a.y0+30), Yaw: east,
		Locked: true, KeyTag: "police",
		Items: []levels.Stack{{Item: "cash", Count: 500}, {Item: "pistol", Count: 1}},
	})
	b.l.NPCSpawners = append(b.l.NPCSpawners, levels.NPCSpawner{
		ID: "mayor", Role: levels.NPCVIP, Pos: v(cx+20, a.y0+30), Yaw: south, Count: 1,
		Schedule: &levels.Schedule{From: 9, To: 17},
	})
}

// garage fills its block with the garage: four bays on its forecourt,
// free for the cars players keep there, a driver, and a block of flats
// behind.
func (b *builder) garage(bx, by int) {
	a := lotArea(bx, by)
	cx := a.cx()
	b.building("garage", rect{a.x0 + 10, a.y0 + 22, a.x1 - 10, a.y0 + 46}.poly(), 7, levels.UseGarage)
	b.building(fmt.Sprintf("b-%d-%d-0", bx, by), rect{a.x0 + 4, a.y0 + 52, a.x1 - 4, a.y1 - 2}.poly(), 23, levels.UseResidential)
	var bays []levels.Bay
	for _, dx := range []float64{-12, -4, 4, 12} {
		bays = append(bays, levels.Bay{Pos: v(cx+dx, a.y0+12), Yaw: north})
	}
	b.l.VehicleSpawners = append(b.l.VehicleSpawners, levels.VehicleSpawner{
		ID: "garage-bays", Bays: bays, Garage: "garage", Price: 500,
	})
	b.l.NPCSpawners = append(b.l.NPCSpawners, levels.NPCSpawner{
		ID: "garage-driver", Role: levels.NPCDriver, Pos: v(a.x0+4, a.y0+6), Yaw: north, Count: 1,
		Schedule: &levels.Schedule{Every: 300},
	})
}

// yard fills its block with the gated yard: walls round the lot area with
// a gate in the south wall (the driveway comes in through it), a
// warehouse, crates and a locker, a van, guards on patrol, a target at
// night, and a restricted zone over it all.
func (b *builder) yard(bx, by int) {
	a := lotArea(bx, by)
	cx := a.cx()
	const gap = 5 // half the gate's opening
	walls := []rect{
		{a.x0, a.y0, cx - gap, a.y0 + wallThick},
		{cx + gap, a.y0, a.x1, a.y0 + wallThick},
		{a.x1 - wallThick, a.y0 + wallThick, a.x1, a.y1 - wallThick},
		{a.x0, a.y1 - wallThick, a.x1, a.y1},
		{a.x0, a.y0 + wallThick, a.x0 + wallThick, a.y1 - wallThick},
	}
	for k, w := range walls {
		b.building(fmt.Sprintf("yard-wall-%d", k), w.poly(), 3.5, levels.UseWall)
	}
	b.building("yard-warehouse", rect{a.x0 + 8, a.y0 + 40, a.x1 - 8, a.y1 - 6}.poly(), 10, levels.UseWarehouse)
	b.l.Gates = append(b.l.Gates, levels.Gate{
		ID: "yard-gate", Kind: levels.GateGate, Pos: v(cx, a.y0+wallThick/2), Yaw: north, Width: 2 * gap,
		Rule: levels.GateRule{KeyTag: "yard", Police: true},
	})
	b.l.Zones = append(b.l.Zones, levels.Zone{ID: "yard", Kind: levels.ZoneRestricted, Polygon: a.poly()})
	b.spawn(levels.RoleGuard, a.x0+6, a.y0+20, east)
	b.spawn(levels.RoleGuard, a.x1-6, a.y0+20, west)
	b.l.Containers = append(b.l.Containers,
		levels.Container{ID: "yard-crate-0", Kind: levels.ContainerCrate, Pos: v(a.x0+6, a.y0+30), Yaw: east,
			Items: []levels.Stack{{Item: "pistol-ammo", Count: 24}}},
		levels.Container{ID: "yard-crate-1", Kind: levels.ContainerCrate, Pos: v(a.x0+9, a.y0+30), Yaw: east,
			Items: []levels.Stack{{Item: "cash", Count: 250}}},
		levels.Container{ID: "yard-crate-2", Kind: levels.ContainerCrate, Pos: v(a.x1-6, a.y0+30), Yaw: west},
		levels.Container{ID: "yard-locker", Kind: levels.ContainerLocker, Pos: v(a.x1-4, a.y0+36), Yaw: west,
			Locked: true, KeyTag: "yard",
			Items: []levels.Stack{{Item: "smg", Count: 1}, {Item: "smg-ammo", Count: 60}}},
	)
	b.l.VehicleSpawners = append(b.l.VehicleSpawners, levels.VehicleSpawner{
		ID: "yard-vans", Model: "van", Bays: []levels.Bay{{Pos: v(a.x0+12, a.y0+12), Yaw: north}, {Pos: v(a.x0+20, a.y0+12), Yaw: north}},
		Respawn: 300, Locked: true, KeyTag: "yard",
	})
	b.l.NPCSpawners = append(b.l.NPCSpawners,
		levels.NPCSpawner{
			ID: "yard-guards", Role: levels.NPCGuard, Pos: v(cx, a.y0+24), Yaw: south, Count: 3, Radius: 6,
			Patrol: []levels.Vec2{v(a.x0+4, a.y0+4), v(a.x1-4, a.y0+4), v(a.x1-4, a.y0+34), v(a.x0+4, a.y0+34)},
		},
		levels.NPCSpawner{
			ID: "yard-boss", Role: levels.NPCTarget, Pos: v(cx+10, a.y0+36), Yaw: south, Count: 1,
			Schedule: &levels.Schedule{Every: 900, From: 20, To: 6},
		},
	)
	b.l.Pickups = append(b.l.Pickups, levels.Pickup{Item: "crowbar", Count: 1, Pos: v(a.x1-10, a.y0+20)})
}

// park leaves its block open: civilians about, and something on the grass.
func (b *builder) park(bx, by int) {
	a := lotArea(bx, by)
	b.l.NPCSpawners = append(b.l.NPCSpawners, levels.NPCSpawner{
		ID: "park-civilians", Role: levels.NPCCivilian, Pos: v(a.cx(), (a.y0+a.y1)/2), Yaw: north,
		Count: 8, Radius: 25, Schedule: &levels.Schedule{Every: 60},
	})
	b.l.Pickups = append(b.l.Pickups, levels.Pickup{Item: "cash", Count: 50, Pos: v(a.x0+10, a.y0+10)})
}

package levels_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"testing"

	"github.com/fiveonit/engine/levels"
)

func mustLoad(t testing.TB, name string) *levels.Level {
	t.Helper()
	l, err := levels.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestNames(t *testing.T) {
	if got, want := levels.Names(), []string{"main-city", "test-flat"}; !slices.Equal(got, want) {
		t.Errorf("Names() = %q, want %q", got, want)
	}
}

// TestEmbedded: every shipped level loads, carries its file's name and is
// committed in the canonical layout (Marshal writes the same bytes back).
func TestEmbedded(t *testing.T) {
	for _, name := range levels.Names() {
		t.Run(name, func(t *testing.T) {
			l := mustLoad(t, name)
			if l.Name != name {
				t.Errorf("name %q", l.Name)
			}
			raw, err := levels.Raw(name)
			if err != nil {
				t.Fatal(err)
			}
			out, err := levels.Marshal(l)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, raw) {
				t.Errorf("data/%s.json is not in the canonical layout (Marshal differs)", name)
			}
			// Each Load is a fresh Level.
			if l2 := mustLoad(t, name); l2 == l || len(l.Spawns) > 0 && &l2.Spawns[0] == &l.Spawns[0] {
				t.Error("Load returned shared data")
			}
		})
	}
}

func TestLoadUnknown(t *testing.T) {
	for _, name := range []string{"atlantis", "", "../levels/data/main-city", "MAIN-CITY"} {
		if _, err := levels.Load(name); !errors.Is(err, levels.ErrUnknownLevel) {
			t.Errorf("Load(%q): err %v, want ErrUnknownLevel", name, err)
		}
	}
}

func TestTestFlat(t *testing.T) {
	l := mustLoad(t, "test-flat")
	g := l.Ground
	if g.Max.X-g.Min.X < 1000 || g.Max.Y-g.Min.Y < 1000 {
		t.Errorf("ground %v..%v is smaller than 1000 x 1000 m", g.Min, g.Max)
	}
	if len(l.Buildings) != 0 || len(l.Roads.Lanes) != 0 || len(l.Zones) != 0 || len(l.Gates) != 0 {
		t.Error("test-flat is not open ground")
	}
	if n := len(l.SpawnsOf(levels.RolePlayer)); n < 2 {
		t.Errorf("%d player spawns, want >= 2", n)
	}
	if _, ok := l.NearestSpawn(levels.RoleHospital, levels.Vec2{}); !ok {
		t.Error("no hospital spawn")
	}
	if l.Rules.Traffic != nil || l.Rules.Pedestrians != nil {
		t.Error("test-flat sets traffic or pedestrians; the server's default for test-* is none")
	}
}

// grid finds the road grid of a level: the coordinates shared by at least
// n intersections, along X and along Y.
func grid(l *levels.Level, n int) (xs, ys []float32) {
	cx, cy := map[float32]int{}, map[float32]int{}
	for _, nd := range l.Roads.Nodes {
		if nd.Intersection {
			cx[nd.Pos.X]++
			cy[nd.Pos.Y]++
		}
	}
	for x, c := range cx {
		if c >= n {
			xs = append(xs, x)
		}
	}
	for y, c := range cy {
		if c >= n {
			ys = append(ys, y)
		}
	}
	sort.Slice(xs, func(i, j int) bool { return xs[i] < xs[j] })
	sort.Slice(ys, func(i, j int) bool { return ys[i] < ys[j] })
	return xs, ys
}

// nodeAt returns the index of the node at p, or -1.
func nodeAt(l *levels.Level, p levels.Vec2) int {
	for i, nd := range l.Roads.Nodes {
		if nd.Pos == p {
			return i
		}
	}
	return -1
}

// drives reports whether a car can drive from node a straight to node b
// along their line, lane by lane.
func drives(l *levels.Level, a, b int) bool {
	pa, pb := l.Roads.Nodes[a].Pos, l.Roads.Nodes[b].Pos
	dir := pb.Sub(pa)
	cur := a
	for hops := 0; hops < 8 && cur != b; hops++ {
		next := -1
		for _, ln := range l.LanesOut(cur) {
			_, to := l.LaneNodes(int(ln))
			d := l.Roads.Nodes[to].Pos.Sub(l.Roads.Nodes[cur].Pos)
			// Straight on towards b, not beyond it.
			if d.Cross(dir) == 0 && d.Dot(dir) > 0 && pb.Sub(l.Roads.Nodes[to].Pos).Dot(dir) >= 0 {
				next = to
			}
		}
		if next < 0 {
			return false
		}
		cur = next
	}
	return cur == b
}

// TestMainCityBlocks: main-city is a grid of at least 8 x 8 blocks of
// two-way roads, with a closed pavement round every block.
func TestMainCityBlocks(t *testing.T) {
	l := mustLoad(t, "main-city")
	xs, ys := grid(l, 9)
	if len(xs) < 9 || len(ys) < 9 {
		t.Fatalf("road grid of %d x %d lines, want at least 9 x 9", len(xs), len(ys))
	}
	for j, y := range ys {
		for i, x := range xs {
			a := nodeAt(l, levels.Vec2{X: x, Y: y})
			if a < 0 {
				t.Fatalf("no intersection at %v", levels.Vec2{X: x, Y: y})
			}
			for _, nb := range [][2]int{{i + 1, j}, {i, j + 1}} {
				if nb[0] >= len(xs) || nb[1] >= len(ys) {
					continue
				}
				b := nodeAt(l, levels.Vec2{X: xs[nb[0]], Y: ys[nb[1]]})
				if b < 0 || !drives(l, a, b) || !drives(l, b, a) {
					t.Errorf("no two-way road from %v to node %d", l.Roads.Nodes[a].Pos, b)
				}
			}
		}
	}
	blocks := (len(xs) - 1) * (len(ys) - 1)
	closed := 0
	for _, p := range l.Pavements {
		if p.Closed {
			closed++
		}
	}
	if closed < blocks {
		t.Errorf("%d closed pavements for %d blocks", closed, blocks)
	}
	g := l.Ground
	t.Logf("main-city: ground %g x %g m, %d x %d blocks, %d buildings, %d nodes, %d lanes, %d pavements, %d spawns",
		g.Max.X-g.Min.X, g.Max.Y-g.Min.Y, len(xs)-1, len(ys)-1, len(l.Buildings), len(l.Roads.Nodes),
		len(l.Roads.Lanes), len(l.Pavements), len(l.Spawns))
	for _, r := range levels.SpawnRoles {
		t.Logf("  %d %s spawns", len(l.SpawnsOf(r)), r)
	}
}

// distToPolygon is the distance from p to the polygon's edges (0 inside).
func distToPolygon(p levels.Vec2, poly []levels.Vec2) float32 {
	if levels.PointInPolygon(p, poly) {
		return 0
	}
	d := float32(math.MaxFloat32)
	for i := range poly {
		d = min(d, levels.DistToSegment(p, poly[i], poly[(i+1)%len(poly)]))
	}
	return d
}

func buildingsOf(l *levels.Level, use levels.BuildingUse) []levels.Building {
	var out []levels.Building
	for _, b := range l.Buildings {
		if b.Use == use {
			out = append(out, b)
		}
	}
	return out
}

// nearBuilding reports whether p lies within d of a building of use.
func nearBuilding(l *levels.Level, p levels.Vec2, use levels.BuildingUse, d float32) bool {
	for _, b := range buildingsOf(l, use) {
		if distToPolygon(p, b.Footprint) <= d {
			return true
		}
	}
	return false
}

// TestMainCityPlaces: main-city has its hospital, police station, garage,
// shop, gated yard, restricted and safe zones, and the spawn points and
// spawners that go with them.
func TestMainCityPlaces(t *testing.T) {
	l := mustLoad(t, "main-city")
	for _, use := range []levels.BuildingUse{levels.UseHospital, levels.UsePolice, levels.UseGarage, levels.UseShop, levels.UseWall} {
		if len(buildingsOf(l, use)) == 0 {
			t.Errorf("no %s building", use)
		}
	}
	hospitals := l.SpawnsOf(levels.RoleHospital)
	if len(hospitals) == 0 {
		t.Error("no hospital spawn")
	}
	for _, i := range hospitals {
		if p := l.Spawns[i].Pos; !nearBuilding(l, p, levels.UseHospital, 20) {
			t.Errorf("hospital spawn at %v is not in front of a hospital", p)
		}
	}
	police := l.SpawnsOf(levels.RolePolice)
	if len(police) == 0 {
		t.Error("no police spawn")
	}
	for _, i := range police {
		if p := l.Spawns[i].Pos; !nearBuilding(l, p, levels.UsePolice, 20) {
			t.Errorf("police spawn at %v is not by a police station", p)
		}
	}
	garages := 0
	for _, s := range l.VehicleSpawners {
		if s.Garage == "" {
			continue
		}
		garages++
		for _, b := range s.Bays {
			if !nearBuilding(l, b.Pos, levels.UseGarage, 15) {
				t.Errorf("%s: bay at %v is not by its garage", s.ID, b.Pos)
			}
		}
	}
	if garages == 0 {
		t.Error("no garage with a vehicle spawner")
	}
	if len(l.Shops) == 0 {
		t.Error("no shop")
	}
	for _, s := range l.Shops {
		if !nearBuilding(l, s.Pos, levels.UseShop, 3) || len(s.Items) == 0 {
			t.Errorf("shop %s: counter %v is not at a shop, or sells nothing", s.ID, s.Pos)
		}
	}
	zoneOf := func(p levels.Vec2, kind levels.ZoneKind) int { return l.ZoneAt(p, kind) }
	if !slices.ContainsFunc(l.Zones, func(z levels.Zone) bool { return z.Kind == levels.ZoneSafe }) {
		t.Error("no safe zone")
	}
	// The gated yard: a gate in a wall, opening into a restricted zone
	// with guards inside.
	yards := 0
	for _, g := range l.Gates {
		if g.Kind != levels.GateGate {
			continue
		}
		dir := levels.Vec2{X: float32(math.Cos(float64(g.Yaw))), Y: float32(math.Sin(float64(g.Yaw)))}
		inside := g.Pos.Add(dir.Scale(2))
		z := zoneOf(inside, levels.ZoneRestricted)
		if z < 0 {
			continue
		}
		// Walls on both sides of the opening.
		side := dir.Right().Scale(g.Width/2 + 0.5)
		if !nearBuilding(l, g.Pos.Add(side), levels.UseWall, 0.5) || !nearBuilding(l, g.Pos.Sub(side), levels.UseWall, 0.5) {
			t.Errorf("gate %s has no walls beside it", g.ID)
			continue
		}
		guarded := slices.ContainsFunc(l.NPCSpawners, func(s levels.NPCSpawner) bool {
			return s.Role == levels.NPCGuard && levels.PointInPolygon(s.Pos, l.Zones[z].Polygon)
		})
		if !guarded {
			t.Errorf("yard behind gate %s has no guards", g.ID)
			continue
		}
		yards++
	}
	if yards == 0 {
		t.Error("no gated yard (a gate in a wall into a restricted zone with guards)")
	}
	if !slices.ContainsFunc(l.NPCSpawners, func(s levels.NPCSpawner) bool { return s.Role == levels.NPCCivilian }) {
		t.Error("no civilians")
	}
	if len(l.Containers) == 0 {
		t.Error("no containers")
	}
	// Players come in on the streets, spread out.
	players := l.SpawnsOf(levels.RolePlayer)
	if len(players) < 8 {
		t.Errorf("%d player spawns, want >= 8", len(players))
	}
	for k, i := range players {
		for _, j := range players[k+1:] {
			if d := l.Spawns[i].Pos.Sub(l.Spawns[j].Pos).Len(); d < 80 {
				t.Errorf("player spawns %d and %d are %g m apart", i, j, d)
			}
		}
	}
}

// TestMainCitySpawnsOnTheirWays: the cars' spawn points lie on a lane,
// facing its way (traffic on lanes open to it); the pedestrians' on a
// pavement.
func TestMainCitySpawnsOnTheirWays(t *testing.T) {
	l := mustLoad(t, "main-city")
	for _, role := range []levels.SpawnRole{levels.RolePlayer, levels.RoleTraffic} {
		if len(l.SpawnsOf(role)) == 0 {
			t.Errorf("no %s spawns", role)
		}
		for _, i := range l.SpawnsOf(role) {
			s := l.Spawns[i]
			lane, d := l.NearestLane(s.Pos)
			a, b := l.LaneLine(lane)
			dir := b.Sub(a)
			yaw := float32(math.Atan2(float64(dir.Y), float64(dir.X)))
			dy := math.Remainder(float64(yaw-s.Yaw), 2*math.Pi)
			if d > 0.01 || math.Abs(dy) > 1e-3 || role == levels.RoleTraffic && l.Roads.Lanes[lane].NoTraffic {
				t.Errorf("%s spawn %d at %v yaw %g: nearest lane %d is %g m away, heading %g", role, i, s.Pos, s.Yaw, lane, d, yaw)
			}
		}
	}
	for _, i := range l.SpawnsOf(levels.RolePedestrian) {
		p := l.Spawns[i].Pos
		on := slices.ContainsFunc(l.Pavements, func(pv levels.Pavement) bool {
			n := len(pv.Points)
			for s := range n {
				if (s < n-1 || pv.Closed) && levels.DistToSegment(p, pv.Points[s], pv.Points[(s+1)%n]) <= pv.Width/2 {
					return true
				}
			}
			return false
		})
		if !on {
			t.Errorf("pedestrian spawn %d at %v is on no pavement", i, p)
		}
	}
}

// TestMainCityRoadGraph: the traffic can drive from any node of its lanes
// to any other.
func TestMainCityRoadGraph(t *testing.T) {
	l := mustLoad(t, "main-city")
	n := len(l.Roads.Nodes)
	reach := func(forward bool) []bool {
		seen := make([]bool, n)
		stack := []int{0}
		seen[0] = true
		for len(stack) > 0 {
			cur := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			lanes := l.LanesOut(cur)
			if !forward {
				lanes = l.LanesIn(cur)
			}
			for _, ln := range lanes {
				if l.Roads.Lanes[ln].NoTraffic {
					continue
				}
				from, to := l.LaneNodes(int(ln))
				next := to
				if !forward {
					next = from
				}
				if !seen[next] {
					seen[next] = true
					stack = append(stack, next)
				}
			}
		}
		return seen
	}
	fwd, back := reach(true), reach(false)
	for i := range n {
		traffic := slices.ContainsFunc(l.LanesOut(i), func(ln int32) bool { return !l.Roads.Lanes[ln].NoTraffic })
		if traffic && (!fwd[i] || !back[i]) {
			t.Errorf("node %d (%v) is cut off from node 0", l.Roads.Nodes[i].ID, l.Roads.Nodes[i].Pos)
		}
	}
}

// candidates returns the buildings whose bounding box comes within r of the
// segment a-b.
func candidates(l *levels.Level, a, b levels.Vec2, r float32) []levels.Building {
	var out []levels.Building
	for _, bd := range l.Buildings {
		lo, hi := bd.Footprint[0], bd.Footprint[0]
		for _, p := range bd.Footprint {
			lo.X, lo.Y, hi.X, hi.Y = min(lo.X, p.X), min(lo.Y, p.Y), max(hi.X, p.X), max(hi.Y, p.Y)
		}
		if hi.X >= min(a.X, b.X)-r && lo.X <= max(a.X, b.X)+r && hi.Y >= min(a.Y, b.Y)-r && lo.Y <= max(a.Y, b.Y)+r {
			out = append(out, bd)
		}
	}
	return out
}

// sampleStrip calls f for points every half metre over the strip of width
// w along a-b.
func sampleStrip(a, b levels.Vec2, w float32, f func(levels.Vec2)) {
	d := b.Sub(a)
	length := d.Len()
	u := d.Scale(1 / length)
	across := u.Right()
	for s := float32(0); s <= length; s += 0.5 {
		for c := -w / 2; c <= w/2; c += 0.5 {
			f(a.Add(u.Scale(s)).Add(across.Scale(c)))
		}
	}
}

// TestMainCityClear checks the city's geometry by sampling, independently
// of Validate's segment tests: no building stands on a lane or a pavement,
// no two buildings overlap, and no spawn point, bay, spawner, shop counter
// or container lies inside a building.
func TestMainCityClear(t *testing.T) {
	l := mustLoad(t, "main-city")
	for i, ln := range l.Roads.Lanes {
		a, b := l.LaneLine(i)
		near := candidates(l, a, b, ln.Width)
		sampleStrip(a, b, ln.Width, func(p levels.Vec2) {
			for _, bd := range near {
				if levels.PointInPolygon(p, bd.Footprint) {
					t.Fatalf("building %s stands on lane %d at %v", bd.ID, ln.ID, p)
				}
			}
		})
	}
	for _, pv := range l.Pavements {
		n := len(pv.Points)
		for s := range n {
			if s == n-1 && !pv.Closed {
				break
			}
			a, b := pv.Points[s], pv.Points[(s+1)%n]
			near := candidates(l, a, b, pv.Width)
			sampleStrip(a, b, pv.Width, func(p levels.Vec2) {
				for _, bd := range near {
					if levels.PointInPolygon(p, bd.Footprint) {
						t.Fatalf("building %s stands on pavement %s at %v", bd.ID, pv.ID, p)
					}
				}
			})
		}
	}
	// Buildings: no vertex of one strictly inside another (beyond a
	// touch), and no edges crossing. Walls meet at their edges.
	for i, a := range l.Buildings {
		for _, b := range l.Buildings[i+1:] {
			if overlap(a.Footprint, b.Footprint) {
				t.Errorf("buildings %s and %s overlap", a.ID, b.ID)
			}
		}
	}
	type place struct {
		what string
		p    levels.Vec2
	}
	var places []place
	for i, s := range l.Spawns {
		places = append(places, place{fmt.Sprintf("spawns[%d]", i), s.Pos})
	}
	for _, s := range l.VehicleSpawners {
		for k, b := range s.Bays {
			places = append(places, place{fmt.Sprintf("bay %d of %s", k, s.ID), b.Pos})
		}
	}
	for _, s := range l.NPCSpawners {
		places = append(places, place{"npc spawner " + s.ID, s.Pos})
		for k, p := range s.Patrol {
			places = append(places, place{fmt.Sprintf("patrol point %d of %s", k, s.ID), p})
		}
	}
	for _, s := range l.Shops {
		places = append(places, place{"shop " + s.ID, s.Pos})
	}
	for _, c := range l.Containers {
		places = append(places, place{"container " + c.ID, c.Pos})
	}
	for _, g := range l.Gates {
		places = append(places, place{"gate " + g.ID, g.Pos})
	}
	for _, pk := range l.Pickups {
		places = append(places, place{"pickup " + pk.Item, pk.Pos})
	}
	for _, pl := range places {
		for _, bd := range l.Buildings {
			if levels.PointInPolygon(pl.p, bd.Footprint) {
				t.Errorf("%s at %v lies inside building %s", pl.what, pl.p, bd.ID)
			}
		}
	}
}

// overlap reports whether two polygons share interior: a vertex of one
// inside the other by more than a hair, or edges crossing.
func overlap(a, b []levels.Vec2) bool {
	inside := func(p levels.Vec2, poly []levels.Vec2) bool {
		return levels.PointInPolygon(p, poly) && edgeDist(p, poly) > 1e-3
	}
	for _, p := range a {
		if inside(p, b) {
			return true
		}
	}
	for _, p := range b {
		if inside(p, a) {
			return true
		}
	}
	for i := range a {
		p, q := a[i], a[(i+1)%len(a)]
		for j := range b {
			r, s := b[j], b[(j+1)%len(b)]
			d1, d2 := q.Sub(p).Cross(r.Sub(p)), q.Sub(p).Cross(s.Sub(p))
			d3, d4 := s.Sub(r).Cross(p.Sub(r)), s.Sub(r).Cross(q.Sub(r))
			if d1*d2 < 0 && d3*d4 < 0 {
				return true
			}
		}
	}
	return false
}

// edgeDist is the distance from p to the nearest edge of poly.
func edgeDist(p levels.Vec2, poly []levels.Vec2) float32 {
	d := float32(math.MaxFloat32)
	for i := range poly {
		d = min(d, levels.DistToSegment(p, poly[i], poly[(i+1)%len(poly)]))
	}
	return d
}

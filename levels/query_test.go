package levels

import (
	"math"
	"slices"
	"testing"
)

func parseSmall(t testing.TB) *Level {
	t.Helper()
	l, err := Parse("small.json", []byte(smallLevel))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestPointInPolygon(t *testing.T) {
	square := []Vec2{{0, 0}, {10, 0}, {10, 10}, {0, 10}}
	ell := []Vec2{{0, 0}, {10, 0}, {10, 5}, {5, 5}, {5, 10}, {0, 10}} // no north-east quarter
	tri := []Vec2{{0, 0}, {10, 0}, {0, 10}}
	cases := []struct {
		name string
		poly []Vec2
		p    Vec2
		want bool
	}{
		{"square centre", square, Vec2{5, 5}, true},
		{"square outside east", square, Vec2{11, 5}, false},
		{"square outside south-west", square, Vec2{-1, -1}, false},
		{"ell foot", ell, Vec2{8, 2}, true},
		{"ell stem", ell, Vec2{2, 8}, true},
		{"ell notch", ell, Vec2{8, 8}, false},
		{"triangle inside", tri, Vec2{2, 2}, true},
		{"triangle beyond hypotenuse", tri, Vec2{6, 6}, false},
		{"clockwise square centre", []Vec2{{0, 0}, {0, 10}, {10, 10}, {10, 0}}, Vec2{5, 5}, true},
		{"degenerate", []Vec2{{0, 0}, {10, 0}}, Vec2{5, 0}, false},
	}
	for _, c := range cases {
		if got := PointInPolygon(c.p, c.poly); got != c.want {
			t.Errorf("%s: PointInPolygon(%v) = %v, want %v", c.name, c.p, got, c.want)
		}
	}
}

func TestSignedArea(t *testing.T) {
	cases := []struct {
		poly []Vec2
		want float32
	}{
		{[]Vec2{{0, 0}, {10, 0}, {10, 10}, {0, 10}}, 100},
		{[]Vec2{{0, 0}, {0, 10}, {10, 10}, {10, 0}}, -100},
		{[]Vec2{{0, 0}, {10, 0}, {10, 5}, {5, 5}, {5, 10}, {0, 10}}, 75},
		{[]Vec2{{1000, 1000}, {1001, 1000}, {1000, 1001}}, 0.5},
		{[]Vec2{{0, 0}, {1, 1}}, 0},
	}
	for _, c := range cases {
		if got := SignedArea(c.poly); got != c.want {
			t.Errorf("SignedArea(%v) = %g, want %g", c.poly, got, c.want)
		}
	}
}

func TestDistToSegment(t *testing.T) {
	a, b := Vec2{0, 0}, Vec2{10, 0}
	cases := []struct {
		p    Vec2
		want float32
	}{
		{Vec2{5, 3}, 3},
		{Vec2{-3, -4}, 5},
		{Vec2{13, 4}, 5},
		{Vec2{7, 0}, 0},
	}
	for _, c := range cases {
		if got := DistToSegment(c.p, a, b); got != c.want {
			t.Errorf("DistToSegment(%v) = %g, want %g", c.p, got, c.want)
		}
	}
	if got := DistToSegment(Vec2{3, 4}, a, a); got != 5 {
		t.Errorf("distance to a point segment = %g, want 5", got)
	}
}

func TestRoadLookups(t *testing.T) {
	l := parseSmall(t)
	n1, ok1 := l.NodeIndex(1)
	n2, ok2 := l.NodeIndex(2)
	if !ok1 || !ok2 || n1 != 0 || n2 != 1 {
		t.Fatalf("NodeIndex: %d %v, %d %v", n1, ok1, n2, ok2)
	}
	if got := l.LanesOut(2); got != nil {
		t.Errorf("LanesOut(out of range) = %v", got)
	}
	var empty Level
	if lane, _ := empty.NearestLane(Vec2{}); lane != -1 || empty.LanesIn(0) != nil || empty.BuildingAt(Vec2{}) != -1 {
		t.Error("an unvalidated Level found something")
	}
	if _, ok := l.NodeIndex(99); ok {
		t.Error("NodeIndex(99) found a node")
	}
	if got := l.LanesOut(n1); !slices.Equal(got, []int32{0}) {
		t.Errorf("LanesOut(node 1) = %v, want [0]", got)
	}
	if got := l.LanesIn(n1); !slices.Equal(got, []int32{1}) {
		t.Errorf("LanesIn(node 1) = %v, want [1]", got)
	}
	if from, to := l.LaneNodes(1); from != n2 || to != n1 {
		t.Errorf("LaneNodes(1) = %d, %d", from, to)
	}
	// Lane 0 runs east: its right is south. Lane 1 runs west: north.
	if a, b := l.LaneLine(0); a != (Vec2{-50, -1.75}) || b != (Vec2{50, -1.75}) {
		t.Errorf("LaneLine(0) = %v %v", a, b)
	}
	if a, b := l.LaneLine(1); a != (Vec2{50, 1.75}) || b != (Vec2{-50, 1.75}) {
		t.Errorf("LaneLine(1) = %v %v", a, b)
	}
	cases := []struct {
		p    Vec2
		lane int
		dist float32
	}{
		{Vec2{0, -3}, 0, 1.25},
		{Vec2{0, 3}, 1, 1.25},
		{Vec2{0, 0}, 0, 1.75}, // a tie: the lower index
		{Vec2{-60, 1.75}, 1, 10},
	}
	for _, c := range cases {
		if lane, d := l.NearestLane(c.p); lane != c.lane || d != c.dist {
			t.Errorf("NearestLane(%v) = %d, %g; want %d, %g", c.p, lane, d, c.lane, c.dist)
		}
	}
}

// TestMainCityAdjacency: the compressed adjacency lists every lane once,
// out of its From node and into its To node, in ascending order.
func TestMainCityAdjacency(t *testing.T) {
	l, err := Load("main-city")
	if err != nil {
		t.Fatal(err)
	}
	out, in := 0, 0
	for n := range l.Roads.Nodes {
		lo, li := l.LanesOut(n), l.LanesIn(n)
		if !slices.IsSorted(lo) || !slices.IsSorted(li) {
			t.Errorf("node %d: lanes not in order", n)
		}
		for _, ln := range lo {
			if from, _ := l.LaneNodes(int(ln)); from != n || l.Roads.Lanes[ln].From != l.Roads.Nodes[n].ID {
				t.Errorf("lane %d listed out of node %d", ln, n)
			}
		}
		for _, ln := range li {
			if _, to := l.LaneNodes(int(ln)); to != n {
				t.Errorf("lane %d listed into node %d", ln, n)
			}
		}
		out += len(lo)
		in += len(li)
	}
	if out != len(l.Roads.Lanes) || in != len(l.Roads.Lanes) {
		t.Errorf("%d lanes out and %d in, want %d each", out, in, len(l.Roads.Lanes))
	}
}

// TestNearestAgainstBruteForce checks NearestLane and NearestSpawn on
// main-city against a plain search, at points of a fixed sequence.
func TestNearestAgainstBruteForce(t *testing.T) {
	l, err := Load("main-city")
	if err != nil {
		t.Fatal(err)
	}
	s := uint32(1)
	rnd := func() float32 { // xorshift: a fixed sequence
		s ^= s << 13
		s ^= s >> 17
		s ^= s << 5
		return float32(s%96000)/100 - 480
	}
	for range 500 {
		p := Vec2{rnd(), rnd()}
		lane, d := l.NearestLane(p)
		best := float32(math.MaxFloat32)
		for i := range l.Roads.Lanes {
			a, b := l.LaneLine(i)
			best = min(best, DistToSegment(p, a, b))
		}
		if d != best || DistToSegment(p, l.idx.laneA[lane], l.idx.laneB[lane]) != d {
			t.Fatalf("NearestLane(%v) = %d at %g, brute force %g", p, lane, d, best)
		}
		for _, role := range SpawnRoles {
			sp, ok := l.NearestSpawn(role, p)
			bestD := float32(math.MaxFloat32)
			for _, x := range l.Spawns {
				if x.Role == role {
					bestD = min(bestD, x.Pos.Sub(p).Len())
				}
			}
			if bestD == math.MaxFloat32 { // main-city has no spawn of the role
				if ok {
					t.Fatalf("NearestSpawn(%s, %v) = %v for a role with no spawn", role, p, sp)
				}
				continue
			}
			if !ok || sp.Role != role || sp.Pos.Sub(p).Len() != bestD {
				t.Fatalf("NearestSpawn(%s, %v) = %v %v, brute force %g", role, p, sp, ok, bestD)
			}
		}
	}
}

func TestPlaceLookups(t *testing.T) {
	l := parseSmall(t)
	if got := l.BuildingAt(Vec2{20, 20}); got != 0 {
		t.Errorf("BuildingAt(house) = %d", got)
	}
	if got := l.BuildingAt(Vec2{0, 0}); got != -1 {
		t.Errorf("BuildingAt(road) = %d", got)
	}
	if got := l.ZoneAt(Vec2{-80, -80}, ZoneSafe); got != 0 {
		t.Errorf("ZoneAt(haven) = %d", got)
	}
	if got := l.ZoneAt(Vec2{-80, -80}, ZoneRestricted); got != -1 {
		t.Errorf("ZoneAt(haven, restricted) = %d", got)
	}
	if sp, ok := l.NearestSpawn(RoleHospital, Vec2{}); !ok || sp.Pos != (Vec2{0, 40}) {
		t.Errorf("NearestSpawn(hospital) = %v, %v", sp, ok)
	}
	if _, ok := l.NearestSpawn(RolePolice, Vec2{}); ok {
		t.Error("NearestSpawn found a police spawn in a level with none")
	}
	if got := l.SpawnsOf("wizard"); got != nil {
		t.Errorf("SpawnsOf(unknown) = %v", got)
	}
	polys := l.BuildingPolygons()
	if len(polys) != 2 || &polys[1][0] != &l.Buildings[1].Footprint[0] {
		t.Error("BuildingPolygons does not give the footprints")
	}
}

// TestLookupsAllocateNothing: the lookups are for the tick.
func TestLookupsAllocateNothing(t *testing.T) {
	l, err := Load("main-city")
	if err != nil {
		t.Fatal(err)
	}
	p := Vec2{12.5, -101}
	var sink int
	allocs := testing.AllocsPerRun(100, func() {
		lane, _ := l.NearestLane(p)
		sink += lane + len(l.LanesOut(3)) + len(l.LanesIn(3)) + l.BuildingAt(p) + l.ZoneAt(p, ZoneSafe)
		sp, _ := l.NearestSpawn(RoleHospital, p)
		sink += int(sp.Yaw)
		if n, ok := l.NodeIndex(40); ok {
			sink += n
		}
	})
	if allocs != 0 {
		t.Errorf("lookups allocate %g times per run", allocs)
	}
	_ = sink
}

func BenchmarkNearestLane(b *testing.B) {
	l, err := Load("main-city")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	p := Vec2{12.5, -101}
	for b.Loop() {
		l.NearestLane(p)
	}
}

func BenchmarkBuildingAt(b *testing.B) {
	l, err := Load("main-city")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	p := Vec2{12.5, -101}
	for b.Loop() {
		l.BuildingAt(p)
	}
}

func BenchmarkLoadMainCity(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load("main-city"); err != nil {
			b.Fatal(err)
		}
	}
}

package nav_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/nav"
	phys "github.com/fiveonit/engine/physics"
)

// cross is a crossroads of four arms of one lane each way meeting at
// node 0, a driveway (no traffic) off the east arm, and pavements.
const cross = `{
  "name": "test-nav", "version": 1,
  "ground": {"min": [-150, -150], "max": [150, 150]},
  "roads": {
    "nodes": [
      {"id": 0, "pos": [0, 0], "intersection": true},
      {"id": 1, "pos": [-140, 0]}, {"id": 2, "pos": [140, 0]},
      {"id": 3, "pos": [0, 140]}, {"id": 4, "pos": [0, -140]},
      {"id": 5, "pos": [100, 0], "intersection": true}, {"id": 6, "pos": [100, 40]}
    ],
    "lanes": [
      {"id": 0, "from": 1, "to": 0, "width": 3.5, "offset": 1.75, "speedLimit": 10},
      {"id": 1, "from": 0, "to": 1, "width": 3.5, "offset": 1.75, "speedLimit": 10},
      {"id": 2, "from": 0, "to": 5, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 3, "from": 5, "to": 0, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 4, "from": 0, "to": 3, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 5, "from": 3, "to": 0, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 6, "from": 0, "to": 4, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 7, "from": 4, "to": 0, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 8, "from": 5, "to": 2, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 9, "from": 2, "to": 5, "width": 3.5, "offset": 1.75, "speedLimit": 14},
      {"id": 10, "from": 5, "to": 6, "width": 3.5, "offset": 1.75, "speedLimit": 5, "noTraffic": true},
      {"id": 11, "from": 6, "to": 5, "width": 3.5, "offset": 1.75, "speedLimit": 5, "noTraffic": true}
    ]
  },
  "pavements": [
    {"id": "loop", "points": [[8, 8], [64, 8], [64, 64], [8, 64]], "width": 3, "closed": true},
    {"id": "line", "points": [[-60, -20], [-20, -20], [-20, -50]], "width": 2}
  ]
}`

func load(t *testing.T) *nav.Map {
	t.Helper()
	l, err := levels.Parse("nav.json", []byte(cross))
	if err != nil {
		t.Fatal(err)
	}
	return nav.New(l)
}

func near(a, b nav.Vec) bool { return a.Sub(b).Len() < 1e-3 }

func TestLanes(t *testing.T) {
	m := load(t)
	l := m.Lanes[0]
	if !near(l.A, nav.Vec{X: -140, Y: -1.75}) || !near(l.B, nav.Vec{X: 0, Y: -1.75}) || l.Len != 140 || l.Limit != 10 || !l.Traffic {
		t.Fatalf("lane 0: %+v", l)
	}
	if m.Lanes[10].Traffic {
		t.Fatal("the driveway is open to traffic")
	}
	if m.NodeRadius[0] != 1.75+1.75+2 {
		t.Fatalf("node 0's box %.2f m", m.NodeRadius[0])
	}
}

func TestNearestLane(t *testing.T) {
	m := load(t)
	east, west, north := nav.Vec{X: 1}, nav.Vec{X: -1}, nav.Vec{Y: 1}
	cases := []struct {
		name    string
		p, dir  nav.Vec
		reach   float32
		traffic bool
		want    int32
	}{
		{"on the eastbound lane", nav.Vec{X: -50, Y: -1.7}, nav.Vec{}, 5, false, 0},
		{"between, facing east", nav.Vec{X: -50, Y: 0.5}, east, 5, false, 0},
		{"between, facing west", nav.Vec{X: -50, Y: -0.5}, west, 5, false, 1},
		{"on the driveway", nav.Vec{X: 101.75, Y: 20}, north, 5, false, 10},
		{"driveway, traffic only", nav.Vec{X: 101.75, Y: 20}, north, 30, true, 8},
		{"out of reach", nav.Vec{X: -50, Y: -50}, nav.Vec{}, 5, false, -1},
	}
	for _, c := range cases {
		got, _ := m.NearestLane(c.p, c.dir, c.reach, 40, c.traffic)
		if c.name == "driveway, traffic only" {
			// The nearest traffic lane is one of the east arm's.
			if got != 2 && got != 3 && got != 8 && got != 9 {
				t.Errorf("%s: lane %d", c.name, got)
			}
			continue
		}
		if got != c.want {
			t.Errorf("%s: lane %d, want %d", c.name, got, c.want)
		}
	}
}

func TestJoint(t *testing.T) {
	m := load(t)
	cases := []struct {
		name   string
		a, b   int32
		want   nav.Vec
		alongA float32
	}{
		{"straight on", 0, 2, nav.Vec{X: 0, Y: -1.75}, 140},
		{"left", 0, 4, nav.Vec{X: 1.75, Y: -1.75}, 141.75},
		{"right", 0, 6, nav.Vec{X: -1.75, Y: -1.75}, 138.25},
		{"U-turn", 0, 1, nav.Vec{X: 0, Y: -1.75}, 140},
	}
	for _, c := range cases {
		j, a, b := m.Joint(c.a, c.b)
		if !near(j, c.want) || math32.Abs(a-c.alongA) > 1e-3 {
			t.Errorf("%s: joint %v at %.2f, want %v at %.2f", c.name, j, a, c.want, c.alongA)
		}
		lb := m.Lanes[c.b]
		if c.name != "U-turn" && !near(lb.A.Add(lb.Dir.Scale(b)), j) {
			t.Errorf("%s: %.2f along lane %d is not the joint", c.name, b, c.b)
		}
	}
}

func TestPavements(t *testing.T) {
	m := load(t)
	if m.Pavements[0].Len != 224 || m.Pavements[1].Len != 70 || m.PavementLen != 294 {
		t.Fatalf("lengths %v %v %v", m.Pavements[0].Len, m.Pavements[1].Len, m.PavementLen)
	}
	cases := []struct {
		pav   int32
		along float32
		p     nav.Vec
		dir   nav.Vec
	}{
		{0, 10, nav.Vec{X: 18, Y: 8}, nav.Vec{X: 1}},
		{0, 60, nav.Vec{X: 64, Y: 12}, nav.Vec{Y: 1}},
		{0, 220, nav.Vec{X: 8, Y: 12}, nav.Vec{Y: -1}}, // the closing side
		{0, 224 + 10, nav.Vec{X: 18, Y: 8}, nav.Vec{X: 1}},
		{0, -4, nav.Vec{X: 8, Y: 12}, nav.Vec{Y: -1}},
		{1, 50, nav.Vec{X: -20, Y: -30}, nav.Vec{Y: -1}},
		{1, 90, nav.Vec{X: -20, Y: -50}, nav.Vec{Y: -1}}, // clamped to the open end
		{1, -5, nav.Vec{X: -60, Y: -20}, nav.Vec{X: 1}},
	}
	for _, c := range cases {
		p, dir := m.PavementAt(c.pav, c.along)
		if !near(p, c.p) || !near(dir, c.dir) {
			t.Errorf("PavementAt(%d, %v) = %v %v, want %v %v", c.pav, c.along, p, dir, c.p, c.dir)
		}
	}
	if a, d := m.ProjectPavement(0, nav.Vec{X: 30, Y: 9}, 20); math32.Abs(a-22) > 1e-3 || math32.Abs(d-1) > 1e-3 {
		t.Errorf("ProjectPavement: %v %v", a, d)
	}
	if a, _ := m.ProjectPavement(0, nav.Vec{X: 9, Y: 10}, 222); math32.Abs(a-222) > 1e-3 {
		t.Errorf("ProjectPavement round the loop's end: %v", a)
	}
	if pav, a, d := m.NearestPavement(nav.Vec{X: -25, Y: -40}, 10); pav != 1 || math32.Abs(a-60) > 1e-3 || math32.Abs(d-5) > 1e-3 {
		t.Errorf("NearestPavement: %d %v %v", pav, a, d)
	}
	if pav, _, _ := m.NearestPavement(nav.Vec{X: -100, Y: 100}, 10); pav != -1 {
		t.Errorf("NearestPavement far from any: %d", pav)
	}
	if !m.OnPavement(nav.Vec{X: 30, Y: 9.4}, 0) || m.OnPavement(nav.Vec{X: 30, Y: 10}, 0) || !m.OnPavement(nav.Vec{X: 30, Y: 10}, 0.6) {
		t.Error("OnPavement")
	}
	if pav, a := m.PavementPoint(230); pav != 1 || math32.Abs(a-6) > 1e-3 {
		t.Errorf("PavementPoint: %d %v", pav, a)
	}
}

func TestField(t *testing.T) {
	m := load(t)
	var f nav.Field
	m.Solve(&f, nav.Vec{X: 50, Y: -1.5}, 10) // on lane 2, 50 m from node 0
	if f.Lane != 2 || f.Twin != 3 || math32.Abs(f.AlongLane-50) > 1e-3 || math32.Abs(f.AlongTwin-50) > 1e-3 {
		t.Fatalf("target on lane %d (%v) twin %d (%v)", f.Lane, f.AlongLane, f.Twin, f.AlongTwin)
	}
	cases := []struct {
		lane int32
		want float32
	}{
		{2, 50},       // the target's lane: straight to it
		{3, 50},       // its twin, from node 5
		{0, 140 + 50}, // from the west end, through node 0
		{5, 140 + 50}, // from the north end
		{8, 40 + 40 + 50},
		{11, 40 + 50}, // down the driveway, then back along the twin
	}
	for _, c := range cases {
		if got := f.Cost(m, c.lane); math32.Abs(got-c.want) > 1e-2 {
			t.Errorf("cost of lane %d: %v, want %v", c.lane, got, c.want)
		}
	}
	m.Solve(&f, nav.Vec{X: -100, Y: 100}, 10)
	if f.Lane != -1 || f.Cost(m, 0) != nav.Unreachable {
		t.Fatalf("a target off the roads: lane %d", f.Lane)
	}
}

// TestGrid checks the grid against a brute force search over random
// points and boxes (points off the grid fall in its edge cells).
func TestGrid(t *testing.T) {
	bounds := phys.Rect{Min: nav.Vec{X: -100, Y: -50}, Max: nav.Vec{X: 100, Y: 50}}
	g := nav.NewGrid(bounds, 16)
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 20; round++ {
		pts := make([]nav.Vec, rng.IntN(300))
		for i := range pts {
			pts[i] = nav.Vec{X: rng.Float32()*260 - 130, Y: rng.Float32()*140 - 70}
		}
		g.Build(pts)
		for k := 0; k < 20; k++ {
			c := nav.Vec{X: rng.Float32()*200 - 100, Y: rng.Float32()*100 - 50}
			r := rng.Float32() * 40
			var got []int32
			x0, y0, x1, y1 := g.Range(nav.Vec{X: c.X - r, Y: c.Y - r}, nav.Vec{X: c.X + r, Y: c.Y + r})
			for y := y0; y <= y1; y++ {
				for x := x0; x <= x1; x++ {
					got = append(got, g.Cell(x, y)...)
				}
			}
			for i, p := range pts {
				if p.Sub(c).Len() <= r && !slices.Contains(got, int32(i)) {
					t.Fatalf("point %d at %v, %v from %v, not found", i, p, p.Sub(c).Len(), c)
				}
			}
		}
	}
}

func TestGridAllocatesNothing(t *testing.T) {
	g := nav.NewGrid(phys.Rect{Min: nav.Vec{X: -500, Y: -500}, Max: nav.Vec{X: 500, Y: 500}}, 16)
	pts := make([]nav.Vec, 500)
	for i := range pts {
		pts[i] = nav.Vec{X: float32(i%40)*20 - 400, Y: float32(i/40)*20 - 250}
	}
	g.Build(pts)
	if a := testing.AllocsPerRun(50, func() { g.Build(pts) }); a != 0 {
		t.Fatalf("%v allocations a build", a)
	}
}

func BenchmarkNewMainCity(b *testing.B) {
	l, err := levels.Load("main-city")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		nav.New(l)
	}
}

func BenchmarkSolveMainCity(b *testing.B) {
	l, err := levels.Load("main-city")
	if err != nil {
		b.Fatal(err)
	}
	m := nav.New(l)
	var f nav.Field
	m.Solve(&f, nav.Vec{}, 40)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Solve(&f, nav.Vec{X: float32(i%700) - 350, Y: 1.75}, 40)
	}
}

package stealth

import (
	"math"
	"testing"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
)

// TestRate: the suspicion a second by distance, light and how much of the
// player is in the open.
func TestRate(t *testing.T) {
	tu := DefaultTuning()
	day, night := float32(1), tu.NightLight
	cases := []struct {
		name                  string
		dist, rng, light, vis float32
		want                  float32
	}{
		{"at the end of the range, by day, in the open", 30, 30, day, 1, tu.BaseRate},
		{"at its feet", 0, 30, day, 1, tu.BaseRate * (1 + tu.NearBoost)},
		{"half way", 15, 30, day, 1, tu.BaseRate * (1 + tu.NearBoost/2)},
		{"at night", 30, 30, night, 1, tu.BaseRate * night},
		{"a third in the open", 30, 30, day, 1.0 / 3, tu.BaseRate / 3},
		{"two thirds in the open", 15, 30, day, 2.0 / 3, tu.BaseRate * (1 + tu.NearBoost/2) * 2 / 3},
		{"hidden", 5, 30, day, 0, 0},
		{"beyond the range", 31, 30, day, 1, 0},
		{"NaN distance", float32(math.NaN()), 30, day, 1, 0},
	}
	for _, c := range cases {
		if got := tu.Rate(c.dist, c.rng, c.light, c.vis); math32.Abs(got-c.want) > 1e-5 {
			t.Errorf("%s: rate %g, want %g", c.name, got, c.want)
		}
	}
}

// TestLight: full by day, night's at night, a ramp at dawn and dusk; and
// the range follows it.
func TestLight(t *testing.T) {
	tu := DefaultTuning()
	n := tu.NightLight
	for _, c := range []struct{ hour, want float32 }{
		{12, 1}, {7, 1}, {19, 1}, {0, n}, {3, n}, {21, n}, {23.5, n}, {5, n},
		{6, (1 + n) / 2}, {20, (1 + n) / 2},
	} {
		if got := tu.Light(c.hour); math32.Abs(got-c.want) > 1e-6 {
			t.Errorf("light at %g h: %g, want %g", c.hour, got, c.want)
		}
	}
	if got := tu.RangeAt(1); got != tu.Range {
		t.Errorf("range by day %g, want %g", got, tu.Range)
	}
	if got, want := tu.RangeAt(n), tu.Range*(0.4+0.6*n); math32.Abs(got-want) > 1e-5 || got >= tu.Range*0.7 {
		t.Errorf("range at night %g, want %g", got, want)
	}
}

// TestSentrySees: what a guard at the origin facing east sees of a player
// at each place, by day and by night: nearer is faster, the block hides
// them whole or in part (its corner splits the three rays), a car in the
// way hides them, the cone and the range bound the look, a low kerb does
// not, and a car not known stolen shelters them.
func TestSentrySees(t *testing.T) {
	tu := DefaultTuning()
	// The line from the eye over the block's near corner (10, 5) meets
	// x = 20 at y = 10.
	const edge = 10
	cases := []struct {
		name   string
		hour   float64
		x, y   float32
		vis    float32 // want: how much of them is in the open
		factor float32 // the cone's factor (1 in it, CloseFactor close behind)
		setup  func(r *rig, p ecs.Entity)
	}{
		{"in the open, near", 12, 5, -3, 1, 1, nil},
		{"in the open, far", 12, 25, -14, 1, 1, nil},
		{"beyond the range", 12, 28, -14, 0, 1, nil},
		{"in the open, near, at night", 1, 8, -8, 1, 1, nil},
		{"far, at night: beyond its range", 1, 25, -14, 0, 1, nil},
		{"behind the block", 12, 20, 0, 0, 1, nil},
		{"half behind its corner, mostly out", 12, 20, edge + 0.1, 2.0 / 3, 1, nil},
		{"half behind its corner, mostly in", 12, 20, edge - 0.1, 1.0 / 3, 1, nil},
		{"clear of the block", 12, 20, edge + 1, 1, 1, nil},
		{"behind a car", 12, 20, -20, 0, 1, func(r *rig, _ ecs.Entity) { r.car(10, -10, -math32.Pi/4) }},
		{"beside a car", 12, 20, -20, 1, 1, func(r *rig, _ ecs.Entity) { r.car(10, -14, 0) }},
		{"behind the guard, far", 12, -10, 0, 0, 1, nil},
		{"behind the guard, close", 12, -2, 0, 1, tu.CloseFactor, nil},
		{"in a car of their own", 12, 8, -3, 0, 1, func(r *rig, p ecs.Entity) { r.seat(p, r.car(8, -3, 0)) }},
		{"in a car known stolen", 12, 8, -3, 1, 1, func(r *rig, p ecs.Entity) {
			c := r.car(8, -3, 0)
			r.seat(p, c)
			r.s.book.MarkStolen(c)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, c.hour)
			g := r.guard(0, 0, 0)
			p := r.player(c.x, c.y)
			if c.setup != nil {
				c.setup(r, p)
			}
			got := r.rate(g, p)
			light := tu.Light(float32(c.hour))
			rng := tu.RangeAt(light)
			dist := math32.Hypot(c.x, c.y)
			want := tu.Rate(dist, rng, light, c.vis) * c.factor
			if math32.Abs(got-want) > 1e-5 {
				t.Errorf("rate %g, want %g (%g of them in the open, %.1f m, range %.1f m)", got, want, c.vis, dist, rng)
			}
		})
	}
}

// TestLowWallHidesNothing: a building lower than the eye does not block a
// look over it: the kerb south of the origin, seen by a guard facing south.
func TestLowWallHidesNothing(t *testing.T) {
	r := newRig(t, 12)
	g := r.guard(0, -30, -math32.Pi/2)
	p := r.player(0, -50)
	if got, want := r.rate(g, p), r.s.Tuning.Rate(20, 30, 1, 1); math32.Abs(got-want) > 1e-5 {
		t.Errorf("rate over the kerb %g, want %g", got, want)
	}
}

// TestRaysBounded: with more players in view than the tick's rays allow,
// the look stops at MaxRays.
func TestRaysBounded(t *testing.T) {
	r := newRig(t, 12)
	r.s.Tuning.MaxRays = 30
	for i := range 20 {
		r.player(6+float32(i%4), -4+float32(i/4)*2)
	}
	r.guard(0, 0, 0)
	r.guard(0, -1, 0)
	most := 0
	for range 2 * r.s.Tuning.LookEvery {
		r.Step(1)
		most = max(most, r.s.rays)
	}
	if most != r.s.Tuning.MaxRays {
		t.Fatalf("at most %d rays in a tick of looks, want %d", most, r.s.Tuning.MaxRays)
	}
}

// TestSteadyAllocatesNothing: sentries and cameras looking at players,
// going alert and chasing, allocate nothing tick after tick.
func TestSteadyAllocatesNothing(t *testing.T) {
	r := newRig(t, 12)
	for i := range 4 {
		r.guard(float32(i)*3, 0, 0)
	}
	for i := range 8 {
		r.player(8+float32(i), -6+float32(i%3))
	}
	r.player(40, 0) // before the camera
	r.car(6, -2, 0)
	r.Step(300)
	allocs := testing.AllocsPerRun(200, func() { r.W.Step() })
	if allocs != 0 {
		t.Fatalf("%v allocations per tick", allocs)
	}
	alert := 0
	for _, sn := range r.s.sentries {
		if r.sentryOf.Get(sn.e).Phase == components.SentryAlert {
			alert++
		}
	}
	if alert == 0 {
		t.Fatal("no sentry alert: the test proves nothing")
	}
	_ = ecs.Dt
}

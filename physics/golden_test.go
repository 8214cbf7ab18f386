package physics

import (
	"flag"
	"fmt"
	"hash"
	"hash/fnv"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/fiveonit/engine/components"
)

var update = flag.Bool("update", false, "rewrite testdata/step_hashes.txt")

// stepHasher hashes what a step leaves behind: every body's pose and
// velocity, bit for bit, and the step's hits (h); the motion alone (m); and
// the broad phase's counts (h only). A change to how Step computes that
// moves a single bit of one body at one step changes the hash.
type stepHasher struct {
	h, m  hash.Hash64
	stats bool
}

func newStepHasher() *stepHasher { return &stepHasher{h: fnv.New64a(), m: fnv.New64a()} }

func (h *stepHasher) f(x float32) {
	var b [4]byte
	u := math.Float32bits(x)
	b[0], b[1], b[2], b[3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
	h.h.Write(b[:])
	if !h.stats {
		h.m.Write(b[:])
	}
}

func (h *stepHasher) i(x int) { h.f(math.Float32frombits(uint32(x))) }

func (h *stepHasher) step(b *Bodies, s *Scratch) {
	for k := range b.List {
		bd := &b.List[k]
		for _, v := range [...]float32{bd.Pose.Pos.X, bd.Pose.Pos.Y, bd.Pose.Pos.Z, bd.Pose.Rot.X, bd.Pose.Rot.Y, bd.Pose.Rot.Z, bd.Pose.Rot.W,
			bd.Vel.Lin.X, bd.Vel.Lin.Y, bd.Vel.Lin.Z, bd.Vel.Ang.X, bd.Vel.Ang.Y, bd.Vel.Ang.Z} {
			h.f(v)
		}
	}
	for _, x := range s.Hits {
		h.i(int(x.A))
		h.i(int(x.B))
		h.f(x.Impulse)
		h.f(x.Speed)
		h.f(x.Point.X)
		h.f(x.Point.Y)
		h.f(x.Normal.X)
		h.f(x.Normal.Y)
	}
	h.stats = true
	h.i(s.Stats.Candidates)
	h.i(s.Stats.Contacts)
	h.i(s.Stats.StaticContacts)
	h.stats = false
}

// stepScenarios runs the city at four sizes, a pile in a yard (with a NaN
// body and an oversized one) and two rounds of mayhem with hitches, ghosts
// and drivers, and returns each one's hashes by name.
func stepScenarios() map[string]uint64 {
	out := map[string]uint64{}
	for _, sc := range []struct {
		n     int
		seed  uint64
		ticks int
	}{{5000, 1, 300}, {1000, 6, 600}, {400, 9, 900}, {100, 3, 300}} {
		h := newStepHasher()
		c := newCity(sc.n, sc.seed)
		var s Scratch
		for k := 0; k < sc.ticks; k++ {
			c.tick(&s)
			h.step(&c.b, &s)
		}
		out[fmt.Sprintf("city-%d", sc.n)] = h.h.Sum64()
		out[fmt.Sprintf("city-%d", sc.n)+"-motion"] = h.m.Sum64()
	}
	// pile in a yard
	{
		h := newStepHasher()
		st, b, _ := newPile()
		var s Scratch
		b.List[40].HalfX = 30
		b.List[17].Pose.Pos.X = nan32()
		for k := 0; k < 600; k++ {
			Step(st, &b, &s, Dt)
			h.step(&b, &s)
		}
		out["pile"] = h.h.Sum64()
		out["pile"+"-motion"] = h.m.Sum64()
	}
	// mayhem with hitches and a ghost
	for _, seed := range []uint64{1, 2} {
		h := newStepHasher()
		m, _ := newMayhem(seed)
		m.b.List[8].Layer = components.LayerGhost
		m.b.List[8].Mask = components.LayerVehicle
		for k := 0; k < 600; k++ {
			if k == 60 {
				m.b.AddHitch(0, 2, 8)
				m.b.AddHitch(4, 6, 7)
			}
			m.drive(k)
			Step(m.st, &m.b, &m.s, Dt)
			h.step(&m.b, &m.s)
		}
		out[fmt.Sprintf("mayhem-%d", seed)] = h.h.Sum64()
		out[fmt.Sprintf("mayhem-%d", seed)+"-motion"] = h.m.Sum64()
	}
	return out
}

// TestStepHashes: Step gives, bit for bit, the results it gave when
// testdata/step_hashes.txt was written, in every scenario. The physics is
// part of what server, bots and the browser must compute alike, and a
// faster Step must not move a body by one bit: a change that means to
// changes the hashes with -update, and says why in its commit.
func TestStepHashes(t *testing.T) {
	got := stepScenarios()
	const path = "testdata/step_hashes.txt"
	if *update {
		var lines []string
		for k, v := range got {
			lines = append(lines, fmt.Sprintf("%s %d", k, v))
		}
		slices.Sort(lines)
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]uint64{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var k string
		var v uint64
		if _, err := fmt.Sscan(line, &k, &v); err != nil {
			t.Fatalf("%s: %q: %v", path, line, err)
		}
		want[k] = v
	}
	if len(want) != len(got) {
		t.Fatalf("%s holds %d scenarios, the test runs %d", path, len(want), len(got))
	}
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if got[k] != want[k] {
			t.Errorf("%s: hash %d, want %d", k, got[k], want[k])
		}
	}
}

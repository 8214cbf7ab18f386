package loss

import (
	"math"
	"slices"
	"testing"
)

func TestNewRejectsOutOfRange(t *testing.T) {
	for _, p := range []float64{-0.1, 1.1, math.NaN(), math.Inf(1)} {
		if _, err := New(p, 1); err == nil {
			t.Errorf("New(%v): no error", p)
		}
	}
}

// TestDrop: a Sim drops the fraction asked for, the same frames for the
// same seed and others for another; none at P 0 or when nil.
func TestDrop(t *testing.T) {
	run := func(p float64, seed uint64) (lost int, first []bool) {
		s, err := New(p, seed)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 20000; i++ {
			l := s.Drop()
			if l {
				lost++
			}
			if i < 64 {
				first = append(first, l)
			}
		}
		return lost, first
	}
	a, fa := run(0.1, 1)
	b, fb := run(0.1, 1)
	_, fc := run(0.1, 2)
	if a < 1800 || a > 2200 {
		t.Errorf("lost %d of 20000 at 10%%", a)
	}
	if a != b || !slices.Equal(fa, fb) {
		t.Error("the same seed lost other frames")
	}
	if slices.Equal(fa, fc) {
		t.Error("two seeds lost the same frames")
	}
	if n, _ := run(0, 1); n != 0 {
		t.Errorf("P 0 lost %d", n)
	}
	if n, _ := run(1, 1); n != 20000 {
		t.Errorf("P 1 lost %d of 20000", n)
	}
	var nilSim *Sim
	if nilSim.Drop() || nilSim.P() != 0 {
		t.Error("a nil Sim lost a frame")
	}
}

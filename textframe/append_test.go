package textframe

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
)

// TestAppendJSONIsMarshal: the frames' AppendJSON write what json.Marshal
// writes, byte for byte, for edge values and random ones.
func TestAppendJSONIsMarshal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	floats := []float64{0, 1, -1, 0.5, 1e-6, 9.99e-7, 1e-7, 1e20, 1e21, 1.5e21, 123456789.125, -3.25e-9, math.SmallestNonzeroFloat64, math.MaxFloat32, 720, 1440.0166666}
	for i := 0; i < 2000; i++ {
		floats = append(floats, math.Float64frombits(rng.Uint64()&^(0x7FF<<52)|uint64(rng.IntN(0x7FF))<<52))
	}
	check := func(name string, got []byte, v any) {
		t.Helper()
		want, err := json.Marshal(v)
		if err != nil {
			return // NaN or Inf: json.Marshal refuses what no frame carries
		}
		if string(got) != string(want) {
			t.Fatalf("%s: AppendJSON %s, json.Marshal %s", name, got, want)
		}
	}
	var b []byte
	for i, f := range floats {
		c := ClockFrame{Type: "clock", Minutes: f, Pace: floats[(i+1)%len(floats)], Tick: rng.Uint64()}
		b = c.AppendJSON(b[:0])
		check("clock", b, c)
		w := WantedFrame{Type: "wanted", Stars: uint8(rng.IntN(6)), Heat: float32(f), Arrested: i%3 == 0, Cash: rng.Int64() - math.MaxInt64/2}
		if i%2 == 0 {
			w.Fine = rng.Int64N(1e6) - 1000
		}
		b = w.AppendJSON(b[:0])
		check("wanted", b, w)
		s := StatusFrame{Type: "status", HP: uint16(rng.Uint32()), MaxHP: uint16(rng.Uint32()), Cash: -rng.Int64(), Dead: i%2 == 1}
		if i%4 == 1 {
			s.Cause, s.By, s.ByPlayer, s.RespawnIn = "wreck", "police", uint16(rng.IntN(3)), f
		}
		b = s.AppendJSON(b[:0])
		check("status", b, s)
	}
	odd := StatusFrame{Type: "st\"a<tus>\n"}
	check("escaped type", odd.AppendJSON(nil), odd)
}

// TestAppendJSONAllocatesNothing: appending into a buffer with room
// allocates nothing.
func TestAppendJSONAllocatesNothing(t *testing.T) {
	b := make([]byte, 0, 256)
	w := WantedFrame{Type: "wanted", Stars: 3, Heat: 0.731, Cash: 1200}
	c := ClockFrame{Type: "clock", Minutes: 731.5, Pace: 1, Tick: 99}
	s := StatusFrame{Type: "status", HP: 0, MaxHP: 100, Cash: 5, Dead: true, Cause: "shot", By: "player", ByPlayer: 3, RespawnIn: 4.5}
	if n := testing.AllocsPerRun(100, func() {
		b = w.AppendJSON(b[:0])
		b = c.AppendJSON(b[:0])
		b = s.AppendJSON(b[:0])
	}); n != 0 {
		t.Fatalf("%v allocations a run, want 0", n)
	}
}

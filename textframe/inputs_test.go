package textframe

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
)

// TestInputsAppendJSONIsMarshal: InputsFrame.AppendJSON writes what
// json.Marshal writes, and allocates nothing into a buffer with room.
func TestInputsAppendJSONIsMarshal(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var b []byte
	for i := 0; i < 500; i++ {
		f := InputsFrame{Type: "inputs", Seq: rng.Uint32(), Taken: rng.Uint64(), Guessed: rng.Uint64N(1000), Late: rng.Uint64(),
			Dropped: uint64(i), Missed: math.MaxUint64 - uint64(i), Presses: rng.Uint64N(1 << 40)}
		b = f.AppendJSON(b[:0])
		want, _ := json.Marshal(f)
		if string(b) != string(want) {
			t.Fatalf("AppendJSON %s, json.Marshal %s", b, want)
		}
	}
	f := InputsFrame{Type: "inputs", Seq: 9, Taken: 1 << 60, Presses: 3}
	b = make([]byte, 0, 256)
	if n := testing.AllocsPerRun(100, func() { b = f.AppendJSON(b[:0]) }); n != 0 {
		t.Fatalf("%v allocations a run", n)
	}
}

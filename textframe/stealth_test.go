package textframe

import (
	"encoding/json"
	"testing"
)

// TestStealthAppendJSON: the stealth frame's AppendJSON writes what
// json.Marshal writes, for every combination of its bits, and allocates
// nothing into a buffer with room.
func TestStealthAppendJSON(t *testing.T) {
	var b []byte
	for bits := range 32 {
		f := StealthFrame{Type: "stealth", Seen: bits&1 != 0, Guard: bits&2 != 0, Camera: bits&4 != 0, Chased: bits&8 != 0, Alert: bits&16 != 0}
		b = f.AppendJSON(b[:0])
		want, _ := json.Marshal(f)
		if string(b) != string(want) {
			t.Fatalf("AppendJSON %s, json.Marshal %s", b, want)
		}
	}
	f := StealthFrame{Type: "stealth", Seen: true, Alert: true}
	b = make([]byte, 0, 128)
	if n := testing.AllocsPerRun(100, func() { b = f.AppendJSON(b[:0]) }); n != 0 {
		t.Fatalf("%v allocations a run", n)
	}
}

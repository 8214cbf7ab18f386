package textframe

import (
	"encoding/json"
	"testing"
)

// TestWatchedAppendJSON: the watched frame's AppendJSON writes what
// json.Marshal writes, dead or alive, and allocates nothing into a buffer
// with room.
func TestWatchedAppendJSON(t *testing.T) {
	var b []byte
	for _, f := range []WatchedFrame{
		{Type: "watched"},
		{Type: "watched", Player: 3, HP: 75, MaxHP: 100, Cash: 1234, Stars: 2},
		{Type: "watched", Player: 65535, MaxHP: 100, Cash: -5, Stars: 5, Dead: true},
	} {
		b = f.AppendJSON(b[:0])
		want, _ := json.Marshal(f)
		if string(b) != string(want) {
			t.Fatalf("AppendJSON %s, json.Marshal %s", b, want)
		}
	}
	f := WatchedFrame{Type: "watched", Player: 1, HP: 10, MaxHP: 100, Cash: 50, Stars: 1}
	b = make([]byte, 0, 128)
	if n := testing.AllocsPerRun(100, func() { b = f.AppendJSON(b[:0]) }); n != 0 {
		t.Fatalf("%v allocations a run", n)
	}
}

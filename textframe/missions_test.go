package textframe

import (
	"encoding/json"
	"testing"
)

// TestMissionFramesAppendJSONIsMarshal: the tracker, notice and phone
// frames' AppendJSON write what json.Marshal writes, byte for byte, with
// every optional field absent and present, and texts to escape; and
// appending into a buffer with room allocates nothing.
func TestMissionFramesAppendJSONIsMarshal(t *testing.T) {
	odd := "Sal's \"ledger\" <b>&</b>\n\u2028 \x01 ü"
	frames := []interface{ AppendJSON([]byte) []byte }{
		&TrackerFrame{Type: "tracker", Tick: 9},
		&TrackerFrame{Type: "tracker", Mission: "race", Title: odd, Objective: odd, Marker: &[2]float32{-144.25, 1e-7}, Radius: 15.5, Ends: 1 << 40, Tick: 12},
		&NoticeFrame{Type: "notice", Text: odd, Kind: "failure"},
		&PhoneFrame{Type: "phone", Messages: []PhoneMessage{}},
		&PhoneFrame{Type: "phone", Open: true, Messages: []PhoneMessage{
			{ID: 1, From: "Marlo", Text: odd},
			{ID: 2, From: odd, Text: "x", Offer: 7, Open: true, Mission: "delivery", Title: "Parcel run", Reward: 300},
		}, Screen: &PhoneScreen{ID: 3, Title: odd, Text: "t", Options: []string{"a", odd}}},
		&PhoneFrame{Type: "phone", Messages: []PhoneMessage{}, Screen: &PhoneScreen{ID: 4, Options: []string{}}},
	}
	b := make([]byte, 0, 2048)
	for i, f := range frames {
		want, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		if b = f.AppendJSON(b[:0]); string(b) != string(want) {
			t.Fatalf("frame %d: AppendJSON %s, json.Marshal %s", i, b, want)
		}
		if n := testing.AllocsPerRun(50, func() { b = f.AppendJSON(b[:0]) }); n != 0 {
			t.Fatalf("frame %d: %v allocations per append", i, n)
		}
	}
}

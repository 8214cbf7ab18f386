package textframe

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// TestRunFramesGolden: the run, spectate and watched frames as a client
// reads them, one per line, against testdata/runs.golden. A field renamed
// or dropped changes what the page and the bots read: the golden file
// changes with the frames' documentation above them (go test -update).
func TestRunFramesGolden(t *testing.T) {
	frames := []any{
		&RunFrame{
			Type: "run", Mission: "chase", Title: "The chase", Mode: "versus", Phase: "live", Tick: 3600, Ends: 21600, You: 1,
			Teams: []RunTeam{{Name: "Crew", Score: 3}, {Name: "Police", Score: 2}},
			Seats: []RunSeat{
				{Seat: 0, Name: "ava", Team: 0, State: "playing", Connected: true, Session: 1, Player: 1, Score: 5, TeamHits: 1},
				{Seat: 1, Name: "bo", Team: 1, State: "dropped", Session: 2, Player: 2, Score: 2},
				{Seat: 2, Name: "cy", Team: 1, State: "empty", Late: true},
			},
			Paying: true,
		},
		&RunFrame{
			Type: "run", Mission: "yard-heist", Title: "The yard heist", Mode: "coop", Phase: "ended", Tick: 9000, You: -1,
			Teams: []RunTeam{{Name: "Crew", Score: 0}}, Seats: []RunSeat{{Seat: 0, Name: "ava", State: "gone"}},
			Result: &RunResult{Outcome: "failure", Winner: -1, Text: "Out of time", NoPay: true},
		},
		&SpectateFrame{Type: "spectate", Session: 2, Player: 2, Name: "bo", Team: 1},
		&SpectateFrame{Type: "spectate", Team: -1},
		&WatchedFrame{Type: "watched", Player: 2, HP: 80, MaxHP: 100, Cash: 1250, Stars: 2},
		&WatchedFrame{Type: "watched", Player: 2, MaxHP: 100, Dead: true},
	}
	var got bytes.Buffer
	for _, f := range frames {
		b, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		if w, ok := f.(*WatchedFrame); ok {
			if a := w.AppendJSON(nil); !bytes.Equal(a, b) {
				t.Errorf("AppendJSON %s, json.Marshal %s", a, b)
			}
		}
		got.Write(b)
		got.WriteByte('\n')
	}
	const path = "testdata/runs.golden"
	if *update {
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run TestRunFramesGolden -update writes it)", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("the run frames changed:\n%s\nwant (%s):\n%s", got.Bytes(), path, want)
	}
}

package server

import (
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/runs"
)

// TestNoticeAndEndRun: a notice reaches every joined player as an info
// notice frame; EndRun ends a live run as a failure with its text (no
// winner), once, and the room is over CloseTicks later; a room with no
// run has none to end.
func TestNoticeAndEndRun(t *testing.T) {
	r := newRunRoom(t, false, false, runs.Seat{Account: "a1", Team: 0}, runs.Seat{Account: "b1", Team: 1})
	r.live("a1", "b1")
	r.g.Notice("This server shuts down in 30 s.")
	r.ticks(1, components.Drive{})
	for _, acc := range []string{"a1", "b1"} {
		n := r.ps[acc].lastText("notice")
		if n == nil || n["text"] != "This server shuts down in 30 s." || n["kind"] != "info" {
			t.Errorf("%s: notice %v", acc, n)
		}
	}
	if !r.g.EndRun("The server is shutting down.") {
		t.Fatal("EndRun of a live run: false")
	}
	if r.g.EndRun("again") {
		t.Error("EndRun of an ended run: true")
	}
	r.ticks(2, components.Drive{})
	f := r.run(r.ps["a1"])
	if f.Phase != "ended" || f.Result == nil || f.Result.Outcome != "failure" || f.Result.Winner != -1 || f.Result.Text != "The server is shutting down." {
		t.Fatalf("ended: %+v %+v", f, f.Result)
	}
	r.ticks(int(runs.CloseTicks), components.Drive{})
	if !r.g.Over() {
		t.Error("not over CloseTicks after EndRun")
	}
	g := newServer(t)
	if g.EndRun("x") {
		t.Error("EndRun in a room with no run: true")
	}
}

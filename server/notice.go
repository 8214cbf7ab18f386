package server

import (
	"github.com/fiveonit/engine/runs"
	"github.com/fiveonit/engine/textframe"
)

// Notice sends every player and spectator of the room a notice frame
// ({"type":"notice","kind":"info"}) with text: what the room says to all,
// such as a server draining ("this server shuts down in 30 s"). A player
// whose place is held without a connection misses it. Room goroutine
// only.
func (g *GameServer) Notice(text string) {
	f := textframe.NoticeFrame{Type: "notice", Text: text, Kind: "info"}
	b := textframe.Marshal(&f)
	for _, s := range g.sessions {
		if s.closed || !s.joined || s.detached {
			continue
		}
		g.sendTextBytes(s, b)
	}
}

// EndRun ends a run room's run under way, as a failure with text as its
// result (a versus run has no winner), and reports whether it did: false
// for a room that plays no run or a run that has ended. The players get
// the run frame with the result, and the room closes once it has shown it
// (Over). Room goroutine only.
func (g *GameServer) EndRun(text string) bool {
	if g.runs == nil {
		return false
	}
	f := g.runs
	f.mu.Lock()
	phase, _ := f.run.Phase()
	f.mu.Unlock()
	if phase >= runs.Ended {
		return false
	}
	f.end(false, text)
	return true
}

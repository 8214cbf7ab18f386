package server

import (
	"bytes"
	"fmt"

	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/server/servertest"
)

// crowdFrame is the example frame of docs/extending.md: how many players
// the room holds. A real frame goes in package textframe, documented there
// field by field, and is listed in docs/commands.md.
type crowdFrame struct {
	Type    string `json:"type"` // "crowd"
	Players int    `json:"players"`
}

// crowdFeature is the example feature of docs/extending.md: it tells each
// player how many players the room holds, on entering and whenever the
// number changes. It answers no command.
type crowdFeature struct {
	noCommands
	g    *GameServer
	told perSession[int] // the number each session was last told
}

func newCrowdFeature(g *GameServer) *crowdFeature {
	return &crowdFeature{g: g, told: newPerSession[int](g.cfg.MaxPlayers)}
}

// enter starts s's state anew: the slot may have been another session's.
func (f *crowdFeature) enter(s *Session) { *f.told.of(s) = -1 }

func (f *crowdFeature) leave(*Session) {}

// notify sends s the crowd frame when the number changed since s was last
// told, and reports whether s is still connected.
func (f *crowdFeature) notify(s *Session) bool {
	n := len(f.g.Sessions())
	if told := f.told.of(s); *told != n {
		*told = n
		// Sent seldom (a join, a leave): sendText marshals it. A frame
		// the tick may send often appends itself (AppendJSON).
		return f.g.sendText(s, &crowdFrame{Type: "crowd", Players: n})
	}
	return true
}

// Example_addFeature is the walkthrough "Add a text frame" of
// docs/extending.md, compiled and run: a feature that sends a frame when
// something changes, wired to the server, and its frames arriving on a
// player's connection.
func Example_addFeature() {
	l, _ := levels.Load("test-flat")
	g, err := New(Config{Room: "example", Level: l, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Close("example over")
	// A real feature is one line in GameServer.wire's list; the example
	// adds itself after the others.
	if err := g.use(append(g.features, newCrowdFeature(g))...); err != nil {
		fmt.Println(err)
		return
	}
	crowd := func(c *servertest.MemConn) {
		for _, f := range c.Recv() {
			if f.Text && bytes.HasPrefix(f.Data, []byte(`{"type":"crowd"`)) {
				fmt.Printf("%s\n", f.Data)
			}
		}
	}
	a := servertest.NewMemConn(false, 0)
	if _, err := g.Join(a, Who{}); err != nil {
		fmt.Println(err)
		return
	}
	g.Tick()
	crowd(a) // a joined: one player
	b := servertest.NewMemConn(false, 0)
	if _, err := g.Join(b, Who{}); err != nil {
		fmt.Println(err)
		return
	}
	g.Tick()
	crowd(a) // b joined: a is told two
	g.Tick()
	crowd(a) // nothing changed: nothing sent
	// Output:
	// {"type":"crowd","players":1}
	// {"type":"crowd","players":2}
}

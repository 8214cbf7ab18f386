package server

import (
	"bytes"
	"fmt"

	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/server/servertest"
)

// exampleCrowdFrame is the example frame of docs/extending.md: how many
// players the room holds. A real frame goes in package textframe,
// documented there field by field, and is listed in docs/commands.md. The
// example's names and its frame's type start with example, so that the
// walkthrough followed to the letter (a crowdFeature in package server
// sending "crowd" frames) builds and runs beside it.
type exampleCrowdFrame struct {
	Type    string `json:"type"` // "example-crowd"
	Players int    `json:"players"`
}

// exampleCrowd is the example feature of docs/extending.md: it tells each
// player how many players the room holds, on entering and whenever the
// number changes. It answers no command.
type exampleCrowd struct {
	noCommands
	g    *GameServer
	told perSession[int] // the number each session was last told
}

func newExampleCrowd(g *GameServer) *exampleCrowd {
	return &exampleCrowd{g: g, told: newPerSession[int](g.cfg.MaxPlayers)}
}

// enter starts s's state anew: the slot may have been another session's.
func (f *exampleCrowd) enter(s *Session) { *f.told.of(s) = -1 }

// resume makes s's new client be told anew: it came back after a drop.
func (f *exampleCrowd) resume(s *Session) { *f.told.of(s) = -1 }

func (f *exampleCrowd) leave(*Session) {}

// notify sends s the crowd frame when the number changed since s was last
// told, and reports whether s is still connected.
func (f *exampleCrowd) notify(s *Session) bool {
	n := len(f.g.Sessions())
	if told := f.told.of(s); *told != n {
		*told = n
		// Sent seldom (a join, a leave): sendText marshals it. A frame
		// the tick may send often appends itself (AppendJSON).
		return f.g.sendText(s, &exampleCrowdFrame{Type: "example-crowd", Players: n})
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
	if err := g.use(append(g.features, newExampleCrowd(g))...); err != nil {
		fmt.Println(err)
		return
	}
	crowd := func(c *servertest.MemConn) {
		for _, f := range c.Recv() {
			if f.Text && bytes.HasPrefix(f.Data, []byte(`{"type":"example-crowd"`)) {
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
	// {"type":"example-crowd","players":1}
	// {"type":"example-crowd","players":2}
}

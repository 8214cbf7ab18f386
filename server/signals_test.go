package server

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/systems"
	"github.com/fiveonit/engine/textframe"
)

// signalFrames returns the signals frames p got since its texts were last
// emptied, decoded, and empties them.
func signalFrames(t *testing.T, p *probe) []textframe.SignalsFrame {
	t.Helper()
	p.read()
	var out []textframe.SignalsFrame
	for _, m := range p.texts {
		if m["type"] != "signals" {
			continue
		}
		b, _ := json.Marshal(m)
		var f textframe.SignalsFrame
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatal(err)
		}
		if f.Held == nil {
			t.Fatalf("a signals frame with held null: %s", b)
		}
		out = append(out, f)
	}
	p.texts = p.texts[:0]
	return out
}

// replyTo returns p's reply to command id, and empties nothing.
func replyTo(p *probe, id float64) map[string]any {
	for _, m := range p.texts {
		if m["type"] == "reply" && m["id"] == id {
			return m
		}
	}
	return nil
}

// TestSignalsTold plays the signals frame through a main-city room: every
// player is told the (no) holds as they join, everyone is told again when a
// signal is held or released (by the debug command, as a mission would),
// one who joins later is told the hold at once, a bad or refused command
// changes nothing and sends nothing, and a level reset releases the holds.
func TestSignalsTold(t *testing.T) {
	g := newFreeRoam(t)
	dbg := join(t, g, Who{Debug: true})
	plain := join(t, g, Who{})
	g.Tick()
	for _, p := range []*probe{dbg, plain} {
		if fs := signalFrames(t, p); len(fs) != 1 || len(fs[0].Held) != 0 {
			t.Fatalf("on join: signals frames %+v, want one with none held", fs)
		}
	}
	type step struct {
		name  string
		cmd   string // from dbg, or from plain when by is "plain"
		by    string
		err   string // the reply's error, "" for ok
		frame []textframe.HeldSignal
	}
	held := []textframe.HeldSignal{{ID: "signal-4-4", Phase: 1}}
	red := []textframe.HeldSignal{{ID: "signal-4-4", Phase: 1}, {ID: "signal-8-4", Phase: -1}}
	steps := []step{
		{"hold", `"cmd":"signal","value":"signal-4-4","phase":1`, "", "", held},
		{"hold again", `"cmd":"signal","value":"signal-4-4","phase":1`, "", "", nil},
		{"without debug", `"cmd":"signal","value":"signal-4-4","phase":0`, "plain", "debug commands are off", nil},
		{"no such signal", `"cmd":"signal","value":"signal-1-1","phase":0`, "", "no such signal", nil},
		{"no such phase", `"cmd":"signal","value":"signal-4-4","phase":2`, "", "no such phase", nil},
		{"below red", `"cmd":"signal","value":"signal-4-4","phase":-2`, "", "no such phase", nil},
		{"no id", `"cmd":"signal","phase":0`, "", "value is required", nil},
		{"hold red", `"cmd":"signal","value":"signal-8-4","phase":-1`, "", "", red},
		{"release", `"cmd":"signal","value":"signal-8-4"`, "", "", held},
		{"release again", `"cmd":"signal","value":"signal-8-4"`, "", "", nil},
		{"reset the level", `"cmd":"reset-level"`, "", "", []textframe.HeldSignal{}},
	}
	for i, st := range steps {
		id := float64(i + 1)
		from := dbg
		if st.by == "plain" {
			from = plain
		}
		from.command(fmt.Sprintf(`{"type":"debug","id":%d,%s}`, i+1, st.cmd))
		g.Tick()
		g.Tick()
		from.read()
		r := replyTo(from, id)
		switch {
		case r == nil:
			t.Fatalf("%s: no reply", st.name)
		case st.err == "" && r["ok"] != true:
			t.Fatalf("%s: refused: %v", st.name, r)
		case st.err != "" && (r["ok"] == true || !strings.Contains(r["error"].(string), st.err)):
			t.Fatalf("%s: reply %v, want an error with %q", st.name, r, st.err)
		}
		for _, p := range []*probe{dbg, plain} {
			fs := signalFrames(t, p)
			switch {
			case st.frame == nil && len(fs) != 0:
				t.Fatalf("%s: frames %+v, want none", st.name, fs)
			case st.frame != nil && (len(fs) != 1 || !slices.Equal(fs[0].Held, st.frame)):
				t.Fatalf("%s: frames %+v, want one holding %+v", st.name, fs, st.frame)
			}
		}
		if st.name == "hold" {
			s, err := systems.Signals(g.World()).State("signal-4-4")
			if err != nil || !s.Held || s.Phase != 1 {
				t.Fatalf("the system shows %+v (%v)", s, err)
			}
			// One who joins now is told the hold as they join.
			late := join(t, g, Who{Spectate: true})
			g.Tick()
			if fs := signalFrames(t, late); len(fs) != 1 || !slices.Equal(fs[0].Held, held) {
				t.Fatalf("late join: frames %+v, want one holding %+v", fs, held)
			}
		}
	}
}

// TestWelcomeListsRacesAndZones: the welcome carries the level's races, each
// gate as the level has it, and its zones; a level without signals sends
// no signals frame.
func TestWelcomeListsRacesAndZones(t *testing.T) {
	g := newFreeRoam(t)
	p := join(t, g, Who{})
	g.Tick()
	p.read()
	l := g.Level()
	if len(p.welcome.Races) != len(l.Races) || len(l.Races) == 0 {
		t.Fatalf("welcome races %+v, level has %d", p.welcome.Races, len(l.Races))
	}
	for i, r := range l.Races {
		wr := p.welcome.Races[i]
		if wr.ID != r.ID || wr.Loop != r.Loop || len(wr.Gates) != len(r.Gates) {
			t.Fatalf("race %d: %+v", i, wr)
		}
		for k, gt := range r.Gates {
			if w := wr.Gates[k]; w.ID != gt.ID || w.Pos != [2]float32{gt.Pos.X, gt.Pos.Y} || w.Yaw != gt.Yaw || w.Width != gt.Width {
				t.Fatalf("race %s gate %d: %+v, level %+v", r.ID, k, w, gt)
			}
		}
	}
	restricted := 0
	for _, z := range p.welcome.Zones {
		if z.Kind == "restricted" && len(z.Polygon) >= 3 {
			restricted++
		}
	}
	if restricted != 2 {
		t.Errorf("%d restricted zones in the welcome, want 2 (police-lot, yard): %+v", restricted, p.welcome.Zones)
	}

	flat := newServer(t)
	q := join(t, flat, Who{})
	for i := 0; i < 3; i++ {
		flat.Tick()
	}
	if fs := signalFrames(t, q); len(fs) != 0 {
		t.Errorf("test-flat has no signals: frames %+v", fs)
	}
	if q.welcome.Races != nil {
		t.Errorf("test-flat has no races: %+v", q.welcome.Races)
	}
}

// TestSignalsFrameAllocatesNothing: a steady tick with signals held and
// players told allocates nothing (the frame is built once per change).
func TestSignalsFrameAllocatesNothing(t *testing.T) {
	g := newFreeRoam(t)
	p := join(t, g, Who{Debug: true})
	p.command(`{"type":"debug","id":1,"cmd":"signal","value":"signal-4-4","phase":1}`)
	for i := 0; i < 2*ecs.TickRate; i++ {
		g.Tick()
		p.c.Recv()
	}
	city := featureOf[*cityFeature](t, g)
	if n := testing.AllocsPerRun(100, func() {
		city.notify(p.s)
	}); n != 0 {
		t.Errorf("%v allocations per notify", n)
	}
}

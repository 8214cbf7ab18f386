package main

import (
	"encoding/json"
	"fmt"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/textframe"
)

// notHeld is a signal's hold while it runs its cycle.
const notHeld = -2

// signal is one of the level's traffic signals as the page knows it: its
// plan, the lanes it lights, and the hold the server last told.
type signal struct {
	id    string
	plan  levels.SignalPlan
	lanes []int32 // the lanes into its node, by index in Roads.Lanes
	masks []uint8 // per lane: bit k set when it has green in phase k
	hold  int     // notHeld, levels.SignalAllRed or the phase held
}

// planSignals plans the signals of level l, none held.
func (p *Page) planSignals(l *levels.Level) {
	p.signals = p.signals[:0]
	for i := range l.Roads.Signals {
		sg := &l.Roads.Signals[i]
		g := signal{id: sg.ID, plan: levels.NewSignalPlan(sg, ecs.TickRate), hold: notHeld}
		g.lanes, g.masks = l.SignalLanes(i)
		p.signals = append(p.signals, g)
	}
	p.lights = make([]byte, len(l.Roads.Lanes))
}

// onSignals takes the server's signals frame: the signals held by hand,
// every other on its cycle.
func (p *Page) onSignals(frame []byte) error {
	var f textframe.SignalsFrame
	if err := json.Unmarshal(frame, &f); err != nil {
		return fmt.Errorf("page: signals: %w", err)
	}
	for i := range p.signals {
		p.signals[i].hold = notHeld
	}
	for _, h := range f.Held {
		for i := range p.signals {
			if g := &p.signals[i]; g.id == h.ID && h.Phase >= levels.SignalAllRed && h.Phase < len(g.plan.Green) {
				g.hold = h.Phase
			}
		}
	}
	return nil
}

// Lights returns the light at the end of every lane of the level at tick
// (components.Light values, by index in Roads.Lanes; LightNone where no
// signal stands), each signal on its cycle or held as the server last
// said: what the server's signals system shows at that tick. It is nil
// until the welcome names a level the page has. The slice is reused by
// the next call, which allocates nothing.
func (p *Page) Lights(tick uint64) []byte {
	for i := range p.signals {
		g := &p.signals[i]
		phase, amber := g.hold, false
		if g.hold == notHeld {
			phase, amber = g.plan.At(tick)
		}
		for k, li := range g.lanes {
			p.lights[li] = byte(components.Light(g.plan.Light(g.masks[k], phase, amber)))
		}
	}
	return p.lights
}

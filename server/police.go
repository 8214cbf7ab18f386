package server

import (
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/textframe"
)

// HeatEvery is the ticks between two Wanted frames that only carry a
// changed Heat: at most twice per second. Heat may change every tick, and a
// meter on the screen needs no more; a change of stars goes at once.
const HeatEvery = ecs.TickRate / 2

// policeFeature tells each player their Wanted level (the wanted frame)
// when it changes, with the fine of an arrest.
type policeFeature struct {
	noCommands
	g    *GameServer
	sent perSession[wantedSent]
}

// wantedSent is what a session was last told of its Wanted level.
type wantedSent struct {
	sent    bool
	stars   uint8
	heat    float32
	arrests uint32
}

func newPoliceFeature(g *GameServer) *policeFeature {
	return &policeFeature{g: g, sent: newPerSession[wantedSent](g.cfg.MaxPlayers)}
}

func (p *policeFeature) enter(s *Session)  { p.sent.reset(s) }
func (p *policeFeature) resume(s *Session) { p.sent.reset(s) }
func (p *policeFeature) leave(*Session)    {}

// notify sends s its Wanted level when it changed (the Heat alone at most
// every HeatEvery ticks), with the fine of an arrest.
func (p *policeFeature) notify(s *Session) bool {
	g := p.g
	if !s.playing(g.w) {
		return true
	}
	wa, cash := g.wanted.Get(s.char)
	if wa == nil {
		return true
	}
	sent := p.sent.of(s)
	heatDue := wa.Heat != sent.heat && g.w.Tick()%HeatEvery == 0
	if sent.sent && wa.Stars == sent.stars && wa.Arrests == sent.arrests && !heatDue {
		return true
	}
	f := textframe.WantedFrame{Type: "wanted", Stars: wa.Stars, Heat: wa.Heat, Cash: cash.Amount}
	if sent.sent && wa.Arrests != sent.arrests {
		f.Arrested, f.Fine = true, wa.Fine
	}
	*sent = wantedSent{sent: true, stars: wa.Stars, heat: wa.Heat, arrests: wa.Arrests}
	g.text = f.AppendJSON(g.text[:0])
	return g.sendTextBytes(s, g.text)
}

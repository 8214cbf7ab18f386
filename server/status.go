package server

import "github.com/fiveonit/engine/textframe"

// statusFeature tells each player their health and Cash (the status
// frame) when they change.
type statusFeature struct {
	noCommands
	g    *GameServer
	sent perSession[statusSent]
}

// statusSent is what a session was last told of its status.
type statusSent struct {
	sent bool
	hp   uint16
	cash int64
}

func newStatusFeature(g *GameServer) *statusFeature {
	return &statusFeature{g: g, sent: newPerSession[statusSent](g.cfg.MaxPlayers)}
}

func (f *statusFeature) enter(s *Session)  { f.sent.reset(s) }
func (f *statusFeature) resume(s *Session) { f.sent.reset(s) }
func (f *statusFeature) leave(*Session)    {}

// notify sends s its health and Cash when either changed.
func (f *statusFeature) notify(s *Session) bool {
	g := f.g
	if !s.playing(g.w) {
		return true
	}
	_, cash := g.wanted.Get(s.char)
	h := g.health.Get(s.char)
	sent := f.sent.of(s)
	if sent.sent && h.HP == sent.hp && (cash == nil || cash.Amount == sent.cash) {
		return true
	}
	fr := textframe.StatusFrame{Type: "status", HP: h.HP, MaxHP: h.Max, Dead: h.HP == 0}
	if cash != nil {
		fr.Cash = cash.Amount
		sent.cash = cash.Amount
	}
	sent.sent, sent.hp = true, h.HP
	g.text = fr.AppendJSON(g.text[:0])
	return g.sendTextBytes(s, g.text)
}

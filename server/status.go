package server

import (
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/textframe"
	"github.com/mlange-42/arche/generic"
)

// statusFeature tells each player their health and Cash (the status
// frame) when they change; a dead player's frame says what killed them and
// when they come back.
type statusFeature struct {
	noCommands
	g      *GameServer
	deaths generic.Map1[components.Death]
	sent   perSession[statusSent]
}

// statusSent is what a session was last told of its status.
type statusSent struct {
	sent bool
	hp   uint16
	cash int64
}

func newStatusFeature(g *GameServer) *statusFeature {
	return &statusFeature{g: g, deaths: generic.NewMap1[components.Death](g.w.Arche), sent: newPerSession[statusSent](g.cfg.MaxPlayers)}
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
	if d := f.deaths.Get(s.char); fr.Dead && d != nil {
		fr.Cause, fr.By, fr.ByPlayer = deathCauses[d.Cause], deathBy(d.By), d.Player
		if now := g.w.Tick(); d.Back > now {
			fr.RespawnIn = float64(d.Back-now) / ecs.TickRate
		}
	}
	sent.sent, sent.hp = true, h.HP
	g.text = fr.AppendJSON(g.text[:0])
	return g.sendTextBytes(s, g.text)
}

// deathCauses are the status frame's names of the causes of death
// (textframe.StatusFrame.Cause), by components.DeathCause; "" is unknown.
var deathCauses = [...]string{
	components.DeathUnknown:   "",
	components.DeathShot:      "shot",
	components.DeathRunOver:   "run-over",
	components.DeathCrash:     "crash",
	components.DeathExplosion: "explosion",
	components.DeathWreck:     "wreck",
}

// deathBy returns the status frame's name of who killed a player
// (textframe.StatusFrame.By), by components.Death.By: "player", "police"
// (an officer or a police car), "guard", "car" (a car no player drove),
// "pedestrian"; "" for nothing but themselves.
func deathBy(k components.Kind) string {
	switch k {
	case components.KindCharacter:
		return "player"
	case components.KindPoliceCar, components.KindOfficer:
		return "police"
	case components.KindGuard:
		return "guard"
	case components.KindCar, components.KindTrailer:
		return "car"
	case components.KindPedestrian:
		return "pedestrian"
	}
	return ""
}

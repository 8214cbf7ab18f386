package server

import (
	"errors"

	"github.com/fiveonit/engine/systems"
	"github.com/fiveonit/engine/systems/missionhost"
	"github.com/fiveonit/engine/textframe"
)

// missionsFeature wires the MissionHost to the sessions: the phone
// commands, and each player's tracker, phone and notices as frames.
type missionsFeature struct {
	noSession
	g      *GameServer
	host   *missionhost.System // nil when the game has none
	sent   perSession[missionsSent]
	phone  textframe.PhoneFrame // the phone frame, built again in place
	screen textframe.PhoneScreen
}

// missionsSent is what a session was last told of its missions.
type missionsSent struct {
	phone   uint32 // the phone's revision
	tracker uint32 // the tracker's revision
}

func newMissionsFeature(g *GameServer) *missionsFeature {
	return &missionsFeature{g: g, host: systems.Missions(g.w), sent: newPerSession[missionsSent](g.cfg.MaxPlayers)}
}

func (m *missionsFeature) commands() []string { return []string{"phone"} }
func (m *missionsFeature) enter(s *Session)   { m.sent.reset(s) }
func (m *missionsFeature) resume(s *Session)  { m.sent.reset(s) }

// errNoMissions answers a phone command in a room whose game runs no
// missions.
var errNoMissions = errors.New("not available: this room runs no missions")

// command runs a phone command of s's player through the MissionHost;
// its error is the reply's reason.
func (m *missionsFeature) command(s *Session, c *textframe.Command) error {
	g, h := m.g, m.host
	switch {
	case h == nil:
		return errNoMissions
	case s.who.Spectate:
		return errors.New("a spectator has no phone")
	}
	w, e := g.w, s.char
	switch c.Cmd {
	case "accept", "decline":
		if c.Offer == 0 {
			return errors.New(`"offer" is required: an offer's number on your phone`)
		}
		if c.Cmd == "accept" {
			return h.Accept(w, e, c.Offer)
		}
		return h.Decline(w, e, c.Offer)
	case "abandon":
		return h.Abandon(w, e)
	case "screen":
		if c.Choice == nil {
			return errors.New(`"choice" is required: an option of the screen, from 0`)
		}
		return h.Answer(w, e, *c.Choice)
	case "close":
		return h.Close(w, e)
	}
	return errors.New(`unknown phone command (known: accept, decline, abandon, screen, close)`)
}

// notify sends s its tracker and its phone when they changed, and
// its notices, and reports whether s is still connected. The frames are
// built only when their content changed, appended into reused buffers:
// nothing is allocated on a quiet tick nor on a busy one.
func (m *missionsFeature) notify(s *Session) bool {
	g, h := m.g, m.host
	if h == nil || s.who.Spectate {
		return true
	}
	ph := h.PhoneOf(s.char, s.charWire)
	if ph == nil {
		return true
	}
	sent := m.sent.of(s)
	if ph.TrackerRev != sent.tracker {
		sent.tracker = ph.TrackerRev
		f := trackerFrame(ph, g.w.Tick())
		g.text = f.AppendJSON(g.text[:0])
		if !g.sendTextBytes(s, g.text) {
			return false
		}
	}
	if ph.Rev != sent.phone {
		sent.phone = ph.Rev
		m.phoneFrame(ph)
		ph.Open = false
		g.text = m.phone.AppendJSON(g.text[:0])
		if !g.sendTextBytes(s, g.text) {
			return false
		}
	}
	for _, n := range ph.TakeNotices() {
		f := textframe.NoticeFrame{Type: "notice", Text: n.Text, Kind: n.Kind.String()}
		g.text = f.AppendJSON(g.text[:0])
		if !g.sendTextBytes(s, g.text) {
			return false
		}
	}
	return true
}

// trackerFrame is ph's tracker as a frame, at tick.
func trackerFrame(ph *missionhost.Phone, tick uint64) textframe.TrackerFrame {
	t := &ph.Tracker
	f := textframe.TrackerFrame{Type: "tracker", Mission: ph.Mission, Tick: tick}
	if ph.Mission == "" {
		return f
	}
	f.Title, f.Objective, f.Ends = ph.Title, t.Objective, t.Ends
	if t.Mark {
		f.Marker, f.Radius = &[2]float32{t.At.X, t.At.Y}, t.Radius
	}
	return f
}

// phoneFrame builds ph's messages and screen into m.phone, in place.
func (m *missionsFeature) phoneFrame(ph *missionhost.Phone) {
	f := &m.phone
	f.Type, f.Open, f.Screen = "phone", ph.Open, nil
	f.Messages = f.Messages[:0]
	for _, msg := range ph.Messages() {
		f.Messages = append(f.Messages, textframe.PhoneMessage{ID: msg.ID, From: msg.From, Text: msg.Text, Offer: msg.Offer, Open: msg.Open,
			Mission: msg.Mission, Title: msg.Title, Reward: msg.Reward})
	}
	if ph.ScreenID != 0 {
		m.screen = textframe.PhoneScreen{ID: ph.ScreenID, Title: ph.Screen.Title, Text: ph.Screen.Text, Options: ph.Screen.Options}
		if m.screen.Options == nil {
			m.screen.Options = []string{}
		}
		f.Screen = &m.screen
	}
}

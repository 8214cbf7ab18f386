package server

import (
	"github.com/fiveonit/engine/systems"
	"github.com/fiveonit/engine/systems/stealth"
	"github.com/fiveonit/engine/textframe"
)

// stealthFeature tells each player, in a room with guards or cameras,
// whether a guard or a camera sees them, whether a guard is after them and
// the room's alert (the stealth frame), and gives the debug readout its
// stealth part.
type stealthFeature struct {
	noCommands
	g    *GameServer
	sys  *stealth.System // nil in a room with no level
	read stealth.Readout // the debug readout's, reused
	sent perSession[stealthSent]
}

// stealthSent is what a session was last told of the stealth.
type stealthSent struct {
	sent  bool
	frame textframe.StealthFrame
}

func newStealthFeature(g *GameServer) *stealthFeature {
	return &stealthFeature{g: g, sys: systems.Stealth(g.w), sent: newPerSession[stealthSent](g.cfg.MaxPlayers)}
}

func (f *stealthFeature) enter(s *Session)  { f.sent.reset(s) }
func (f *stealthFeature) resume(s *Session) { f.sent.reset(s) }
func (f *stealthFeature) leave(*Session)    {}

// notify sends s the stealth frame when any of it changed (and once on
// joining).
func (f *stealthFeature) notify(s *Session) bool {
	g, st := f.g, f.sys
	if st == nil || !st.Active() || !s.playing(g.w) {
		return true
	}
	guard, camera, chased := st.PlayerSeen(s.char)
	alert, _ := st.Book().Alert()
	fr := textframe.StealthFrame{Type: "stealth", Seen: guard || camera, Guard: guard, Camera: camera, Chased: chased, Alert: alert}
	sent := f.sent.of(s)
	if sent.sent && fr == sent.frame {
		return true
	}
	*sent = stealthSent{sent: true, frame: fr}
	g.text = fr.AppendJSON(g.text[:0])
	return g.sendTextBytes(s, g.text)
}

// readout returns the stealth's part of the debug readout, nil in a room
// with neither guards nor cameras. Twice a second to debug clients only:
// it allocates its lists.
func (f *stealthFeature) readout() *textframe.ReadoutStealth {
	st := f.sys
	if st == nil || !st.Active() {
		return nil
	}
	st.Readout(&f.read)
	r := &f.read
	out := &textframe.ReadoutStealth{Alert: r.Alert, AlertSince: r.AlertSince, Light: r.Light, Entries: r.Entries,
		Sentries: make([]textframe.ReadoutSentry, 0, len(r.Sentries)), Cameras: make([]textframe.ReadoutCamera, 0, len(r.Cameras))}
	for _, c := range r.Sentries {
		out.Sentries = append(out.Sentries, textframe.ReadoutSentry{ID: c.WireID, Phase: c.Phase.String(), Suspicion: c.Suspicion,
			Target: c.Target, X: c.X, Y: c.Y, Yaw: c.Yaw, Range: c.Range, Cone: c.Cone})
	}
	for _, c := range r.Cameras {
		out.Cameras = append(out.Cameras, textframe.ReadoutCamera{ID: c.WireID, Name: c.ID, X: c.X, Y: c.Y, Yaw: c.Yaw,
			Arc: c.Arc, Range: c.Range, Broken: c.Broken, Target: c.Target, Spot: c.Spot})
	}
	return out
}

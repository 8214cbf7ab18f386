package server

import (
	"github.com/fiveonit/engine/textframe"
)

// stealthSent is what a session was last told of the stealth.
type stealthSent struct {
	sent  bool
	frame textframe.StealthFrame
}

// notifyStealth sends s, in a room with guards or cameras, whether a guard
// or a camera sees its player, whether a guard is after them and the room's
// alert, when any of it changed (and once on joining). It reports whether
// s is still connected.
func (g *GameServer) notifyStealth(s *Session) bool {
	st := g.stealth
	if st == nil || !st.Active() {
		return true
	}
	guard, camera, chased := st.PlayerSeen(s.char)
	alert, _ := st.Book().Alert()
	f := textframe.StealthFrame{Type: "stealth", Seen: guard || camera, Guard: guard, Camera: camera, Chased: chased, Alert: alert}
	if s.sent.stealth.sent && f == s.sent.stealth.frame {
		return true
	}
	s.sent.stealth = stealthSent{sent: true, frame: f}
	g.text = f.AppendJSON(g.text[:0])
	return g.sendTextBytes(s, g.text)
}

// stealthReadout returns the stealth's part of the debug readout, nil in a
// room with neither guards nor cameras. Twice a second to debug clients
// only: it allocates its lists.
func (g *GameServer) stealthReadout() *textframe.ReadoutStealth {
	st := g.stealth
	if st == nil || !st.Active() {
		return nil
	}
	st.Readout(&g.stealthRead)
	r := &g.stealthRead
	f := &textframe.ReadoutStealth{Alert: r.Alert, AlertSince: r.AlertSince, Light: r.Light, Entries: r.Entries,
		Sentries: make([]textframe.ReadoutSentry, 0, len(r.Sentries)), Cameras: make([]textframe.ReadoutCamera, 0, len(r.Cameras))}
	for _, c := range r.Sentries {
		f.Sentries = append(f.Sentries, textframe.ReadoutSentry{ID: c.WireID, Phase: c.Phase.String(), Suspicion: c.Suspicion,
			Target: c.Target, X: c.X, Y: c.Y, Yaw: c.Yaw, Range: c.Range, Cone: c.Cone})
	}
	for _, c := range r.Cameras {
		f.Cameras = append(f.Cameras, textframe.ReadoutCamera{ID: c.WireID, Name: c.ID, X: c.X, Y: c.Y, Yaw: c.Yaw,
			Arc: c.Arc, Range: c.Range, Broken: c.Broken, Target: c.Target, Spot: c.Spot})
	}
	return f
}

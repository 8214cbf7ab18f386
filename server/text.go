package server

import (
	"errors"

	"github.com/fiveonit/engine/textframe"
)

// sendText sends s a JSON text frame on the reliable channel and reports
// whether s is still connected. A text frame that does not fit the queue is
// lost with the client: it is cut off (its character leaves the world, so
// the caller must not touch it again).
func (g *GameServer) sendText(s *Session, v any) bool {
	return g.sendTextBytes(s, textframe.Marshal(v))
}

// sendTextBytes is sendText for a frame already in JSON (b is only read
// during the call: the transport copies it).
func (g *GameServer) sendTextBytes(s *Session, b []byte) bool {
	if err := s.conn.Send(b, true, true); err != nil {
		if errors.Is(err, ErrSendFull) {
			g.kick(s, ErrTooSlow)
			return false
		}
		g.places.lost(s, "connection closed")
		return false
	}
	s.stats.FramesOut++
	s.stats.BytesOut += uint64(len(b))
	return true
}

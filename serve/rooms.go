package serve

import (
	"github.com/fiveonit/engine/metrics"
	"github.com/fiveonit/engine/rooms"
	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/transport/webrtc"
)

// startRooms makes the room manager, which opens the default room, each
// room publishing its metrics.
func (s *Server) startRooms(soc server.SocialConfig) error {
	c := s.c
	rc := rooms.Config{
		DefaultLevel: c.Level, DefaultGame: c.Game, Grace: c.Grace, RejoinWindow: c.RejoinWindow,
		MaxRooms: c.MaxRooms, MaxRoomsFrom: c.MaxRoomsFrom, MaxPlayers: c.MaxPlayers, MaxPlayersFrom: c.MaxPlayersFrom,
		Debug: c.Debug, DebugAccounts: list(c.DebugAccounts), Log: s.log, Social: soc, Accounts: s.accounts,
		Observe: func(r *rooms.Room) rooms.RoomObserver { return roomMetrics{s.met.Room(r.Name)} },
	}
	if s.dir != nil {
		rc.Directory = s.dir
	}
	m, err := rooms.NewManager(rc)
	if err != nil {
		return err
	}
	s.rooms = m
	s.ready.Store(m)
	return nil
}

// startWebRTC makes the WebRTC transport, its pending connections in the
// metrics; with RTC false it makes none.
func (s *Server) startWebRTC(o webrtc.Options) error {
	if !s.c.RTC {
		return nil
	}
	o.Log = s.log.With("transport", "webrtc")
	rtc, err := webrtc.New(o)
	if err != nil {
		return err
	}
	s.rtc = rtc
	s.met.Pending("webrtc", rtc.Pending)
	return nil
}

// roomMetrics publishes a room's metrics from its goroutine.
type roomMetrics struct{ m *metrics.Room }

func (o roomMetrics) Ticked(r *rooms.Room) { o.m.Observe(r.Server(), r.LastTick(), r.Overruns()) }
func (o roomMetrics) Closed(*rooms.Room)   { o.m.Close() }

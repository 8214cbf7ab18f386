package serve

import (
	"sync/atomic"

	"github.com/fiveonit/engine/ecs"
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
		MaxRooms: c.MaxRooms, MaxRoomsFrom: c.MaxRoomsFrom, MaxPlayers: c.MaxPlayers, ClientKbps: c.ClientKbps, MaxPlayersFrom: c.MaxPlayersFrom,
		Debug: c.Debug, DebugAccounts: list(c.DebugAccounts), Log: s.log, Social: soc, Accounts: s.accounts,
		Observe: func(r *rooms.Room) rooms.RoomObserver {
			return &roomObserver{m: s.met.Room(r.Name), players: s.players}
		},
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

// roomObserver publishes a room's metrics from its goroutine and, with
// Agones on, who plays in it once per second.
type roomObserver struct {
	m       *metrics.Room
	players *playerBook // nil: not kept
	ticks   int
}

// tickHook, if set (by tests), is called after each tick of every room,
// in its goroutine: a test stalls a room with it.
var tickHook atomic.Pointer[func(r *rooms.Room)]

func (o *roomObserver) Ticked(r *rooms.Room) {
	o.m.Observe(r.Server(), r.LastTick(), r.Overruns())
	if o.players != nil {
		if o.ticks%ecs.TickRate == 0 {
			o.players.note(r)
		}
		o.ticks++
	}
	if h := tickHook.Load(); h != nil {
		(*h)(r)
	}
}

func (o *roomObserver) Closed(r *rooms.Room) {
	o.m.Close()
	if o.players != nil {
		o.players.forget(r)
	}
}

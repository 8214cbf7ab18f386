package serve

import (
	"net/http"

	"github.com/fiveonit/engine/metrics"
	"github.com/fiveonit/engine/rooms"
	"github.com/fiveonit/engine/transport/websocket"
	"github.com/fiveonit/engine/web"
)

// publicHandler serves the public listener: the rooms' routes (the joins
// over both transports, the room list, the levels and the games) and the
// web page. It counts the requests being served in s.handlers, the
// WebSocket joins included: those are hijacked, so http.Server.Shutdown
// does not wait for them, and the drain does.
func (s *Server) publicHandler() http.Handler {
	routes := s.rooms.Handler(rooms.HTTPConfig{
		Tokens:    s.tokens,
		WebSocket: websocket.Options{OriginPatterns: list(s.c.Origins), AnyOrigin: s.c.AnyOrigin},
		WebRTC:    s.rtc,
		Refused:   s.met.Refused,
		Track: func(transport string, counts func() rooms.Counts) func() {
			return s.met.Track(transport, func() metrics.Counts { return metrics.Counts(counts()) })
		},
	})
	mux := http.NewServeMux()
	mux.Handle("/rooms", routes)
	mux.Handle("/rooms/", routes)
	mux.Handle("/levels/", routes)
	mux.Handle("/games", routes)
	mux.Handle("/", web.Handler()) // the page at / and its files; the routes above win
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.handlers.Add(1)
		defer s.handlers.Done()
		mux.ServeHTTP(w, r)
	})
}

package serve

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// shutdownReason is the close reason every client and room gets.
const shutdownReason = "server shutting down"

// drainPoll is how often Drain looks whether anybody still plays.
const drainPoll = 100 * time.Millisecond

// Drain is the players' part of a shutdown, within Config.DrainTimeout:
// the server is no longer ready (/readyz) from its first moment, no new
// player joins (the refusal says why and how long is left), every player
// is told the time left, and a run still playing ends with a result
// (rooms.Manager.Drain). It returns once nobody plays or the time is up;
// with DrainTimeout 0, at once. Shutdown then closes the rooms. Call it
// once, after Start.
func (s *Server) Drain() {
	s.draining.Store(true)
	if s.fleet != nil {
		s.fleet.stopReady()
	}
	if s.c.DrainTimeout <= 0 {
		return
	}
	start := time.Now()
	until := start.Add(s.c.DrainTimeout)
	s.log.Info("draining", "drain_timeout", s.c.DrainTimeout, "players", s.playerCount())
	s.rooms.Drain(until)
	t := time.NewTicker(drainPoll)
	defer t.Stop()
	for {
		if s.rooms.Idle() {
			s.log.Info("drained: nobody plays", "took", time.Since(start).Round(time.Millisecond))
			return
		}
		if !time.Now().Before(until) {
			s.log.Info("drain timeout: closing the rooms", "players", s.playerCount())
			return
		}
		<-t.C
	}
}

// playerCount is the players of every room.
func (s *Server) playerCount() int {
	n := 0
	for _, r := range s.rooms.List() {
		n += r.Players
	}
	return n
}

// Shutdown drains the server within Config.Drain: it closes the rooms
// (each client gets the reason), writes the accounts, closes the WebRTC
// connections, takes the process out of the fleet's room directory, then
// closes the listeners once their requests are done; then it tells
// Agones, if on, that the server is done (POST /shutdown), and last
// closes the store. Its error says what did not drain in time (not
// Agones' answer: it is logged). Call it once, after Start (and Drain).
func (s *Server) Shutdown() error {
	s.draining.Store(true)
	if s.store != nil {
		defer s.store.Close()
	}
	defer s.closeTokens()
	s.log.Info("shutting down", "drain", s.c.Drain)
	ctx, cancel := context.WithTimeout(context.Background(), s.c.Drain)
	defer cancel()
	err := s.drainRooms(ctx)
	if derr := s.closeDirectory(ctx); derr != nil && err == nil {
		err = derr
	}
	if herr := s.closeListeners(ctx); herr != nil && err == nil {
		err = herr
	}
	if s.fleet != nil {
		s.fleet.shutdown(ctx)
	}
	if err != nil {
		return fmt.Errorf("did not drain in %s: %w", s.c.Drain, err)
	}
	s.log.Info("stopped")
	return nil
}

// drainRooms closes the rooms, then writes the players' last state they
// posted, then closes the WebRTC connections; its error is the first
// step's that did not finish within ctx.
func (s *Server) drainRooms(ctx context.Context) error {
	err := s.rooms.Shutdown(ctx, shutdownReason)
	if s.accounts != nil {
		if aerr := s.accounts.Close(ctx); aerr != nil && err == nil {
			err = aerr
		}
	}
	if s.rtc != nil {
		if rerr := s.rtc.Shutdown(ctx, shutdownReason); rerr != nil && err == nil {
			err = rerr
		}
	}
	return err
}

// closeListeners stops both listeners, waits within ctx for the public
// one's requests (WebSocket joins included), then closes every connection
// left.
func (s *Server) closeListeners(ctx context.Context) error {
	s.public.Shutdown(ctx)
	s.admin.Shutdown(ctx)
	err := wait(ctx, &s.handlers)
	if err != nil {
		err = fmt.Errorf("connections still open: %w", err)
	}
	s.public.Close()
	s.admin.Close()
	return err
}

// wait waits for wg, or for ctx.
func wait(ctx context.Context, wg *sync.WaitGroup) error {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

package server

import (
	"errors"
	"testing"

	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/server/servertest"
	"github.com/fiveonit/engine/systems/motion"
)

// TestMaxPlayers: New refuses a bound below 0 or above MaxPlayers with
// ErrMaxPlayers, rather than making a room of another size than asked; 0
// takes DefaultMaxPlayers (64); a room takes as many players as its bound, and the
// join after them fails with ErrRoomFull.
func TestMaxPlayers(t *testing.T) {
	l, err := levels.Load("test-flat")
	if err != nil {
		t.Fatal(err)
	}
	st, err := motion.BakeLevel(l)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{-1, MaxPlayers + 1} {
		if _, err := New(Config{Level: l, Static: st, MaxPlayers: n}); !errors.Is(err, ErrMaxPlayers) {
			t.Errorf("MaxPlayers %d: %v, want ErrMaxPlayers", n, err)
		}
	}
	for _, c := range []struct{ max, takes int }{{0, DefaultMaxPlayers}, {2, 2}, {MaxPlayers, MaxPlayers}} {
		g, err := New(Config{Level: l, Static: st, MaxPlayers: c.max})
		if err != nil {
			t.Fatalf("MaxPlayers %d: %v", c.max, err)
		}
		for i := range c.takes {
			if _, err := g.Join(servertest.NewMemConn(false, 0), Who{}); err != nil {
				t.Fatalf("MaxPlayers %d: join %d: %v", c.max, i+1, err)
			}
		}
		if _, err := g.Join(servertest.NewMemConn(false, 0), Who{}); !errors.Is(err, ErrRoomFull) {
			t.Errorf("MaxPlayers %d: join %d: %v, want ErrRoomFull", c.max, c.takes+1, err)
		}
		g.Close("test over")
	}
}

package server

import (
	"errors"
	"testing"

	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/internal/race"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/server/servertest"
)

func TestClientKbpsBounds(t *testing.T) {
	l, err := levels.Load("test-flat")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		kbps, want int
		err        error
	}{
		{0, DefaultClientKbps, nil},
		{MinClientKbps, MinClientKbps, nil},
		{MaxClientKbps, MaxClientKbps, nil},
		{MinClientKbps - 1, 0, ErrClientKbps},
		{MaxClientKbps + 1, 0, ErrClientKbps},
		{-1, 0, ErrClientKbps},
	} {
		g, err := New(Config{Room: "t", Level: l, ClientKbps: c.kbps})
		if !errors.Is(err, c.err) {
			t.Fatalf("ClientKbps %d: error %v, want %v", c.kbps, err, c.err)
		}
		if err == nil && g.cfg.ClientKbps != c.want {
			t.Fatalf("ClientKbps %d: the room holds %d, want %d", c.kbps, g.cfg.ClientKbps, c.want)
		}
	}
}

// TestClientCostsItsBudget: on main-city's traffic, over 20 s, a client
// on a WebSocket and a WebRTC client that never acknowledges (its every
// frame a keyframe) each get at most their budget's bytes, the join's
// keyframe and a second's credit aside; and the budget binds (the bytes
// come near it).
func TestClientCostsItsBudget(t *testing.T) {
	race.Solo(t)
	const kbps, seconds = 24, 20
	l, err := levels.Load("main-city")
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(Config{Room: "budget", Level: l, Seed: 4, Rules: ecs.FreeRoam(), ClientKbps: kbps})
	if err != nil {
		t.Fatal(err)
	}
	conns := map[string]*servertest.MemConn{"ordered": servertest.NewMemConn(false, 0), "never acks": servertest.NewMemConn(true, 0)}
	for _, c := range conns {
		if _, err := g.Join(c, Who{}); err != nil {
			t.Fatal(err)
		}
	}
	bytes, largest := map[string]int{}, map[string]int{}
	first := map[string]bool{}
	for range seconds * ecs.TickRate {
		g.Tick()
		for name, c := range conns {
			fs := c.Recv()
			for _, f := range fs {
				if f.Text {
					continue
				}
				if !first[name] {
					first[name] = true // the join's keyframe is free
					continue
				}
				bytes[name] += len(f.Data)
				largest[name] = max(largest[name], len(f.Data))
			}
			c.Release(fs)
		}
	}
	perSecond := kbps * 1000 / 8
	for name := range conns {
		most := perSecond*(seconds+1) + largest[name]
		t.Logf("%s: %d bytes in %d s, budget %d, largest frame %d", name, bytes[name], seconds, perSecond*seconds, largest[name])
		if bytes[name] > most || bytes[name] < most/2 {
			t.Fatalf("%s: %d bytes in %d s, want %d to %d", name, bytes[name], seconds, most/2, most)
		}
	}
}

package server

import (
	"errors"
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/internal/race"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/netsync"
	"github.com/fiveonit/engine/netsync/wire"
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

// TestAckedDebtKeepsItsBase: an acked client deep in debt, as after the
// keyframe of a crowded room, still gets a frame before its acknowledged
// base is too old to go onto, and so no keyframe. Without that frame, the
// next frame would be a keyframe, which would put the client in debt
// again: at 1,024 players, an acked client got a 105 KB keyframe every
// 6 s and nothing else.
func TestAckedDebtKeepsItsBase(t *testing.T) {
	g := newServer(t)
	p := newInproc(t, g, true)
	drive := components.Drive{Throttle: 0.6, Steer: 0.3}
	enc := func() netsync.AckedStats { return p.s.snap.AckedEncoder().Stats() }
	step := func() {
		t.Helper()
		g.Tick()
		p.play(t, drive)
	}
	for range 30 {
		step()
	}
	before, frames := g.stats.KeyframesBy, enc().Frames
	start := frames
	const debt = -1 << 30 // years of its budget
	p.s.credit = debt
	var last uint32
	var paid int
	for range 4 * wire.MaxPoseAge {
		step()
		if enc().Frames == frames {
			continue
		}
		frames = enc().Frames
		paid += len(p.s.snap.Last())
		h, _, err := wire.ParseAckedHeader(p.s.snap.Last())
		if err != nil {
			t.Fatal(err)
		}
		if h.BaseTick == 0 || h.Tick-h.BaseTick > wire.MaxPoseAge || last != 0 && h.Tick-last > wire.MaxPoseAge {
			t.Fatalf("a frame of tick %d onto %d, after one of tick %d", h.Tick, h.BaseTick, last)
		}
		last = h.Tick
		if ok, eid := p.c.Decoder().Store().EqualRecords(p.s.snap.State()); !ok {
			t.Fatalf("tick %d: entity %d: the client does not hold what the server believes", h.Tick, eid)
		}
	}
	if g.stats.KeyframesBy != before {
		t.Fatalf("keyframes by reason %v in debt, %v before", g.stats.KeyframesBy, before)
	}
	if n := enc().Frames - start; n < 3 || n > 5 {
		t.Fatalf("%d frames in debt, the last of tick %d: want one before each base expires", n, last)
	}
	share, _ := budgetOf(g.cfg.ClientKbps)
	if want := debt + 4*wire.MaxPoseAge/wire.SnapshotEvery*share - paid; p.s.credit != want {
		t.Fatalf("credit %d, want %d: the frames in debt, %d bytes, are paid for", p.s.credit, want, paid)
	}
}

// TestAckedNoFrameOfTickZero: acked clients that join before a room's
// first tick get their first frame, the join's free keyframe, after tick
// 0, and no keyframe after it. A frame of tick 0 is never a base: its
// acknowledgement reads as none.
func TestAckedNoFrameOfTickZero(t *testing.T) {
	g := newServer(t)
	var ps []*inproc
	for range wire.SnapshotEvery {
		ps = append(ps, newInproc(t, g, true))
	}
	for range 20 * wire.SnapshotEvery {
		g.Tick()
		for _, p := range ps {
			p.play(t, components.Drive{})
		}
	}
	for i, p := range ps {
		if st := p.s.Stats(); st.Keyframes != 1 || st.FramesOut == 0 {
			t.Fatalf("client %d: %d keyframes in %d frames, want the join's alone", i, st.Keyframes, st.FramesOut)
		}
	}
	if by := g.stats.KeyframesBy; by[KeyframeFirst] != wire.SnapshotEvery || by[KeyframeNoBase] != 0 {
		t.Fatalf("keyframes by reason %v", by)
	}
}

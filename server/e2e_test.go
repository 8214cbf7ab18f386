package server

import (
	"math"
	"testing"

	"github.com/fiveonit/engine/client"
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/netsync/wire"
	"github.com/fiveonit/engine/server/servertest"
	"github.com/mlange-42/arche/generic"
)

// inproc is a client wired to a session in the same goroutine.
type inproc struct {
	c    *client.Client
	s    *Session
	conn *servertest.MemConn
}

func newInproc(t testing.TB, g *GameServer, lossy bool) *inproc {
	t.Helper()
	conn := servertest.NewMemConn(lossy, 0)
	s, err := g.Join(conn, Who{})
	if err != nil {
		t.Fatal(err)
	}
	p := &inproc{s: s, conn: conn}
	p.c = client.New(client.Config{Lossy: lossy, Static: g.static, Send: func(b []byte, text bool) error {
		return s.Receive(b, text)
	}})
	return p
}

func (p *inproc) deliver(t testing.TB) {
	t.Helper()
	for _, f := range p.conn.Recv() {
		if err := p.c.HandleFrame(f.Data, f.Text); err != nil {
			t.Fatalf("client: %v", err)
		}
	}
}

// play is the client's turn after a server tick: it takes its frames,
// then ticks with drive.
func (p *inproc) play(t testing.TB, drive components.Drive) {
	t.Helper()
	p.deliver(t)
	if err := p.c.Tick(drive); err != nil {
		t.Fatal(err)
	}
}

// script is a bot's controls at its tick: drive, get out, walk away and
// back, get in again, every 15 s.
func script(i int, tick uint32) components.Drive {
	ph := (tick + uint32(i)*53) % 900
	switch {
	case ph < 560:
		return components.Drive{Throttle: 0.5, Steer: float32(math.Sin(float64(tick)/90+float64(i))) * 0.4}
	case ph < 620:
		return components.Drive{Brake: 1}
	case ph == 640:
		return components.Drive{Pressed: components.BtnUse}
	case ph > 680 && ph < 740:
		return components.Drive{MoveY: 1, LookYaw: float32(i)}
	case ph >= 740 && ph < 800:
		return components.Drive{MoveY: -1, LookYaw: float32(i)}
	case ph == 840:
		return components.Drive{Pressed: components.BtnUse}
	}
	return components.Drive{}
}

// TestSixteenClientsSixtySeconds runs the server and 16 in-memory clients
// for 60 s of ticks on main-city: after every snapshot each client holds
// byte for byte what the server believes it holds, no check fails, and a
// prediction is corrected by 1 cm or more only where the body touched
// another body (which the client does not simulate).
func TestSixteenClientsSixtySeconds(t *testing.T) {
	const n = 16
	ticks := 60 * ecs.TickRate
	if testing.Short() {
		ticks = 15 * ecs.TickRate // the race pass: the same checks, a quarter of the time
	}
	l, _ := levels.Load("main-city")
	g, err := New(Config{Room: "e2e", Level: l, Seed: 3, Rules: ecs.FreeRoam(), EncodeWorkers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close("test over")
	var ps []*inproc
	for i := 0; i < n; i++ {
		ps = append(ps, newInproc(t, g, false))
	}
	// touched[wid] is the last tick body wid touched another body.
	touched := map[uint16]uint64{}
	unexplained, explained := 0, 0
	var checked int
	for tick := 0; tick < ticks; tick++ {
		for i, p := range ps {
			if _, ok := p.c.Welcome(); ok {
				if err := p.c.Tick(script(i, p.c.Seq())); err != nil {
					t.Fatal(err)
				}
			}
		}
		g.Tick()
		markTouching(g, touched)
		for _, p := range ps {
			before := p.c.Stats().Corrections
			p.deliver(t)
			st := p.c.Stats()
			if st.Corrections > before && st.LastCorrection >= 0.01 {
				wid, _, _ := p.c.Controlled()
				if at, ok := touched[wid]; ok && g.w.Tick()-at < 2*wire.SnapshotEvery {
					explained++
				} else {
					unexplained++
					t.Errorf("tick %d: client %d corrected by %.4f m with no contact", g.w.Tick(), p.s.ID(), st.LastCorrection)
				}
			}
		}
		{ // after every tick: what a client holds is what the server believes it holds
			for _, p := range ps {
				if p.s.closed || p.s.snap == nil {
					continue
				}
				if ok, eid := p.c.Decoder().Store().EqualRecords(p.s.snap.State()); !ok {
					t.Fatalf("tick %d: client %d differs from the server's mirror at entity %d", g.w.Tick(), p.s.ID(), eid)
				}
				checked++
			}
		}
	}
	var sum client.Stats
	for _, p := range ps {
		st := p.c.Stats()
		if st.Resyncs != 0 {
			t.Errorf("client %d: %d frames refused", p.s.ID(), st.Resyncs)
		}
		if st.Snapshots < uint64(ticks/wire.SnapshotEvery-2) {
			t.Errorf("client %d: %d snapshots", p.s.ID(), st.Snapshots)
		}
		sum.Reconciles += st.Reconciles
		sum.Corrections += st.Corrections
		sum.MaxCorrection = max(sum.MaxCorrection, st.MaxCorrection)
	}
	if sum.Reconciles < uint64(n*ticks/wire.SnapshotEvery/2) {
		t.Fatalf("only %d reconciliations: the clients hardly predicted", sum.Reconciles)
	}
	if g.Stats().Guesses != 0 {
		t.Fatalf("%d inputs guessed in lockstep", g.Stats().Guesses)
	}
	t.Logf("%d mirror comparisons; %d reconciles, %d corrections over %.0e m (max %.4f m); >= 1 cm: %d after contacts, %d unexplained",
		checked, sum.Reconciles, sum.Corrections, client.CorrectionEpsilon, sum.MaxCorrection, explained, unexplained)
}

// markTouching records the tick in touched for every body whose bounding
// circle touches another's: a contact the client does not simulate, whether
// or not the solver reported it as a hit (a push out of an overlap moves a
// body without an impulse).
func markTouching(g *GameServer, touched map[uint16]uint64) {
	type disc struct {
		wid  uint16
		x, y float32
		r    float32
	}
	var ds []disc
	f := generic.NewFilter3[components.Identity, components.Pose, components.Body]()
	q := f.Query(g.w.Arche)
	for q.Next() {
		id, pose, b := q.Get()
		if in := generic.NewMap1[components.SeatedIn](g.w.Arche); in.Get(q.Entity()) != nil && !in.Get(q.Entity()).Vehicle.IsZero() {
			continue // rides a vehicle: no body of its own
		}
		r := b.Radius
		if b.Shape == components.ShapeBox {
			r = float32(math.Hypot(float64(b.HalfX), float64(b.HalfY)))
		}
		ds = append(ds, disc{id.WireID, pose.Pos.X, pose.Pos.Y, r})
	}
	for i := range ds {
		for j := i + 1; j < len(ds); j++ {
			a, b := ds[i], ds[j]
			dx, dy := a.x-b.x, a.y-b.y
			if r := a.r + b.r + 0.3; dx*dx+dy*dy < r*r {
				touched[a.wid], touched[b.wid] = g.w.Tick(), g.w.Tick()
			}
		}
	}
}

// TestAckedKeyframeSmaller: an acked client whose frames stop arriving
// keeps acknowledging its last one, and each frame is the chain of every
// frame since. When the chain would take more than twice a keyframe, a
// keyframe goes instead, counted as KeyframeSmaller, not as one for want
// of a base; once the frames arrive again, the client applies it and
// holds what the server holds.
func TestAckedKeyframeSmaller(t *testing.T) {
	g := newServer(t)
	p := newInproc(t, g, true)
	drive := components.Drive{Throttle: 0.6, Steer: 0.3}
	for range 30 {
		g.Tick()
		p.play(t, drive)
	}
	before := g.stats.KeyframesBy
	ticks := 0
	for ; ticks < (wire.SentRing-1)*wire.SnapshotEvery; ticks++ {
		g.Tick()
		if g.stats.KeyframesBy != before {
			break // the keyframe is not lost
		}
		p.conn.Recv() // lost
		if err := p.c.Tick(drive); err != nil {
			t.Fatal(err)
		}
	}
	got := g.stats.KeyframesBy
	if got[KeyframeSmaller] != before[KeyframeSmaller]+1 || got[KeyframeNoBase] != before[KeyframeNoBase] {
		t.Fatalf("after %d ticks of lost frames, keyframes by reason %v, before %v: want one more for size", ticks, got, before)
	}
	if n := p.s.snap.AckedEncoder().Stats().Smaller; n != 1 {
		t.Fatalf("the encoder counts %d keyframes for size", n)
	}
	t.Logf("a keyframe for size after %d ticks of lost frames", ticks)
	for i := range 10 * wire.SnapshotEvery {
		if i > 0 {
			g.Tick()
		}
		p.deliver(t)
		if ok, eid := p.c.Decoder().Store().EqualRecords(p.s.snap.State()); !ok {
			t.Fatalf("tick %d after the keyframe: entity %d: the client does not hold what the server believes", i, eid)
		}
		if err := p.c.Tick(drive); err != nil {
			t.Fatal(err)
		}
	}
}

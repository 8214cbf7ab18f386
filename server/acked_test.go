package server

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/fiveonit/engine/client"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/internal/race"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/netsync/wire"
	"github.com/fiveonit/engine/server/servertest"
)

// lossyLink carries one client's frames each way with loss, duplication
// and reordering: a WebRTC data channel that never retransmits. Text frames
// and frames marked reliable go through whole and in order.
type lossyLink struct {
	rng              *rand.Rand
	loss, dup        float64
	toClient, toServ []delayed
	lostIn, lostOut  int
}

type delayed struct {
	at   int
	data []byte
	text bool
}

func (l *lossyLink) carry(q []delayed, now int, data []byte, text, reliable bool, lost *int) []delayed {
	b := append([]byte(nil), data...)
	if text || reliable {
		return append(q, delayed{now + 1, b, text})
	}
	if l.rng.Float64() < l.loss {
		*lost++
		return q
	}
	q = append(q, delayed{now + 1 + l.rng.IntN(3), b, false}) // reordered within 3 ticks
	if l.rng.Float64() < l.dup {
		q = append(q, delayed{now + 1 + l.rng.IntN(3), b, false})
	}
	return q
}

func due(q []delayed, now int) (ready, rest []delayed) {
	for _, d := range q {
		if d.at <= now {
			ready = append(ready, d)
		} else {
			rest = append(rest, d)
		}
	}
	return ready, rest
}

// TestAckedOverLossyLink: 8 clients get acked snapshots over links that
// lose 20% of their frames each way, duplicate 5% and reorder within 3
// ticks, for 60 s of ticks on main-city. Every frame a client shows holds
// exactly the state the server computed for that tick (their checks, FNV-1a
// over every record, are equal), no frame is refused, and the redundant
// inputs (four a frame) lose an input only when four frames in a row are
// lost.
func TestAckedOverLossyLink(t *testing.T) {
	race.Solo(t)
	ticks := 60 * ecs.TickRate
	if testing.Short() {
		ticks = 10 * ecs.TickRate
	}
	l, _ := levels.Load("main-city")
	g, err := New(Config{Room: "lossy", Level: l, Seed: 9, Rules: ecs.FreeRoam()})
	if err != nil {
		t.Fatal(err)
	}
	type peer struct {
		c    *client.Client
		s    *Session
		conn *servertest.MemConn
		link *lossyLink
		want map[uint32]uint32 // S_N's check, by tick
	}
	var ps []*peer
	for i := 0; i < 8; i++ {
		p := &peer{conn: servertest.NewMemConn(true, 0), want: map[uint32]uint32{},
			link: &lossyLink{rng: rand.New(rand.NewPCG(uint64(i), 1)), loss: 0.2, dup: 0.05}}
		p.s, _ = g.Join(p.conn, Who{})
		p.c = client.New(client.Config{Lossy: true, Static: g.static, Send: func(b []byte, text bool) error {
			p.link.toServ = p.link.carry(p.link.toServ, int(g.w.Tick()), b, text, text, &p.link.lostOut)
			return nil
		}})
		ps = append(ps, p)
	}
	shown, checked := 0, 0
	const lead = 5
	for tick := 0; tick < ticks; tick++ {
		now := int(g.w.Tick())
		for i, p := range ps {
			if _, ok := p.c.Welcome(); ok {
				// The link takes 1 to 3 ticks: a client runs ahead of the
				// server by that and a little (its pacing does so in real
				// time), so that its inputs are there when their ticks run.
				for p.c.Seq() <= uint32(tick)+lead {
					p.c.Tick(script(i, p.c.Seq()))
				}
			}
			var ready []delayed
			ready, p.link.toServ = due(p.link.toServ, now)
			for _, d := range ready {
				p.s.Receive(d.data, d.text)
			}
		}
		g.Tick()
		now = int(g.w.Tick())
		for _, p := range ps {
			for _, f := range p.conn.Recv() {
				if !f.Text && p.s.snap != nil {
					tick := binary.LittleEndian.Uint32(f.Data[1:]) // u8 kind | u32 tick
					p.want[tick] = p.s.snap.State().Check()
				}
				p.link.toClient = p.link.carry(p.link.toClient, now, f.Data, f.Text, f.Reliable, &p.link.lostIn)
			}
			var ready []delayed
			ready, p.link.toClient = due(p.link.toClient, now)
			for _, d := range ready {
				before := p.c.Stats().Snapshots
				if err := p.c.HandleFrame(d.data, d.text); err != nil {
					t.Fatalf("client %d: %v", p.s.ID(), err)
				}
				if p.c.Stats().Snapshots == before || d.text {
					continue
				}
				shown++
				tk := p.c.Decoder().Tick()
				if want, ok := p.want[tk]; ok {
					if got := p.c.Decoder().Store().Check(); got != want {
						t.Fatalf("client %d shows tick %d with check %08x, the server's S_N is %08x", p.s.ID(), tk, got, want)
					}
					checked++
				}
			}
		}
	}
	var lost, frames int
	for _, p := range ps {
		lost += p.link.lostIn
		frames += int(p.c.Stats().Snapshots)
		if p.c.Stats().Resyncs != 0 {
			t.Errorf("client %d refused %d frames", p.s.ID(), p.c.Stats().Resyncs)
		}
	}
	st := g.Stats()
	t.Logf("%d frames shown (%d compared with the server's state), %d lost on the way; keyframes %v; input guesses %d (late %d) of %d ticks",
		shown, checked, lost, st.KeyframesBy, st.Guesses, st.Late, ticks*len(ps))
	if checked < shown*9/10 || lost == 0 {
		t.Fatalf("only %d of %d frames compared, %d lost", checked, shown, lost)
	}
	// An input never comes only when the four frames carrying it are all
	// lost: 0.2^4, 0.16% of the ticks; allow three times that.
	if never := st.Guesses - st.Late; float64(never) > 3*0.0016*float64(ticks*len(ps)) {
		t.Fatalf("%d inputs never came", never)
	}
}

// TestModeSwitchStartsWithKeyframe: a client that switches from the
// ordered to the acked snapshots and back gets a keyframe of the new kind
// first, each time, and follows without a refusal.
func TestModeSwitchStartsWithKeyframe(t *testing.T) {
	g := newServer(t)
	p := newInproc(t, g, false)
	var kinds []uint8
	step := func(n int) {
		for i := 0; i < n; i++ {
			p.c.Tick(script(0, p.c.Seq()))
			g.Tick()
			for _, f := range p.conn.Recv() {
				if !f.Text {
					kinds = append(kinds, f.Data[0])
				}
				if err := p.c.HandleFrame(f.Data, f.Text); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	step(9)
	p.s.Receive([]byte(`{"type":"mode","acked":true}`), true)
	step(9)
	p.s.Receive([]byte(`{"type":"mode","acked":false}`), true)
	step(9)
	// ordered keyframe, deltas; an acked keyframe (kind 6, base 0), acked
	// deltas; an ordered keyframe, deltas.
	var seq []uint8
	for i, k := range kinds {
		if i == 0 || k != kinds[i-1] {
			seq = append(seq, k)
		}
	}
	want := []uint8{wire.FrameKeyframe, wire.FrameDelta, wire.FrameAcked, wire.FrameKeyframe, wire.FrameDelta}
	if len(seq) != len(want) {
		t.Fatalf("frame kinds %v", kinds)
	}
	for i := range want {
		if seq[i] != want[i] {
			t.Fatalf("frame kinds %v, want the runs %v", kinds, want)
		}
	}
	if by := g.Stats().KeyframesBy; by[KeyframeSwitch] != 2 || by[KeyframeFirst] != 1 {
		t.Fatalf("keyframes by reason %v", by)
	}
	if p.c.Stats().Resyncs != 0 {
		t.Fatal("the client refused a frame")
	}
}

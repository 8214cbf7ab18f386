package bench

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"slices"
	"testing"
	"time"

	"github.com/fiveonit/engine/netsync"
	"github.com/fiveonit/engine/netsync/wire"
)

// BenchmarkNetsyncAcked is the acked encoder's cost against the ordered one's
// on the same world: BenchmarkNetsyncEncode's city of 64 clients over 2,000
// cars in 1,000 x 1,000 m, every car moving. Each client's frame is written
// against the frame lag frames back, as if its acknowledgement came back lag
// frames late: 1 at a 50 ms round trip, 3 at 150 ms, 8 at 400 ms or after
// losses. Reported: ns per held entity per client, µs per client, bytes per
// client per second at 20 frames per second, and the bytes each encoder
// holds per client (MemBytes).
func BenchmarkNetsyncAcked(b *testing.B) {
	for _, c := range []struct {
		name string
		lag  int // 0: the ordered encoder
	}{{"ordered", 0}, {"acked-lag1", 1}, {"acked-lag3", 3}, {"acked-lag8", 8}} {
		b.Run(c.name, func(b *testing.B) {
			const clients = 64
			city := newCity(2000)
			a := netsync.NewArena()
			ords := make([]*netsync.Encoder, clients)
			acks := make([]*netsync.AckedEncoder, clients)
			views := make([]netsync.View, clients)
			sent := make([][]uint32, clients) // ticks of the frames sent, newest last
			rng := rand.New(rand.NewPCG(3, 4))
			for i := range views {
				views[i].Center = wire.Vec3{X: rng.Float32() * 1000, Y: rng.Float32() * 1000}
				if c.lag == 0 {
					ords[i] = netsync.NewEncoder(a)
				} else {
					acks[i] = netsync.NewAckedEncoder(a)
				}
			}
			tick := uint32(0)
			frame := func() (bytes, held int) {
				for range wire.SnapshotEvery {
					tick++
					city.move(true)
					city.fill(a, tick)
				}
				if c.lag > 0 {
					for i, e := range acks {
						if k := len(sent[i]) - c.lag; k >= 0 {
							e.Ack(sent[i][k])
						}
					}
				}
				b.StartTimer()
				if c.lag == 0 {
					for i, e := range ords {
						bytes += len(e.Encode(&views[i]))
					}
				} else {
					for i, e := range acks {
						bytes += len(e.Encode(&views[i]))
					}
				}
				b.StopTimer()
				for i := range views {
					if c.lag == 0 {
						held += ords[i].Held()
						continue
					}
					held += acks[i].Held()
					if sent[i] = append(sent[i], tick); len(sent[i]) > 64 {
						sent[i] = append(sent[i][:0], sent[i][len(sent[i])-32:]...)
					}
				}
				return bytes, held
			}
			for range 100 {
				frame()
			}
			b.ReportAllocs()
			b.ResetTimer()
			b.StopTimer()
			var bytes, held int
			for i := 0; i < b.N; i++ {
				fb, fh := frame()
				bytes += fb
				held += fh
			}
			mem := 0
			for i := range views {
				if c.lag == 0 {
					mem += ords[i].MemBytes()
				} else {
					mem += acks[i].MemBytes()
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(held), "ns/entity")
			b.ReportMetric(float64(held)/float64(b.N)/clients, "held/client")
			b.ReportMetric(float64(bytes)/float64(b.N)/clients*20, "B/client/s")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/clients/1000, "us/client")
			b.ReportMetric(float64(mem)/clients/1024, "KB-mem/client")
		})
	}
}

// ackedReplayStats are one acked replay's figures over the steady state.
type ackedReplayStats struct {
	bytesPerClientTick float64
	encodeCPUPerClient float64 // µs, the wall time times the steady ticks' CPU share (steadyClock)
	encodeUsPerClient  float64 // µs, wall clock
	reliablePerClient  float64 // frames a client per second over ReliableAbove
	keyframesPerClient float64
	baseLag            float64 // frames between a delta and its base, mean
	dropped            float64 // frames a client dropped (stale or no base), per second
	expired            float64 // events expired unacknowledged, per client
	heldPerClient      float64
	encMemPerClient    float64 // bytes, AckedEncoder.MemBytes (Encoder's for the ordered)
	decMemPerClient    float64 // bytes, AckedDecoder.MemBytes
}

// ackedLink is one client's pair of links in the replay: frames down and
// acks up, each lost with probability loss, arriving latency frames later
// plus up to jitter frames (reordered when the jitter is over a frame).
type ackedLink struct {
	rng             *rand.Rand
	loss            float64
	latency, jitter float64 // in frames (50 ms)
	down            []inflight
	up              []inflight
	free            [][]byte // frames' buffers to reuse: the replay makes no garbage to collect while it times
}

// copyFrame returns a copy of b in a reused buffer.
func (l *ackedLink) copyFrame(b []byte) []byte {
	var c []byte
	if k := len(l.free); k > 0 {
		c, l.free = l.free[k-1][:0], l.free[:k-1]
	}
	return append(c, b...)
}

type inflight struct {
	at   float64
	b    []byte
	tick uint32
}

func (l *ackedLink) send(q []inflight, at float64, b []byte, tick uint32) []inflight {
	if l.rng.Float64() < l.loss {
		if b != nil {
			l.free = append(l.free, b)
		}
		return q
	}
	return append(q, inflight{at: at + l.latency + l.rng.Float64()*l.jitter, b: b, tick: tick})
}

// arrive splits q into what arrived by now, in the order it arrived
// (valid until the next call), and the rest (in q's memory).
func arrive(q []inflight, now float64) (got, rest []inflight) {
	slices.SortStableFunc(q, func(a, b inflight) int { return cmp.Compare(a.at, b.at) })
	k := 0
	for k < len(q) && q[k].at <= now {
		k++
	}
	got = append(arrived[:0], q[:k]...)
	arrived = got
	return got, q[:copy(q, q[k:])]
}

var arrived []inflight // arrive's result, reused

// replayAcked replays the trace through one AckedEncoder per client (or the
// ordered Encoder and a Decoder, when loss < 0), each client's frames over its lossy link
// to an AckedDecoder that applies what arrived at each of its 60 Hz ticks and
// sends its ack in the input frame of each (three a frame). Every frame
// applied must be whole (a decoder error fails the replay; the checks come
// every CheckEvery frames).
func replayAcked(tr *trace, in netsync.Interest, loss, latency, jitter float64) (ackedReplayStats, error) {
	// No collection while it runs (it allocates while the buffers grow,
	// some 50 MB): the encoders are timed without a collector beside them,
	// the ordered and the acked alike.
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	var st ackedReplayStats
	w := &peerWorld{ents: make([]wire.Entity, 1<<16), alive: make([]bool, 1<<16)}
	a := netsync.NewArena()
	C := int(tr.Clients)
	ordered := loss < 0
	ords := make([]*netsync.Encoder, C)
	ordDecs := make([]*wire.Decoder, C)
	encs := make([]*netsync.AckedEncoder, C)
	decs := make([]*wire.AckedDecoder, C)
	links := make([]*ackedLink, C)
	views := make([]netsync.View, C)
	for c := range encs {
		if ordered {
			ords[c], ordDecs[c] = netsync.NewEncoder(a), wire.NewDecoder()
			ords[c].SetInterest(in)
			continue
		}
		encs[c] = netsync.NewAckedEncoder(a)
		encs[c].SetInterest(in)
		decs[c] = wire.NewAckedDecoder()
		links[c] = &ackedLink{rng: rand.New(rand.NewPCG(uint64(c), 7)), loss: loss, latency: latency, jitter: jitter}
	}
	var bytes, held, reliable, dropped int
	var encodeWall time.Duration
	var clock steadyClock
	for ti := range tr.T {
		tk := &tr.T[ti]
		if ti == peerWarm {
			clock.start()
		}
		if err := w.apply(tk); err != nil {
			return st, err
		}
		a.Begin(uint32(ti + 1))
		for _, id := range w.ids {
			a.Put(id, &w.ents[id], false)
		}
		a.End()
		now := float64(ti)
		for c, l := range links { // the acks that came back by now
			if l == nil {
				continue
			}
			var got []inflight
			got, l.up = arrive(l.up, now)
			for _, in := range got {
				encs[c].Ack(in.tick)
			}
		}
		tickBytes := 0
		t1 := time.Now()
		for c := range views {
			views[c].Center = wire.Vec3{X: tk.CX[c], Y: tk.CY[c]}
			var f []byte
			if ordered {
				f = ords[c].Encode(&views[c])
			} else {
				f = encs[c].Encode(&views[c])
			}
			tickBytes += len(f)
			if ti >= peerWarm && len(f) > wire.ReliableAbove {
				reliable++
			}
		}
		t2 := time.Now()
		if ti >= peerWarm {
			bytes += tickBytes
			encodeWall += t2.Sub(t1)
			for c := range views {
				if ordered {
					held += ords[c].Held()
				} else {
					held += encs[c].Held()
				}
			}
		}
		if ordered {
			// Not timed: the clients (as the acked replay's, so that both
			// encode with the caches the clients' work left them).
			for c, d := range ordDecs {
				if _, err := d.Apply(ords[c].Last()); err != nil {
					return st, fmt.Errorf("tick %d client %d: %w", ti, c, err)
				}
			}
			continue
		}
		// Not timed: the links and the clients, at the client's 60 Hz.
		for c, l := range links {
			l.down = l.send(l.down, now, l.copyFrame(encs[c].Last()), 0)
			for k := range 3 {
				t := now + float64(k)/3
				var got []inflight
				got, l.down = arrive(l.down, t)
				for _, in := range got {
					fr, err := decs[c].Apply(in.b)
					if err != nil {
						return st, fmt.Errorf("tick %d client %d: %w", ti, c, err)
					}
					if fr == nil && ti >= peerWarm {
						dropped++
					}
					l.free = append(l.free, in.b)
				}
				l.up = l.send(l.up, t, nil, decs[c].Tick())
			}
		}
	}
	share := clock.share()
	n := float64(len(tr.T) - peerWarm)
	st.bytesPerClientTick = float64(bytes) / n / float64(C)
	st.encodeUsPerClient = float64(encodeWall.Microseconds()) / n / float64(C)
	st.encodeCPUPerClient = st.encodeUsPerClient * share
	st.reliablePerClient = float64(reliable) / n / float64(C) * float64(tr.Rate)
	st.dropped = float64(dropped) / n / float64(C) * float64(tr.Rate)
	st.heldPerClient = float64(held) / n / float64(C)
	var keys, deltas, lag, expired, encMem, decMem uint64
	for c := range views {
		if ordered {
			encMem += uint64(ords[c].MemBytes())
			continue
		}
		s := encs[c].Stats()
		keys += s.Keyframes
		deltas += s.Frames - s.Keyframes
		lag += s.BaseLag
		expired += s.EventsExpired
		encMem += uint64(encs[c].MemBytes())
		decMem += uint64(decs[c].MemBytes())
	}
	st.keyframesPerClient = float64(keys) / float64(C)
	if deltas > 0 {
		st.baseLag = float64(lag) / float64(deltas)
	}
	st.expired = float64(expired) / float64(C)
	st.encMemPerClient = float64(encMem) / float64(C)
	st.decMemPerClient = float64(decMem) / float64(C)
	return st, nil
}

// BenchmarkPeerReplayAcked replays the peer benchmark's trace (set
// PEER_TRACE; see bench/peer/run.sh) through the acked encoders, next to the
// ordered encoder on the same trace, with the game's tiers at the trace's
// radius. The links lose 0 %, 5 % or 20 % of the frames both ways, with
// 40 ms plus up to 20 ms of jitter each way: a round trip of 80 to 120 ms,
// plus the client's tick before its ack leaves. The acked frames grow with
// the frames between a frame and its base, since what changed since the
// base goes again until it is acknowledged. "rtt40" has 15 ms plus up to
// 10 ms each way. "jitter" has 40 ms plus up to 150 ms, so frames are
// reordered and some dropped as stale. Reported per client: bytes per tick
// and per second, encode time, frames over ReliableAbove per second,
// keyframes, the mean distance to the base, frames dropped per second,
// events expired, and the bytes the encoder and the decoder hold.
func BenchmarkPeerReplayAcked(b *testing.B) {
	tr := loadTrace(b)
	in := netsync.InterestFor(tr.Radius)
	for _, c := range []struct {
		name                  string
		loss, latency, jitter float64
	}{
		{"ordered", -1, 0, 0},
		{"loss0", 0, 0.8, 0.4},
		{"loss5", 0.05, 0.8, 0.4},
		{"loss20", 0.20, 0.8, 0.4},
		{"loss0-rtt40", 0, 0.3, 0.2},
		{"loss20-jitter", 0.20, 0.8, 3},
	} {
		b.Run(c.name, func(b *testing.B) {
			var st ackedReplayStats
			var err error
			for b.Loop() {
				if st, err = replayAcked(tr, in, c.loss, c.latency, c.jitter); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(st.bytesPerClientTick, "B/client/tick")
			b.ReportMetric(st.bytesPerClientTick*float64(tr.Rate), "B/client/s")
			b.ReportMetric(st.encodeCPUPerClient, "us-cpu-encode/client")
			b.ReportMetric(st.encodeUsPerClient, "us-encode/client")
			b.ReportMetric(st.reliablePerClient, "reliable/client/s")
			b.ReportMetric(st.keyframesPerClient, "keyframes/client")
			b.ReportMetric(st.baseLag, "base-lag-frames")
			b.ReportMetric(st.dropped, "dropped/client/s")
			b.ReportMetric(st.expired, "expired/client")
			b.ReportMetric(st.heldPerClient, "held/client")
			b.ReportMetric(st.encMemPerClient/1024, "KB-enc-mem/client")
			b.ReportMetric(st.decMemPerClient/1024, "KB-dec-mem/client")
		})
	}
}

// BenchmarkNetsyncAckedDecode is the client's side: an AckedDecoder applying
// each frame of one client of the moving city, its acks 3 frames late (each
// frame onto the one 3 before it: the decoder undoes the 2 it showed since
// for the entities they touched, applies the frame, and compares with the
// last shown).
func BenchmarkNetsyncAckedDecode(b *testing.B) {
	c := newCity(2000)
	a := netsync.NewArena()
	enc := netsync.NewAckedEncoder(a)
	dec := wire.NewAckedDecoder()
	view := netsync.View{Center: wire.Vec3{X: 500, Y: 500}}
	tick := uint32(0)
	var acks []uint32
	next := func() []byte {
		for range wire.SnapshotEvery {
			tick++
			c.move(true)
			c.fill(a, tick)
		}
		if len(acks) >= 3 {
			enc.Ack(acks[len(acks)-3])
		}
		return enc.Encode(&view)
	}
	apply := func(f []byte) {
		fr, err := dec.Apply(f)
		if err != nil || fr == nil {
			b.Fatalf("frame not applied: %v", err)
		}
		if acks = append(acks, dec.Tick()); len(acks) > 64 {
			acks = append(acks[:0], acks[len(acks)-8:]...)
		}
	}
	for range 100 {
		apply(next())
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.StopTimer()
	for i := 0; i < b.N; i++ {
		f := next()
		b.StartTimer()
		apply(f)
		b.StopTimer()
	}
	b.ReportMetric(float64(dec.MemBytes())/1024, "KB-mem")
}

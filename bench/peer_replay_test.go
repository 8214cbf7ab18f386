package bench

import (
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/fiveonit/engine/netsync"
	"github.com/fiveonit/engine/netsync/wire"
)

var tracePath = flag.String("trace", "", "peer benchmark trace (tracegen's trace.bin); default $PEER_TRACE")

// peerWarm is the ticks left out of the steady state, as bench.mjs's WARM
// (tick 0 spawns every entity).
const peerWarm = 50

func loadTrace(b *testing.B) *trace {
	b.Helper()
	path := *tracePath
	if path == "" {
		path = os.Getenv("PEER_TRACE")
	}
	if path == "" {
		b.Skip("no trace: set PEER_TRACE or -trace (see bench/peer/run.sh)")
	}
	tr, err := readTrace(path)
	if err != nil {
		b.Fatal(err)
	}
	return tr
}

// replayStats are one replay's figures over the steady state.
type replayStats struct {
	bytesPerClientTick float64
	encodeUsPerClient  float64 // every client's Encode, per client per tick (wall clock)
	encodeCPUPerClient float64 // the same times the steady ticks' CPU share (steadyClock): robust on a busy machine
	encodeP50PerClient float64 // the median tick's encode, per client (bench.mjs reports its p50 too)
	arenaUsPerTick     float64 // Begin, Put of every entity, End
	allocBytesPerTick  float64
	allocsPerTick      float64
	maxPosErr          float64 // metres, a pose at its arrival against the trace's
	maxRotErr          float64 // radians
	heldPerClient      float64 // entities a client holds, on average
	tick0BytesPerCl    float64
}

// peerWorld is the trace's world as our arena sees it: every trace entity a
// car, its trace id its wire id.
type peerWorld struct {
	ents  []wire.Entity
	alive []bool
	ids   []uint16 // live ids in spawn order
}

func (w *peerWorld) apply(tk *traceTick) error {
	for _, id := range tk.Removed {
		w.alive[id] = false
	}
	if len(tk.Removed) > 0 {
		k := 0
		for _, id := range w.ids {
			if w.alive[id] {
				w.ids[k] = id
				k++
			}
		}
		w.ids = w.ids[:k]
	}
	for _, a := range tk.Added {
		if a.ID >= 1<<16 || a.ID == 0 {
			return fmt.Errorf("trace id %d does not fit a wire id", a.ID)
		}
		w.ents[a.ID] = wire.Entity{
			Kind: wire.KindCar, Pos: wire.Vec3{X: a.F[0], Y: a.F[1], Z: a.F[2]},
			Rot: wire.Quat{X: a.F[3], Y: a.F[4], Z: a.F[5], W: a.F[6]},
			Lin: wire.Vec3{X: a.F[7], Y: a.F[8], Z: a.F[9]}, HP: uint16(a.Health), MaxHP: 100, Flags: uint16(a.Flags),
		}
		w.alive[a.ID] = true
		w.ids = append(w.ids, uint16(a.ID))
	}
	for _, u := range tk.Updates {
		e := &w.ents[u.ID]
		f := [12]*float32{&e.Pos.X, &e.Pos.Y, &e.Pos.Z, &e.Rot.X, &e.Rot.Y, &e.Rot.Z, &e.Rot.W, &e.Lin.X, &e.Lin.Y, &e.Lin.Z}
		j := 0
		for k := 0; k < 12; k++ {
			if u.Mask&(1<<k) == 0 {
				continue
			}
			switch k {
			case 10:
				e.HP = uint16(u.Vals[j])
			case 11:
				e.Flags = uint16(u.Vals[j])
			default:
				*f[k] = u.Vals[j]
			}
			j++
		}
	}
	return nil
}

// replay runs the trace through an arena and one encoder per client; with
// verify, a decoder per client applies every frame and the poses it measured
// are compared with the trace's (not timed: a separate pass).
func replay(tr *trace, in netsync.Interest, verify bool) (replayStats, error) {
	var st replayStats
	w := &peerWorld{ents: make([]wire.Entity, 1<<16), alive: make([]bool, 1<<16)}
	a := netsync.NewArena()
	C := int(tr.Clients)
	if n, err := strconv.Atoi(os.Getenv("PEER_CLIENTS")); err == nil && n > 0 && n < C {
		C = n // fewer clients: how the cost per client scales
	}
	encs := make([]*netsync.Encoder, C)
	decs := make([]*wire.Decoder, C)
	views := make([]netsync.View, C)
	for c := range encs {
		encs[c] = netsync.NewEncoder(a)
		encs[c].SetInterest(in)
		if verify {
			decs[c] = wire.NewDecoder()
		}
	}
	var bytes, held int
	var encodeDur, arenaDur time.Duration
	var clock steadyClock
	perTick := make([]time.Duration, 0, len(tr.T))
	var ms0, ms1 runtime.MemStats
	for ti := range tr.T {
		tk := &tr.T[ti]
		if ti == peerWarm {
			runtime.GC()
			runtime.ReadMemStats(&ms0)
			clock.start()
		}
		if err := w.apply(tk); err != nil {
			return st, err
		}
		t0 := time.Now()
		a.Begin(uint32(ti + 1))
		for _, id := range w.ids {
			a.Put(id, &w.ents[id], false)
		}
		a.End()
		t1 := time.Now()
		tickBytes := 0
		for c, enc := range encs {
			views[c].Center = wire.Vec3{X: tk.CX[c], Y: tk.CY[c]}
			tickBytes += len(enc.Encode(&views[c]))
		}
		t2 := time.Now()
		if ti == 0 {
			st.tick0BytesPerCl = float64(tickBytes) / float64(C)
		}
		if ti >= peerWarm {
			bytes += tickBytes
			arenaDur += t1.Sub(t0)
			encodeDur += t2.Sub(t1)
			perTick = append(perTick, t2.Sub(t1))
			for _, enc := range encs {
				held += enc.Held()
			}
		}
		if verify {
			if err := verifyTick(&st, w, encs, decs, uint32(ti+1)); err != nil {
				return st, fmt.Errorf("tick %d: %w", ti, err)
			}
		}
	}
	share := clock.share()
	runtime.ReadMemStats(&ms1)
	n := float64(len(tr.T) - peerWarm)
	st.bytesPerClientTick = float64(bytes) / n / float64(C)
	st.encodeUsPerClient = float64(encodeDur.Microseconds()) / n / float64(C)
	st.encodeCPUPerClient = st.encodeUsPerClient * share
	slices.Sort(perTick)
	st.encodeP50PerClient = float64(perTick[len(perTick)/2].Nanoseconds()) / 1000 / float64(C)
	st.arenaUsPerTick = float64(arenaDur.Microseconds()) / n
	st.allocBytesPerTick = float64(ms1.TotalAlloc-ms0.TotalAlloc) / n
	st.allocsPerTick = float64(ms1.Mallocs-ms0.Mallocs) / n
	st.heldPerClient = float64(held) / n / float64(C)
	return st, nil
}

// verifyTick re-encodes nothing: it applies each client's last frame (the
// encoders' buffers) to its decoder and measures every pose that arrived.
func verifyTick(st *replayStats, w *peerWorld, encs []*netsync.Encoder, decs []*wire.Decoder, tick uint32) error {
	for c, enc := range encs {
		fr, err := decs[c].Apply(enc.Last())
		if err != nil {
			return fmt.Errorf("client %d: %w", c, err)
		}
		if ok, eid := decs[c].Store().EqualRecords(enc.State()); !ok {
			return fmt.Errorf("client %d: entity %d differs from the encoder's mirror", c, eid)
		}
		var e wire.Entity
		for _, m := range fr.Measured {
			if m.Tick != tick {
				continue
			}
			held := decs[c].Store().Get(m.EID)
			held.Rec.Decode(&e, held.PoseFull)
			truth := &w.ents[m.EID]
			dx, dy, dz := float64(e.Pos.X-truth.Pos.X), float64(e.Pos.Y-truth.Pos.Y), float64(e.Pos.Z-truth.Pos.Z)
			st.maxPosErr = math.Max(st.maxPosErr, math.Sqrt(dx*dx+dy*dy+dz*dz))
			st.maxRotErr = math.Max(st.maxRotErr, wire.RotationAngle(e.Rot, truth.Rot))
		}
	}
	return nil
}

// BenchmarkPeerReplay replays the peer benchmark's trace (set PEER_TRACE)
// through our arena and encoders. Each of the 64 clients is a View at its
// trace AOI centre, with the trace's radius. "tiers" is the game's interest
// scaled to that radius: far poses every 2nd, 4th or 8th frame, and leave at
// 1.1 r. "every" sends every pose every frame and leaves at the radius, as
// Colyseus does.
func BenchmarkPeerReplay(b *testing.B) {
	tr := loadTrace(b)
	every := netsync.InterestFor(tr.Radius)
	every.Leave = every.Enter
	every.TierRadius = [3]float32{1e9, 1e9, 1e9}
	for _, c := range []struct {
		name string
		in   netsync.Interest
	}{
		{"tiers", netsync.InterestFor(tr.Radius)},
		{"every", every},
	} {
		b.Run(c.name, func(b *testing.B) {
			v, err := replay(tr, c.in, true)
			if err != nil {
				b.Fatal(err)
			}
			var st replayStats
			for b.Loop() {
				if st, err = replay(tr, c.in, false); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(st.bytesPerClientTick, "B/client/tick")
			b.ReportMetric(st.encodeUsPerClient, "us-encode/client")
			b.ReportMetric(st.encodeCPUPerClient, "us-cpu-encode/client")
			b.ReportMetric(st.encodeP50PerClient, "us-p50-encode/client")
			b.ReportMetric(st.arenaUsPerTick, "us-arena/tick")
			b.ReportMetric(st.allocBytesPerTick, "B-alloc/tick")
			b.ReportMetric(st.allocsPerTick, "allocs/tick")
			b.ReportMetric(st.heldPerClient, "held/client")
			b.ReportMetric(st.tick0BytesPerCl, "B-tick0/client")
			b.ReportMetric(v.maxPosErr*1000, "mm-max-pos-err")
			b.ReportMetric(v.maxRotErr*180/math.Pi, "deg-max-rot-err")
		})
	}
}

// steadyClock measures the share of the wall clock a replay's steady ticks
// had the processor for: this process's CPU time over the wall time, from
// start to share. The encode's wall time times that share is its CPU time,
// less what other processes of a busy machine took, assuming they took it
// evenly.
//
// The CPU time is read twice only, not around each tick's encode. On this
// machine a system call (getrusage) slows the ticks after it by ~10 %: the
// kernel isolates its page tables, so a system call flushes the TLB. A
// tick's encode paid for it: 1.58 against 1.39 µs per client, three runs
// each, and 1.51 with the calls around the arena's update instead.
// Colyseus's loop makes no such call: bench.mjs reads a vDSO clock.
type steadyClock struct {
	cpu  time.Duration
	wall time.Time
}

func (c *steadyClock) start() { c.cpu, c.wall = processCPU(), time.Now() }

func (c *steadyClock) share() float64 {
	wall := time.Since(c.wall)
	if wall <= 0 {
		return 1
	}
	return float64(processCPU()-c.cpu) / float64(wall)
}

// processCPU returns the CPU time of this process (the replay is one
// goroutine; the runtime's own threads add little): unlike the wall clock, it
// does not count the time other processes of a busy machine took. A system
// call: see steadyClock.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

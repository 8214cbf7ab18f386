// Package metrics publishes the server's Prometheus metrics
// (github.com/prometheus/client_golang): per room, what its game server did
// (read in the room's goroutine after each tick, so nothing is shared with
// the simulation), and per transport, the clients and their traffic (read
// from the connections' atomic counters when scraped).
//
// Every name starts with foi_. Per room (label room):
//
//	foi_tick_seconds            histogram  a whole tick (inputs, step, snapshots)
//	foi_system_seconds          histogram  each system's part of it (label system)
//	foi_tick_overruns_total     counter    ticks run late or skipped
//	foi_entities                gauge      replicated entities (wire ids in use)
//	foi_players                 gauge      clients joined or joining
//	foi_keyframes_total         counter    keyframes sent, by reason (label reason)
//	foi_check_mismatches_total  counter    input frames asking for a keyframe (a wrong check, a base not held)
//	foi_input_guesses_total     counter    input ticks run on a guess
//	foi_input_late_total        counter    inputs that came after their tick
//	foi_input_dropped_total     counter    inputs dropped by a full queue
//	foi_kicked_total            counter    clients cut off (a bad frame, a flood, too slow)
//	foi_snapshot_bytes_total    counter    snapshot bytes sent
//
// Per transport (label transport: websocket, webrtc):
//
//	foi_clients                 gauge      connections open
//	foi_transport_frames_total  counter    frames (label direction: in, out)
//	foi_transport_bytes_total   counter    bytes (label direction: in, out)
//	foi_connections_pending     gauge      connections being set up (WebRTC: answered, not yet connected)
//	foi_joins_refused_total     counter    joins refused (label reason: rooms.RefusalReasons)
//
// The account store's (foi_store_*): see Metrics.Store.
//
// The Go runtime's and the process's standard metrics (go_*, process_*)
// come too.
package metrics

import (
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/server"
)

// TickBuckets are the tick histogram's buckets (seconds): fine below the
// 16.7 ms a tick may take at 60 Hz, which is one of them.
var TickBuckets = []float64{.0001, .00025, .0005, .001, .002, .004, .006, .008, .01, .0125, 1.0 / 60, .025, .05, .1}

// SystemBuckets are the per-system histogram's buckets (seconds).
var SystemBuckets = []float64{.00001, .000025, .00005, .0001, .00025, .0005, .001, .0025, .005, .01, .025}

// Transports are the transports whose series exist from start (at zero).
var Transports = []string{"websocket", "webrtc"}

// Metrics is the server's registry and its metrics.
type Metrics struct {
	reg *prometheus.Registry

	tick, system                         *prometheus.HistogramVec
	overruns, keyframes, resyncs         *prometheus.CounterVec
	guesses, late, dropped, kicked, snap *prometheus.CounterVec
	entities, players                    *prometheus.GaugeVec
	refused                              *prometheus.CounterVec
	conns                                *connCollector
}

// New makes the metrics in a registry of their own, with the Go runtime's
// and the process's collectors.
func New() *Metrics {
	room := []string{"room"}
	counter := func(name, help string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, room)
	}
	gauge := func(name, help string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, room)
	}
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		tick: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "foi_tick_seconds",
			Help: "How long a room's tick took: inputs, the world's step, snapshots.", Buckets: TickBuckets}, room),
		system: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "foi_system_seconds",
			Help: "How long each system of a room's schedule took in a tick.", Buckets: SystemBuckets}, []string{"room", "system"}),
		overruns: counter("foi_tick_overruns_total", "Ticks a room ran late or skipped."),
		keyframes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "foi_keyframes_total",
			Help: "Keyframes sent, by reason: first, resync (a frame refused), send-full (a frame dropped), no-base (acked: no acknowledged frame), switch (ordered and acked), smaller (acked: the links since the base took over twice its bytes)."},
			[]string{"room", "reason"}),
		resyncs:  counter("foi_check_mismatches_total", "Frames a client's decoder refused (a wrong check, a base it does not hold), each counted once and answered with a keyframe."),
		guesses:  counter("foi_input_guesses_total", "Input ticks run on a guess: the client's input had not come."),
		late:     counter("foi_input_late_total", "Inputs that came after their tick had been run on a guess."),
		dropped:  counter("foi_input_dropped_total", "Inputs dropped: by a full input queue, or older than its history."),
		kicked:   counter("foi_kicked_total", "Clients cut off for a bad frame, a flood or slowness."),
		snap:     counter("foi_snapshot_bytes_total", "Snapshot bytes sent."),
		entities: gauge("foi_entities", "Replicated entities in a room (wire ids in use)."),
		players:  gauge("foi_players", "Clients joined to a room or joining."),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "foi_joins_refused_total",
			Help: "Joins refused, by transport and reason: bad_request, token, origin, room_full, max_rooms, rooms_from, players_from, shutting_down, busy, busy_from, account, store, other."},
			[]string{"transport", "reason"}),
		conns: newConnCollector(),
	}
	m.reg.MustRegister(m.tick, m.system, m.overruns, m.keyframes, m.resyncs, m.guesses, m.late, m.dropped,
		m.kicked, m.snap, m.entities, m.players, m.refused, m.conns,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Registry returns the registry (tests gather from it).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the metrics in Prometheus's text format: mount it on the
// admin listener only.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Room is one room's metrics, fed by Observe in the room's goroutine. Its
// series are made when the room opens, so that Observe allocates nothing.
type Room struct {
	m    *Metrics
	name string

	tick                                     prometheus.Observer
	systems                                  []prometheus.Observer
	systemNames                              []string
	overruns, resyncs                        prometheus.Counter
	keyframes                                [server.KeyframeReasons]prometheus.Counter
	guesses, late, dropped, kicked, snapshot prometheus.Counter
	entities, players                        prometheus.Gauge

	last         server.Stats
	lastOverruns uint64
}

// Room makes room name's series (the system series are made on the first
// Observe, from the room's schedule).
func (m *Metrics) Room(name string) *Room {
	r := &Room{
		m: m, name: name,
		tick:     m.tick.WithLabelValues(name),
		overruns: m.overruns.WithLabelValues(name),
		resyncs:  m.resyncs.WithLabelValues(name),
		guesses:  m.guesses.WithLabelValues(name),
		late:     m.late.WithLabelValues(name),
		dropped:  m.dropped.WithLabelValues(name),
		kicked:   m.kicked.WithLabelValues(name),
		snapshot: m.snap.WithLabelValues(name),
		entities: m.entities.WithLabelValues(name),
		players:  m.players.WithLabelValues(name),
	}
	for k := server.KeyframeReason(0); k < server.KeyframeReasons; k++ {
		r.keyframes[k] = m.keyframes.WithLabelValues(name, k.String())
	}
	return r
}

// Observe publishes what gs did in its last tick: tick is how long the
// whole tick took, overruns the room's count of ticks run late or skipped
// so far. Call it from the room's goroutine after each tick; it allocates
// nothing once the room's sessions have been seen.
func (r *Room) Observe(gs *server.GameServer, tick time.Duration, overruns uint64) {
	r.tick.Observe(tick.Seconds())
	w := gs.World()
	timings := w.Sched.Timings()
	if len(timings) != len(r.systems) {
		r.makeSystems(timings)
	}
	for i := range timings {
		r.systems[i].Observe(timings[i].Last.Seconds())
	}
	st := gs.Stats()
	for i := range r.keyframes {
		add(r.keyframes[i], st.KeyframesBy[i], r.last.KeyframesBy[i])
	}
	add(r.guesses, st.Guesses, r.last.Guesses)
	add(r.late, st.Late, r.last.Late)
	add(r.dropped, st.Dropped+st.Stale, r.last.Dropped+r.last.Stale)
	add(r.resyncs, st.Resyncs, r.last.Resyncs)
	add(r.kicked, st.Kicked, r.last.Kicked)
	add(r.snapshot, st.SnapBytes, r.last.SnapBytes)
	add(r.overruns, overruns, r.lastOverruns)
	r.last, r.lastOverruns = st, overruns
	r.entities.Set(float64(w.IDs.InUse()))
	r.players.Set(float64(gs.Players()))
}

func add(c prometheus.Counter, now, before uint64) {
	if now > before {
		c.Add(float64(now - before))
	}
}

// makeSystems makes the per-system series of a schedule.
func (r *Room) makeSystems(timings []ecs.Timing) {
	for _, name := range r.systemNames {
		r.m.system.DeleteLabelValues(r.name, name)
	}
	r.systems, r.systemNames = r.systems[:0], r.systemNames[:0]
	for _, t := range timings {
		r.systems = append(r.systems, r.m.system.WithLabelValues(r.name, t.Name))
		r.systemNames = append(r.systemNames, t.Name)
	}
}

// Close removes the room's series (a room that closed).
func (r *Room) Close() {
	for _, v := range []interface {
		DeleteLabelValues(...string) bool
	}{r.m.tick, r.m.overruns, r.m.resyncs, r.m.guesses, r.m.late, r.m.dropped, r.m.kicked, r.m.snap, r.m.entities, r.m.players} {
		v.DeleteLabelValues(r.name)
	}
	for i := server.KeyframeReason(0); i < server.KeyframeReasons; i++ {
		r.m.keyframes.DeleteLabelValues(r.name, i.String())
	}
	for _, name := range r.systemNames {
		r.m.system.DeleteLabelValues(r.name, name)
	}
}

// Counts are what a connection counted so far.
type Counts struct {
	FramesIn, BytesIn, FramesOut, BytesOut uint64
}

// Track counts a connection of transport while it is open: counts reads
// its counters (atomics: it is called from the scrape's goroutine). Call
// the func it returns when the connection has ended; its counts are kept.
func (m *Metrics) Track(transport string, counts func() Counts) (untrack func()) {
	return m.conns.track(transport, counts)
}

// Refused counts a join refused over transport, for reason (one of
// rooms.RefusalReasons). Safe from any goroutine.
func (m *Metrics) Refused(transport, reason string) {
	m.refused.WithLabelValues(transport, reason).Inc()
}

// Pending reports, at each scrape, n(): the connections of transport being
// set up (n is called from the scrape's goroutine). Call it once per
// transport.
func (m *Metrics) Pending(transport string, n func() int) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name:        "foi_connections_pending",
		Help:        "Connections being set up: for WebRTC, offers answered whose client has not connected yet.",
		ConstLabels: prometheus.Labels{"transport": transport},
	}, func() float64 { return float64(n()) }))
}

// connCollector sums the connections' counters per transport at each
// scrape: those open, read then, and those ended, kept at their end.
type connCollector struct {
	clients, frames, bytes *prometheus.Desc

	mu    sync.Mutex
	open  map[*tracked]struct{}
	ended map[string]*Counts // by transport
}

type tracked struct {
	transport string
	counts    func() Counts
}

func newConnCollector() *connCollector {
	c := &connCollector{
		clients: prometheus.NewDesc("foi_clients", "Client connections open.", []string{"transport"}, nil),
		frames:  prometheus.NewDesc("foi_transport_frames_total", "Frames to and from the clients.", []string{"transport", "direction"}, nil),
		bytes:   prometheus.NewDesc("foi_transport_bytes_total", "Bytes of frames to and from the clients.", []string{"transport", "direction"}, nil),
		open:    map[*tracked]struct{}{},
		ended:   map[string]*Counts{},
	}
	for _, t := range Transports {
		c.ended[t] = &Counts{}
	}
	return c
}

func (c *connCollector) track(transport string, counts func() Counts) func() {
	t := &tracked{transport, counts}
	c.mu.Lock()
	c.open[t] = struct{}{}
	if c.ended[transport] == nil {
		c.ended[transport] = &Counts{}
	}
	c.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			final := counts()
			c.mu.Lock()
			defer c.mu.Unlock()
			delete(c.open, t)
			e := c.ended[transport]
			e.FramesIn += final.FramesIn
			e.BytesIn += final.BytesIn
			e.FramesOut += final.FramesOut
			e.BytesOut += final.BytesOut
		})
	}
}

// Describe implements prometheus.Collector.
func (c *connCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.clients
	ch <- c.frames
	ch <- c.bytes
}

// Collect implements prometheus.Collector.
func (c *connCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	sums := make(map[string]Counts, len(c.ended))
	open := make(map[string]int, len(c.ended))
	for tr, e := range c.ended {
		sums[tr] = *e
		open[tr] = 0
	}
	for t := range c.open {
		n := t.counts()
		s := sums[t.transport]
		s.FramesIn += n.FramesIn
		s.BytesIn += n.BytesIn
		s.FramesOut += n.FramesOut
		s.BytesOut += n.BytesOut
		sums[t.transport] = s
		open[t.transport]++
	}
	c.mu.Unlock()
	for tr, s := range sums {
		ch <- prometheus.MustNewConstMetric(c.clients, prometheus.GaugeValue, float64(open[tr]), tr)
		ch <- prometheus.MustNewConstMetric(c.frames, prometheus.CounterValue, float64(s.FramesIn), tr, "in")
		ch <- prometheus.MustNewConstMetric(c.frames, prometheus.CounterValue, float64(s.FramesOut), tr, "out")
		ch <- prometheus.MustNewConstMetric(c.bytes, prometheus.CounterValue, float64(s.BytesIn), tr, "in")
		ch <- prometheus.MustNewConstMetric(c.bytes, prometheus.CounterValue, float64(s.BytesOut), tr, "out")
	}
}

// Package loadgen attaches in-memory bot clients to a GameServer and runs
// them in lockstep with its ticks: the load of the benchmarks and the long
// scenario tests, with no sockets and no timers.
package loadgen

import (
	"fmt"
	"slices"
	"time"

	"github.com/fiveonit/engine/bot"
	"github.com/fiveonit/engine/client"
	"github.com/fiveonit/engine/server"
)

// Bot is one in-memory bot: a client, its brain, its session.
type Bot struct {
	Client  *client.Client
	Brain   *bot.Brain
	Session *server.Session
	Conn    *server.MemConn
	seed    uint64
	err     error
}

// Farm is a GameServer with its bots.
type Farm struct {
	G    *server.GameServer
	Bots []*Bot

	// TickTimes are the durations of every g.Tick run by Step,
	// SystemTimes[i] the time of schedule entry i in each, and
	// SnapshotTimes the snapshots' encoding and sending in each.
	TickTimes     []time.Duration
	SystemTimes   [][]time.Duration
	SnapshotTimes []time.Duration
	Record        bool
}

// New joins n bots to g (they come in at its next tick).
func New(g *server.GameServer, n int, seed uint64) (*Farm, error) {
	f := &Farm{G: g}
	for i := 0; i < n; i++ {
		if _, err := f.Add(seed + uint64(i)); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// Add joins one bot, an anonymous player.
func (f *Farm) Add(seed uint64) (*Bot, error) { return f.AddAs(seed, server.Who{}) }

// AddAs joins one bot as who (an account, its claim in the store).
func (f *Farm) AddAs(seed uint64, who server.Who) (*Bot, error) {
	conn := server.NewMemConn(false, 0)
	s, err := f.G.Join(conn, who)
	if err != nil {
		return nil, err
	}
	b := &Bot{Session: s, Conn: conn, seed: seed}
	b.Client = client.New(client.Config{Send: func(p []byte, text bool) error { return s.Receive(p, text) }})
	f.Bots = append(f.Bots, b)
	return b, nil
}

// Step runs one tick: every bot reads what it was sent and plays its
// client tick, then the server ticks.
func (f *Farm) Step() error {
	for _, b := range f.Bots {
		if err := b.step(f.G); err != nil {
			return err
		}
	}
	start := time.Now()
	f.G.Tick()
	if f.Record {
		f.TickTimes = append(f.TickTimes, time.Since(start))
		f.SnapshotTimes = append(f.SnapshotTimes, f.G.SnapshotTime())
		tm := f.G.World().Sched.Timings()
		if len(f.SystemTimes) != len(tm) {
			f.SystemTimes = make([][]time.Duration, len(tm))
		}
		for i := range tm {
			f.SystemTimes[i] = append(f.SystemTimes[i], tm[i].Last)
		}
	}
	return nil
}

// StepClients runs every bot's client tick without ticking the server.
func (f *Farm) StepClients() error {
	for _, b := range f.Bots {
		if err := b.step(f.G); err != nil {
			return err
		}
	}
	return nil
}

func (b *Bot) step(g *server.GameServer) error {
	frames := b.Conn.Recv()
	for _, fr := range frames {
		if err := b.Client.HandleFrame(fr.Data, fr.Text); err != nil {
			b.err = err
		}
	}
	b.Conn.Release(frames)
	if b.Brain == nil {
		w, ok := b.Client.Welcome()
		if !ok {
			return nil
		}
		l, st, err := bot.StaticOf(w.Level)
		if err != nil {
			return fmt.Errorf("loadgen: %w", err)
		}
		b.Client.SetStatic(st)
		b.Brain = bot.NewBrain(b.Client, l, b.seed)
	}
	return b.Client.Tick(b.Brain.Controls())
}

// Percentile returns the p-quantile (0..1) of ds.
func Percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

// BytesPerClientSecond returns the snapshot and text bytes sent per bot
// per second of ticks.
func (f *Farm) BytesPerClientSecond(ticks int) float64 {
	var sum uint64
	for _, b := range f.Bots {
		sum += b.Session.Stats().BytesOut
	}
	secs := float64(ticks) / 60
	return float64(sum) / float64(len(f.Bots)) / secs
}

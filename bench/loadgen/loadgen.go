// Package loadgen attaches in-memory bot clients to a GameServer and runs
// them with its ticks on a simulated clock: the load of the benchmarks and
// the long scenario tests, with no sockets and no timers.
//
// Two ways to run: Step ticks the bots and the server in lockstep, one
// client tick per server tick (the benchmarks). Advance runs them paced on
// a simulated clock: the server ticks every 1/60 s, each client on its own
// schedule (client.Schedule, its TickPeriod), a bot may freeze, and every
// frame crosses a simulated link each way (delay, jitter, loss: package
// link). The same seed gives the same run.
package loadgen

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/fiveonit/engine/bot"
	"github.com/fiveonit/engine/client"
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/server/servertest"
	"github.com/fiveonit/engine/transport/link"
)

// Options are a farm's settings beyond its bots' number and seed. The zero
// Options is a perfect link: each frame arrives at once.
type Options struct {
	// Up and Down are the simulated link, client to server and back.
	Up, Down link.Config
	// Lossy gives each bot a lossy connection, as over WebRTC: the acked
	// snapshots, four inputs a frame.
	Lossy bool
	// Acked asks for the acked snapshots over an ordered connection
	// (acked=1), as a WebSocket client with simulated loss does.
	Acked bool
	// CatchUp is each bot's client.Schedule.CatchUp: the most ticks it
	// runs at once after a freeze (0: client.MaxCatchUp, the bots'; 1:
	// none, the web page's).
	CatchUp int
	// Load makes a busy machine of Advance's clock: the server and each
	// bot stop now and then for a while, as on a machine whose cores are
	// shared. The zero Hiccups is none.
	Load Hiccups
}

// Hiccups are the stops of a busy machine: on average one every Every,
// each of a length drawn uniformly up to Max. A server that stopped runs
// the ticks it owes, at most MaxCatchUp at once, and drops the rest, as
// the rooms' loop does (rooms.MaxCatchUp).
type Hiccups struct {
	Every, Max time.Duration
}

// MaxCatchUp is the most ticks the farm's server runs at once after a
// stop: rooms.MaxCatchUp.
const MaxCatchUp = 5

// Bot is one in-memory bot: a client, its brain, its session.
type Bot struct {
	Client  *client.Client
	Brain   *bot.Brain
	Session *server.Session
	Conn    *servertest.MemConn
	// Controls, when set, gives the bot's controls for its client tick
	// seq instead of its brain.
	Controls func(seq uint32) components.Drive
	// Err is the last error the client returned for a frame.
	Err error
	// Events is how many events its client showed.
	Events uint64

	seed     uint64
	up, down *link.Pipe
	sched    client.Schedule
	frozen   [2]time.Duration // from, until
	farm     *Farm
	due      []link.Frame
}

// Farm is a GameServer with its bots.
type Farm struct {
	G    *server.GameServer
	Bots []*Bot
	// Now is the farm's simulated clock: 1/60 s a server tick.
	Now time.Duration
	// AfterTick, when set, is called after each server tick.
	AfterTick func()
	// Delivered, when set, is called with each frame of a bot's that
	// reaches the server, before the server takes it.
	Delivered func(b *Bot, frame []byte, text bool)

	// TickTimes are the durations of every g.Tick run by Step,
	// SystemTimes[i] the time of schedule entry i in each, and
	// SnapshotTimes the snapshots' encoding and sending in each.
	TickTimes     []time.Duration
	SystemTimes   [][]time.Duration
	SnapshotTimes []time.Duration
	Record        bool

	opt   Options
	ticks int64 // server ticks run
	up    []link.Frame
	// The server's schedule under Advance: its next tick, and the end of
	// its stop.
	next, stopped time.Duration
	rng           *rand.Rand
}

// New joins n bots to g (they come in at its next tick), over perfect
// links.
func New(g *server.GameServer, n int, seed uint64) (*Farm, error) {
	return NewWith(g, n, seed, Options{})
}

// NewWith joins n bots to g over the links and connections of o.
func NewWith(g *server.GameServer, n int, seed uint64, o Options) (*Farm, error) {
	if err := o.Up.Validate(); err != nil {
		return nil, err
	}
	if err := o.Down.Validate(); err != nil {
		return nil, err
	}
	f := &Farm{G: g, opt: o, rng: rand.New(rand.NewPCG(seed, 0x10ad))}
	for i := 0; i < n; i++ {
		if _, err := f.Add(seed + uint64(i)); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// Add joins one bot, an anonymous player.
func (f *Farm) Add(seed uint64) (*Bot, error) { return f.AddAs(seed, server.Who{}) }

// AddAs joins one bot as who (an account, its claim in the store); the
// farm's options choose its link and its snapshots.
func (f *Farm) AddAs(seed uint64, who server.Who) (*Bot, error) {
	conn := servertest.NewMemConn(f.opt.Lossy, 0)
	who.Acked = who.Acked || f.opt.Acked
	s, err := f.G.Join(conn, who)
	if err != nil {
		return nil, err
	}
	up, _ := link.NewPipe(f.opt.Up, seed*2+1)
	down, _ := link.NewPipe(f.opt.Down, seed*2+2)
	b := &Bot{Session: s, Conn: conn, seed: seed, up: up, down: down, farm: f}
	b.sched.CatchUp = f.opt.CatchUp
	b.Client = client.New(client.Config{Lossy: f.opt.Lossy || f.opt.Up.Loss > 0 || f.opt.Down.Loss > 0,
		Now: f.wall, Send: func(p []byte, text bool) error {
			b.up.Push(f.Now, p, text)
			return nil
		}})
	f.Bots = append(f.Bots, b)
	return b, nil
}

// wall is the farm's clock as a time, for the clients' round trips.
func (f *Farm) wall() time.Time { return time.Unix(0, 0).Add(f.Now) }

// Freeze freezes b from its clock's from until until: it neither reads its
// frames nor ticks (a frozen browser tab), while the server goes on.
func (b *Bot) Freeze(from, until time.Duration) { b.frozen = [2]time.Duration{from, until} }

func (b *Bot) isFrozen(now time.Duration) bool { return now >= b.frozen[0] && now < b.frozen[1] }

// Step runs one tick in lockstep: every bot reads what has come and plays
// its client tick, the server takes what has come, and ticks.
func (f *Farm) Step() error {
	for _, b := range f.Bots {
		if err := b.step(nil); err != nil {
			return err
		}
	}
	f.deliverUp()
	f.tick()
	f.Now = serverAt(f.ticks)
	return nil
}

// StepClients runs every bot's client tick and hands the server what has
// come, without ticking it (a caller that ticks the server itself times
// the tick alone).
func (f *Farm) StepClients() error {
	for _, b := range f.Bots {
		if err := b.step(nil); err != nil {
			return err
		}
	}
	f.deliverUp()
	return nil
}

// serverAt returns the time of server tick k.
func serverAt(k int64) time.Duration { return time.Duration(k) * time.Second / 60 }

// tick runs the server's tick and sends what it sent down the links.
func (f *Farm) tick() {
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
	for _, b := range f.Bots {
		b.drain()
	}
	f.ticks++
	if f.AfterTick != nil {
		f.AfterTick()
	}
}

// deliverUp hands the server every frame of the bots that has come by now.
func (f *Farm) deliverUp() {
	for _, b := range f.Bots {
		f.up = b.up.Pop(f.Now, f.up[:0])
		for _, fr := range f.up {
			if f.Delivered != nil {
				f.Delivered(b, fr.Data, fr.Text)
			}
			b.Session.Receive(fr.Data, fr.Text) // a refused frame closes the session: the test sees it
		}
		b.up.Release(f.up)
	}
}

// Advance runs the farm paced for d of its clock: the server ticks every
// 1/60 s; each bot, on its schedule, reads the frames that have come and
// runs the ticks due (none while frozen); frames cross the links.
func (f *Farm) Advance(d time.Duration) error {
	end := f.Now + d
	if f.next < f.Now {
		f.next = f.Now
	}
	for {
		t := max(f.next, f.stopped)
		for _, b := range f.Bots {
			t = min(t, b.wake())
			if at, ok := b.up.Next(); ok {
				t = min(t, at)
			}
		}
		if t > end {
			break
		}
		f.Now = t
		f.deliverUp()
		if max(f.next, f.stopped) <= t {
			f.serverTicks()
		}
		for _, b := range f.Bots {
			if b.wake() > t {
				continue
			}
			if f.hiccup() {
				b.Freeze(t, t+time.Duration(f.rng.Int64N(int64(f.opt.Load.Max))))
				continue
			}
			if err := b.step(&b.sched); err != nil {
				return err
			}
		}
	}
	f.Now = end
	return nil
}

// serverTicks runs the server's ticks due at the clock: at most
// MaxCatchUp after a stop, the rest dropped; then, under Load, it may stop.
func (f *Farm) serverTicks() {
	const period = time.Second / 60
	n := 0
	for ; f.next <= f.Now && n < MaxCatchUp; n++ {
		f.tick()
		f.next += period
	}
	if f.next <= f.Now {
		f.next = f.Now + period // further behind: the ticks owed are dropped
	}
	if f.hiccup() {
		f.stopped = f.Now + time.Duration(f.rng.Int64N(int64(f.opt.Load.Max)))
	}
}

// hiccup reports whether a stop starts now, one tick of the server's or a
// bot's: on average one every Load.Every.
func (f *Farm) hiccup() bool {
	l := f.opt.Load
	return l.Every > 0 && l.Max > 0 && f.rng.Float64() < float64(time.Second/60)/float64(l.Every)
}

// wake returns when b next acts: its next tick, or the end of its freeze.
func (b *Bot) wake() time.Duration {
	next := b.sched.Next()
	if b.isFrozen(next) {
		return b.frozen[1]
	}
	return next
}

// drain puts what the server sent b into its link.
func (b *Bot) drain() {
	frames := b.Conn.Recv()
	for _, fr := range frames {
		b.down.Push(b.farm.Now, fr.Data, fr.Text)
	}
	b.Conn.Release(frames)
}

// step reads what has come and plays the client ticks due on sched, or
// one tick without a schedule (in lockstep).
func (b *Bot) step(sched *client.Schedule) error {
	now := b.farm.Now
	b.drain() // the server's frames of a tick its caller ran itself
	if b.isFrozen(now) {
		return nil
	}
	b.due = b.down.Pop(now, b.due[:0])
	for _, fr := range b.due {
		if err := b.Client.HandleFrame(fr.Data, fr.Text); err != nil {
			b.Err = err
		}
	}
	b.Events += uint64(len(b.Client.TakeEvents())) // drained as the page does
	b.down.Release(b.due)
	n := 1
	if sched != nil {
		n = sched.Due(b.Client, now) // before the welcome too: the schedule runs on
	}
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
	for range n {
		var d components.Drive
		if b.Controls != nil {
			d = b.Controls(b.Client.Seq())
		} else {
			d = b.Brain.Controls()
		}
		if err := b.Client.Tick(d); err != nil {
			return err
		}
	}
	return nil
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

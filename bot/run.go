package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/fiveonit/engine/client"
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/levels"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems/motion"
	"github.com/fiveonit/engine/textframe"
)

// Conn is a bot's connection to the server, whatever the transport.
type Conn interface {
	Send(ctx context.Context, frame []byte, text bool) error
	Read(ctx context.Context) (frame []byte, text bool, err error)
	Close() error
	// Lossy reports whether the transport may lose frames (the bot then
	// sends several inputs a frame).
	Lossy() bool
}

// Result is what one bot saw.
type Result struct {
	Stats    client.Stats
	Seconds  float64
	Desynced bool  // its decoder was refusing frames at the end
	Err      error // why it ended early, if it did
	// Inputs is the server's last inputs frame (what it did with the
	// bot's inputs), and PressesMade the presses the bot sent up to its
	// Seq: the presses run are Inputs.Presses.
	Inputs      textframe.InputsFrame
	PressesMade uint64
	// SnapshotTicks is how many server ticks its snapshots spanned, from
	// the first applied to the last: the frames the server sent it in
	// that time are SnapshotTicks/wire.SnapshotEvery + 1, however late the
	// bot came to run on a busy machine.
	SnapshotTicks uint32
	// Events is how many events its client showed (a bot drains them
	// every tick, as the page does).
	Events uint64
	// Stalled says the bot froze (Options.Stall), and StallGuessed is
	// how many ticks the server guessed from the freeze's start to the
	// end of the run beyond the freeze's own ticks: the guesses the
	// freeze cost once it was over. StallGuessedOK says the server's
	// inputs frame came late enough to tell.
	Stalled        bool
	StallGuessed   int64
	StallGuessedOK bool
	// Welcomes are the welcomes the bot got: its join's, then each
	// reconnection's.
	Welcomes []textframe.Welcome
	// Drops counts the connections it lost (dropped, or a read or a send
	// failed with no close from the server), and Reconnects those it came
	// back from (Options.Redial): a new welcome for its place.
	// ReconnectTimes holds how long each took, from the loss to the new
	// welcome. ReconnectFailed says it gave up (its tries spent, or its
	// place refused): Err then says why.
	Drops, Reconnects int
	ReconnectTimes    []time.Duration
	ReconnectFailed   bool
	// Dials counts Redial's calls.
	Dials int
	// BytesPerSecond holds the bytes the bot received in each whole
	// second of its run (Rate), over all its connections.
	BytesPerSecond []uint32
}

// Options are a bot's settings beyond its connection and its seed.
type Options struct {
	// Stall freezes the bot once for this long (0: never): no tick and
	// no frame read, as a frozen browser tab, while the server goes on.
	Stall time.Duration
	// StallAt is when the freeze starts, from the start of the run.
	StallAt time.Duration
	// Controls, when set, gives the bot's controls for its client tick
	// seq instead of its brain (which still follows the level).
	Controls func(seq uint32) components.Drive
	// Redial, when set, brings the bot back after its connection drops
	// (a read or a send fails with no close from the server): it dials a
	// new connection for its place, presenting the welcome's reconnect
	// token (RejoinURL puts it in a join's URL), on Backoff's schedule.
	// Nil: a drop ends the run.
	Redial func(ctx context.Context, token string) (Conn, error)
	// Backoff is Redial's schedule (the zero value: DefaultBackoff). Its
	// jitter is drawn from a source seeded by the bot's seed, apart from
	// its brain's.
	Backoff Backoff
	// Sleep waits d, or until ctx ends with its error (nil: a timer), for
	// the backoff's waits: a test runs the schedule on no real time.
	Sleep func(ctx context.Context, d time.Duration) error
	// DropAt drops the bot's connection (a Dropper) this long into the run
	// as a failing network would (0: never), and DropEvery after that again
	// and again (0: once).
	DropAt, DropEvery time.Duration
	// Observe, when set, is called with the bot's client after each round
	// of its loop once it has its welcome, on the bot's goroutine.
	Observe func(c *client.Client)
}

// levelCache bakes each level once for every bot in the process.
var levelCache struct {
	sync.Mutex
	m map[string]*phys.Static
}

// StaticOf returns the baked geometry of the embedded level name.
func StaticOf(name string) (*levels.Level, *phys.Static, error) {
	l, err := levels.Load(name)
	if err != nil {
		return nil, nil, err
	}
	levelCache.Lock()
	defer levelCache.Unlock()
	if levelCache.m == nil {
		levelCache.m = map[string]*phys.Static{}
	}
	st := levelCache.m[name]
	if st == nil {
		if st, err = motion.BakeLevel(l); err != nil {
			return nil, nil, err
		}
		levelCache.m[name] = st
	}
	return l, st, nil
}

type inFrame struct {
	data []byte
	text bool
}

// RunAll plays a bot on each of conns at once, the bot of conns[i] with seed
// i, for d (or until ctx ends), and returns their results in the order of
// conns.
func RunAll(ctx context.Context, conns []Conn, d time.Duration) []Result {
	return RunAllWith(ctx, conns, d, Options{})
}

// RunAllWith is RunAll with o for every bot.
func RunAllWith(ctx context.Context, conns []Conn, d time.Duration, o Options) []Result {
	res := make([]Result, len(conns))
	var wg sync.WaitGroup
	for i, conn := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i] = RunWith(ctx, conn, uint64(i), d, o)
		}()
	}
	wg.Wait()
	return res
}

// Run plays one bot on conn for d (or until ctx ends): a 60 Hz client
// tick, the frames received handed to the client between ticks. At the
// end it sends the leave command and closes the connection normally: the
// room holds no place for it.
func Run(ctx context.Context, conn Conn, seed uint64, d time.Duration) Result {
	return RunWith(ctx, conn, seed, d, Options{})
}

// reader reads one connection's frames on a goroutine of its own, until
// the connection fails or stop is called. Its reads do not end with the
// run: a WebSocket read whose context ends drops the connection, and a
// bot that ends its run closes it normally instead.
type reader struct {
	frames chan inFrame
	errc   chan error // the read's error, once
	stop   context.CancelFunc
}

func startReader(conn Conn) *reader {
	ctx, stop := context.WithCancel(context.Background())
	r := &reader{frames: make(chan inFrame, 1024), errc: make(chan error, 1), stop: stop}
	go func() {
		for {
			data, text, err := conn.Read(ctx)
			if err != nil {
				r.errc <- err
				return
			}
			select {
			case r.frames <- inFrame{data, text}:
			case <-ctx.Done():
				return
			}
		}
	}()
	return r
}

// runner is one bot's run.
type runner struct {
	ctx   context.Context // the run's
	o     Options
	start time.Time
	conn  Conn
	rd    *reader
	c     *client.Client
	res   Result
	sched client.Schedule
	rng   *rand.Rand // the backoff's jitter
	// The way back after a drop.
	lostAt  time.Time // when the connection was lost (zero: it is not)
	dialled time.Time // when the connection whose welcome is awaited was dialled (zero: none awaited)
	tries   int       // Redial's tries since the loss
	broken  bool      // the connection failed (lost was called for it)
	// nextDrop is when Options.DropAt drops the connection next, from the
	// start (0: never again).
	nextDrop time.Duration
}

// backoffStream is the stream of the backoff's jitter, seeded with the
// bot's seed: apart from its brain's, so that a drop changes nothing of
// where the bot drives.
const backoffStream = 0x6261636b6f6666 // "backoff"

// RunWith is Run with o.
func RunWith(ctx context.Context, conn Conn, seed uint64, d time.Duration, o Options) Result {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	if o.Backoff == (Backoff{}) {
		o.Backoff = DefaultBackoff
	}
	if o.Sleep == nil {
		o.Sleep = sleep
	}
	r := &runner{ctx: ctx, o: o, start: time.Now(), conn: conn, rd: startReader(conn),
		rng: rand.New(rand.NewPCG(seed, backoffStream)), nextDrop: o.DropAt}
	c := client.New(client.Config{Lossy: conn.Lossy(), Now: time.Now, Send: func(b []byte, text bool) error {
		// Not the run's context: a WebSocket write whose context ends
		// drops the connection, and the run ends with a normal close.
		sctx, scancel := context.WithTimeout(context.Background(), time.Second)
		defer scancel()
		return r.conn.Send(sctx, b, text)
	}})
	r.c = c
	var brain *Brain
	res := &r.res
	var stallGuessed0, stallTicks uint64
	var firstTick uint32
	lastResync := time.Time{}
	var rate Rate
	t := time.NewTimer(client.Nominal)
	defer t.Stop()
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case err := <-r.rd.errc:
			if ctx.Err() != nil {
				r.broken = true
				break loop
			}
			if !r.lost(err) {
				break loop
			}
			continue
		case <-t.C:
		}
		if r.dropDue() {
			if !r.lost(ErrDropped) {
				break loop
			}
			t.Reset(client.Nominal)
			continue
		}
		if o.Stall > 0 && !res.Stalled && time.Since(r.start) >= o.StallAt {
			res.Stalled = true
			in, _ := c.ServerInputs()
			stallGuessed0, stallTicks = in.Guessed, uint64(o.Stall*60/time.Second)
			select {
			case <-ctx.Done():
				break loop
			case <-time.After(o.Stall):
			}
		}
		for n := len(r.rd.frames); n > 0; n-- {
			f := <-r.rd.frames
			if err := c.HandleFrame(f.data, f.text); err != nil {
				lastResync = time.Now()
			}
		}
		res.Events += uint64(len(c.TakeEvents()))
		if now := time.Since(r.start); rate.Due(now) {
			rate.Add(now, c.Stats().BytesIn)
		}
		if tick := c.Decoder().Tick(); tick != 0 {
			if firstTick == 0 {
				firstTick = tick
			}
			res.SnapshotTicks = tick - firstTick
		}
		if !r.dialled.IsZero() {
			// A new connection: no tick until its welcome, as on a
			// first join.
			if w, ok := c.Welcome(); ok {
				r.back(w)
			} else {
				if time.Since(r.dialled) > WelcomeWait && !r.lost(errNoWelcome) {
					break loop
				}
				t.Reset(client.Nominal)
				continue
			}
		}
		// The client ticks owed: one, and more after a stall (a fixed-step
		// loop catches up, at most client.MaxCatchUp at once, so that its
		// inputs come late rather than never).
		owed := r.sched.Due(c, time.Since(r.start))
		t.Reset(r.sched.Next() - time.Since(r.start))
		if brain == nil {
			w, ok := c.Welcome()
			if !ok {
				continue
			}
			res.Welcomes = append(res.Welcomes, w)
			l, st, err := StaticOf(w.Level)
			if err != nil {
				res.Err = fmt.Errorf("bot: level %q: %w", w.Level, err)
				break loop
			}
			c.SetStatic(st)
			brain = NewBrain(c, l, seed)
		}
		for i := 0; i < owed; i++ {
			d := brain.Controls()
			if o.Controls != nil {
				d = o.Controls(c.Seq())
			}
			if err := c.Tick(d); err != nil && ctx.Err() == nil {
				err = fmt.Errorf("bot: send: %w", err)
				select { // the server closed it: its reason says more than the send's error
				case rerr := <-r.rd.errc:
					err = rerr
				case <-time.After(200 * time.Millisecond):
				}
				if !r.lost(err) {
					break loop
				}
				t.Reset(client.Nominal)
				break
			}
		}
		if o.Observe != nil {
			o.Observe(c)
		}
	}
	r.end()
	res.Stats = c.Stats()
	if in, ok := c.ServerInputs(); ok {
		res.Inputs = in
		res.PressesMade, _ = c.Presses()
		if res.Stalled && in.Guessed >= stallGuessed0 {
			res.StallGuessed = int64(in.Guessed-stallGuessed0) - int64(stallTicks)
			res.StallGuessedOK = true
		}
	}
	res.Seconds = time.Since(r.start).Seconds()
	res.BytesPerSecond = rate.Seconds
	res.Desynced = !lastResync.IsZero() && time.Since(lastResync) < 2*time.Second
	if brain == nil && res.Err == nil {
		res.Err = errors.New("bot: no welcome")
	}
	return *res
}

// dropDue reports whether Options.DropAt's time has come, and if so drops
// the connection (a Dropper; another Conn is kept) and sets the next
// time. A connection whose welcome is awaited is not dropped.
func (r *runner) dropDue() bool {
	if r.nextDrop <= 0 || !r.dialled.IsZero() || time.Since(r.start) < r.nextDrop {
		return false
	}
	r.nextDrop += r.o.DropEvery
	if r.o.DropEvery <= 0 {
		r.nextDrop = 0
	}
	d, ok := r.conn.(Dropper)
	if ok {
		d.Drop()
	}
	return ok
}

// lost takes the loss of the connection with err: with Options.Redial and
// a reconnect token, it dials a new connection for the bot's place on the
// backoff's schedule and returns true once it has one (its welcome still
// to come). It returns false when the run ends: the server closed the
// connection with a reason (a refusal, a kick), the tries are spent, or
// the run is over; Result.Err says why.
func (r *runner) lost(err error) bool {
	res := &r.res
	r.broken = true
	waiting := !r.lostAt.IsZero()
	if _, ok := ServerClosed(err); ok {
		res.Err = err
		if waiting {
			res.ReconnectFailed = true
			res.Err = fmt.Errorf("bot: reconnection refused: %w", err)
		}
		return false
	}
	token, ok := r.c.Rejoin()
	if r.o.Redial == nil || !ok {
		res.Err = err
		if r.o.Redial != nil {
			res.Err = fmt.Errorf("bot: connection lost with no reconnect token: %w", err)
		}
		return false
	}
	if !waiting {
		r.lostAt = time.Now()
		res.Drops++
	}
	r.dialled = time.Time{}
	r.rd.stop()
	if d, ok := r.conn.(Dropper); ok {
		d.Drop() // no close frame: the room keeps the place
	} else {
		r.conn.Close()
	}
	for r.tries < r.o.Backoff.Tries {
		wait := r.o.Backoff.Delay(r.tries, r.rng)
		r.tries++
		if r.o.Sleep(r.ctx, wait) != nil {
			return false // the run is over
		}
		res.Dials++
		conn, derr := r.o.Redial(r.ctx, token)
		if derr != nil {
			if r.ctx.Err() != nil {
				return false
			}
			if _, ok := ServerClosed(derr); ok {
				res.ReconnectFailed = true
				res.Err = fmt.Errorf("bot: reconnection refused: %w", derr)
				return false
			}
			err = derr
			continue
		}
		r.conn, r.rd, r.dialled, r.broken = conn, startReader(conn), time.Now(), false
		r.c.Reconnect()
		r.sched = client.Schedule{}
		return true
	}
	res.ReconnectFailed = true
	res.Err = fmt.Errorf("bot: no reconnection in %d tries: %w", r.tries, err)
	return false
}

// back takes the new connection's welcome w: the bot is back.
func (r *runner) back(w textframe.Welcome) {
	r.res.Welcomes = append(r.res.Welcomes, w)
	r.res.Reconnects++
	r.res.ReconnectTimes = append(r.res.ReconnectTimes, time.Since(r.lostAt))
	r.lostAt, r.dialled, r.tries = time.Time{}, time.Time{}, 0
}

// LeaveWait is how long a bot that ends its run waits for the server's
// reply to its leave command before it closes the connection: over WebRTC
// a close may overtake the command, and the room would hold the place.
const LeaveWait = 500 * time.Millisecond

// end ends the run deliberately: on a connection that still stands, the
// leave command (answered, or LeaveWait), then a normal close.
func (r *runner) end() {
	defer r.rd.stop()
	if r.broken || !r.dialled.IsZero() {
		r.conn.Close()
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), LeaveWait)
	defer cancel()
	leave, _ := json.Marshal(textframe.Command{Type: "leave"})
	if err := r.conn.Send(ctx, leave, true); err == nil {
	wait:
		for {
			select {
			case f := <-r.rd.frames:
				if f.text && textframe.Type(f.data) == "reply" {
					break wait
				}
			case <-r.rd.errc:
				break wait
			case <-ctx.Done():
				break wait
			}
		}
	}
	r.conn.Close()
}

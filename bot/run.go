package bot

import (
	"context"
	"errors"
	"fmt"
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
// tick, the frames received handed to the client between ticks.
func Run(ctx context.Context, conn Conn, seed uint64, d time.Duration) Result {
	return RunWith(ctx, conn, seed, d, Options{})
}

// RunWith is Run with o.
func RunWith(ctx context.Context, conn Conn, seed uint64, d time.Duration, o Options) Result {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	start := time.Now()
	frames := make(chan inFrame, 1024)
	readErr := make(chan error, 1)
	go func() {
		for {
			data, text, err := conn.Read(ctx)
			if err != nil {
				readErr <- err
				return
			}
			select {
			case frames <- inFrame{data, text}:
			case <-ctx.Done():
				return
			}
		}
	}()
	c := client.New(client.Config{Lossy: conn.Lossy(), Now: time.Now, Send: func(b []byte, text bool) error {
		sctx, scancel := context.WithTimeout(ctx, time.Second)
		defer scancel()
		return conn.Send(sctx, b, text)
	}})
	var brain *Brain
	var res Result
	var stallGuessed0, stallTicks uint64
	var firstTick uint32
	lastResync := time.Time{}
	var sched client.Schedule
	t := time.NewTimer(client.Nominal)
	defer t.Stop()
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case err := <-readErr:
			if ctx.Err() == nil {
				res.Err = err
			}
			break loop
		case <-t.C:
		}
		if o.Stall > 0 && !res.Stalled && time.Since(start) >= o.StallAt {
			res.Stalled = true
			in, _ := c.ServerInputs()
			stallGuessed0, stallTicks = in.Guessed, uint64(o.Stall*60/time.Second)
			select {
			case <-ctx.Done():
				break loop
			case <-time.After(o.Stall):
			}
		}
		for n := len(frames); n > 0; n-- {
			f := <-frames
			if err := c.HandleFrame(f.data, f.text); err != nil {
				lastResync = time.Now()
			}
		}
		res.Events += uint64(len(c.TakeEvents()))
		if tick := c.Decoder().Tick(); tick != 0 {
			if firstTick == 0 {
				firstTick = tick
			}
			res.SnapshotTicks = tick - firstTick
		}
		// The client ticks owed: one, and more after a stall (a fixed-step
		// loop catches up, at most client.MaxCatchUp at once, so that its
		// inputs come late rather than never).
		owed := sched.Due(c, time.Since(start))
		t.Reset(sched.Next() - time.Since(start))
		if brain == nil {
			w, ok := c.Welcome()
			if !ok {
				continue
			}
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
				res.Err = fmt.Errorf("bot: send: %w", err)
				select { // the server closed it: its reason says more than the send's error
				case rerr := <-readErr:
					res.Err = rerr
				case <-time.After(200 * time.Millisecond):
				}
				break loop
			}
		}
	}
	conn.Close()
	res.Stats = c.Stats()
	if in, ok := c.ServerInputs(); ok {
		res.Inputs = in
		res.PressesMade, _ = c.Presses()
		if res.Stalled && in.Guessed >= stallGuessed0 {
			res.StallGuessed = int64(in.Guessed-stallGuessed0) - int64(stallTicks)
			res.StallGuessedOK = true
		}
	}
	res.Seconds = time.Since(start).Seconds()
	res.Desynced = !lastResync.IsZero() && time.Since(lastResync) < 2*time.Second
	if brain == nil && res.Err == nil {
		res.Err = errors.New("bot: no welcome")
	}
	return res
}

package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"os/signal"
	"slices"
	"sync"
	"time"

	"github.com/fiveonit/engine/bot"
	"github.com/fiveonit/engine/client"
	"github.com/fiveonit/engine/internal/envflag"
	"github.com/fiveonit/engine/transport/link"
	"github.com/fiveonit/engine/transport/webrtc"
	"github.com/fiveonit/engine/transport/websocket"
)

// config is the bots' settings, from flags and the environment.
type config struct {
	url       string
	n         int
	duration  time.Duration
	transport string
	loss      float64
	delay     time.Duration
	jitter    time.Duration
	stall     time.Duration
	seed      uint64
	reconnect bool
	dropEvery time.Duration
	thin      bool
}

// envFlags pairs each flag with the environment variable that sets its
// default (a slice, not a map: the order the errors come in is fixed).
var envFlags = [][2]string{
	{"url", "FOI_BOTS_URL"},
	{"n", "FOI_BOTS_N"},
	{"duration", "FOI_BOTS_DURATION"},
	{"transport", "FOI_BOTS_TRANSPORT"},
	{"loss", "FOI_BOTS_LOSS"},
	{"delay", "FOI_BOTS_DELAY"},
	{"jitter", "FOI_BOTS_JITTER"},
	{"stall", "FOI_BOTS_STALL"},
	{"seed", "FOI_BOTS_SEED"},
	{"reconnect", "FOI_BOTS_RECONNECT"},
	{"drop-every", "FOI_BOTS_DROP_EVERY"},
	{"thin", "FOI_BOTS_THIN"},
}

// parseFlags reads the flags in args over the environment's defaults
// (envflag.Set). A value that does not parse, from either, is an error: a
// load run on the wrong settings is worse than none.
func parseFlags(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("bots", flag.ContinueOnError)
	fs.StringVar(&c.url, "url", "ws://127.0.0.1:8080/rooms/default", "the room's WebSocket URL (env FOI_BOTS_URL)")
	fs.IntVar(&c.n, "n", 16, "bots (env FOI_BOTS_N)")
	fs.DurationVar(&c.duration, "duration", 30*time.Second, "how long the bots play (env FOI_BOTS_DURATION)")
	fs.StringVar(&c.transport, "transport", "ws", "ws (WebSocket) or webrtc (env FOI_BOTS_TRANSPORT)")
	fs.Float64Var(&c.loss, "loss", 0, "fraction 0..1 of the binary frames each bot drops each way; over ws the bots then join with acked=1 (env FOI_BOTS_LOSS)")
	fs.DurationVar(&c.delay, "delay", 0, "one-way delay of the simulated link, each way (env FOI_BOTS_DELAY)")
	fs.DurationVar(&c.jitter, "jitter", 0, "each frame's delay spread over delay±jitter (env FOI_BOTS_JITTER)")
	fs.DurationVar(&c.stall, "stall", 0, "freeze each bot once for this long, halfway through its run (env FOI_BOTS_STALL)")
	fs.Uint64Var(&c.seed, "seed", 1, "seeds the bots' brains, their loss and their link (env FOI_BOTS_SEED)")
	fs.BoolVar(&c.reconnect, "reconnect", true, "a bot whose connection drops comes back to its place with its reconnect token (env FOI_BOTS_RECONNECT)")
	fs.DurationVar(&c.dropEvery, "drop-every", 0, "drop each bot's connection every this long, the first time at a seeded time within the first interval (env FOI_BOTS_DROP_EVERY)")
	fs.BoolVar(&c.thin, "thin", false, "thin bots: decode, acknowledge and send inputs from a simple driver, no prediction; hundreds per process (env FOI_BOTS_THIN)")
	if err := envflag.Set(fs, envFlags); err != nil {
		return c, err
	}
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	switch {
	case c.n < 1:
		return c, fmt.Errorf("-n %d: at least 1 bot", c.n)
	case c.duration <= 0:
		return c, fmt.Errorf("-duration %s: must be positive", c.duration)
	case c.transport != "ws" && c.transport != "webrtc":
		return c, fmt.Errorf("-transport %q: ws or webrtc", c.transport)
	case !(c.loss >= 0 && c.loss <= 1): // NaN too
		return c, fmt.Errorf("-loss %v: within 0..1", c.loss)
	case c.delay < 0:
		return c, fmt.Errorf("-delay %s: not negative", c.delay)
	case c.jitter < 0:
		return c, fmt.Errorf("-jitter %s: not negative", c.jitter)
	case c.stall < 0 || c.stall >= c.duration/2:
		return c, fmt.Errorf("-stall %s: not negative, under half the duration", c.stall)
	case c.dropEvery < 0:
		return c, fmt.Errorf("-drop-every %s: not negative", c.dropEvery)
	case c.dropEvery > 0 && !c.reconnect:
		return c, fmt.Errorf("-drop-every %s: needs -reconnect", c.dropEvery)
	case c.thin && c.stall > 0:
		return c, fmt.Errorf("-stall %s: not with -thin", c.stall)
	case c.thin && c.dropEvery > 0:
		return c, fmt.Errorf("-drop-every %s: not with -thin (a thin bot does not come back)", c.dropEvery)
	}
	return c, nil
}

func main() {
	c, err := parseFlags(os.Args[1:])
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "bots:", err)
		}
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if c.thin {
		res, failed := runThin(ctx, c)
		fmt.Println(thinSummary(res, failed))
		if failed > 0 {
			os.Exit(1)
		}
		for _, r := range res {
			if r.Desynced || r.Err != nil {
				os.Exit(1)
			}
		}
		return
	}
	res, failed := run(ctx, c)
	fmt.Println(summary(res, failed))
	if failed > 0 {
		os.Exit(1)
	}
	for _, r := range res {
		if r.Desynced || r.ReconnectFailed {
			os.Exit(1)
		}
	}
}

// dial connects bot i, behind the simulated link of -delay and -jitter
// (link.Wrap) when either is set. Each bot loses its own frames, seeded by
// seed and i. Over WebRTC the room's URL (ws:// or http://) is turned into
// its signalling URL (.../rtc), and the loss is the transport's own, on the
// lossy channel only. Over a WebSocket with loss the join asks for the
// acked snapshots (acked=1), the ones a lossy transport gets: the ordered
// ones cannot survive a lost frame.
//
// The connection is a bot.Dropper: a WebSocket drops with no close frame
// (behind the link too), a WebRTC connection closes (the room holds the
// place of a WebRTC connection that ends, however it ends).
func dial(ctx context.Context, c config, i int) (bot.Conn, error) {
	return dialURL(ctx, c, i, c.url, 0)
}

// dialURL is dial to the join URL u, for the bot's dial number n (0 the
// first, 1 on the first reconnection, ...), which seeds its loss and link
// apart from its other dials'.
func dialURL(ctx context.Context, c config, i int, u string, n int) (bot.Conn, error) {
	conn, err := dialTransport(ctx, c, i, u, n)
	if err != nil || c.delay == 0 && c.jitter == 0 {
		return conn, err
	}
	// An unordered channel lets frames overtake each other; TCP does not.
	l := link.Config{Delay: c.delay, Jitter: c.jitter, Reorder: c.transport == "webrtc"}
	lc, err := link.Wrap(conn, l, l, c.seed*104729+uint64(i)+uint64(n)<<32)
	if err != nil {
		conn.Close()
		return nil, err
	}
	inner := conn.(bot.Dropper)
	return droppable{lc, func() error {
		err := inner.Drop()
		lc.Close() // the inner connection is gone: its close writes nothing
		return err
	}}, nil
}

// droppable is a connection and its way to drop.
type droppable struct {
	bot.Conn
	drop func() error
}

func (d droppable) Drop() error { return d.drop() }

func dialTransport(ctx context.Context, c config, i int, u string, n int) (bot.Conn, error) {
	seed := c.seed*7919 + uint64(i) + uint64(n)<<32
	switch c.transport {
	case "ws":
		if c.loss == 0 {
			return websocket.Dial(ctx, u)
		}
		u, err := ackedURL(u)
		if err != nil {
			return nil, err
		}
		return websocket.DialWith(ctx, u, websocket.DialOptions{Loss: c.loss, Seed: seed})
	case "webrtc":
		conn, err := webrtc.Dial(ctx, u, webrtc.DialOptions{Loss: c.loss, Seed: seed})
		if err != nil {
			return nil, err
		}
		return droppable{conn, conn.Close}, nil
	}
	return nil, fmt.Errorf("transport %q is not available (ws, webrtc)", c.transport)
}

// ackedURL adds acked=1 to a join URL's query.
func ackedURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("-url %q: %w", s, err)
	}
	q := u.Query()
	q.Set("acked", "1")
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// options are bot i's: its freeze, its way back after a drop and its
// drops.
func options(c config, i int) bot.Options {
	// The freezes spread over the middle of the run, so that the bots do
	// not all stall at once.
	o := bot.Options{Stall: c.stall, StallAt: c.duration/4 + c.duration*time.Duration(i)/time.Duration(2*c.n)}
	if c.reconnect {
		dials := 0
		o.Redial = func(ctx context.Context, token string) (bot.Conn, error) {
			u, err := bot.RejoinURL(c.url, token)
			if err != nil {
				return nil, err
			}
			dials++
			dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			return dialURL(dctx, c, i, u, dials)
		}
	}
	if c.dropEvery > 0 {
		// The first drop at a time of its own within the first
		// interval's second half, so that the bots do not all drop at
		// once; then every interval.
		rng := rand.New(rand.NewPCG(c.seed, uint64(i)))
		o.DropAt = c.dropEvery/2 + time.Duration(rng.Int64N(int64(c.dropEvery/2)+1))
		o.DropEvery = c.dropEvery
	}
	return o
}

func run(ctx context.Context, c config) ([]bot.Result, int) {
	return spawn(ctx, c, func(conn bot.Conn, i int) bot.Result {
		return bot.RunWith(ctx, conn, c.seed+uint64(i), c.duration, options(c, i))
	}, func(r bot.Result) (bool, error) { return r.Stats.Snapshots == 0, r.Err })
}

// spawn plays c.n bots with play, joining one every 20 ms, and returns
// their results and how many failed: they could not connect, or ended
// with an error before their first snapshot (ended says of a result
// whether no snapshot came, and its error).
func spawn[R any](ctx context.Context, c config, play func(conn bot.Conn, i int) R, ended func(R) (bool, error)) ([]R, int) {
	var mu sync.Mutex
	var res []R
	failed := 0
	var wg sync.WaitGroup
	for i := 0; i < c.n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			conn, err := dial(dctx, c, i)
			cancel()
			if err != nil {
				fmt.Fprintf(os.Stderr, "bot %d: %v\n", i, err)
				mu.Lock()
				failed++
				mu.Unlock()
				return
			}
			r := play(conn, i)
			none, err := ended(r)
			if err != nil {
				fmt.Fprintf(os.Stderr, "bot %d: %v\n", i, err)
			}
			mu.Lock()
			res = append(res, r)
			if err != nil && none {
				failed++
			}
			mu.Unlock()
		}(i)
		select { // do not join all in one tick
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond):
		}
	}
	wg.Wait()
	return res, failed
}

// summary is the one line printed at the end: the transport's counters
// (bytes per client per second: the mean, then the median and the p99 of
// every bot's whole seconds), then the netcode's figures: corrections of
// the own body of 1 cm or more as a share of the reconciliations and the
// corrections' p99 and largest, the largest jump of the own body as drawn
// (outside teleports) and the teleports, the keyframes a join took, the
// presses made and run, the ticks whose input never came (skipped, or
// every copy lost), the ticks the server guessed after a stall (-stall:
// the mean over the bots that stalled, and the most), the connections
// dropped, the reconnections made and given up and how long one took (from
// the drop to the new welcome: the median and the longest), and the input
// round trip.
func summary(res []bot.Result, failed int) string {
	var perSecond []uint32
	var snaps, keys, resyncs, big, bytes, skipped, recon, joinKeys, made, run, lost uint64
	var corr, jumps client.Hist
	var teleports uint64
	var secs float64
	var rtt []time.Duration
	var stalls, stallSum, stallMax int64
	var drops, back, gaveUp int
	var took []time.Duration
	desync := 0
	for _, r := range res {
		s := r.Stats
		snaps += s.Snapshots
		keys += s.Keyframes
		resyncs += s.Resyncs
		big += s.BigCorrections
		recon += s.Reconciles
		corr.Merge(&s.Corr)
		jumps.Merge(&s.Jumps)
		teleports += s.Teleports
		joinKeys += s.JoinKeyframes
		bytes += s.BytesIn
		skipped += s.Skipped
		secs += r.Seconds
		made += r.PressesMade
		run += r.Inputs.Presses
		lost += r.Inputs.Missed
		rtt = append(rtt, s.RTT...)
		perSecond = append(perSecond, r.BytesPerSecond...)
		if r.Desynced {
			desync++
		}
		drops += r.Drops
		back += r.Reconnects
		took = append(took, r.ReconnectTimes...)
		if r.ReconnectFailed {
			gaveUp++
		}
		if r.Stalled && r.StallGuessedOK {
			stalls++
			stallSum += r.StallGuessed
			stallMax = max(stallMax, r.StallGuessed)
		}
	}
	slices.Sort(rtt)
	slices.Sort(took)
	slices.Sort(perSecond)
	pct := func(p float64) time.Duration { return quantile(rtt, p) }
	bps := 0.0
	if secs > 0 {
		bps = float64(bytes) / secs
	}
	share, perJoin := 0.0, 0.0
	if recon > 0 {
		share = 100 * float64(big) / float64(recon)
	}
	if len(res) > 0 {
		perJoin = float64(joinKeys) / float64(len(res)+back) // a reconnection is a join
	}
	line := fmt.Sprintf("clients=%d failed=%d snapshots=%d bytes/client/s=%.0f bytes/client/s-p50=%d bytes/client/s-p99=%d keyframes=%d keyframes/join=%.2f check-mismatches=%d desynced=%d skipped-ticks=%d",
		len(res), failed, snaps, bps, quantile(perSecond, 0.5), quantile(perSecond, 0.99), keys, perJoin, resyncs, desync, skipped)
	line += fmt.Sprintf(" reconciles=%d corrections>=1cm=%d (%.2f%%) correction-p99=%.1fcm correction-max=%.1fcm drawn-jump-max=%.1fcm teleports=%d presses-made=%d presses-run=%d inputs-missed=%d",
		recon, big, share, 100*corr.Quantile(0.99), 100*corr.MaxVal, 100*jumps.MaxVal, teleports, made, run, lost)
	if stalls > 0 {
		line += fmt.Sprintf(" stall-guessed-mean=%.1f stall-guessed-max=%d", float64(stallSum)/float64(stalls), stallMax)
	}
	if drops > 0 || gaveUp > 0 {
		line += fmt.Sprintf(" drops=%d reconnects=%d reconnects-failed=%d reconnect-p50=%s reconnect-max=%s",
			drops, back, gaveUp, quantile(took, 0.5).Round(time.Millisecond), quantile(took, 1).Round(time.Millisecond))
	}
	return line + fmt.Sprintf(" rtt-p50=%s rtt-p99=%s", pct(0.5).Round(100*time.Microsecond), pct(0.99).Round(100*time.Microsecond))
}

// quantile returns the value under which a share p of the sorted xs fall
// (1: the largest), 0 for none.
func quantile[T cmp.Ordered](xs []T, p float64) T {
	if len(xs) == 0 {
		var zero T
		return zero
	}
	return xs[min(len(xs)-1, int(p*float64(len(xs))))]
}

// Command bots starts N bot players against a server, each a Go client with
// a brain that drives on the road graph, gets out, walks and gets back in,
// and prints a one-line summary at the end:
//
//	go run ./cmd/bots -url ws://127.0.0.1:8080/rooms/NAME -n 16 -duration 30s
//	go run ./cmd/bots -transport webrtc -loss 0.1 -n 16
//
// It exits 1 if a bot failed to connect or was still refusing snapshots (a
// kept desync) at the end.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"sync"
	"time"

	"github.com/fiveonit/engine/bot"
	"github.com/fiveonit/engine/transport/webrtc"
	"github.com/fiveonit/engine/transport/websocket"
)

func main() {
	url := flag.String("url", "ws://127.0.0.1:8080/rooms/default", "the room's WebSocket URL")
	n := flag.Int("n", 16, "bots")
	dur := flag.Duration("duration", 30*time.Second, "how long the bots play")
	transport := flag.String("transport", "ws", "ws (WebSocket) or webrtc")
	loss := flag.Float64("loss", 0, "loss added on both sides of a webrtc bot, 0..1")
	seed := flag.Uint64("seed", 1, "seeds the bots' brains")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, failed := run(ctx, *url, *transport, *loss, *n, *dur, *seed)
	fmt.Println(summary(res, failed))
	if failed > 0 {
		os.Exit(1)
	}
	for _, r := range res {
		if r.Desynced {
			os.Exit(1)
		}
	}
}

// dial connects bot i. Over WebRTC the room's URL (ws:// or http://) is
// turned into its signalling URL (.../rtc) and each bot loses its own
// frames, seeded by seed and i.
func dial(ctx context.Context, url, transport string, loss float64, seed uint64, i int) (bot.Conn, error) {
	switch transport {
	case "ws":
		return websocket.Dial(ctx, url)
	case "webrtc":
		return webrtc.Dial(ctx, url, webrtc.DialOptions{Loss: loss, Seed: seed*7919 + uint64(i)})
	}
	return nil, fmt.Errorf("transport %q is not available (ws, webrtc)", transport)
}

func run(ctx context.Context, url, transport string, loss float64, n int, d time.Duration, seed uint64) ([]bot.Result, int) {
	var mu sync.Mutex
	var res []bot.Result
	failed := 0
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			conn, err := dial(dctx, url, transport, loss, seed, i)
			cancel()
			if err != nil {
				fmt.Fprintf(os.Stderr, "bot %d: %v\n", i, err)
				mu.Lock()
				failed++
				mu.Unlock()
				return
			}
			r := bot.Run(ctx, conn, seed+uint64(i), d)
			if r.Err != nil {
				fmt.Fprintf(os.Stderr, "bot %d: %v\n", i, r.Err)
			}
			mu.Lock()
			res = append(res, r)
			if r.Err != nil && r.Stats.Snapshots == 0 {
				failed++
			}
			mu.Unlock()
		}(i)
		time.Sleep(20 * time.Millisecond) // do not join all in one tick
	}
	wg.Wait()
	return res, failed
}

// summary is the one line printed at the end.
func summary(res []bot.Result, failed int) string {
	var snaps, keys, resyncs, big, bytes uint64
	var secs float64
	var rtt []time.Duration
	desync := 0
	for _, r := range res {
		s := r.Stats
		snaps += s.Snapshots
		keys += s.Keyframes
		resyncs += s.Resyncs
		big += s.BigCorrections
		bytes += s.BytesIn
		secs += r.Seconds
		rtt = append(rtt, s.RTT...)
		if r.Desynced {
			desync++
		}
	}
	slices.Sort(rtt)
	pct := func(p float64) time.Duration {
		if len(rtt) == 0 {
			return 0
		}
		return rtt[min(len(rtt)-1, int(p*float64(len(rtt))))]
	}
	bps := 0.0
	if secs > 0 {
		bps = float64(bytes) / secs
	}
	return fmt.Sprintf("clients=%d failed=%d snapshots=%d bytes/client/s=%.0f keyframes=%d check-mismatches=%d corrections>1cm=%d desynced=%d rtt-p50=%s rtt-p99=%s",
		len(res), failed, snaps, bps, keys, resyncs, big, desync, pct(0.5).Round(100*time.Microsecond), pct(0.99).Round(100*time.Microsecond))
}

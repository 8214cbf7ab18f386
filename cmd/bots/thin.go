package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/fiveonit/engine/bot"
	"github.com/fiveonit/engine/bot/thin"
)

// runThin plays c.n thin bots (-thin), joining one every 20 ms, and
// returns their results and how many failed: they could not connect, or
// ended with an error before their first snapshot. A thin bot does not
// come back after a drop: its run ends (Result.Err).
func runThin(ctx context.Context, c config) ([]thin.Result, int) {
	return spawn(ctx, c, func(conn bot.Conn, i int) thin.Result {
		return thin.Run(ctx, conn, c.seed+uint64(i), c.duration)
	}, func(r thin.Result) (bool, error) { return r.Stats.Snapshots == 0, r.Err })
}

// thinSummary is the one line printed at the end of a run of thin bots:
// clients, failed (no connection, or no snapshot), ended early (an error
// after snapshots came: a drop, the server's close), snapshots, bytes per
// client per second (the mean, then the median and the p99 of every bot's
// whole seconds), keyframes and keyframes per join, check mismatches
// (frames refused), desynced (a frame refused in the last
// thin.DesyncWindow), the input frames sent and the ticks skipped to catch
// up, and from the server's inputs frames the ticks it ran on a guess, the
// inputs that came late and the ticks whose input never came.
func thinSummary(res []thin.Result, failed int) string {
	var perSecond []uint32
	var snaps, keys, joinKeys, resyncs, bytes, frames, skipped, guessed, late, missed uint64
	var secs float64
	early, desync := 0, 0
	for _, r := range res {
		s := r.Stats
		snaps += s.Snapshots
		keys += s.Keyframes
		joinKeys += s.JoinKeyframes
		resyncs += s.Resyncs
		bytes += s.BytesIn
		frames += s.InputFrames
		skipped += s.Skipped
		guessed += r.Inputs.Guessed
		late += r.Inputs.Late
		missed += r.Inputs.Missed
		secs += r.Seconds
		perSecond = append(perSecond, r.BytesPerSecond...)
		if r.Err != nil && s.Snapshots > 0 {
			early++
		}
		if r.Desynced {
			desync++
		}
	}
	slices.Sort(perSecond)
	bps, perJoin := 0.0, 0.0
	if secs > 0 {
		bps = float64(bytes) / secs
	}
	if len(res) > 0 {
		perJoin = float64(joinKeys) / float64(len(res))
	}
	return fmt.Sprintf("clients=%d failed=%d ended-early=%d snapshots=%d bytes/client/s=%.0f bytes/client/s-p50=%d bytes/client/s-p99=%d keyframes=%d keyframes/join=%.2f check-mismatches=%d desynced=%d input-frames=%d skipped-ticks=%d inputs-guessed=%d inputs-late=%d inputs-missed=%d",
		len(res), failed, early, snaps, bps, quantile(perSecond, 0.5), quantile(perSecond, 0.99), keys, perJoin, resyncs, desync,
		frames, skipped, guessed, late, missed)
}

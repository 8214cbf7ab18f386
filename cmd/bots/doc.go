// Command bots starts N bot players against a server, each a Go client with
// a brain that drives on the road graph, gets out, walks and gets back in,
// and prints a one-line summary at the end. It is a development tool.
//
//	go run ./cmd/bots -url ws://127.0.0.1:8080/rooms/NAME -n 16 -duration 30s
//	go run ./cmd/bots -transport webrtc -loss 0.1 -n 16
//	go run ./cmd/bots -n 16 -duration 60s -delay 50ms -jitter 10ms -stall 1s
//	go run ./cmd/bots -n 16 -duration 60s -drop-every 20s
//	go run ./cmd/bots -thin -n 256 -duration 5m
//
// To watch bots play, start the server, then the bots:
//
//	go run ./cmd/server
//	go run ./cmd/bots -n 16 -duration 60s
//
// -url ws://127.0.0.1:8080/rooms/NAME joins another room; -delay 50ms
// -jitter 10ms -loss 0.05 simulate a link each way; -stall 1s freezes each
// bot once; -drop-every 20s drops each bot's connection every 20 s, and
// the bot comes back to its place.
//
// A bot whose connection drops (no close from the server) comes back by
// itself: it dials again with its welcome's reconnect token (rejoin= in
// the join's query, token= kept), up to 15 times, waiting 0.1 s before the
// first try and twice as long before each next, at most 5 s, less up to a
// quarter at random (seeded). The room gives it its character and car
// back. A close from the server with a reason (a refusal, a kick) ends the
// bot's run with the reason. A bot that ends its run sends the leave
// command and closes normally: the room holds no place for it.
//
// -thin runs thin bots instead (package bot/thin): each decodes its
// snapshots (ordered and acked), acknowledges them, asks for a keyframe when
// it refuses one, and sends an input frame per tick from a simple driver (a
// seeded throttle and steering wave), with no prediction, reconciliation or
// interpolation. One process puts hundreds on real sockets: 256 against one
// room is the soak of bench/RESULTS.md. A thin bot does not come back after a
// drop, and takes no -stall or -drop-every.
//
// A bot's error goes to stderr as it happens. At the end the command prints
// one summary line for all the bots: clients, failed, snapshots, bytes per
// client per second (the mean, then bytes/client/s-p50 and -p99: the median
// and the p99 of every bot's whole seconds, each second's bytes received by
// one bot), keyframes and keyframes per join, check mismatches,
// desynced, ticks skipped (a bot that fell behind the server skips the ticks
// it ran without it), reconciliations and the own body's corrections of
// 1 cm or more (their share, the corrections' p99 and largest), presses
// made and run, ticks whose input never came, the ticks the server guessed
// after a stall, the connections dropped, the reconnections made and given
// up and how long one took (from the drop to the new welcome, the median
// and the longest), and the input round trip. It exits 1 if a bot failed
// to connect, gave up coming back after a drop or was still refusing
// snapshots (a kept desync) at the end, 2 on bad flags.
//
// The thin bots' line: clients, failed (no connection, or no snapshot),
// ended-early (an error after snapshots came: a drop, the server's close),
// snapshots, the bytes per client per second as above, keyframes and
// keyframes per join, check mismatches (frames refused), desynced (a frame
// refused in the last 2 s), the input frames sent, the ticks skipped to
// catch up with the server, and from the server's inputs frames the ticks
// it ran on a guess, the inputs that came late and the ticks whose input
// never came. It exits 1 if a bot failed, ended early or desynced.
//
// The same link runs in-process on a simulated clock (bench/loadgen:
// NewWith and Advance), where a run is repeatable:
// go test ./bench/loadgen -run Figures -v logs the netcode's figures
// (docs/netcode.md).
//
// # Flags
//
// Each flag has an environment variable that sets its default; a flag on
// the command line wins. A value that does not parse, from either, is an
// error (exit 2).
//
//   - -url, FOI_BOTS_URL, default ws://127.0.0.1:8080/rooms/default: the
//     room's URL, with the join's query; over WebRTC the same URL (its
//     scheme made http, /rtc added). Any server of a fleet will do: a join
//     for a room another server holds is sent there (a 307 the bots
//     follow), and so is a reconnection.
//   - -n, FOI_BOTS_N, default 16: bots.
//   - -duration, FOI_BOTS_DURATION, default 30s: how long they play.
//   - -transport, FOI_BOTS_TRANSPORT, default ws: ws (WebSocket) or webrtc
//     (two data channels).
//   - -loss, FOI_BOTS_LOSS, default 0: the fraction (0..1) of the binary
//     frames each bot drops, each way (seeded): over WebRTC on the lossy
//     channel; over ws the bots then join with acked=1, so that they get
//     the acked snapshots.
//   - -delay, FOI_BOTS_DELAY, default 0: a simulated link's one-way delay,
//     each way (package transport/link, over either transport).
//   - -jitter, FOI_BOTS_JITTER, default 0: each frame's delay spread
//     uniformly over delay ± jitter; a WebSocket keeps its frames in order,
//     the WebRTC lossy channel lets them overtake.
//   - -stall, FOI_BOTS_STALL, default 0: freeze each bot once for this long
//     (no tick, no frame read: a frozen tab), the bots' freezes spread over
//     the middle of the run; the summary then tells the ticks the server
//     guessed after the freeze (from its inputs frames: the guesses from the
//     freeze's start on, less the freeze's own ticks).
//   - -seed, FOI_BOTS_SEED, default 1: seeds the bots' brains, their loss
//     and their link.
//   - -reconnect, FOI_BOTS_RECONNECT, default true: a bot whose connection
//     drops comes back to its place (false: the drop ends its run).
//   - -drop-every, FOI_BOTS_DROP_EVERY, default 0: drop each bot's
//     connection (a WebSocket with no close frame, a WebRTC connection
//     closed) every this long, the first time at a seeded time in the
//     second half of the first interval; it needs -reconnect.
//   - -thin, FOI_BOTS_THIN, default false: thin bots (package bot/thin)
//     instead of full ones; not with -stall or -drop-every.
package main

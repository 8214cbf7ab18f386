package thin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/fiveonit/engine/bot"
	"github.com/fiveonit/engine/client"
	"github.com/fiveonit/engine/textframe"
)

// Result is what one thin bot saw.
type Result struct {
	Stats   Stats
	Welcome textframe.Welcome // the zero value when none came
	// Inputs is the server's last inputs frame: what it did with the
	// bot's inputs (guessed, late, dropped, missed).
	Inputs  textframe.InputsFrame
	Seconds float64
	// BytesPerSecond holds the bytes the bot received in each whole
	// second of its run (bot.Rate).
	BytesPerSecond []uint32
	// SnapshotTicks is how many server ticks its snapshots spanned, from
	// the first applied to the last.
	SnapshotTicks uint32
	// Desynced says the bot refused a frame in its last DesyncWindow.
	Desynced bool
	Err      error // why it ended early, if it did
}

// DesyncWindow is how recent a refused frame makes a bot's run end
// desynced: a keyframe answers a resync request within a round trip, so a
// bot that refused a frame this close to its end may still be waiting.
const DesyncWindow = 2 * time.Second

// StuckAfter is how long past its duration a bot's run may go on before it
// drops its connection: a send the server no longer reads, or a close it
// never answers, would hold the run forever.
const StuckAfter = 10 * time.Second

// errNoWelcome is a connection that brought no welcome in bot.WelcomeWait.
var errNoWelcome = errors.New("thin: no welcome")

// leaveFrame is the leave command: a bot that ends its run says so, and the
// room holds no place for it.
var leaveFrame, _ = json.Marshal(textframe.Command{Type: "leave"})

// frameReader is a connection that reads a frame into a buffer of the
// caller's (transport/websocket's ClientConn.ReadInto): a thin bot reads
// its frames with no allocation.
type frameReader interface {
	ReadInto(ctx context.Context, buf []byte) (frame []byte, text bool, err error)
}

// reader reads a connection's frames into a client, on a goroutine of its
// own, until the connection ends. Its reads take no context that ends: a
// WebSocket read whose context ends drops the connection, and a bot that
// ends its run closes it normally instead.
type reader struct {
	done    chan struct{} // closed when the reads end
	err     error         // why they ended: read it once done is closed
	replied chan struct{} // a reply came (to the leave command)
}

func startReader(conn bot.Conn, c *Client) *reader {
	r := &reader{done: make(chan struct{}), replied: make(chan struct{}, 1)}
	go func() {
		defer close(r.done)
		fr, into := conn.(frameReader)
		buf := make([]byte, 0, 4096)
		for {
			var data []byte
			var text bool
			var err error
			if into {
				data, text, err = fr.ReadInto(context.Background(), buf)
				buf = data[:0] // its room, grown, for the next frame
			} else {
				data, text, err = conn.Read(context.Background())
			}
			if err != nil {
				r.err = err
				return
			}
			if !text {
				c.HandleSnapshot(data) // a refusal is counted, and asks for a keyframe
				continue
			}
			if typ, _ := c.HandleText(data); typ == "reply" {
				select {
				case r.replied <- struct{}{}:
				default:
				}
			}
		}
	}()
	return r
}

// Run plays one thin bot on conn for d (or until ctx ends): its frames are
// read and decoded as they come, and from the welcome on it sends one input
// frame per client tick (Client.Period, about 60 Hz), its controls from
// NewDriver(seed). At the end it sends the leave command and closes the
// connection normally. A drop or the server's close ends the run
// (Result.Err): a thin bot does not come back.
func Run(ctx context.Context, conn bot.Conn, seed uint64, d time.Duration) Result {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	stuck, unstick := context.WithTimeout(context.Background(), d+StuckAfter)
	defer unstick()
	drop := context.AfterFunc(stuck, func() {
		if dr, ok := conn.(bot.Dropper); ok {
			dr.Drop()
		} else {
			conn.Close()
		}
	})
	defer drop() // before unstick, which would run it
	c := New(conn.Lossy())
	rd := startReader(conn, c)
	drv := NewDriver(seed)
	res := Result{BytesPerSecond: make([]uint32, 0, d/time.Second+1)}
	rate := bot.Rate{Seconds: res.BytesPerSecond}
	broken := false                 // the connection failed
	var next time.Duration          // when the next tick is due, from start
	started := false                // ticking: the welcome came
	sendCtx := context.Background() // no timer per frame: StuckAfter ends a send that blocks
	t := time.NewTimer(client.Nominal)
	defer t.Stop()
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case <-rd.done:
			broken = true
			if ctx.Err() == nil {
				res.Err = rd.err
			}
			break loop
		case <-t.C:
		}
		now := time.Since(start)
		if rate.Due(now) {
			rate.Add(now, c.BytesIn())
		}
		if !c.Joined() {
			if now > bot.WelcomeWait {
				res.Err = errNoWelcome
				break loop
			}
			t.Reset(client.Nominal)
			continue
		}
		if !started {
			next, started = now, true
		}
		// The ticks owed: one, more after a slow wake-up (at most
		// client.MaxCatchUp; further behind, the rest are dropped).
		owed := 0
		for owed < client.MaxCatchUp && next <= now {
			next += c.Period(client.Nominal)
			owed++
		}
		next = max(next, now)
		for range owed {
			if err := conn.Send(sendCtx, c.Tick(drv.Next()), false); err != nil {
				broken = true
				select { // the server closed it: its reason says more than the send's error
				case <-rd.done:
					if rd.err != nil {
						err = rd.err
					}
				case <-time.After(200 * time.Millisecond):
				}
				if ctx.Err() == nil {
					res.Err = fmt.Errorf("thin: send: %w", err)
				}
				break loop
			}
		}
		t.Reset(next - time.Since(start))
	}
	end(conn, rd, broken)
	res.Seconds = time.Since(start).Seconds()
	res.Stats = c.Stats()
	res.Welcome, _ = c.Welcome()
	res.Inputs, _ = c.ServerInputs()
	res.SnapshotTicks = c.SnapshotTicks()
	res.BytesPerSecond = rate.Seconds
	if last := c.LastRefused(); !last.IsZero() && time.Since(last) < DesyncWindow {
		res.Desynced = true
	}
	if !c.Joined() && res.Err == nil {
		res.Err = errNoWelcome
	}
	return res
}

// end ends the run: on a connection that still stands, the leave command
// (answered, or bot.LeaveWait), then a normal close; it returns once the
// reads have ended, so that the client's receiving side has stopped.
func end(conn bot.Conn, rd *reader, broken bool) {
	if !broken {
		ctx, cancel := context.WithTimeout(context.Background(), bot.LeaveWait)
		if conn.Send(ctx, leaveFrame, true) == nil {
			select {
			case <-rd.replied:
			case <-rd.done:
			case <-ctx.Done():
			}
		}
		cancel()
	}
	conn.Close()
	<-rd.done // a close that hangs: StuckAfter drops the connection
}

package client

import (
	"time"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/netsync/wire"
)

// The client keeps its clock ahead of the server's by what the link needs:
// its input for a tick must reach the server before the server runs the
// tick, or the server runs it on a guess. Every snapshot says how the
// server's queue of the client's inputs stood (wire.Header.InputBuffer):
// the inputs held ahead, or, below 0, how many ticks the newest input that
// came is behind the tick run. The client keeps that count within a band,
// BufferLow to BufferHigh, by the length of its ticks (TickPeriod): a
// small dilation of its clock, as Overwatch's client does. After a stall
// (a frozen tab, a slow frame, a lag spike) it is far behind, and a
// dilation would take seconds to make that up, every tick of them a
// guess: it skips ahead at once instead, by the shortfall it measures.
//
// The shortfall comes from the round trip in ticks. A snapshot of tick T
// says the server ran the client's tick L and held the inputs up to
// L+B (B the inputBuffer); the client had sent up to seq-1 when the
// snapshot came, so seq-L-B ticks went by from its newest input's sending
// to the snapshot's coming: a round trip, give or take a tick. The client
// keeps the last RoundTrips of those and plans by their median and a tick
// (a busy machine reads some snapshots late: their round trips are long
// by the delay, and must not set the pace), to be that many ticks plus the
// band's low ahead of every L it is told.

// Buffer targets: the client keeps between BufferLow and BufferHigh of its
// inputs waiting on the server, so that jitter rarely leaves the server
// without the input of the tick it runs (it would guess) while the input
// latency stays a tick or two.
const (
	BufferLow  = 1
	BufferHigh = 3
	// BufferLowLossy and BufferHighLossy are the band over a lossy
	// transport: one more input waiting, so that a lost input frame (its
	// inputs come again in the next) never leaves the server without the
	// tick's input.
	BufferLowLossy  = BufferLow + 1
	BufferHighLossy = BufferHigh + 1
)

// SkipMin is the shortfall, in ticks, from which the client skips ahead
// at once: 8 ticks, 133 ms. A smaller one is a hiccup of the client's
// machine or the server's, which the ticks owed (Schedule) and the
// dilation make up: a skip leaves the server its own ticks to guess. A
// larger one is a stall or a spike. The snapshots that come in a bunch
// after a stall, each of a later tick, top a skip up by any shortfall.
const SkipMin = 8

// RoundTrips is how many round trips (in ticks) the client keeps, whose
// median it plans by: 32 snapshots, 1.6 s.
const RoundTrips = 32

// MaxDilation is the most a tick is shortened or lengthened: 10 %, six
// ticks a second, unnoticeable in play. A tick out of the band dilates by
// 3 %, two ticks by 5 %, and so on.
const MaxDilation = 10

// pacer is the client's clock keeping.
type pacer struct {
	trips [RoundTrips]int32 // the round trips measured, in ticks
	n, i  int
	// buffer is the inputBuffer of the last snapshot that told of ticks
	// after the last skip, or the band's low while none has.
	buffer int
}

func (p *pacer) push(x int32) {
	p.trips[p.i] = x
	p.i = (p.i + 1) % RoundTrips
	p.n = min(p.n+1, RoundTrips)
}

// roundTrip returns the round trip the client plans by: the median of
// those kept and a tick for the jitter, so that the snapshots a busy
// machine read late (their round trips long by the delay) do not set the
// pace; false for none.
func (p *pacer) roundTrip() (int32, bool) {
	if p.n == 0 {
		return 0, false
	}
	s := p.trips
	t := s[:p.n]
	for i := 1; i < len(t); i++ { // an insertion sort of 32 at most
		for j := i; j > 0 && t[j] < t[j-1]; j-- {
			t[j], t[j-1] = t[j-1], t[j]
		}
	}
	return t[len(t)/2] + 1, true
}

// band returns the client's band of inputs waiting on the server.
func (c *Client) band() (low, high int) {
	if c.cfg.Lossy {
		return BufferLowLossy, BufferHighLossy
	}
	return BufferLow, BufferHigh
}

// target returns what a skip aims at: the band's low. The round trip it
// plans by has a tick for the jitter in it already, and most ticks find
// more inputs waiting than that.
func (c *Client) target() int {
	low, _ := c.band()
	return low
}

// pace takes a snapshot's lastSeq and inputBuffer: it measures the round
// trip, keeps the inputBuffer for TickPeriod and skips ahead by the
// shortfall when it is SkipMin or more.
func (c *Client) pace(lastSeq uint32, buffer int8) {
	if lastSeq == 0 {
		return // the server has run none of the client's ticks yet
	}
	p := &c.pacer
	lead := int64(c.seq) - int64(lastSeq) // how far ahead the client is of the tick told
	b := int64(buffer)
	// The inputBuffer tells of the client's newest input the server has,
	// lastSeq+b. One sent before the last skip tells of the stream before
	// it: behind, but the skip made that up.
	current := int64(lastSeq)+b+1 >= int64(c.resumed)
	if current {
		p.buffer = int(b)
		_, high := c.band()
		if b >= 1 && b <= 2*int64(high) {
			// Only a count well below the server's cap (its queue
			// holds 16) is the whole of what it holds.
			p.push(int32(lead - b))
		}
	}
	short := int64(0)
	if x, ok := p.roundTrip(); ok {
		short = int64(x) + int64(c.target()) - lead
	}
	if b < 0 && current {
		// Behind by -b ticks, and the band's low to gain: the round trip
		// grew, or none is known yet.
		short = max(short, int64(c.target())-b)
	}
	// Frames that come together after a stall each tell of a newer tick:
	// once skipping, the client follows them to the newest, however
	// little each adds. And a client whose next tick the server has run
	// already is behind, however little.
	topUp := lastSeq < c.resumed || lead <= 0
	if lead <= 0 {
		short = max(short, 1-lead+int64(c.target()))
	}
	if short < SkipMin && !(short > 0 && topUp) {
		return
	}
	if b > 0 && lead > 0 {
		// The server has inputs of the client's waiting: it is not
		// behind, whatever the round trips say (a slow machine's late
		// reading of a snapshot lengthens them).
		return
	}
	c.skip(uint32(short))
	p.buffer = c.target()
}

// skip numbers the client's next tick n past its current one. The server
// runs the ticks skipped on guesses: the last input it has, less its
// presses and its trigger. The client predicts them alike (their history
// holds the guess, never sent), so that the next reconciliations replay
// what the server ran. The drawn body moves on with them at once, as
// after a teleport.
func (c *Client) skip(n uint32) {
	var guess wire.Input
	if h := &c.hist[(c.seq-1)%HistoryLen]; h.seq == c.seq-1 {
		guess = h.in
		guess.Pressed, guess.Held = 0, guess.Held&^uint16(components.BtnFire)
	}
	c.tailOf()
	for range n {
		h := &c.hist[c.seq%HistoryLen]
		*h = histEntry{seq: c.seq, in: guess, presses: c.stats.Presses}
		c.predict(h)
		c.seq++
	}
	c.resumed = c.seq
	c.stats.Skipped += uint64(n)
	c.stats.Skips++
	c.smooth.lastOK = false
}

// TickPeriod returns how long the client should wait before its next tick,
// given the nominal period: shorter while the server holds fewer of its
// inputs than the band's low (BufferLow; BufferLowLossy over a lossy
// transport), longer while it holds more than its high (BufferHigh;
// BufferHighLossy), by 3 % for a tick out of the band and 2 % more for
// each further tick, at most MaxDilation.
func (c *Client) TickPeriod(nominal time.Duration) time.Duration {
	low, high := c.band()
	b := c.pacer.buffer
	switch {
	case b < low:
		return nominal * time.Duration(100-dilation(low-b)) / 100
	case b > high:
		return nominal * time.Duration(100+dilation(b-high)) / 100
	}
	return nominal
}

// dilation returns the percent a tick is shortened or lengthened by when
// the buffer is off ticks out of its band.
func dilation(off int) int { return min(1+2*off, MaxDilation) }

// InputBuffer returns the inputBuffer the client paces by: the server's
// queue of its inputs at the last snapshot that told of its ticks after
// its last skip (below 0: how far behind its inputs were).
func (c *Client) InputBuffer() int { return c.pacer.buffer }

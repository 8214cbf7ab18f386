package server

import (
	"errors"
	"fmt"

	"github.com/fiveonit/engine/components"
)

// InputQueueCap is how many of a client's inputs the server holds ahead of
// the tick it runs: 16 ticks, about 270 ms. Enough to ride out a burst after
// a lag spike; more would let a client bank input latency.
const InputQueueCap = 16

// InputHistory is how far back (in client ticks) the queue remembers which
// inputs it has seen, so that a late copy's presses are handed on exactly
// once: 256 ticks, about 4 s. An input older than that is ignored.
const InputHistory = 256

// MaxInputAhead is how far ahead of the tick due a client's input may be
// numbered: 600 ticks (10 s). Further is a broken or hostile client.
const MaxInputAhead = 600

// ErrInputAhead is returned by Push for an input numbered too far ahead.
var ErrInputAhead = errors.New("server: input too far ahead")

// Input is one of a client's ticks: Seq is the client's tick number, Drive
// what it asked for then (Drive.Pressed holds that tick's one-shot presses).
type Input struct {
	Seq   uint32
	Drive components.Drive
}

// InputStats counts what the queue did.
type InputStats struct {
	Taken      uint64 // ticks run on the client's own input
	Guessed    uint64 // ticks run on a guess (the input had not come)
	Late       uint64 // inputs that came after their tick was spent
	Dropped    uint64 // inputs dropped because the queue overflowed
	Duplicates uint64 // copies of inputs already held or run
	Stale      uint64 // inputs older than InputHistory, ignored
	// Missed counts the ticks spent without their input (guessed, or
	// dropped to make room) whose input never came, by any copy, within
	// InputHistory: a tick the client skipped (it fell behind), or one
	// whose every copy a lossy link lost.
	Missed uint64
}

// InputQueue holds one client's inputs and yields exactly one per server
// tick, by these rules:
//
//   - input n is the client's tick n; the server runs exactly one of a
//     client's ticks with each of its own, from its first input on;
//   - inputs are taken in order, each once; the queue is bounded
//     (InputQueueCap) and drops the oldest on overflow;
//   - a missing input is guessed from the last one held, minus the one-shot
//     presses and the trigger (BtnFire), its view (Drive.View) moved on by
//     the ticks since; a grenade with its pin out (BtnPin) stays held;
//   - that tick is spent: the input meant for it is too late when it comes;
//   - a late or dropped input's one-shot presses go to the next tick run,
//     once. A press of a button the next input presses too waits one more
//     tick, so every press lands on exactly one tick: none lost, none doubled;
//   - a press of the trigger (BtnFire pressed: the client presses it on the
//     first tick it holds it) holds the trigger on the tick it runs, so that
//     a tap on a tick run on a guess fires on the next one run.
//
// The zero value is an empty queue that has not started.
type InputQueue struct {
	started bool
	next    uint32 // the client tick the next Take runs
	slots   [InputQueueCap]Input
	held    [InputQueueCap]bool
	// seen marks client ticks in [next-InputHistory, next) whose input has
	// come (run, or arrived late): a copy of one is a duplicate.
	seen [InputHistory]bool
	// missed marks client ticks in [next-InputHistory, next) spent
	// without their input that has not come since: one still marked
	// when its slot is taken again never came (InputStats.Missed).
	missed   [InputHistory]bool
	last     components.Drive // the newest input received for a tick already run
	lastSeq  uint32
	haveLast bool
	carry    [16]uint8 // presses handed on, per button bit
	newest   uint32    // the newest client tick whose input came
	stats    InputStats
}

// Started reports whether the first input has come.
func (q *InputQueue) Started() bool { return q.started }

// Next returns the client tick the next Take will run.
func (q *InputQueue) Next() uint32 { return q.next }

// Len returns the inputs held for ticks not yet run (the snapshots'
// inputBuffer).
func (q *InputQueue) Len() int {
	n := 0
	for _, h := range q.held {
		if h {
			n++
		}
	}
	return n
}

// Lead returns what the snapshots' inputBuffer says of the queue: the
// inputs held for ticks not yet run, or, with none held, how many ticks the
// newest input that came is behind the last tick run, as a count below 0
// (at most 128 behind). It is 0 before the first input. A client behind
// sends its ticks too late to steer: the count says by how much.
func (q *InputQueue) Lead() int8 {
	if n := q.Len(); n > 0 {
		return int8(min(n, 127))
	}
	if !q.started || q.next == 0 || q.newest+1 >= q.next {
		return 0
	}
	return int8(-int(min(q.next-1-q.newest, 128)))
}

// Stats returns the queue's counters.
func (q *InputQueue) Stats() InputStats { return q.stats }

// Push adds an input the client sent. Copies and inputs for ticks already
// run are handled as the type's comment says; an input numbered more than
// MaxInputAhead ahead is refused with ErrInputAhead and changes nothing.
func (q *InputQueue) Push(in Input) error {
	if !q.started {
		q.started = true
		q.next = in.Seq
	}
	if in.Seq < q.next {
		q.newest = max(q.newest, in.Seq)
		q.pushLate(in)
		return nil
	}
	ahead := in.Seq - q.next
	if ahead > MaxInputAhead {
		return fmt.Errorf("%w: tick %d, %d ahead of %d", ErrInputAhead, in.Seq, ahead, q.next)
	}
	for in.Seq-q.next >= InputQueueCap {
		q.dropOldest()
	}
	q.newest = max(q.newest, in.Seq)
	i := in.Seq % InputQueueCap
	if q.held[i] {
		q.stats.Duplicates++
		return nil
	}
	q.slots[i], q.held[i] = in, true
	return nil
}

// pushLate handles an input whose tick is spent: its presses are handed on
// once, the first time it comes.
func (q *InputQueue) pushLate(in Input) {
	age := q.next - in.Seq
	if age > InputHistory {
		q.stats.Stale++
		return
	}
	h := in.Seq % InputHistory
	if q.seen[h] {
		q.stats.Duplicates++
		return
	}
	q.seen[h], q.missed[h] = true, false
	q.stats.Late++
	q.handOn(in.Drive.Pressed)
	q.remember(in)
}

// dropOldest spends the tick due without running it, to make room: its
// input (if held) is dropped and its presses handed on.
func (q *InputQueue) dropOldest() {
	i := q.next % InputQueueCap
	h := q.retire(q.next)
	if q.held[i] {
		q.stats.Dropped++
		q.handOn(q.slots[i].Drive.Pressed)
		q.remember(q.slots[i])
		q.held[i] = false
		q.seen[h] = true
	} else {
		q.seen[h], q.missed[h] = false, true
	}
	q.next++
}

// retire frees the history slot of client tick seq for it: the tick
// InputHistory before, if it was spent without its input and the input
// never came, is missed. It returns the slot.
func (q *InputQueue) retire(seq uint32) uint32 {
	h := seq % InputHistory
	if q.missed[h] {
		q.stats.Missed++
		q.missed[h] = false
	}
	return h
}

// Take runs the client tick due: it returns that tick's number and the
// input to run (the client's, or a guess), and whether it was a guess. Before
// the first input it returns ok false and the server runs the character on
// an empty input.
func (q *InputQueue) Take() (seq uint32, d components.Drive, guessed, ok bool) {
	if !q.started {
		return 0, components.Drive{}, false, false
	}
	seq = q.next
	i := seq % InputQueueCap
	h := q.retire(seq)
	if q.held[i] {
		in := q.slots[i]
		q.held[i] = false
		q.seen[h] = true
		q.remember(in)
		d = in.Drive
		q.stats.Taken++
	} else {
		q.seen[h], q.missed[h] = false, true
		d = q.guess()
		guessed = true
		q.stats.Guessed++
	}
	d.Pressed = q.withCarry(d.Pressed)
	if d.Pressed&components.BtnFire != 0 {
		d.Held |= components.BtnFire // a trigger tap, run on this tick
	}
	q.next++
	return seq, d, guessed, true
}

// guess is the last input held, without its presses and its trigger; the
// world its client drew has moved on a tick with each tick since.
func (q *InputQueue) guess() components.Drive {
	if !q.haveLast {
		return components.Drive{}
	}
	d := q.last
	d.Pressed = 0
	d.Held &^= components.BtnFire
	if d.View != 0 {
		d.View += uint64(q.next - q.lastSeq)
	}
	return d
}

// remember keeps in as the base of guesses if it is the newest seen.
func (q *InputQueue) remember(in Input) {
	if q.haveLast && in.Seq < q.lastSeq {
		return
	}
	q.last, q.lastSeq, q.haveLast = in.Drive, in.Seq, true
}

// handOn adds presses to the ones carried to the next ticks run.
func (q *InputQueue) handOn(p components.Buttons) {
	for b := 0; p != 0; b++ {
		if p&1 != 0 && q.carry[b] < 255 {
			q.carry[b]++
		}
		p >>= 1
	}
}

// withCarry adds one carried press of each button to p, except a button p
// presses already: that one waits for the next tick.
func (q *InputQueue) withCarry(p components.Buttons) components.Buttons {
	for b := range q.carry {
		bit := components.Buttons(1) << b
		if q.carry[b] > 0 && p&bit == 0 {
			p |= bit
			q.carry[b]--
		}
	}
	return p
}

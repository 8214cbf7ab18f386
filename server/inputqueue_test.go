package server

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/fiveonit/engine/components"
)

const (
	use  = components.BtnUse
	jump = components.BtnJump
	fire = components.BtnFire
	pin  = components.BtnPin
	hb   = components.BtnHandbrake
)

// in makes client tick seq's input: a throttle equal to seq/100 tells which
// input a tick ran.
func in(seq uint32, pressed, held components.Buttons) Input {
	return Input{Seq: seq, Drive: components.Drive{Throttle: float32(seq) / 100, Pressed: pressed, Held: held}}
}

// step is one server tick of a scenario: the inputs that arrive before it,
// then what Take must give.
type step struct {
	push    []Input
	seq     uint32 // tick run
	from    uint32 // throttle came from this input (0: none)
	guessed bool   //
	pressed components.Buttons
	held    components.Buttons
}

func TestInputQueueScenarios(t *testing.T) {
	cases := []struct {
		name  string
		steps []step
		stats InputStats
	}{
		{"steady", []step{
			{push: []Input{in(10, use, 0)}, seq: 10, from: 10, pressed: use},
			{push: []Input{in(11, 0, hb)}, seq: 11, from: 11, held: hb},
			{push: []Input{in(12, 0, hb)}, seq: 12, from: 12, held: hb},
		}, InputStats{Taken: 3}},
		{"stall: guesses drop presses and trigger, keep the pin", []step{
			{push: []Input{in(1, jump, fire|pin|hb)}, seq: 1, from: 1, pressed: jump, held: fire | pin | hb},
			{seq: 2, from: 1, guessed: true, held: pin | hb},
			{seq: 3, from: 1, guessed: true, held: pin | hb},
			// 2 and 3 come late: too late to steer, their presses go to tick 4.
			{push: []Input{in(2, use, 0), in(3, 0, 0), in(4, 0, 0)}, seq: 4, from: 4, pressed: use},
		}, InputStats{Taken: 2, Guessed: 2, Late: 2}},
		{"lag spike: burst after guesses runs each input once, in order", []step{
			{push: []Input{in(1, 0, 0)}, seq: 1, from: 1},
			{seq: 2, from: 1, guessed: true},
			{seq: 3, from: 1, guessed: true},
			{push: []Input{in(2, jump, 0), in(3, use, 0), in(4, 0, 0), in(5, use, 0), in(6, 0, 0)}, seq: 4, from: 4, pressed: jump | use},
			// 5 presses use itself: the carried one is spent already.
			{seq: 5, from: 5, pressed: use},
			{seq: 6, from: 6},
			{seq: 7, from: 6, guessed: true},
		}, InputStats{Taken: 4, Guessed: 3, Late: 2}},
		{"a carried press of a button the input presses waits a tick", []step{
			{push: []Input{in(1, 0, 0)}, seq: 1, from: 1},
			{seq: 2, from: 1, guessed: true},
			{push: []Input{in(2, use, 0), in(3, use, 0)}, seq: 3, from: 3, pressed: use},
			{push: []Input{in(4, 0, 0)}, seq: 4, from: 4, pressed: use},
			{push: []Input{in(5, 0, 0)}, seq: 5, from: 5},
		}, InputStats{Taken: 4, Guessed: 1, Late: 1}},
		{"client skips ticks: the gap is guessed, never waited for", []step{
			{push: []Input{in(1, 0, hb)}, seq: 1, from: 1, held: hb},
			{push: []Input{in(4, use, 0)}, seq: 2, from: 1, guessed: true, held: hb},
			{seq: 3, from: 1, guessed: true, held: hb},
			{seq: 4, from: 4, pressed: use},
		}, InputStats{Taken: 2, Guessed: 2}},
		{"duplicates and reorders: each input once", []step{
			{push: []Input{in(1, 0, 0), in(1, 0, 0)}, seq: 1, from: 1},
			{push: []Input{in(3, jump, 0), in(2, use, 0), in(1, 0, 0), in(3, jump, 0)}, seq: 2, from: 2, pressed: use},
			{push: []Input{in(2, use, 0), in(3, jump, 0), in(4, 0, 0)}, seq: 3, from: 3, pressed: jump},
			{seq: 4, from: 4},
		}, InputStats{Taken: 4, Duplicates: 5}},
		{"a late copy hands its presses on once", []step{
			{push: []Input{in(1, 0, 0)}, seq: 1, from: 1},
			{seq: 2, from: 1, guessed: true},
			{push: []Input{in(2, use, 0), in(3, 0, 0)}, seq: 3, from: 3, pressed: use},
			{push: []Input{in(2, use, 0), in(3, 0, 0), in(4, 0, 0)}, seq: 4, from: 4},
		}, InputStats{Taken: 3, Guessed: 1, Late: 1, Duplicates: 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var q InputQueue
			for i, s := range c.steps {
				for _, p := range s.push {
					if err := q.Push(p); err != nil {
						t.Fatalf("step %d: push %d: %v", i, p.Seq, err)
					}
				}
				seq, d, guessed, ok := q.Take()
				if !ok {
					t.Fatalf("step %d: not started", i)
				}
				from := uint32(d.Throttle*100 + 0.5)
				if seq != s.seq || from != s.from || guessed != s.guessed || d.Pressed != s.pressed || d.Held != s.held {
					t.Fatalf("step %d: ran tick %d from input %d guessed %v pressed %b held %b; want tick %d from %d guessed %v pressed %b held %b",
						i, seq, from, guessed, d.Pressed, d.Held, s.seq, s.from, s.guessed, s.pressed, s.held)
				}
			}
			if got := q.Stats(); got != c.stats {
				t.Fatalf("stats %+v, want %+v", got, c.stats)
			}
		})
	}
}

func TestInputQueueOverflowDropsOldest(t *testing.T) {
	var q InputQueue
	for s := uint32(1); s <= 40; s++ {
		p := components.Buttons(0)
		if s == 3 {
			p = use
		}
		if err := q.Push(in(s, p, 0)); err != nil {
			t.Fatal(err)
		}
	}
	if q.Len() != InputQueueCap || q.Next() != 40-InputQueueCap+1 {
		t.Fatalf("len %d next %d", q.Len(), q.Next())
	}
	seq, d, guessed, _ := q.Take()
	if seq != 25 || guessed || d.Pressed != use {
		t.Fatalf("ran %d guessed %v pressed %b: want 25, the dropped press of 3", seq, guessed, d.Pressed)
	}
	if st := q.Stats(); st.Dropped != 24 {
		t.Fatalf("dropped %d", st.Dropped)
	}
	// A copy of a dropped input is a duplicate: its press was handed on.
	q.Push(in(3, use, 0))
	_, d, _, _ = q.Take()
	if d.Pressed != 0 {
		t.Fatal("press of a dropped input handed on twice")
	}
}

func TestInputQueueBeforeStartAndTooFar(t *testing.T) {
	var q InputQueue
	if _, _, _, ok := q.Take(); ok {
		t.Fatal("Take before the first input must report not started")
	}
	q.Push(in(1000, 0, 0))
	if err := q.Push(in(1000+MaxInputAhead+1, use, 0)); !errors.Is(err, ErrInputAhead) {
		t.Fatalf("err %v", err)
	}
	if q.Next() != 1000 || q.Len() != 1 {
		t.Fatal("a refused input must change nothing")
	}
	q.Take()
	if err := q.Push(in(1, use, 0)); err != nil || q.Stats().Stale != 1 {
		t.Fatalf("an input older than the history is stale: %v %+v", err, q.Stats())
	}
}

// TestInputQueuePressesNeverLostOrDoubled drives a queue with a client whose
// frames (each carrying its last 4 inputs) are lost, duplicated, reordered,
// delayed and sometimes stalled, and checks that every press of every input
// that arrived at least once lands on exactly one tick run.
func TestInputQueuePressesNeverLostOrDoubled(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		var q InputQueue
		type frame struct {
			at  int
			ins []Input
		}
		var inflight []frame
		var sent [16]int
		arrived := map[uint32]bool{}
		var got [16]int
		const ticks = 3000
		var inputs []Input
		for tick := 0; tick < ticks+100; tick++ {
			if tick < ticks {
				var p components.Buttons
				if rng.IntN(4) == 0 {
					p = components.Buttons(1) << rng.IntN(10)
				}
				inputs = append(inputs, in(uint32(tick+1), p, 0))
				lo := max(0, len(inputs)-4)
				ins := append([]Input(nil), inputs[lo:]...)
				delay := 1 + rng.IntN(3)
				if rng.IntN(100) == 0 {
					delay += 10 + rng.IntN(30) // a stall
				}
				if rng.IntN(5) != 0 { // 20% loss
					inflight = append(inflight, frame{tick + delay, ins})
				}
				if rng.IntN(20) == 0 {
					inflight = append(inflight, frame{tick + delay + rng.IntN(3), ins})
				}
			}
			var keep []frame
			for _, f := range inflight {
				if f.at > tick {
					keep = append(keep, f)
					continue
				}
				for _, x := range f.ins {
					arrived[x.Seq] = true
					if err := q.Push(x); err != nil {
						t.Fatal(err)
					}
				}
			}
			inflight = keep
			if _, d, _, ok := q.Take(); ok {
				for b := 0; b < 16; b++ {
					if d.Pressed&(1<<b) != 0 {
						got[b]++
					}
				}
			}
		}
		for _, x := range inputs {
			if !arrived[x.Seq] {
				continue
			}
			for b := 0; b < 16; b++ {
				if x.Drive.Pressed&(1<<b) != 0 {
					sent[b]++
				}
			}
		}
		if got != sent {
			t.Fatalf("seed %d: presses run %v, sent (and arrived) %v; stats %+v", seed, got, sent, q.Stats())
		}
	}
}

// TestInputQueueMissed: a tick spent without its input counts as missed
// once its input has not come within InputHistory; a late copy makes it
// good.
func TestInputQueueMissed(t *testing.T) {
	var q InputQueue
	q.Push(Input{Seq: 1})
	q.Take()              // 1, taken
	q.Take()              // 2, guessed: its input comes late below
	q.Take()              // 3, guessed: its input never comes
	q.Push(Input{Seq: 2}) // late
	for i := 0; i < InputHistory; i++ {
		q.Take()
	}
	if st := q.Stats(); st.Missed != 1 || st.Late != 1 {
		t.Fatalf("stats %+v: want tick 3 missed, tick 2 late", st)
	}
}

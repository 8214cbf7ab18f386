package textframe

import "strconv"

// InputsFrame tells a client what the server did with its inputs, as
// totals since it joined: sent when one of them other than Taken changed,
// at most once a second. Players see it on the page's network panel; the
// bots' summary reads the guesses after a stall and the presses run from
// it.
type InputsFrame struct {
	Type    string `json:"type"`    // "inputs"
	Seq     uint32 `json:"seq"`     // the client tick the totals run to: the last the server ran
	Taken   uint64 `json:"taken"`   // ticks run on the client's own input
	Guessed uint64 `json:"guessed"` // ticks run on a guess: the input had not come
	Late    uint64 `json:"late"`    // inputs that came after their tick was run
	Dropped uint64 `json:"dropped"` // inputs dropped: the queue was full
	// Missed counts the ticks whose input never came, by any copy,
	// within the queue's history (4 s): a tick the client skipped (it
	// fell behind the server), or one whose every copy a lossy link lost.
	Missed uint64 `json:"missed"`
	// Presses counts the one-shot presses run, a button of a tick one
	// press, the trigger's first tick held among them.
	Presses uint64 `json:"presses"`
}

// AppendJSON appends f as json.Marshal writes it.
func (f *InputsFrame) AppendJSON(b []byte) []byte {
	b = appendType(b, f.Type)
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, uint64(f.Seq), 10)
	b = append(b, `,"taken":`...)
	b = strconv.AppendUint(b, f.Taken, 10)
	b = append(b, `,"guessed":`...)
	b = strconv.AppendUint(b, f.Guessed, 10)
	b = append(b, `,"late":`...)
	b = strconv.AppendUint(b, f.Late, 10)
	b = append(b, `,"dropped":`...)
	b = strconv.AppendUint(b, f.Dropped, 10)
	b = append(b, `,"missed":`...)
	b = strconv.AppendUint(b, f.Missed, 10)
	b = append(b, `,"presses":`...)
	b = strconv.AppendUint(b, f.Presses, 10)
	return append(b, '}')
}

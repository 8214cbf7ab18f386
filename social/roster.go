package social

// State is where a player of the roster is.
type State uint8

// The states of a roster line.
const (
	OnFoot    State = iota
	InCar           // driving or a passenger (or getting in or out)
	Dead            // waiting to come back
	Spectator       // watching, without a character
)

var stateNames = [...]string{"foot", "car", "dead", "spectator"}

// String returns the state's name, as the roster frame carries it.
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "unknown"
}

// Member is one line of a room's roster.
type Member struct {
	Session uint32
	Player  uint8 // the player's number in the room, 0 for a spectator
	Name    string
	Account string // "" for a player without a join token
	Party   uint8  // 0 for none
	Ping    uint16 // ms, as shown (ShownPing)
	State   State
}

// PingEvery is how often, in seconds, a roster's pings are brought up to
// date: a ping moves all the time, and a roster sent to every player at
// each move would cost more than it tells.
const PingEvery = 5

// ShownPing returns the ping a roster shows, given the one it shows and
// the one measured (ms): the measured one when it moved by more than 10 ms
// and a fifth, else the one shown, so that jitter sends no roster.
func ShownPing(shown, measured uint16) uint16 {
	d := int(measured) - int(shown)
	if d < 0 {
		d = -d
	}
	if d > 10 && d*5 > int(shown) {
		return measured
	}
	return shown
}

// Roster is a room's roster as last sent: Update reports whether the lines
// differ from it. Room goroutine only.
type Roster struct {
	sent []Member
	rev  uint32
}

// Update takes the roster's lines now (by session, the caller's to reuse)
// and reports whether they differ from those last taken; the revision
// (Revision) moves on when they do.
func (r *Roster) Update(now []Member) bool {
	if len(now) == len(r.sent) {
		same := true
		for i := range now {
			if now[i] != r.sent[i] {
				same = false
				break
			}
		}
		if same {
			return false
		}
	}
	r.sent = append(r.sent[:0], now...)
	r.rev++
	return true
}

// Revision numbers the roster's versions, from 1 at the first Update.
func (r *Roster) Revision() uint32 { return r.rev }

// Lines returns the lines last taken (the Roster's own slice).
func (r *Roster) Lines() []Member { return r.sent }

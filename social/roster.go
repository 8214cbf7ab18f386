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
	Player  uint16 // the player's number in the room, 0 for a spectator
	Name    string
	Account string // "" for a player without a join token
	Party   uint16 // 0 for none
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
// differ from it, and Changes what changed, so that a client that holds the
// roster is sent the lines that changed rather than all of them. Room
// goroutine only.
type Roster struct {
	sent    []Member
	rev     uint32
	changed []Member
	gone    []uint32
}

// Update takes the roster's lines now, in increasing order of session (the
// caller's slice, to reuse), and reports whether they differ from those
// last taken; the revision moves on when they do. It allocates nothing
// once its lists have grown to the room's size.
func (r *Roster) Update(now []Member) bool {
	r.changed, r.gone = r.changed[:0], r.gone[:0]
	i, j := 0, 0
	for i < len(r.sent) || j < len(now) {
		switch {
		case j == len(now) || i < len(r.sent) && r.sent[i].Session < now[j].Session:
			r.gone = append(r.gone, r.sent[i].Session)
			i++
		case i == len(r.sent) || now[j].Session < r.sent[i].Session:
			r.changed = append(r.changed, now[j])
			j++
		default:
			if r.sent[i] != now[j] {
				r.changed = append(r.changed, now[j])
			}
			i++
			j++
		}
	}
	if len(r.changed) == 0 && len(r.gone) == 0 {
		return false
	}
	r.sent = append(r.sent[:0], now...)
	r.rev++
	return true
}

// Revision numbers the roster's versions, from 1 at the first Update.
func (r *Roster) Revision() uint32 { return r.rev }

// Lines returns the lines last taken (the Roster's own slice).
func (r *Roster) Lines() []Member { return r.sent }

// Changes returns what the last Update changed (nothing when it reported
// no change): the lines new or different, and the sessions gone (the
// Roster's own slices, by session).
func (r *Roster) Changes() (changed []Member, gone []uint32) { return r.changed, r.gone }

package textframe

import "strconv"

// The missions' frames and the phone commands.
//
// Phone commands (Command's Type "phone", each answered by a ReplyFrame: ok,
// or the reason it was refused; a refused command changes nothing):
//
//	accept   "offer": an offer open on your phone (PhoneMessage.Offer): the mission starts for you, or for your party
//	decline  "offer": closes the offer; its contact offers again later
//	abandon  calls your mission off: it fails, for every player of it
//	screen   "choice": the option picked on the screen open on your phone (PhoneScreen.Options, from 0)
//	close    closes the screen open on your phone
//
// A stale offer (taken, declined or pushed out of the phone), a command for
// no mission, a screen that is not open or an option it does not have is
// refused with the reason. A room whose game has no missions refuses every
// phone command.

// MissionArgs are the phone commands' arguments.
type MissionArgs struct {
	Offer  uint32 `json:"offer,omitempty"`  // accept, decline: the offer's number
	Choice *int   `json:"choice,omitempty"` // screen: the option, from 0
}

// TrackerFrame tells a player the mission they are on: sent as they join,
// when it starts, whenever its objective, marker or timer changes, and when
// it ends (Mission ""). Every player of a party's mission gets the same.
type TrackerFrame struct {
	Type      string `json:"type"`                // "tracker"
	Mission   string `json:"mission"`             // the mission's id, "" for none
	Title     string `json:"title,omitempty"`     // what it is called
	Objective string `json:"objective,omitempty"` // what to do now
	// Marker is the place to show on the map ([x, y], metres), none when
	// absent; Radius (m) makes it an area, 0 a point.
	Marker *[2]float32 `json:"marker,omitempty"`
	Radius float32     `json:"radius,omitempty"`
	// Ends is the server tick the timer runs out, 0 for no timer; Tick is
	// the server's tick when the frame was sent, so that the client counts
	// the time left down on its own.
	Ends uint64 `json:"ends,omitempty"`
	Tick uint64 `json:"tick"`
}

// NoticeFrame is a short notice for a player: a mission started, a step of
// it done, its result.
type NoticeFrame struct {
	Type string `json:"type"` // "notice"
	Text string `json:"text"`
	Kind string `json:"kind"` // "info", "success" or "failure"
}

// PhoneFrame is a player's phone whenever it changes: the contacts'
// messages (the last 8, oldest first) and the screen open on it.
type PhoneFrame struct {
	Type     string         `json:"type"` // "phone"
	Messages []PhoneMessage `json:"messages"`
	Screen   *PhoneScreen   `json:"screen,omitempty"` // none when no screen is open
	// Open asks the page to show the phone: the player used it.
	Open bool `json:"open,omitempty"`
}

// PhoneMessage is one message on a phone.
type PhoneMessage struct {
	ID   uint32 `json:"id"`
	From string `json:"from"` // the contact
	Text string `json:"text"`
	// Offer is the offer's number for the accept and decline commands,
	// 0 for a message that offers nothing; Open is whether it may still be
	// accepted.
	Offer uint32 `json:"offer,omitempty"`
	Open  bool   `json:"open,omitempty"`
	// Mission, Title and Reward (cash to each player) are the mission
	// offered or talked about.
	Mission string `json:"mission,omitempty"`
	Title   string `json:"title,omitempty"`
	Reward  int64  `json:"reward,omitempty"`
}

// PhoneScreen is a screen the world opened on the phone (a laptop, a
// counter): answered with the "screen" command.
type PhoneScreen struct {
	ID      uint32   `json:"id"`
	Title   string   `json:"title"`
	Text    string   `json:"text"`
	Options []string `json:"options"`
}

// The missions' frames append their JSON to a caller's buffer, byte for
// byte what json.Marshal writes (TestMissionFramesAppendJSONIsMarshal), so
// that a tick that tells players of their missions allocates nothing.

// AppendJSON appends f as json.Marshal writes it.
func (f *TrackerFrame) AppendJSON(b []byte) []byte {
	b = appendType(b, f.Type)
	b = append(b, `,"mission":`...)
	b = appendString(b, f.Mission)
	if f.Title != "" {
		b = append(b, `,"title":`...)
		b = appendString(b, f.Title)
	}
	if f.Objective != "" {
		b = append(b, `,"objective":`...)
		b = appendString(b, f.Objective)
	}
	if f.Marker != nil {
		b = append(b, `,"marker":[`...)
		b = appendFloat(b, float64(f.Marker[0]), 32)
		b = append(b, ',')
		b = appendFloat(b, float64(f.Marker[1]), 32)
		b = append(b, ']')
	}
	if f.Radius != 0 {
		b = append(b, `,"radius":`...)
		b = appendFloat(b, float64(f.Radius), 32)
	}
	if f.Ends != 0 {
		b = append(b, `,"ends":`...)
		b = strconv.AppendUint(b, f.Ends, 10)
	}
	b = append(b, `,"tick":`...)
	b = strconv.AppendUint(b, f.Tick, 10)
	return append(b, '}')
}

// AppendJSON appends f as json.Marshal writes it.
func (f *NoticeFrame) AppendJSON(b []byte) []byte {
	b = appendType(b, f.Type)
	b = append(b, `,"text":`...)
	b = appendString(b, f.Text)
	b = append(b, `,"kind":`...)
	b = appendString(b, f.Kind)
	return append(b, '}')
}

// AppendJSON appends f as json.Marshal writes it (a nil Messages as an
// empty list, which the server never sends).
func (f *PhoneFrame) AppendJSON(b []byte) []byte {
	b = appendType(b, f.Type)
	b = append(b, `,"messages":[`...)
	for i := range f.Messages {
		if i > 0 {
			b = append(b, ',')
		}
		b = f.Messages[i].appendJSON(b)
	}
	b = append(b, ']')
	if s := f.Screen; s != nil {
		b = append(b, `,"screen":{"id":`...)
		b = strconv.AppendUint(b, uint64(s.ID), 10)
		b = append(b, `,"title":`...)
		b = appendString(b, s.Title)
		b = append(b, `,"text":`...)
		b = appendString(b, s.Text)
		b = append(b, `,"options":`...)
		if s.Options == nil {
			b = append(b, "null"...)
		} else {
			b = append(b, '[')
			for i, o := range s.Options {
				if i > 0 {
					b = append(b, ',')
				}
				b = appendString(b, o)
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	if f.Open {
		b = append(b, `,"open":true`...)
	}
	return append(b, '}')
}

func (m *PhoneMessage) appendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendUint(b, uint64(m.ID), 10)
	b = append(b, `,"from":`...)
	b = appendString(b, m.From)
	b = append(b, `,"text":`...)
	b = appendString(b, m.Text)
	if m.Offer != 0 {
		b = append(b, `,"offer":`...)
		b = strconv.AppendUint(b, uint64(m.Offer), 10)
	}
	if m.Open {
		b = append(b, `,"open":true`...)
	}
	if m.Mission != "" {
		b = append(b, `,"mission":`...)
		b = appendString(b, m.Mission)
	}
	if m.Title != "" {
		b = append(b, `,"title":`...)
		b = appendString(b, m.Title)
	}
	if m.Reward != 0 {
		b = append(b, `,"reward":`...)
		b = strconv.AppendInt(b, m.Reward, 10)
	}
	return append(b, '}')
}

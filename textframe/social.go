package textframe

import (
	"strconv"
)

// The room's social side: its roster, chat, quick-chat, emotes, votes to
// kick and parties. A client's commands (Command with one of the types
// below, their arguments in SocialArgs) are answered by a ReplyFrame like
// any other: OK, or the reason and nothing changed. A chat message's reply
// comes once its moderation has decided (at once in a room without a
// moderation service), before the message reaches the room.
//
//	{"type":"chat","text":"hello"}                 a chat message to the room
//	{"type":"quickchat","line":2}                  quick-chat line 2 of SocialFrame.QuickChat
//	{"type":"emote","emote":0}                     play emote 0 of SocialFrame.Emotes (on foot)
//	{"type":"vote","cmd":"kick","session":4}       start a vote to kick session 4
//	{"type":"vote","cmd":"yes"}, "no"              your ballot in the running vote
//	{"type":"party","cmd":"invite","session":4}    invite session 4 into your party
//	{"type":"party","cmd":"accept","session":2}    accept session 2's invitation ("decline": refuse it)
//	{"type":"party","cmd":"leave"}                 leave your party

// SocialArgs are the arguments of the social commands (part of Command).
type SocialArgs struct {
	// Text is a "chat" message: at most SocialFrame.MaxChat characters
	// once control characters are made spaces and format characters
	// dropped.
	Text string `json:"text,omitempty"`
	// Line is a "quickchat" line's id: its index in SocialFrame.QuickChat.
	Line *int `json:"line,omitempty"`
	// Emote is an "emote"'s id: its index in SocialFrame.Emotes.
	Emote *int `json:"emote,omitempty"`
	// Session names another player by session (RosterPlayer.Session): the
	// target of a vote to kick, the player a party invitation goes to, or
	// the inviter whose invitation is accepted or declined.
	Session uint32 `json:"session,omitempty"`
}

// SocialFrame tells a client the room's social constants, once after its
// welcome.
type SocialFrame struct {
	Type      string   `json:"type"`      // "social"
	QuickChat []string `json:"quickChat"` // the quick-chat lines, by id
	Emotes    []string `json:"emotes"`    // the emotes' names, by id
	// EmoteAct is the person action of emote 0: a person whose action
	// (the record's act) is EmoteAct+i plays emote i.
	EmoteAct    uint8 `json:"emoteAct"`
	MaxChat     int   `json:"maxChat"`     // the longest chat message, in characters
	ChatBurst   int   `json:"chatBurst"`   // messages at once (quick-chat lines count)...
	ChatEvery   int   `json:"chatEvery"`   // ...then one every this many seconds
	PartySize   int   `json:"partySize"`   // the most players a party takes by invitation
	VoteSeconds int   `json:"voteSeconds"` // how long a vote to kick runs at most
	Moderated   bool  `json:"moderated"`   // chat goes through a moderation service
}

// RosterFrame is the room's roster. A client's first is whole (Full):
// every player of the room. After it, whenever lines change (a player
// joins or leaves, changes party, gets in or out of a car, dies; the pings
// at most every few seconds), it gets the lines new or changed and the
// sessions gone, to apply to the roster it holds.
type RosterFrame struct {
	Type    string         `json:"type"`              // "roster"
	Full    bool           `json:"full,omitempty"`    // Players is the whole roster: drop the one held
	Players []RosterPlayer `json:"players,omitempty"` // the lines new or changed (all of them when Full), by session
	Gone    []uint32       `json:"gone,omitempty"`    // the sessions that left the room
}

// RosterPlayer is one line of the roster: a player, or a spectator.
type RosterPlayer struct {
	Session uint32 `json:"session"`           // the player's session: the one commands name
	Player  uint16 `json:"player"`            // the player's number in the room (the records' player), 0 for a spectator
	Name    string `json:"name"`              // at most 32 characters; text, never markup
	Account string `json:"account,omitempty"` // the join token's account; absent without one
	Party   uint16 `json:"party,omitempty"`   // the party's number in the room (the records' party); absent for none
	Ping    uint16 `json:"ping"`              // the player's round trip in ms, as the server measures it from its acks
	// State is where the player is: "foot", "car" (driving, a passenger,
	// getting in or out), "dead" or "spectator".
	State string `json:"state"`
}

// ChatFrame is a chat message relayed to everyone in the room, its sender
// included.
type ChatFrame struct {
	Type    string `json:"type"`    // "chat"
	Session uint32 `json:"session"` // the sender's session
	Player  uint16 `json:"player"`  // the sender's number, 0 for a spectator
	Name    string `json:"name"`    // the sender's name (as the roster has it)
	Text    string `json:"text"`    // the message: text, never markup
	// Quick is the quick-chat line's id for a quick-chat line; absent
	// for a message written.
	Quick *int `json:"quick,omitempty"`
}

// VoteFrame is the state of a vote to kick, sent to everyone in the room
// when it starts, at each ballot, and when it ends.
type VoteFrame struct {
	Type       string `json:"type"` // "vote"
	ID         uint32 `json:"id"`   // the vote's number in the room
	Starter    uint32 `json:"starter"`
	Target     uint32 `json:"target"`     // the session it would kick
	TargetName string `json:"targetName"` //
	// State is "open" while it runs, then how it ended: "passed" (the
	// target is out), "failed" (enough said no), "timeout", "target-left"
	// or "too-few" (voters left).
	State  string   `json:"state"`
	Yes    int      `json:"yes"`
	No     int      `json:"no"`
	Need   int      `json:"need"`   // the yes votes that pass it: more than half of Voters
	Voters []uint32 `json:"voters"` // the sessions with a vote (not the target, not a latecomer)
	// Seconds is the time left while it runs.
	Seconds float64 `json:"seconds"`
}

// PartyFrame tells a player of an invitation: "invite" goes to the
// invited player (answer with a party command, "accept" or "decline"
// naming From), "declined" to the inviter when it is refused.
type PartyFrame struct {
	Type    string  `json:"type"` // "party"
	Cmd     string  `json:"cmd"`  // "invite" or "declined"
	From    uint32  `json:"from"` // the other player's session
	Name    string  `json:"name"` // the other player's name
	Party   uint16  `json:"party,omitempty"`
	Seconds float64 `json:"seconds,omitempty"` // "invite": how long it stands
}

// AppendJSON appends f as json.Marshal writes it, allocating nothing once
// b has room: a roster changes many times per minute in a busy room.
func (f *RosterFrame) AppendJSON(b []byte) []byte {
	b = appendType(b, f.Type)
	if f.Full {
		b = append(b, `,"full":true`...)
	}
	if len(f.Players) > 0 {
		b = append(b, `,"players":[`...)
		for i := range f.Players {
			if i > 0 {
				b = append(b, ',')
			}
			b = f.Players[i].appendJSON(b)
		}
		b = append(b, ']')
	}
	if len(f.Gone) > 0 {
		b = append(b, `,"gone":[`...)
		for i, g := range f.Gone {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendUint(b, uint64(g), 10)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

func (p *RosterPlayer) appendJSON(b []byte) []byte {
	b = append(b, `{"session":`...)
	b = strconv.AppendUint(b, uint64(p.Session), 10)
	b = append(b, `,"player":`...)
	b = strconv.AppendUint(b, uint64(p.Player), 10)
	b = append(b, `,"name":`...)
	b = appendString(b, p.Name)
	if p.Account != "" {
		b = append(b, `,"account":`...)
		b = appendString(b, p.Account)
	}
	if p.Party != 0 {
		b = append(b, `,"party":`...)
		b = strconv.AppendUint(b, uint64(p.Party), 10)
	}
	b = append(b, `,"ping":`...)
	b = strconv.AppendUint(b, uint64(p.Ping), 10)
	b = append(b, `,"state":`...)
	b = appendString(b, p.State)
	return append(b, '}')
}

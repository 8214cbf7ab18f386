package server

import (
	"errors"
	"slices"
	"sync"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/netsync/wire"
	"github.com/fiveonit/engine/social"
	"github.com/fiveonit/engine/textframe"
)

// The room's social side (package social's logic, wired here): the roster,
// the chat and its moderation, quick-chat, emotes, votes to kick and
// parties. Commands only record what they did; every frame they cause goes
// out in socialTick, after all the clients' frames of the tick are
// handled, so that a send that cuts a client off never lands in the middle
// of another client's frames.

// SocialConfig sets up a room's social side.
type SocialConfig struct {
	// Moderator judges the chat before it is relayed, after the word
	// list (nil: the word list alone). A moderator that calls a service
	// answers later; the room never waits for it.
	Moderator social.Moderator
	// Words are the words the chat refuses (social.WordList).
	Words []string
	// QuickChat are the game's quick-chat lines, by id (nil:
	// social.DefaultQuickChat; at most social.MaxQuickChat).
	QuickChat []string
}

// ErrVotedOut is the reason a player voted out of the room is
// disconnected with.
var ErrVotedOut = errors.New("voted out: the other players voted to remove you from this room")

// ErrBanned is the reason a join of a player once voted out of the room is
// refused with: the same account, or for a player without one the same
// address within AddrBanSeconds.
var ErrBanned = errors.New("refused: you were voted out of this room")

// MaxBans bounds the players a room remembers it voted out; past it the
// oldest is forgotten.
const MaxBans = 1024

// AddrBanSeconds is how long a room refuses the address of a player
// without an account that it voted out: an address may be a whole
// household's or a whole NAT's, so it is held for a while, not for good.
// An account is refused for good.
const AddrBanSeconds = 10 * 60

// rosterEvery is the ticks between two looks at the roster's lines when
// nobody joined or left: a player's getting in a car or dying shows within
// a snapshot's time.
const rosterEvery = wire.SnapshotEvery

// errReplyLater is returned by a command whose reply goes later (a chat
// message waiting for its verdict).
var errReplyLater = errors.New("reply later")

// socialRoom is a room's social side.
type socialRoom struct {
	quick   []string
	chat    *social.Channel
	emoter  *social.Emoter
	votes   *social.Votes
	parties *social.Parties
	roster  social.Roster
	lines   []social.Member       // this tick's roster lines, reused
	frame   textframe.RosterFrame // the roster frame being written, reused
	delta   []byte                // the roster's change to roster.Revision() from the one before
	full    []byte                // the whole roster of revision fullRev
	fullRev uint32
	welcome []byte // the social frame, the same for everyone

	verdicts verdictQueue
	taken    []verdict // the verdicts being handled, reused

	out        []outFrame // frames to send at the end of the tick
	vote       social.Vote
	voteDirty  bool
	kick       uint32 // a session voted out, to disconnect; 0 none
	membership bool   // a session joined or left: look at the roster now

	// bans are the ban keys (banKey) of the players voted out, with the
	// tick each ends at (0: never), oldest first in banOrder; banNow is
	// the room's tick as the bans see it (brought up to date every
	// second). GameServer.mu.
	bans     map[string]uint64
	banOrder []string
	banNow   uint64
}

// socialSession is what the social side keeps of a session.
type socialSession struct {
	ping       float32 // ms, smoothed; 0 until the first ack
	shownPing  uint16  // the ping the roster shows
	sentRoster uint32  // the roster revision last sent
	sentSocial bool    // the social frame was sent
}

// verdict is a moderator's verdict on a message, on its way back to the
// room goroutine.
type verdict struct {
	msg social.Message
	v   social.Verdict
	id  uint32 // the command's id, for its reply
}

// verdictQueue takes the verdicts from any goroutine.
type verdictQueue struct {
	mu sync.Mutex
	q  []verdict
}

func (q *verdictQueue) push(v verdict) {
	q.mu.Lock()
	q.q = append(q.q, v)
	q.mu.Unlock()
}

// take swaps the queue out for spare (emptied) and returns what it held.
func (q *verdictQueue) take(spare []verdict) []verdict {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.q) == 0 {
		return spare[:0]
	}
	out := q.q
	q.q = spare[:0]
	return out
}

// outFrame is a frame to send in socialTick: to one session, or to every
// session when to is 0.
type outFrame struct {
	to   uint32
	data []byte
}

// newSocialRoom makes a room's social side from cfg.
func newSocialRoom(cfg SocialConfig) (*socialRoom, error) {
	quick := cfg.QuickChat
	if quick == nil {
		quick = social.DefaultQuickChat
	}
	if len(quick) > social.MaxQuickChat {
		return nil, errors.New("server: more quick-chat lines than a wheel holds")
	}
	var mod social.Moderator = social.NewWordList(cfg.Words)
	if cfg.Moderator != nil && len(cfg.Words) > 0 {
		mod = social.Chain(mod, cfg.Moderator) // the local list first: it costs no call
	} else if cfg.Moderator != nil {
		mod = cfg.Moderator
	}
	return &socialRoom{
		quick: quick, chat: social.NewChannel(mod), emoter: social.NewEmoter(), votes: social.NewVotes(),
		parties: social.NewParties(), lines: make([]social.Member, 0, MaxPlayers), bans: map[string]uint64{},
		frame: textframe.RosterFrame{Players: make([]textframe.RosterPlayer, 0, MaxPlayers)},
		welcome: textframe.Marshal(textframe.SocialFrame{
			Type: "social", QuickChat: quick, Emotes: social.Emotes, EmoteAct: uint8(components.ActEmote),
			MaxChat: social.MaxChatRunes, ChatBurst: social.ChatBurst, ChatEvery: social.ChatEvery,
			PartySize: social.MaxPartySize, VoteSeconds: social.VoteSeconds, Moderated: cfg.Moderator != nil,
		}),
	}, nil
}

// banKey is what a ban holds a player by: its account, or without one
// its address; "" when neither is known (a player in a test).
func banKey(who Who) string {
	switch {
	case who.Account != "":
		return "account:" + who.Account
	case who.Addr != "":
		return "addr:" + who.Addr
	}
	return ""
}

// Refused returns ErrBanned if who was voted out of the room (Join would
// refuse it), else nil. Safe from any goroutine.
func (g *GameServer) Refused(who Who) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.banned(who) {
		return ErrBanned
	}
	return nil
}

// banned reports whether who was voted out of the room and is still
// refused. g.mu is held.
func (g *GameServer) banned(who Who) bool {
	k := banKey(who)
	if k == "" {
		return false
	}
	until, ok := g.social.bans[k]
	return ok && (until == 0 || until > g.social.banNow)
}

// ban refuses who from the room from now on: its account for good, its
// address for AddrBanSeconds.
func (g *GameServer) ban(who Who) {
	k := banKey(who)
	if k == "" {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.social
	r.banNow = g.w.Tick()
	until := uint64(0)
	if who.Account == "" {
		until = r.banNow + AddrBanSeconds*ecs.TickRate
	}
	if _, ok := r.bans[k]; !ok {
		if len(r.banOrder) >= MaxBans {
			delete(r.bans, r.banOrder[0])
			r.banOrder = slices.Delete(r.banOrder, 0, 1)
		}
		r.banOrder = append(r.banOrder, k)
	}
	r.bans[k] = until
}

// enterSocial numbers s's party and cleans its name as it comes in: the
// party of its join token's key, none for a spectator.
func (g *GameServer) enterSocial(s *Session, defName string) uint8 {
	s.who.Name = social.CleanName(s.who.Name, defName)
	g.social.membership = true
	if s.who.Spectate {
		return 0
	}
	return g.social.parties.Join(s.id, s.who.Party)
}

// leaveSocial takes s out of the social side as it leaves the room.
func (g *GameServer) leaveSocial(s *Session) {
	r := g.social
	r.membership = true
	r.parties.Leave(s.id)
	r.chat.Forget(s.id)
	r.emoter.Forget(s.id)
	r.votes.Forget(s.id)
	if v, changed := r.votes.Leave(s.id); changed {
		g.voteChanged(v)
	}
}

// samplePing takes a round trip from the ack of a snapshot frame of tick
// ack, handled now. At least one tick always passes (a frame goes out at
// the end of its tick; its ack is handled at a later tick's start), so
// that tick is not counted.
func (g *GameServer) samplePing(s *Session, ack uint32) {
	ms := float32(max(uint32(g.w.Tick())-ack, 1)-1) * 1000 / ecs.TickRate
	if s.social.ping == 0 {
		s.social.ping = max(ms, 1)
		return
	}
	s.social.ping += (ms - s.social.ping) / 8
}

// socialCommand runs a social command of s. It returns the reason a
// command was refused (nothing changed), or errReplyLater.
func (g *GameServer) socialCommand(s *Session, c *textframe.Command) error {
	if c.Cmd == "" {
		c.Cmd = c.Type // the reply names the command
	}
	now := g.w.Tick()
	r := g.social
	switch c.Type {
	case "chat":
		id := c.ID
		m := social.Message{Room: g.cfg.Room, Session: s.id, Account: s.who.Account, Name: s.who.Name, Text: c.Text}
		err := r.chat.Submit(m, now, func(m social.Message, v social.Verdict) { r.verdicts.push(verdict{m, v, id}) })
		if err != nil {
			return err
		}
		return errReplyLater
	case "quickchat":
		if c.Line == nil {
			return errors.New(`quickchat needs "line": a quick-chat line's id`)
		}
		line, err := social.QuickLine(r.quick, *c.Line)
		if err != nil {
			return err
		}
		if err := r.chat.Take(s.id, now); err != nil {
			return err
		}
		id := *c.Line
		r.out = append(r.out, outFrame{0, textframe.Marshal(textframe.ChatFrame{
			Type: "chat", Session: s.id, Player: s.player, Name: s.who.Name, Text: line, Quick: &id})})
		return nil
	case "emote":
		return g.emote(s, c, now)
	case "vote":
		return g.voteCommand(s, c, now)
	case "party":
		return g.partyCommand(s, c, now)
	}
	return nil
}

// emote starts an emote of s's character.
func (g *GameServer) emote(s *Session, c *textframe.Command, now uint64) error {
	if c.Emote == nil {
		return errors.New(`emote needs "emote": an emote's id`)
	}
	if s.who.Spectate || !g.w.Arche.Alive(s.char) {
		return errors.New("you have no character")
	}
	act, _, _ := g.persons.Get(s.char)
	return g.social.emoter.Start(s.id, *c.Emote, act, now)
}

// socialTick runs the social side once per tick, after the clients'
// frames: the moderators' verdicts, the vote's time, a player voted out,
// then the frames: the social frame and roster to whom lacks them, the
// chat, the votes and the invitations of the tick. It allocates nothing
// when nothing happened.
func (g *GameServer) socialTick() {
	r := g.social
	now := g.w.Tick()
	r.taken = r.verdicts.take(r.taken)
	for _, v := range r.taken {
		g.relay(v)
	}
	clear(r.taken)
	r.parties.Expire(now)
	if now%ecs.TickRate == 0 && len(r.bans) > 0 { // the bans' clock, once per second
		g.mu.Lock()
		r.banNow = now
		g.mu.Unlock()
	}
	if v, ended := r.votes.Tick(now); ended {
		g.voteChanged(v)
	}
	if r.voteDirty { // before the kick: the frame names the target
		r.voteDirty = false
		r.out = append(r.out, outFrame{0, g.voteFrame(r.vote, now)})
	}
	if r.kick != 0 {
		g.voteOut(r.kick)
		r.kick = 0
	}
	g.updateRoster()
	for _, s := range g.sessions {
		if s.closed || !s.joined {
			continue
		}
		if !s.social.sentSocial {
			s.social.sentSocial = true
			if !g.sendTextBytes(s, r.welcome) {
				continue
			}
		}
		if rev := r.roster.Revision(); s.social.sentRoster != rev {
			// A client that holds the last roster gets the change; one
			// that holds none, the whole roster.
			b := r.delta
			if s.social.sentRoster == 0 || s.social.sentRoster != rev-1 {
				b = g.fullRoster()
			}
			s.social.sentRoster = rev
			if !g.sendTextBytes(s, b) {
				continue
			}
		}
		for _, f := range r.out {
			if (f.to == 0 || f.to == s.id) && !g.sendTextBytes(s, f.data) {
				break
			}
		}
	}
	clear(r.out)
	r.out = r.out[:0]
}

// relay answers a chat message's sender with its verdict and, when it
// passed, relays it to the room. A message whose sender has left goes
// nowhere.
func (g *GameServer) relay(v verdict) {
	g.social.chat.Judged()
	s := g.session(v.msg.Session)
	if s == nil {
		return
	}
	reply := textframe.ReplyFrame{Type: "reply", ID: v.id, Cmd: "chat", OK: v.v.OK, Error: v.v.Reason}
	g.social.out = append(g.social.out, outFrame{s.id, textframe.Marshal(reply)})
	if v.v.OK {
		g.social.out = append(g.social.out, outFrame{0, textframe.Marshal(textframe.ChatFrame{
			Type: "chat", Session: s.id, Player: s.player, Name: s.who.Name, Text: v.v.Text})})
	}
}

// session returns the joined session id still in the room, nil if none.
func (g *GameServer) session(id uint32) *Session {
	for _, s := range g.sessions {
		if s.id == id && s.joined && !s.closed {
			return s
		}
	}
	return nil
}

// updateRoster takes the roster's lines when someone joined or left, and
// every rosterEvery ticks otherwise (the pings every social.PingEvery
// seconds), and writes the frame of their change when they changed. It
// allocates nothing once its buffers have grown to the room's size.
func (g *GameServer) updateRoster() {
	r := g.social
	now := g.w.Tick()
	if !r.membership && now%rosterEvery != 0 {
		return
	}
	r.membership = false
	pings := now%uint64(social.PingEvery*ecs.TickRate) == 0
	r.lines = r.lines[:0]
	for _, s := range g.sessions { // by session
		if s.closed || !s.joined {
			continue
		}
		if pings || s.social.shownPing == 0 {
			s.social.shownPing = social.ShownPing(s.social.shownPing, uint16(min(s.social.ping+0.5, 65535)))
		}
		r.lines = append(r.lines, social.Member{Session: s.id, Player: s.player, Name: s.who.Name, Account: s.who.Account,
			Party: r.parties.Of(s.id), Ping: s.social.shownPing, State: g.where(s)})
	}
	if !r.roster.Update(r.lines) {
		return
	}
	changed, gone := r.roster.Changes()
	r.delta = g.writeRoster(r.delta, changed, gone, false)
}

// fullRoster returns the whole roster's frame, written at most once per
// revision.
func (g *GameServer) fullRoster() []byte {
	r := g.social
	if r.fullRev != r.roster.Revision() {
		r.fullRev = r.roster.Revision()
		r.full = g.writeRoster(r.full, r.roster.Lines(), nil, true)
	}
	return r.full
}

// writeRoster writes a roster frame of lines and gone into b.
func (g *GameServer) writeRoster(b []byte, lines []social.Member, gone []uint32, full bool) []byte {
	f := &g.social.frame
	f.Type, f.Full, f.Players, f.Gone = "roster", full, f.Players[:0], gone
	for _, m := range lines {
		f.Players = append(f.Players, textframe.RosterPlayer{Session: m.Session, Player: m.Player, Name: m.Name,
			Account: m.Account, Party: m.Party, Ping: m.Ping, State: m.State.String()})
	}
	return f.AppendJSON(b[:0])
}

// where is s's roster state.
func (g *GameServer) where(s *Session) social.State {
	if s.who.Spectate {
		return social.Spectator
	}
	if !g.w.Arche.Alive(s.char) {
		return social.Dead
	}
	act, _, _ := g.persons.Get(s.char)
	switch act.Act {
	case components.ActDead:
		return social.Dead
	case components.ActDriving, components.ActPassenger, components.ActEntering, components.ActExiting:
		return social.InCar
	}
	return social.OnFoot
}

package server

import (
	"errors"
	"fmt"
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

// socialFeature is a room's social side.
type socialFeature struct {
	g       *GameServer
	sess    perSession[socialSession]
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
	hello   []byte // the social frame, the same for everyone

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
	// second). Join reads them from any goroutine: banMu guards them.
	banMu    sync.Mutex
	bans     map[string]uint64
	banOrder []string
	banNow   uint64
}

// socialSession is what the social side keeps of a session.
type socialSession struct {
	shownPing  uint16 // the ping the roster shows (the round trip's, rtt.go)
	sentRoster uint32 // the roster revision last sent
	sentSocial bool   // the social frame was sent
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

// newSocialFeature makes a room's social side from cfg.
func newSocialFeature(g *GameServer, cfg SocialConfig) (*socialFeature, error) {
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
	return &socialFeature{
		g: g, sess: newPerSession[socialSession](g.cfg.MaxPlayers), quick: quick, chat: social.NewChannel(mod), emoter: social.NewEmoter(), votes: social.NewVotes(),
		parties: social.NewParties(), lines: make([]social.Member, 0, g.cfg.MaxPlayers), bans: map[string]uint64{},
		frame: textframe.RosterFrame{Players: make([]textframe.RosterPlayer, 0, g.cfg.MaxPlayers)},
		hello: textframe.Marshal(textframe.SocialFrame{
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

// Refused returns the reason Join would refuse who, before it looks at
// the room's size: ErrBanned for a player voted out of the room, or a
// feature's refusal (a run room's account with no seat). nil admits it.
// Safe from any goroutine.
func (g *GameServer) Refused(who Who) error {
	if g.social.banned(who) {
		return ErrBanned
	}
	for _, f := range g.features {
		if a, ok := f.(admitter); ok {
			if err := a.admit(who); err != nil {
				return err
			}
		}
	}
	return nil
}

// banned reports whether who was voted out of the room and is still
// refused. Safe from any goroutine.
func (r *socialFeature) banned(who Who) bool {
	k := banKey(who)
	if k == "" {
		return false
	}
	r.banMu.Lock()
	defer r.banMu.Unlock()
	until, ok := r.bans[k]
	return ok && (until == 0 || until > r.banNow)
}

// ban refuses who from the room from now on: its account for good, its
// address for AddrBanSeconds.
func (r *socialFeature) ban(who Who) {
	k := banKey(who)
	if k == "" {
		return
	}
	r.banMu.Lock()
	defer r.banMu.Unlock()
	r.banNow = r.g.w.Tick()
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

// enter cleans s's name and numbers its party as it comes in: the party
// of its join token's key, none for a spectator.
func (r *socialFeature) enter(s *Session) {
	r.sess.reset(s)
	r.membership = true
	if s.who.Spectate {
		s.who.Name = social.CleanName(s.who.Name, "spectator")
		return
	}
	s.who.Name = social.CleanName(s.who.Name, fmt.Sprintf("player %d", s.player))
	r.g.ids.Get(s.char).Party = r.parties.Join(s.id, s.who.Party)
}

// resume sends s's new client the social frame and the whole roster anew.
func (r *socialFeature) resume(s *Session) {
	ss := r.sess.of(s)
	ss.sentSocial, ss.sentRoster = false, 0
}

func (r *socialFeature) welcome(s *Session, f *textframe.Welcome) { f.Party = r.parties.Of(s.id) }

// notify sends nothing: the social side's frames go in tick.
func (r *socialFeature) notify(*Session) bool { return true }

// leave takes s out of the social side as it leaves the room.
func (r *socialFeature) leave(s *Session) {
	if !s.joined {
		return
	}
	r.membership = true
	r.parties.Leave(s.id)
	r.chat.Forget(s.id)
	r.emoter.Forget(s.id)
	r.votes.Forget(s.id)
	if v, changed := r.votes.Leave(s.id); changed {
		r.voteChanged(v)
	}
}

func (r *socialFeature) commands() []string {
	return []string{"chat", "quickchat", "emote", "vote", "party"}
}

// command runs a social command of s. It returns the reason a command was
// refused (nothing changed), or errReplyLater.
func (r *socialFeature) command(s *Session, c *textframe.Command) error {
	if c.Cmd == "" {
		c.Cmd = c.Type // the reply names the command
	}
	g := r.g
	now := g.w.Tick()
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
		return r.emote(s, c, now)
	case "vote":
		return r.voteCommand(s, c, now)
	case "party":
		return r.partyCommand(s, c, now)
	}
	return nil
}

// emote starts an emote of s's character.
func (r *socialFeature) emote(s *Session, c *textframe.Command, now uint64) error {
	g := r.g
	if c.Emote == nil {
		return errors.New(`emote needs "emote": an emote's id`)
	}
	if s.who.Spectate || !g.w.Arche.Alive(s.char) {
		return errors.New("you have no character")
	}
	act, _, _ := g.persons.Get(s.char)
	return r.emoter.Start(s.id, *c.Emote, act, now)
}

// tick runs the social side once per tick, after the clients'
// frames: the moderators' verdicts, the vote's time, a player voted out,
// then the frames: the social frame and roster to whom lacks them, the
// chat, the votes and the invitations of the tick. It allocates nothing
// when nothing happened.
func (r *socialFeature) tick() {
	g := r.g
	now := g.w.Tick()
	r.taken = r.verdicts.take(r.taken)
	for _, v := range r.taken {
		r.relay(v)
	}
	clear(r.taken)
	r.parties.Expire(now)
	if now%ecs.TickRate == 0 && len(r.bans) > 0 { // the bans' clock, once per second
		r.banMu.Lock()
		r.banNow = now
		r.banMu.Unlock()
	}
	if v, ended := r.votes.Tick(now); ended {
		r.voteChanged(v)
	}
	if r.voteDirty { // before the kick: the frame names the target
		r.voteDirty = false
		r.out = append(r.out, outFrame{0, r.voteFrame(r.vote, now)})
	}
	if r.kick != 0 {
		r.voteOut(r.kick)
		r.kick = 0
	}
	r.updateRoster()
	for _, s := range g.sessions {
		if s.closed || !s.joined {
			continue
		}
		ss := r.sess.of(s)
		if !ss.sentSocial {
			ss.sentSocial = true
			if !g.sendTextBytes(s, r.hello) {
				continue
			}
		}
		if rev := r.roster.Revision(); ss.sentRoster != rev {
			// A client that holds the last roster gets the change; one
			// that holds none, the whole roster.
			b := r.delta
			if ss.sentRoster == 0 || ss.sentRoster != rev-1 {
				b = r.fullRoster()
			}
			ss.sentRoster = rev
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
func (r *socialFeature) relay(v verdict) {
	r.chat.Judged()
	s := r.session(v.msg.Session)
	if s == nil {
		return
	}
	reply := textframe.ReplyFrame{Type: "reply", ID: v.id, Cmd: "chat", OK: v.v.OK, Error: v.v.Reason}
	r.out = append(r.out, outFrame{s.id, textframe.Marshal(reply)})
	if v.v.OK {
		r.out = append(r.out, outFrame{0, textframe.Marshal(textframe.ChatFrame{
			Type: "chat", Session: s.id, Player: s.player, Name: s.who.Name, Text: v.v.Text})})
	}
}

// session returns the joined session id still in the room, nil if none.
func (r *socialFeature) session(id uint32) *Session {
	for _, s := range r.g.sessions {
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
func (r *socialFeature) updateRoster() {
	g := r.g
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
		ss := r.sess.of(s)
		if pings || ss.shownPing == 0 {
			ss.shownPing = social.ShownPing(ss.shownPing, uint16(min(s.rtt.ping+0.5, 65535)))
		}
		r.lines = append(r.lines, social.Member{Session: s.id, Player: s.player, Name: s.who.Name, Account: s.who.Account,
			Party: r.parties.Of(s.id), Ping: ss.shownPing, State: r.where(s)})
	}
	if !r.roster.Update(r.lines) {
		return
	}
	changed, gone := r.roster.Changes()
	r.delta = r.writeRoster(r.delta, changed, gone, false)
}

// fullRoster returns the whole roster's frame, written at most once per
// revision.
func (r *socialFeature) fullRoster() []byte {
	if r.fullRev != r.roster.Revision() {
		r.fullRev = r.roster.Revision()
		r.full = r.writeRoster(r.full, r.roster.Lines(), nil, true)
	}
	return r.full
}

// writeRoster writes a roster frame of lines and gone into b.
func (r *socialFeature) writeRoster(b []byte, lines []social.Member, gone []uint32, full bool) []byte {
	f := &r.frame
	f.Type, f.Full, f.Players, f.Gone = "roster", full, f.Players[:0], gone
	for _, m := range lines {
		f.Players = append(f.Players, textframe.RosterPlayer{Session: m.Session, Player: m.Player, Name: m.Name,
			Account: m.Account, Party: m.Party, Ping: m.Ping, State: m.State.String()})
	}
	return f.AppendJSON(b[:0])
}

// where is s's roster state.
func (r *socialFeature) where(s *Session) social.State {
	g := r.g
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

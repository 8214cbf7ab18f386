package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/netsync/wire"
	"github.com/fiveonit/engine/server/servertest"
	"github.com/fiveonit/engine/social"
	"github.com/fiveonit/engine/textframe"
)

// as decodes a text frame a probe read into T.
func as[T any](t testing.TB, m map[string]any) T {
	t.Helper()
	var v T
	b, _ := json.Marshal(m)
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// all returns the text frames of type typ p read since the last clear.
func (p *probe) all(typ string) []map[string]any {
	var out []map[string]any
	for _, m := range p.texts {
		if m["type"] == typ {
			out = append(out, m)
		}
	}
	return out
}

// room is a test-flat room with players joined and welcomed.
type room struct {
	t    *testing.T
	g    *GameServer
	ps   []*probe
	held map[*probe][]textframe.RosterPlayer // the roster each holds, from its roster frames
}

func newRoom(t *testing.T, cfg Config, who ...Who) *room {
	t.Helper()
	l, err := levels.Load("test-flat")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Room, cfg.Level, cfg.Seed = "social", l, 1
	if cfg.Rules.Name == "" {
		cfg.Rules = ecs.Rules{Name: "test", PlayersHurt: "on", Traffic: -1, Pedestrians: -1}
	}
	g, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close("test over") })
	r := &room{t: t, g: g, held: map[*probe][]textframe.RosterPlayer{}}
	for _, w := range who {
		r.ps = append(r.ps, join(t, g, w))
	}
	r.tick(1)
	return r
}

// tick runs n ticks, every player sending an input (with its ack) before
// each, and reads what they got; the texts of earlier ticks are cleared.
func (r *room) tick(n int) {
	for _, p := range r.ps {
		p.texts = p.texts[:0]
	}
	for i := 0; i < n; i++ {
		for _, p := range r.ps {
			if !p.s.closed {
				p.send(components.Drive{})
			}
		}
		r.g.Tick()
		for _, p := range r.ps {
			n := len(p.texts)
			p.read()
			for _, m := range p.texts[n:] {
				if m["type"] == "roster" {
					r.apply(p, as[textframe.RosterFrame](r.t, m))
				}
			}
		}
	}
}

// apply applies a roster frame to the roster p holds, as a client does.
func (r *room) apply(p *probe, f textframe.RosterFrame) {
	held := r.held[p]
	if f.Full {
		held = nil
	} else if held == nil {
		r.t.Fatalf("session %d: a change to a roster it does not hold", p.s.id)
	}
	held = slices.DeleteFunc(held, func(l textframe.RosterPlayer) bool {
		return slices.Contains(f.Gone, l.Session) || slices.ContainsFunc(f.Players, func(n textframe.RosterPlayer) bool { return n.Session == l.Session })
	})
	held = append(held, f.Players...)
	slices.SortFunc(held, func(a, b textframe.RosterPlayer) int { return int(a.Session) - int(b.Session) })
	r.held[p] = held
}

// say sends p's command and runs a tick.
func (r *room) say(p *probe, format string, args ...any) {
	r.t.Helper()
	if err := p.s.Receive([]byte(fmt.Sprintf(format, args...)), true); err != nil {
		r.t.Fatal(err)
	}
	r.tick(1)
}

// reply returns p's last reply, and fails without one.
func (r *room) reply(p *probe) textframe.ReplyFrame {
	r.t.Helper()
	m := p.lastText("reply")
	if m == nil {
		r.t.Fatalf("session %d got no reply (texts %v)", p.s.id, p.texts)
	}
	return as[textframe.ReplyFrame](r.t, m)
}

func (r *room) wantOK(p *probe) {
	r.t.Helper()
	if rep := r.reply(p); !rep.OK {
		r.t.Fatalf("session %d: %s refused: %s", p.s.id, rep.Cmd, rep.Error)
	}
}

func (r *room) wantRefused(p *probe, reason string) {
	r.t.Helper()
	if rep := r.reply(p); rep.OK || !strings.Contains(rep.Error, reason) {
		r.t.Fatalf("session %d: reply %+v, want refused with %q", p.s.id, rep, reason)
	}
}

// roster returns the roster p holds.
func (r *room) roster(p *probe) []textframe.RosterPlayer {
	r.t.Helper()
	if r.held[p] == nil {
		r.t.Fatalf("session %d got no roster", p.s.id)
	}
	return slices.Clone(r.held[p])
}

func TestRoster(t *testing.T) {
	r := newRoom(t, Config{}, Who{Account: "acc-a", Name: "Ada"}, Who{Name: "Bea\u202e\n"})
	a, b := r.ps[0], r.ps[1]
	if a.all("social") == nil {
		t.Fatal("no social frame after the welcome")
	}
	sf := as[textframe.SocialFrame](t, a.all("social")[0])
	if len(sf.QuickChat) != len(social.DefaultQuickChat) || len(sf.Emotes) != len(social.Emotes) || sf.EmoteAct != wire.ActEmote {
		t.Fatalf("social frame %+v", sf)
	}
	want := []textframe.RosterPlayer{
		{Session: a.s.id, Player: 1, Name: "Ada", Account: "acc-a", State: "car"},
		{Session: b.s.id, Player: 2, Name: "Bea", State: "car"},
	}
	for _, p := range r.ps {
		got := r.roster(p)
		for i := range got {
			got[i].Ping = 0
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("session %d roster %+v, want %+v", p.s.id, got, want)
		}
	}
	// Nothing changes: no roster is sent again.
	r.tick(30)
	if n := len(a.all("roster")); n != 0 {
		t.Fatalf("%d rosters sent with nothing changed", n)
	}
	// Bea gets out of her car: the roster says so within a snapshot's
	// time, in a change of her line alone.
	b.send(components.Drive{Pressed: components.BtnUse})
	r.tick(90)
	if got := r.roster(a); got[1].State != "foot" {
		t.Fatalf("Bea out of her car: state %q", got[1].State)
	}
	for _, m := range a.all("roster") {
		if f := as[textframe.RosterFrame](t, m); f.Full || len(f.Players) != 1 || f.Players[0].Session != b.s.id {
			t.Fatalf("a change sent as %+v, want Bea's line alone", f)
		}
	}
	// A spectator is listed as one; Ada leaves and goes from the list.
	sp := join(t, r.g, Who{Spectate: true})
	r.ps = append(r.ps, sp)
	a.s.Leave()
	r.tick(2)
	for _, p := range []*probe{b, sp} {
		got := r.roster(p)
		if len(got) != 2 || got[0].Session != b.s.id || got[1].State != "spectator" || got[1].Name != "spectator" {
			t.Fatalf("session %d holds %+v after a spectator came and Ada left", p.s.id, got)
		}
	}
	if f := as[textframe.RosterFrame](t, sp.all("roster")[0]); !f.Full {
		t.Fatal("a newcomer's first roster is not whole")
	}
}

// TestRosterPing: the roster shows each player's round trip as the server
// measures it from the acks, brought up to date every social.PingEvery s.
func TestRosterPing(t *testing.T) {
	r := newRoom(t, Config{}, Who{}, Who{})
	a := r.ps[0]
	// The probe acks a frame at the tick after it came: 1 tick, which is
	// not counted. Ack two ticks late instead: 16.7 ms.
	for i := 0; i < social.PingEvery*ecs.TickRate+10; i++ {
		f := wire.InputFrame{Ack: max(a.dec.Tick(), 1) - 1, FirstSeq: a.seq, Count: 1}
		a.seq++
		a.s.Receive(wire.AppendInputFrame(nil, &f), false)
		r.g.Tick()
		a.read()
	}
	if a.s.rtt.ping < 10 || a.s.rtt.ping > 60 {
		t.Fatalf("measured ping %.1f ms, want about 17 to 50", a.s.rtt.ping)
	}
	for _, m := range a.all("roster") {
		r.apply(a, as[textframe.RosterFrame](t, m))
	}
	got := r.roster(a)
	if got[0].Ping == 0 || got[0].Ping != uint16(r.g.social.sess.of(a.s).shownPing) {
		t.Fatalf("roster ping %d, measured %.1f", got[0].Ping, a.s.rtt.ping)
	}
}

func TestChat(t *testing.T) {
	r := newRoom(t, Config{Social: SocialConfig{Words: []string{"darn"}}}, Who{Name: "Ada"}, Who{Name: "Bea"})
	a, b := r.ps[0], r.ps[1]
	r.say(a, `{"type":"chat","id":7,"text":"<img src=x onerror=alert(1)> hi\n"}`)
	if rep := r.reply(a); !rep.OK || rep.ID != 7 || rep.Cmd != "chat" {
		t.Fatalf("reply %+v", rep)
	}
	for _, p := range r.ps {
		c := as[textframe.ChatFrame](t, p.lastText("chat"))
		if c.Session != a.s.id || c.Name != "Ada" || c.Text != "<img src=x onerror=alert(1)> hi" || c.Quick != nil {
			t.Fatalf("session %d got %+v", p.s.id, c)
		}
	}
	cases := []struct {
		cmd    string
		reason string
	}{
		{`{"type":"chat","text":"` + strings.Repeat("x", social.MaxChatRunes+1) + `"}`, "too long"},
		{`{"type":"chat","text":" \n "}`, "empty"},
		{`{"type":"chat","text":"oh darn"}`, "does not allow"},
		{`{"type":"quickchat","line":99}`, "no quick-chat line 99"},
		{`{"type":"quickchat"}`, "needs \"line\""},
	}
	for _, c := range cases {
		r.say(b, "%s", c.cmd)
		r.wantRefused(b, c.reason)
		if a.lastText("chat") != nil {
			t.Fatalf("%s: relayed", c.cmd)
		}
	}
	// Bea has sent one message the moderator refused (counted): 3 more,
	// then she must wait.
	r.say(b, `{"type":"quickchat","line":1}`)
	c := as[textframe.ChatFrame](t, a.lastText("chat"))
	if c.Text != social.DefaultQuickChat[1] || c.Quick == nil || *c.Quick != 1 || c.Session != b.s.id {
		t.Fatalf("quick-chat relayed as %+v", c)
	}
	r.say(b, `{"type":"chat","text":"two"}`)
	r.say(b, `{"type":"chat","text":"three"}`)
	r.say(b, `{"type":"chat","text":"flood"}`)
	r.wantRefused(b, "slow down")
	if a.lastText("chat") != nil {
		t.Fatal("a message past the rate was relayed")
	}
	r.tick(social.ChatEvery * ecs.TickRate)
	r.say(b, `{"type":"chat","text":"later"}`)
	r.wantOK(b)
}

// slowModerator answers from its own goroutine after a delay, as a
// service does; it refuses "no".
type slowModerator struct {
	delay time.Duration
	wg    sync.WaitGroup
}

func (m *slowModerator) Moderate(msg social.Message, done func(social.Verdict)) {
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		time.Sleep(m.delay)
		if msg.Text == "no" {
			done(social.Refuse("the service says no"))
			return
		}
		done(social.Verdict{OK: true, Text: strings.ToUpper(msg.Text)})
	}()
}

// TestChatModeratorNeverBlocks: a moderator that takes its time holds no
// tick; its verdicts reach the room at a later tick.
func TestChatModeratorNeverBlocks(t *testing.T) {
	mod := &slowModerator{delay: 200 * time.Millisecond}
	r := newRoom(t, Config{Social: SocialConfig{Moderator: mod}}, Who{Name: "Ada"}, Who{Name: "Bea"})
	a, b := r.ps[0], r.ps[1]
	if !as[textframe.SocialFrame](t, a.all("social")[0]).Moderated {
		t.Fatal("the social frame does not say the chat is moderated")
	}
	a.s.Receive([]byte(`{"type":"chat","id":1,"text":"hello"}`), true)
	b.s.Receive([]byte(`{"type":"chat","id":2,"text":"no"}`), true)
	start := time.Now()
	r.tick(1)
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Fatalf("a tick took %s: it waited for the moderator", d)
	}
	if a.lastText("chat") != nil || a.lastText("reply") != nil {
		t.Fatal("relayed before the verdict")
	}
	mod.wg.Wait()
	r.tick(1)
	if c := as[textframe.ChatFrame](t, b.lastText("chat")); c.Text != "HELLO" || c.Session != a.s.id {
		t.Fatalf("relayed %+v, want the moderator's edit", c)
	}
	if rep := r.reply(a); !rep.OK || rep.ID != 1 {
		t.Fatalf("Ada's reply %+v", rep)
	}
	if rep := r.reply(b); rep.OK || rep.ID != 2 || rep.Error != "the service says no" {
		t.Fatalf("Bea's reply %+v", rep)
	}
	if n := len(a.all("chat")); n != 1 {
		t.Fatalf("%d chat frames, want Ada's alone", n)
	}
	// A verdict for a sender gone by then goes nowhere.
	a.s.Receive([]byte(`{"type":"chat","text":"bye"}`), true)
	r.tick(1)
	a.s.Leave()
	mod.wg.Wait()
	r.tick(1)
	if b.lastText("chat") != nil {
		t.Fatal("the message of a player who left was relayed")
	}
}

func TestEmote(t *testing.T) {
	r := newRoom(t, Config{}, Who{Name: "Ada"}, Who{Name: "Bea"})
	a, b := r.ps[0], r.ps[1]
	r.say(a, `{"type":"emote","emote":0}`)
	r.wantRefused(a, "on foot")
	a.send(components.Drive{Pressed: components.BtnUse})
	r.tick(90) // out of the car
	r.say(a, `{"type":"emote","emote":2}`)
	r.wantOK(a)
	r.tick(6) // a snapshot or two
	var e wire.Entity
	h := b.dec.Store().Get(a.welcome.Character)
	h.Rec.Decode(&e, h.PoseFull)
	if e.Act != wire.ActEmote+2 {
		t.Fatalf("Bea sees Ada's action %d, want emote 2 (%d)", e.Act, wire.ActEmote+2)
	}
	r.say(a, `{"type":"emote","emote":1}`)
	r.wantRefused(a, "cooling down")
	r.say(a, `{"type":"emote","emote":9}`)
	r.wantRefused(a, "no emote 9")
	// It plays out its time, then Ada stands on foot.
	r.tick(int(social.EmoteTicks))
	if act, _, _ := r.g.persons.Get(a.s.char); act.Act != components.ActOnFoot {
		t.Fatalf("action %d after the emote's time", act.Act)
	}
	// A move ends the next one at once.
	r.tick(social.EmoteCooldown * ecs.TickRate)
	r.say(a, `{"type":"emote","emote":0}`)
	r.wantOK(a)
	for i := 0; i < 3; i++ { // the inputs queued before it go first
		a.send(components.Drive{MoveY: 1})
		r.g.Tick()
	}
	if act, _, _ := r.g.persons.Get(a.s.char); act.Act != components.ActOnFoot {
		t.Fatalf("action %d after a move", act.Act)
	}
	sp := join(t, r.g, Who{Spectate: true})
	r.ps = append(r.ps, sp)
	r.tick(1)
	r.say(sp, `{"type":"emote","emote":0}`)
	r.wantRefused(sp, "no character")
}

func TestVoteKick(t *testing.T) {
	r := newRoom(t, Config{}, Who{Account: "a1", Name: "Ada"}, Who{Account: "a2", Name: "Bea"},
		Who{Account: "a3", Name: "Cy"}, Who{Account: "a4", Name: "Dan"})
	a, b, c, d := r.ps[0], r.ps[1], r.ps[2], r.ps[3]
	r.say(a, `{"type":"vote","cmd":"kick","session":%d}`, a.s.id)
	r.wantRefused(a, "yourself")
	r.say(a, `{"type":"vote","cmd":"kick","session":99}`)
	r.wantRefused(a, "no such player")
	r.say(a, `{"type":"vote","cmd":"yes"}`)
	r.wantRefused(a, "no vote is running")
	r.say(a, `{"type":"vote","cmd":"kick"}`)
	r.wantRefused(a, "needs \"session\"")

	r.say(a, `{"type":"vote","cmd":"kick","session":%d}`, d.s.id)
	r.wantOK(a)
	for _, p := range r.ps {
		v := as[textframe.VoteFrame](t, p.lastText("vote"))
		if v.State != "open" || v.Target != d.s.id || v.TargetName != "Dan" || v.Yes != 1 || v.Need != 2 || len(v.Voters) != 3 || v.Seconds <= 0 {
			t.Fatalf("session %d: vote %+v", p.s.id, v)
		}
	}
	r.say(b, `{"type":"vote","cmd":"kick","session":%d}`, c.s.id)
	r.wantRefused(b, "already running")
	r.say(d, `{"type":"vote","cmd":"no"}`)
	r.wantRefused(d, "no vote in this one")
	r.say(b, `{"type":"vote","cmd":"yes"}`)
	r.wantOK(b)
	if v := as[textframe.VoteFrame](t, c.lastText("vote")); v.State != "passed" || v.TargetName != "Dan" {
		t.Fatalf("vote %+v, want passed", v)
	}
	if closed, why := d.c.Closed(); !closed || why != ErrVotedOut.Error() {
		t.Fatalf("Dan: closed %v %q", closed, why)
	}
	if got := r.roster(a); len(got) != 3 {
		t.Fatalf("roster after the kick: %+v", got)
	}
	// Dan's account is refused from now on, under any name; Dan's name
	// under another account is not.
	if _, err := r.g.Join(servertest.NewMemConn(false, 0), Who{Account: "a4", Name: "Someone"}); !errors.Is(err, ErrBanned) {
		t.Fatalf("Dan's account again: %v, want ErrBanned", err)
	}
	if _, err := r.g.Join(servertest.NewMemConn(false, 0), Who{Account: "a5", Name: "Dan"}); err != nil {
		t.Fatalf("another account named Dan: %v", err)
	}
}

// TestVoteKickWithoutAccount: a player without an account is held by the
// address it joined from, for AddrBanSeconds; the others of that address
// stay in the room.
func TestVoteKickWithoutAccount(t *testing.T) {
	r := newRoom(t, Config{}, Who{Addr: "10.0.0.1"}, Who{Addr: "10.0.0.2"}, Who{Addr: "10.0.0.9"}, Who{Addr: "10.0.0.9"})
	a, b, c, d := r.ps[0], r.ps[1], r.ps[2], r.ps[3]
	r.say(a, `{"type":"vote","cmd":"kick","session":%d}`, c.s.id)
	r.say(b, `{"type":"vote","cmd":"yes"}`)
	if closed, _ := c.c.Closed(); !closed {
		t.Fatal("not voted out")
	}
	if closed, why := d.c.Closed(); closed {
		t.Fatalf("another player of the same address went too: %s", why)
	}
	if _, err := r.g.Join(servertest.NewMemConn(false, 0), Who{Addr: "10.0.0.9"}); !errors.Is(err, ErrBanned) {
		t.Fatalf("from the same address: %v, want ErrBanned", err)
	}
	if _, err := r.g.Join(servertest.NewMemConn(false, 0), Who{Addr: "10.0.0.9", Account: "acc"}); err != nil {
		t.Fatalf("an account from the same address: %v", err)
	}
	if testing.Short() {
		return // ten minutes of ticks: a minute under the race detector
	}
	for i := 0; i < AddrBanSeconds*ecs.TickRate+ecs.TickRate; i++ {
		r.g.Tick()
	}
	if _, err := r.g.Join(servertest.NewMemConn(false, 0), Who{Addr: "10.0.0.9"}); err != nil {
		t.Fatalf("from the same address %d s later: %v", AddrBanSeconds, err)
	}
}

// TestVoteTargetLeaves: the vote ends when its target leaves, and the
// room is told.
func TestVoteTargetLeaves(t *testing.T) {
	r := newRoom(t, Config{}, Who{}, Who{}, Who{})
	a, c := r.ps[0], r.ps[2]
	r.say(a, `{"type":"vote","cmd":"kick","session":%d}`, c.s.id)
	c.s.Leave()
	r.tick(2)
	if v := as[textframe.VoteFrame](t, a.lastText("vote")); v.State != "target-left" {
		t.Fatalf("vote %+v", v)
	}
	if _, running := r.g.social.votes.Running(); running {
		t.Fatal("still running")
	}
}

func TestParties(t *testing.T) {
	r := newRoom(t, Config{}, Who{Name: "Ada", Party: "crew"}, Who{Name: "Bea", Party: "crew"}, Who{Name: "Cy"},
		Who{Name: "Dan", Party: "other"}, Who{Name: "Eve"}, Who{Name: "Fay"})
	a, b, c, d, e, f := r.ps[0], r.ps[1], r.ps[2], r.ps[3], r.ps[4], r.ps[5]
	party := func(p *probe) uint16 { return r.g.ids.Get(p.s.char).Party }
	if party(a) != 1 || party(b) != 1 || party(c) != 0 || party(d) != 2 || a.welcome.Party != 1 || d.welcome.Party != 2 {
		t.Fatalf("parties by key: %d %d %d %d, welcomes %d %d", party(a), party(b), party(c), party(d), a.welcome.Party, d.welcome.Party)
	}
	r.say(a, `{"type":"party","cmd":"invite","session":%d}`, c.s.id)
	r.wantOK(a)
	inv := as[textframe.PartyFrame](t, c.lastText("party"))
	if inv.Cmd != "invite" || inv.From != a.s.id || inv.Name != "Ada" || inv.Party != 1 {
		t.Fatalf("invitation %+v", inv)
	}
	r.say(c, `{"type":"party","cmd":"accept","session":%d}`, a.s.id)
	r.wantOK(c)
	if party(c) != 1 {
		t.Fatalf("Cy in party %d after accepting", party(c))
	}
	if got := r.roster(e); got[2].Party != 1 {
		t.Fatalf("the roster shows Cy in party %d", got[2].Party)
	}
	// Dan leaves his party for Ada's: four, the most.
	r.say(a, `{"type":"party","cmd":"invite","session":%d}`, d.s.id)
	r.say(a, `{"type":"party","cmd":"invite","session":%d}`, e.s.id)
	r.say(d, `{"type":"party","cmd":"accept","session":%d}`, a.s.id)
	r.wantOK(d)
	r.say(e, `{"type":"party","cmd":"accept","session":%d}`, a.s.id)
	r.wantRefused(e, "full")
	r.say(b, `{"type":"party","cmd":"invite","session":%d}`, e.s.id)
	r.wantRefused(b, "full")
	if party(d) != 1 || party(e) != 0 {
		t.Fatalf("Dan %d, Eve %d", party(d), party(e))
	}
	// Eve and Fay make a party of their own; Fay declines first.
	r.say(e, `{"type":"party","cmd":"invite","session":%d}`, f.s.id)
	r.say(f, `{"type":"party","cmd":"decline","session":%d}`, e.s.id)
	r.wantOK(f)
	if m := as[textframe.PartyFrame](t, e.lastText("party")); m.Cmd != "declined" || m.From != f.s.id {
		t.Fatalf("Eve told %+v", m)
	}
	r.say(f, `{"type":"party","cmd":"accept","session":%d}`, e.s.id)
	r.wantRefused(f, "no such invitation")
	r.say(e, `{"type":"party","cmd":"invite","session":%d}`, f.s.id)
	r.say(f, `{"type":"party","cmd":"accept","session":%d}`, e.s.id)
	if party(e) == 0 || party(e) == 1 || party(e) != party(f) {
		t.Fatalf("Eve %d, Fay %d: want a new party of two", party(e), party(f))
	}
	r.say(f, `{"type":"party","cmd":"leave"}`)
	r.wantOK(f)
	r.say(f, `{"type":"party","cmd":"leave"}`)
	r.wantRefused(f, "no party")
	for _, bad := range []struct{ cmd, reason string }{
		{`{"type":"party","cmd":"invite","session":%d}`, "yourself"},
		{`{"type":"party","cmd":"invite","session":999}`, "no such player"},
		{`{"type":"party","cmd":"invite"}`, "needs \"session\""},
		{`{"type":"party","cmd":"dance"}`, "unknown party command"},
	} {
		cmd := bad.cmd
		if strings.Contains(cmd, "%d") {
			cmd = fmt.Sprintf(cmd, f.s.id)
		}
		r.say(f, "%s", cmd)
		r.wantRefused(f, bad.reason)
	}
	if party(f) != 0 {
		t.Fatalf("Fay in party %d after leaving", party(f))
	}
}

// TestDebugAccounts: an account of Config.DebugAccounts has its debug
// commands honoured and gets the readout, as a token with debug does;
// another does not.
func TestDebugAccounts(t *testing.T) {
	l, _ := levels.Load("main-city")
	g, err := New(Config{Room: "t", Level: l, Seed: 1, Rules: ecs.FreeRoam(), DebugAccounts: []string{"ops-1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close("test over")
	ops, other := join(t, g, Who{Account: "ops-1"}), join(t, g, Who{Account: "a2"})
	for i := 0; i < ReadoutEvery+1; i++ {
		g.Tick()
	}
	ops.read()
	other.read()
	if !ops.welcome.Debug || other.welcome.Debug {
		t.Fatalf("welcomes' debug: ops %v, other %v", ops.welcome.Debug, other.welcome.Debug)
	}
	if ops.lastText("readout") == nil || other.lastText("readout") != nil {
		t.Fatal("the readout goes to the debug account alone")
	}
	ops.command(`{"type":"debug","cmd":"clock","minutes":60}`)
	other.command(`{"type":"debug","cmd":"clock","minutes":60}`)
	g.Tick()
	ops.read()
	other.read()
	if as[textframe.ReplyFrame](t, ops.lastText("reply")).OK == false || as[textframe.ReplyFrame](t, other.lastText("reply")).OK {
		t.Fatal("debug commands: want the debug account's honoured, the other's refused")
	}
}

// TestSocialCommandsMalformed: a social command with an argument of the
// wrong type is a malformed frame, like any command.
func TestSocialCommandsMalformed(t *testing.T) {
	r := newRoom(t, Config{}, Who{}, Who{})
	r.say(r.ps[0], `{"type":"chat","text":5}`)
	if closed, why := r.ps[0].c.Closed(); !closed || !strings.Contains(why, "malformed") {
		t.Fatalf("closed %v %q", closed, why)
	}
	r.say(r.ps[1], `{"type":"vote","cmd":"kick","session":-1}`)
	if closed, _ := r.ps[1].c.Closed(); !closed {
		t.Fatal("a negative session was taken")
	}
}

// TestSocialTickAllocatesNothing: a room with players, a roster, pings and
// a vote running allocates nothing per tick while nothing social happens.
func TestSocialTickAllocatesNothing(t *testing.T) {
	r := newRoom(t, Config{}, Who{Name: "Ada"}, Who{Name: "Bea"}, Who{Name: "Cy"})
	a := r.ps[2]
	r.say(r.ps[0], `{"type":"vote","cmd":"kick","session":%d}`, a.s.id)
	frame := make([]byte, 0, 64)
	tick := func() {
		for _, p := range r.ps {
			f := wire.InputFrame{Ack: p.dec.Tick(), FirstSeq: p.seq, Count: 1}
			p.seq++
			frame = wire.AppendInputFrame(frame[:0], &f)
			p.s.Receive(frame, false)
		}
		r.g.Tick()
		for _, p := range r.ps {
			frames := p.c.Recv()
			for _, f := range frames {
				if !f.Text {
					p.dec.Apply(f.Data)
				}
			}
			p.c.Release(frames)
		}
	}
	for i := 0; i < 120; i++ {
		tick()
	}
	if allocs := testing.AllocsPerRun(social.PingEvery*ecs.TickRate, tick); allocs != 0 {
		t.Fatalf("%.2f allocations per tick", allocs)
	}
}

// Package missionhost is the MissionHost: the system that runs the missions of
// a room's game (package missions is their API) for its players. It keeps
// each player's phone (the contacts' messages, the offers open on it, a
// screen the world opened), runs each player's or party's mission
// instance after the physics step, spawns their vehicles, items and
// chasers, and keeps what each player is to be told: their tracker, their
// notices, their phone. The server sends those as text frames
// (server/missions.go) and hands the players' phone commands to Accept,
// Decline, Abandon, Answer and Close, between ticks.
//
// One instance per party: a mission accepted by a member of a party is
// played by every member present, and a member who leaves the room or the
// party leaves the mission (Mission.Leave). A player outside a party plays
// alone.
//
// It runs in the post-step phase, after the city and items systems. The
// order of play is fixed: the players by wire id as the query gives them
// into fixed slots, the instances in the order they started, so a replay
// plays the same.
package missionhost

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/missions"
	"github.com/fiveonit/engine/prefab"
	"github.com/mlange-42/arche/generic"
)

// Name is the system's name in the schedule.
const Name = "missions"

// Bounds of what one player's phone keeps.
const (
	// MaxMessages is the messages a phone keeps: a new one pushes the
	// oldest out, and an offer pushed out is no longer open.
	MaxMessages = 8
	// MaxNotices is the notices waiting to be sent to one player; past
	// it the oldest is dropped.
	MaxNotices = 8
)

// Delays before a contact offers a mission again, in ticks: after the
// player declined it, and after it ended.
const (
	ReofferDeclined = 30 * ecs.TickRate
	ReofferEnded    = 5 * ecs.TickRate
)

// The reasons a phone command is refused. The errors returned wrap them
// with the particulars; each reads right on its own.
var (
	ErrNoPhone   = errors.New("you have no phone on: no character in this room yet")
	ErrStale     = errors.New("that offer is not open on your phone: it was taken, declined or withdrawn")
	ErrBusy      = errors.New("you are on a mission already: abandon it first")
	ErrNoMission = errors.New("you are on no mission")
	ErrNoScreen  = errors.New("no screen is open on your phone")
	ErrChoice    = errors.New("no such option on the screen")
	ErrParty     = errors.New("this job takes a party")
	ErrBroke     = errors.New("the mission broke down")
)

// NoticeKind says what a notice tells.
type NoticeKind uint8

// The notice kinds.
const (
	NoticeInfo NoticeKind = iota
	NoticeSuccess
	NoticeFailure
)

var noticeKinds = [...]string{"info", "success", "failure"}

// String returns the kind's name as the notice frame spells it.
func (k NoticeKind) String() string {
	if int(k) < len(noticeKinds) {
		return noticeKinds[k]
	}
	return "info"
}

// Notice is a short notice for a player.
type Notice struct {
	Text string
	Kind NoticeKind
}

// Message is a phone message: from a contact, and maybe an offer.
type Message struct {
	// ID numbers the message in the room.
	ID   uint32
	From string
	Text string
	// Offer is the offer's number, 0 for a message that offers nothing;
	// Open whether it may still be accepted.
	Offer uint32
	Open  bool
	// Mission, Title and Reward are the mission offered.
	Mission, Title string
	Reward         int64
}

// Phone is what one player's phone, tracker and notices hold: what the
// server tells the player. Read it on the room's goroutine, between ticks.
type Phone struct {
	// Session and Char are the player's.
	Session uint32
	Char    ecs.Entity
	// Rev counts the changes of the messages and the screen; TrackerRev
	// those of the tracker. Both start above 0 for a new player.
	Rev, TrackerRev uint32
	// Mission and Title name the mission the player is on, "" for none;
	// Tracker is what they see of it.
	Mission, Title string
	Tracker        missions.Tracker
	// Screen is the screen open, when ScreenID is not 0.
	Screen   missions.Screen
	ScreenID uint32
	// Open is set when the player used their phone: the page shows it.
	Open bool

	messages [MaxMessages]Message
	nmsg     int
	notices  [MaxNotices]Notice
	nnotice  int

	player  missions.Player
	wid     uint16
	used    bool
	seen    bool
	inst    *instance
	screen  *instance // the instance whose screen is open
	offers  [missions.MaxDefs]uint32
	reoffer [missions.MaxDefs]uint64 // the tick a def is offered again, 0 none
}

// Messages returns the phone's messages, oldest first. The slice is the
// phone's own.
func (p *Phone) Messages() []Message { return p.messages[:p.nmsg] }

// TakeNotices returns the notices waiting and empties the list: the
// caller sends them. The slice is the phone's own, valid until the next
// tick.
func (p *Phone) TakeNotices() []Notice {
	n := p.notices[:p.nnotice]
	p.nnotice = 0
	return n
}

// System is the MissionHost. Make it with New.
type System struct {
	// Log is where a mission that panicked is logged; nil is slog's
	// default logger.
	Log *slog.Logger
	// HoldSignal and ReleaseSignal switch a traffic signal by hand (the
	// signals system's); nil refuses it.
	HoldSignal    func(id string, phase int) error
	ReleaseSignal func(id string) error
	// Stash puts a mission's item into the level's container named
	// container, locked when lock is set; Unstash takes up to n of item
	// out of it (the items system's). Nil refuses a stash.
	Stash   func(w *ecs.World, container string, item components.ItemID, n int, lock bool) error
	Unstash func(w *ecs.World, container string, item components.ItemID, n int) int

	defs  []missions.Def
	level *levels.Level
	build *prefab.Builder
	w     *ecs.World

	players *generic.Filter4[components.Player, components.Identity, components.Pose, components.SeatedIn]
	poses   generic.Map2[components.Pose, components.Velocity]
	person  generic.Map2[components.PersonAction, components.Health]
	health  generic.Map1[components.Health]
	seats   generic.Map1[components.Seats]
	inv     generic.Map1[components.Inventory]
	cash    generic.Map1[components.Cash]

	phones []Phone // by slot, one per player the world holds
	slotOf []int16 // by a character's wire id: its phone, -1 none
	insts  []*instance
	run    *runInstance // a run room's run, once it went live (run.go)
	nextID uint32
	guards []int32 // the level's guard spawns
	watch  watch   // what the guards and cameras saw, for the missions
}

// New returns the MissionHost of w on level l, running the missions defs
// (a game's, at most missions.MaxDefs).
func New(w *ecs.World, l *levels.Level, defs []missions.Def) *System {
	s := &System{
		defs:    defs[:min(len(defs), missions.MaxDefs)],
		level:   l,
		build:   prefab.New(w),
		w:       w,
		players: generic.NewFilter4[components.Player, components.Identity, components.Pose, components.SeatedIn](),
		poses:   generic.NewMap2[components.Pose, components.Velocity](w.Arche),
		person:  generic.NewMap2[components.PersonAction, components.Health](w.Arche),
		health:  generic.NewMap1[components.Health](w.Arche),
		seats:   generic.NewMap1[components.Seats](w.Arche),
		inv:     generic.NewMap1[components.Inventory](w.Arche),
		cash:    generic.NewMap1[components.Cash](w.Arche),
		slotOf:  make([]int16, ecs.MaxWireIDs+1),
		insts:   make([]*instance, 0, w.Players()),
		phones:  make([]Phone, w.Players()),
	}
	s.players.Register(w.Arche)
	s.watch.w = w
	for i := range s.slotOf {
		s.slotOf[i] = -1
	}
	if l != nil {
		s.guards = l.SpawnsOf(levels.RoleGuard)
	}
	return s
}

// Defs returns the missions the host offers.
func (s *System) Defs() []missions.Def { return s.defs }

// Running returns the number of mission instances running.
func (s *System) Running() int { return len(s.insts) }

// PhoneOf returns the phone of character e (of wire id wid), nil before
// the host has seen it.
func (s *System) PhoneOf(e ecs.Entity, wid uint16) *Phone {
	if int(wid) >= len(s.slotOf) {
		return nil
	}
	i := s.slotOf[wid]
	if i < 0 || s.phones[i].Char != e || !s.phones[i].used {
		return nil
	}
	return &s.phones[i]
}

// Update sees the players come and go, offers the missions, and steps
// every running instance.
func (s *System) Update(w *ecs.World) {
	s.w = w
	for i := range s.phones {
		s.phones[i].seen = false
	}
	q := s.players.Query(w.Arche)
	for q.Next() {
		pl, id, pose, seated := q.Get()
		s.see(w, q.Entity(), pl, id, pose, seated)
	}
	tick := w.Tick()
	for i := range s.phones {
		ph := &s.phones[i]
		if !ph.used {
			continue
		}
		if !ph.seen {
			s.gone(i)
			continue
		}
		if in := ph.inst; in != nil && in.run == nil && in.party != 0 && ph.player.Party != in.party {
			in.leave(i)
			ph.notice("You left the party: you are off the job.", NoticeFailure)
		}
		if ph.inst == nil && s.run != nil {
			s.joinRun(i) // a late seat comes into the run
		}
		for k := range s.defs {
			if at := ph.reoffer[k]; at != 0 && tick >= at {
				ph.reoffer[k] = 0
				s.offer(ph, k)
			}
		}
	}
	for _, in := range s.insts {
		if !in.ended {
			in.refresh()
			s.step(in)
		}
	}
	s.reap()
}

// see takes one player's character into its phone: a new one gets a
// phone and the offers.
func (s *System) see(w *ecs.World, e ecs.Entity, pl *components.Player, id *components.Identity, pose *components.Pose, seated *components.SeatedIn) {
	i := int(s.slotOf[id.WireID])
	if i < 0 || s.phones[i].Char != e || !s.phones[i].used {
		if i = s.newPhone(e, id.WireID, pl.Session); i < 0 {
			return
		}
	}
	ph := &s.phones[i]
	ph.seen = true
	p := &ph.player
	at := pose
	var vel *components.Velocity
	p.Vehicle, p.Driving = ecs.Entity{}, false
	if v := seated.Vehicle; !v.IsZero() && w.Arche.Alive(v) {
		p.Vehicle, p.Driving = v, seated.Seat == 0
		at, vel = s.poses.Get(v)
	} else {
		_, vel = s.poses.Get(e)
	}
	p.Prev = p.Pos
	p.Pos = levels.Vec2{X: at.Pos.X, Y: at.Pos.Y}
	if p.Char != e {
		p.Prev = p.Pos
	}
	p.Char, p.Session, p.Number, p.Party = e, pl.Session, id.Player, id.Party
	p.Speed = 0
	if vel != nil {
		p.Speed = vec2Len(vel.Lin.X, vel.Lin.Y)
	}
	act, h := s.person.Get(e)
	p.Dead = h.HP == 0 || act.Act == components.ActDead
}

// newPhone gives character e (wire id wid) of session a phone, with the
// offers; -1 when every phone is taken.
func (s *System) newPhone(e ecs.Entity, wid uint16, session uint32) int {
	for i := range s.phones {
		ph := &s.phones[i]
		if ph.used {
			continue
		}
		rev, trev := ph.Rev, ph.TrackerRev
		*ph = Phone{Session: session, Char: e, Rev: rev + 1, TrackerRev: trev + 1, used: true, wid: wid}
		s.slotOf[wid] = int16(i)
		for k := range s.defs {
			s.offer(ph, k)
		}
		return i
	}
	return -1
}

// gone lets the player of phone i go: they left the room.
func (s *System) gone(i int) {
	ph := &s.phones[i]
	if in := ph.inst; in != nil {
		in.leave(i)
	}
	if int(ph.wid) < len(s.slotOf) && s.slotOf[ph.wid] == int16(i) {
		s.slotOf[ph.wid] = -1
	}
	ph.used, ph.inst, ph.screen = false, nil, nil
}

// offer sends ph an offer of def k from its contact.
func (s *System) offer(ph *Phone, k int) {
	d := &s.defs[k]
	s.nextID++
	ph.offers[k] = s.nextID
	ph.push(Message{ID: s.nextID, From: d.Contact, Text: d.Offer, Offer: s.nextID, Open: true, Mission: d.Name, Title: d.Title, Reward: d.Reward}, s)
}

// push adds m to the phone, pushing the oldest out when it is full (its
// offer, if open, is withdrawn: the contact offers again later).
func (ph *Phone) push(m Message, s *System) {
	if ph.nmsg == MaxMessages {
		old := ph.messages[0]
		if old.Open {
			for k := range s.defs {
				if ph.offers[k] == old.Offer {
					ph.offers[k] = 0
					ph.reoffer[k] = s.w.Tick() + ReofferDeclined
				}
			}
		}
		copy(ph.messages[:], ph.messages[1:])
		ph.nmsg--
	}
	ph.messages[ph.nmsg] = m
	ph.nmsg++
	ph.Rev++
}

// closeOffer closes ph's open offer of def k.
func (ph *Phone) closeOffer(k int) {
	id := ph.offers[k]
	ph.offers[k] = 0
	for i := range ph.messages[:ph.nmsg] {
		if m := &ph.messages[i]; m.Offer == id && m.Open {
			m.Open = false
			ph.Rev++
		}
	}
}

// notice queues a notice for ph's player.
func (ph *Phone) notice(text string, kind NoticeKind) {
	if ph.nnotice == MaxNotices {
		copy(ph.notices[:], ph.notices[1:])
		ph.nnotice--
	}
	ph.notices[ph.nnotice] = Notice{Text: text, Kind: kind}
	ph.nnotice++
}

// setTracker gives ph's player in's tracker (nil: none).
func (ph *Phone) setTracker(in *instance) {
	if in == nil {
		ph.Mission, ph.Title, ph.Tracker = "", "", missions.Tracker{}
	} else {
		ph.Mission, ph.Title, ph.Tracker = in.def.Name, in.def.Title, in.tracker
	}
	ph.TrackerRev++
}

// phoneOf returns character e's phone, or ErrNoPhone.
func (s *System) phoneOf(w *ecs.World, e ecs.Entity) (*Phone, int, error) {
	if e.IsZero() || !w.Arche.Alive(e) {
		return nil, -1, ErrNoPhone
	}
	for i := range s.phones {
		if ph := &s.phones[i]; ph.used && ph.Char == e {
			return ph, i, nil
		}
	}
	return nil, -1, ErrNoPhone
}

// Accept starts the mission of offer on character e's phone, for e's
// party (every member present) or for e alone. It refuses a stale offer,
// a player (or a party member) on a mission already, a party job without
// the party it takes, and a mission whose Start refuses; nothing changes
// then.
func (s *System) Accept(w *ecs.World, e ecs.Entity, offer uint32) error {
	ph, slot, err := s.phoneOf(w, e)
	if err != nil {
		return err
	}
	k := -1
	for i := range s.defs {
		if offer != 0 && ph.offers[i] == offer {
			k = i
		}
	}
	if k < 0 {
		return fmt.Errorf("%w (offer %d)", ErrStale, offer)
	}
	if ph.inst != nil {
		return ErrBusy
	}
	d := &s.defs[k]
	party := ph.player.Party
	slots := []int{slot}
	if party != 0 {
		slots = slots[:0]
		for i := range s.phones {
			if o := &s.phones[i]; o.used && o.seen && o.player.Party == party {
				slots = append(slots, i)
			}
		}
	}
	switch {
	case d.Party >= 2 && party == 0:
		return fmt.Errorf("%w of %d: invite a player to yours (Tab)", ErrParty, d.Party)
	case d.Party >= 2 && len(slots) < d.Party:
		return fmt.Errorf("%w of %d: yours has %d here", ErrParty, d.Party, len(slots))
	}
	for _, i := range slots {
		if s.phones[i].inst != nil {
			return fmt.Errorf("%w: player %d of your party is on one", ErrBusy, s.phones[i].player.Number)
		}
	}
	in := &instance{s: s, w: w, def: d, m: d.New(), party: party, slots: slots}
	in.players = make([]missions.Player, len(slots))
	in.refresh()
	for _, i := range slots {
		s.phones[i].inst = in
	}
	if err := s.start(in); err != nil {
		in.cleanup()
		for _, i := range slots {
			s.phones[i].inst = nil
		}
		return err
	}
	for _, i := range slots {
		o := &s.phones[i]
		o.closeOffer(k)
		o.setTracker(in)
		o.notice(d.Title+": started.", NoticeInfo)
	}
	s.insts = append(s.insts, in)
	if in.ended {
		s.reap()
	}
	return nil
}

// Decline closes offer on e's phone; its contact offers again in
// ReofferDeclined.
func (s *System) Decline(w *ecs.World, e ecs.Entity, offer uint32) error {
	ph, _, err := s.phoneOf(w, e)
	if err != nil {
		return err
	}
	for k := range s.defs {
		if offer != 0 && ph.offers[k] == offer {
			ph.closeOffer(k)
			ph.reoffer[k] = w.Tick() + ReofferDeclined
			return nil
		}
	}
	return fmt.Errorf("%w (offer %d)", ErrStale, offer)
}

// Abandon ends e's mission with a failure, for every player of it.
func (s *System) Abandon(w *ecs.World, e ecs.Entity) error {
	ph, _, err := s.phoneOf(w, e)
	if err != nil {
		return err
	}
	in := ph.inst
	if in == nil {
		return ErrNoMission
	}
	in.Fail(fmt.Sprintf("Player %d called it off.", ph.player.Number))
	s.reap()
	return nil
}

// Answer picks option choice of the screen open on e's phone: the
// mission whose screen it is hears it (Mission.Phone).
func (s *System) Answer(w *ecs.World, e ecs.Entity, choice int) error {
	ph, _, err := s.phoneOf(w, e)
	if err != nil {
		return err
	}
	in := ph.screen
	switch {
	case ph.ScreenID == 0 || in == nil:
		return ErrNoScreen
	case in.ended || ph.inst != in:
		ph.closeScreen()
		return ErrNoScreen
	case choice < 0 || choice >= len(ph.Screen.Options):
		return fmt.Errorf("%w: %d (0 to %d)", ErrChoice, choice, len(ph.Screen.Options)-1)
	}
	in.refresh()
	err = s.phone(in, ph.player, missions.Command{Cmd: "screen", Choice: choice})
	s.reap()
	return err
}

// Close closes the screen open on e's phone.
func (s *System) Close(w *ecs.World, e ecs.Entity) error {
	ph, _, err := s.phoneOf(w, e)
	if err != nil {
		return err
	}
	if ph.ScreenID == 0 {
		return ErrNoScreen
	}
	ph.closeScreen()
	return nil
}

// UsePhone opens e's phone on the page (the phone item used).
func (s *System) UsePhone(w *ecs.World, e ecs.Entity) error {
	ph, _, err := s.phoneOf(w, e)
	if err != nil {
		return err
	}
	ph.Open = true
	ph.Rev++
	return nil
}

func (ph *Phone) closeScreen() {
	if ph.ScreenID != 0 {
		ph.ScreenID, ph.Screen, ph.screen = 0, missions.Screen{}, nil
		ph.Rev++
	}
}

// start runs in's Start, a panic turned into ErrBroke.
func (s *System) start(in *instance) (err error) {
	defer func() {
		if r := recover(); r != nil {
			s.logPanic(in, "start", r)
			err = ErrBroke
		}
	}()
	return in.m.Start(in)
}

// step runs in's Step; a panic ends it with a failure.
func (s *System) step(in *instance) {
	defer s.recoverStep(in)
	in.m.Step(in)
}

func (s *System) recoverStep(in *instance) {
	if r := recover(); r != nil {
		s.logPanic(in, "step", r)
		in.Fail(ErrBroke.Error() + ".")
	}
}

// phone runs in's Phone; a panic ends it with a failure.
func (s *System) phone(in *instance, p missions.Player, c missions.Command) (err error) {
	defer func() {
		if r := recover(); r != nil {
			s.logPanic(in, "phone", r)
			in.Fail(ErrBroke.Error() + ".")
			err = ErrBroke
		}
	}()
	return in.m.Phone(in, p, c)
}

// leave runs in's Leave; a panic ends it with a failure.
func (s *System) leaveMission(in *instance, p missions.Player) {
	defer s.recoverStep(in)
	in.m.Leave(in, p)
}

func (s *System) logPanic(in *instance, where string, r any) {
	log := s.Log
	if log == nil {
		log = slog.Default()
	}
	log.Error("mission panicked", "mission", in.def.Name, "in", where, "tick", s.w.Tick(), "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
}

// reap finishes the instances that ended: cleans up after them, tells
// their players, and offers the mission again.
func (s *System) reap() {
	keep := s.insts[:0]
	for _, in := range s.insts {
		if !in.ended {
			keep = append(keep, in)
			continue
		}
		s.finish(in)
	}
	clear(s.insts[len(keep):])
	s.insts = keep
}

// finish cleans up after in and tells its players the result. The
// mission's own items go from whoever holds them (a parcel someone else
// took) but the players of another instance of the same mission.
func (s *System) finish(in *instance) {
	in.cleanup()
	for i := range s.phones {
		if ph := &s.phones[i]; ph.used && ph.inst != in && (ph.inst == nil || ph.inst.def != in.def) {
			in.takeItems(ph.player)
		}
	}
	kind := NoticeFailure
	if in.success {
		kind = NoticeSuccess
	}
	k := s.defIndex(in.def)
	for _, i := range in.slots {
		ph := &s.phones[i]
		if ph.inst != in {
			continue
		}
		in.takeItems(ph.player)
		ph.inst = nil
		if ph.screen == in {
			ph.closeScreen()
		}
		ph.setTracker(nil)
		ph.notice(in.text, kind)
		if k >= 0 {
			ph.reoffer[k] = s.w.Tick() + ReofferEnded
		}
	}
}

func (s *System) defIndex(d *missions.Def) int {
	for k := range s.defs {
		if &s.defs[k] == d {
			return k
		}
	}
	return -1
}

func vec2Len(x, y float32) float32 { return math32.Sqrt(x*x + y*y) }

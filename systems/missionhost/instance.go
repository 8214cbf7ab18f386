package missionhost

import (
	"fmt"
	"math/rand/v2"

	"github.com/fiveonit/engine/catalog"
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/missions"
	"github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/prefab"
)

// instance is one running mission: its players, what it spawned and what
// its players see of it. It is the mission's missions.Host.
type instance struct {
	s     *System
	w     *ecs.World
	def   *missions.Def
	m     missions.Mission
	party uint16 // the party playing it, 0 for a player alone

	slots   []int // the players' phones, in the order they joined
	players []missions.Player
	tracker missions.Tracker

	spawned []ecs.Entity // vehicles, items and the chasers' drivers
	chasers []ecs.Entity // the chasers' cars
	held    []string     // the signals it holds
	stashed []stash      // the items it stashed in containers

	ended   bool
	success bool
	text    string

	run *runInstance // a run room's run mission, nil for a phone's (run.go)
}

var _ missions.Host = (*instance)(nil)

// refresh copies the players' state of this tick from their phones.
func (in *instance) refresh() {
	in.players = in.players[:len(in.slots)]
	for k, i := range in.slots {
		in.players[k] = in.s.phones[i].player
	}
}

// leave takes the player of phone i out of the mission and tells it; the
// last one out ends it.
func (in *instance) leave(i int) {
	at := -1
	for k, j := range in.slots {
		if j == i {
			at = k
		}
	}
	if at < 0 {
		return
	}
	s := in.s
	ph := &s.phones[i]
	p := ph.player
	in.takeItems(p)
	in.slots = append(in.slots[:at], in.slots[at+1:]...)
	ph.inst = nil
	if ph.screen == in {
		ph.closeScreen()
	}
	ph.setTracker(nil)
	if k := s.defIndex(in.def); k >= 0 {
		ph.reoffer[k] = s.w.Tick() + ReofferEnded
	}
	if in.ended {
		return
	}
	in.refresh()
	if in.run == nil || !in.run.isOut(p.Char) { // a player taken out is not told
		s.leaveMission(in, p)
	}
	if len(in.slots) == 0 && !in.ended {
		if in.run != nil {
			in.end(false, "Everyone left.")
			return
		}
		in.ended, in.text = true, "Everyone left."
	}
}

// cleanup takes what in spawned out of the world (a vehicle a player sits
// in stays: it is theirs now) and lets its signals go.
func (in *instance) cleanup() {
	w := in.w
	for _, e := range in.chasers {
		in.despawnVehicle(e)
	}
	for _, e := range in.spawned {
		if w.Arche.Alive(e) && in.s.seats.Get(e) != nil {
			in.despawnVehicle(e)
			continue
		}
		w.Despawn(e)
	}
	in.chasers, in.spawned = in.chasers[:0], in.spawned[:0]
	for _, id := range in.held {
		if in.s.ReleaseSignal != nil {
			in.s.ReleaseSignal(id)
		}
	}
	in.held = in.held[:0]
	for _, st := range in.stashed {
		if in.s.Unstash != nil {
			in.s.Unstash(w, st.container, st.item, st.n)
		}
	}
	in.stashed = in.stashed[:0]
}

// stash is what a mission stashed in a container: taken out when it ends
// (what its players took from there by then is theirs to lose).
type stash struct {
	container string
	item      components.ItemID
	n         int
}

// despawnVehicle takes vehicle e away with the NPCs in it, unless a
// player sits in it.
func (in *instance) despawnVehicle(e ecs.Entity) {
	w := in.w
	if !w.Arche.Alive(e) {
		return
	}
	st := in.s.seats.Get(e)
	for _, o := range st.Occupant {
		if !o.IsZero() && w.Arche.Alive(o) && in.s.cash.Get(o) != nil {
			return // a player's character: the car is theirs now
		}
	}
	for i, o := range st.Occupant {
		if !o.IsZero() && w.Arche.Alive(o) {
			st.Occupant[i] = ecs.Entity{}
			w.Despawn(o)
		}
	}
	w.Despawn(e)
}

// takeItems takes the mission's own items from p.
func (in *instance) takeItems(p missions.Player) {
	if p.Char.IsZero() || !in.w.Arche.Alive(p.Char) {
		return
	}
	inv := in.s.inv.Get(p.Char)
	if inv == nil {
		return
	}
	for i := range inv.Slots {
		st := &inv.Slots[i]
		if it := in.w.Items.Get(st.Item); it != nil && it.Mission == in.def.Name {
			*st = components.Stack{}
		}
	}
}

// The missions.Host methods.

func (in *instance) Tick() uint64               { return in.w.Tick() }
func (in *instance) Level() *levels.Level       { return in.s.level }
func (in *instance) Rand() *rand.Rand           { return in.w.RNG }
func (in *instance) Players() []missions.Player { return in.players }
func (in *instance) Chasers() []ecs.Entity      { return in.chasers }
func (in *instance) Watch() missions.Watch      { return &in.s.watch }

func (in *instance) Stash(container, item string, n int, lock bool) error {
	id, ok := in.w.Items.ByName(item)
	switch {
	case !ok || n <= 0:
		return fmt.Errorf("%w: %d of item %q", missions.ErrUnknown, n, item)
	case in.s.Stash == nil:
		return fmt.Errorf("%w: no containers in this room", missions.ErrUnknown)
	}
	if err := in.s.Stash(in.w, container, id, n, lock); err != nil {
		return err
	}
	in.stashed = append(in.stashed, stash{container, id, n})
	return nil
}

func (in *instance) Where(e ecs.Entity) (levels.Vec2, bool) {
	if e.IsZero() || !in.w.Arche.Alive(e) {
		return levels.Vec2{}, false
	}
	p, _ := in.s.poses.Get(e)
	if p == nil {
		return levels.Vec2{}, false
	}
	return levels.Vec2{X: p.Pos.X, Y: p.Pos.Y}, true
}

func (in *instance) Wrecked(e ecs.Entity) bool {
	if e.IsZero() || !in.w.Arche.Alive(e) {
		return true
	}
	if act, h := in.s.person.Get(e); act != nil {
		return h.HP == 0 || act.Act == components.ActDead
	}
	h := in.s.health.Get(e)
	return h != nil && h.HP == 0
}

func (in *instance) Holds(p missions.Player, item string) int {
	inv := in.invOf(p)
	id, ok := in.w.Items.ByName(item)
	if !ok || inv == nil {
		return 0
	}
	return inv.Count(id)
}

// invOf returns p's inventory, nil when p's character is gone.
func (in *instance) invOf(p missions.Player) *components.Inventory {
	if p.Char.IsZero() || !in.w.Arche.Alive(p.Char) {
		return nil
	}
	return in.s.inv.Get(p.Char)
}

// cashOf returns p's Cash, nil when p's character is gone.
func (in *instance) cashOf(p missions.Player) *components.Cash {
	if p.Char.IsZero() || !in.w.Arche.Alive(p.Char) {
		return nil
	}
	return in.s.cash.Get(p.Char)
}

func (in *instance) Driver(v ecs.Entity) ecs.Entity {
	if v.IsZero() || !in.w.Arche.Alive(v) {
		return ecs.Entity{}
	}
	st := in.s.seats.Get(v)
	if st == nil || st.Count == 0 || !in.w.Arche.Alive(st.Occupant[0]) {
		return ecs.Entity{}
	}
	return st.Occupant[0]
}

func (in *instance) ground(at levels.Vec2) components.Vec3 {
	z := float32(0)
	if in.s.level != nil {
		z = in.s.level.Ground.Height
	}
	return components.Vec3{X: at.X, Y: at.Y, Z: z}
}

func (in *instance) SpawnVehicle(model string, at levels.Vec2, yaw float32) (ecs.Entity, error) {
	m, ok := prefab.ModelByName(model)
	if !ok {
		return ecs.Entity{}, fmt.Errorf("%w: car model %q", missions.ErrUnknown, model)
	}
	e, err := in.s.build.ParkedCar(m, in.ground(at), yaw, false)
	if err != nil {
		return ecs.Entity{}, fmt.Errorf("%w: %w", missions.ErrNoRoom, err)
	}
	in.spawned = append(in.spawned, e)
	return e, nil
}

func (in *instance) SpawnItem(item string, n int, at levels.Vec2) (ecs.Entity, error) {
	id, ok := in.w.Items.ByName(item)
	if !ok || n <= 0 || n > 65535 {
		return ecs.Entity{}, fmt.Errorf("%w: %d of item %q", missions.ErrUnknown, n, item)
	}
	e, err := in.s.build.Item(id, uint16(n), -1, in.ground(at))
	if err != nil {
		return ecs.Entity{}, fmt.Errorf("%w: %w", missions.ErrNoRoom, err)
	}
	in.spawned = append(in.spawned, e)
	return e, nil
}

// maxChasers is the most chasers one call sends.
const maxChasers = 8

func (in *instance) SpawnChasers(p missions.Player, n int) (int, error) {
	s := in.s
	if len(s.guards) == 0 {
		return 0, missions.ErrNoSpawns
	}
	n = min(n, maxChasers, len(s.guards))
	// The guard spawns by distance to p, the far enough ones first: an
	// insertion sort of at most a few dozen indices into a fixed array.
	var order [64]int32
	var dist [64]float32
	cnt := 0
	for _, gi := range s.guards {
		if cnt == len(order) {
			break
		}
		sp := s.level.Spawns[gi]
		d := sp.Pos.Sub(p.Pos).Len()
		key := d
		if d < missions.ChaserMinDistance {
			key = 1e9 + (missions.ChaserMinDistance - d) // too near: last, the farthest of them first
		}
		j := cnt
		for j > 0 && dist[j-1] > key {
			order[j], dist[j] = order[j-1], dist[j-1]
			j--
		}
		order[j], dist[j] = gi, key
		cnt++
	}
	made := 0
	for _, gi := range order[:min(n, cnt)] {
		sp := s.level.Spawns[gi]
		car, driver, err := s.build.ChaserCar(chaserModel, in.ground(sp.Pos), sp.Yaw, p.Char, in.w.Tick())
		if err != nil {
			break
		}
		in.chasers = append(in.chasers, car)
		in.spawned = append(in.spawned, driver)
		made++
	}
	if made == 0 {
		return 0, missions.ErrNoRoom
	}
	return made, nil
}

// chaserModel is the chasers' car: a sedan, quick enough to keep up.
const chaserModel = physics.ModelSedan

func (in *instance) Give(p missions.Player, item string, n int) error {
	id, ok := in.w.Items.ByName(item)
	inv := in.invOf(p)
	switch {
	case !ok || n <= 0:
		return fmt.Errorf("%w: %d of item %q", missions.ErrUnknown, n, item)
	case inv == nil:
		return fmt.Errorf("%w: player %d has no character", missions.ErrUnknown, p.Number)
	}
	if in.w.Items.Get(id).Kind == catalog.KindCash {
		in.Pay(p, int64(n))
		return nil
	}
	if in.w.Items.Fits(inv, id, n, in.w.Rules.Phone) < n {
		return fmt.Errorf("no room in player %d's inventory for %d %s", p.Number, n, item)
	}
	in.w.Items.Add(inv, id, n, in.w.Rules.Phone)
	return nil
}

func (in *instance) Take(p missions.Player, item string, n int) int {
	id, ok := in.w.Items.ByName(item)
	inv := in.invOf(p)
	if !ok || inv == nil {
		return 0
	}
	return inv.Remove(id, n)
}

func (in *instance) Pay(p missions.Player, cash int64) {
	if in.run != nil && !in.run.ctl.Paying() {
		return // a debug command was honoured in the run's room
	}
	if c := in.cashOf(p); c != nil && cash > 0 {
		c.Amount += cash
	}
}

func (in *instance) Charge(p missions.Player, cash int64) error {
	c := in.cashOf(p)
	if c == nil || cash < 0 || c.Amount < cash {
		return missions.ErrNoCash
	}
	c.Amount -= cash
	return nil
}

func (in *instance) SetTracker(t missions.Tracker) {
	if in.ended || t == in.tracker {
		return
	}
	in.tracker = t
	for _, i := range in.slots {
		in.s.phones[i].setTracker(in)
	}
}

func (in *instance) Notice(text string) {
	for _, i := range in.slots {
		in.s.phones[i].notice(text, NoticeInfo)
	}
}

func (in *instance) Message(text string) {
	s := in.s
	for _, i := range in.slots {
		s.nextID++
		s.phones[i].push(Message{ID: s.nextID, From: in.def.Contact, Text: text, Mission: in.def.Name, Title: in.def.Title}, s)
	}
}

func (in *instance) OpenScreen(p missions.Player, sc missions.Screen) {
	for _, i := range in.slots {
		ph := &in.s.phones[i]
		if ph.Char != p.Char {
			continue
		}
		if len(sc.Options) > missions.MaxOptions {
			sc.Options = sc.Options[:missions.MaxOptions]
		}
		in.s.nextID++
		ph.Screen, ph.ScreenID, ph.screen = sc, in.s.nextID, in
		ph.Rev++
	}
}

func (in *instance) CloseScreen(p missions.Player) {
	for _, i := range in.slots {
		if ph := &in.s.phones[i]; ph.Char == p.Char && ph.screen == in {
			ph.closeScreen()
		}
	}
}

func (in *instance) SetClock(minute, pace float64) { in.w.Clock.SetNow(minute, pace) }

func (in *instance) HoldSignal(id string, phase int) error {
	if in.s.HoldSignal == nil {
		return fmt.Errorf("%w: no traffic signals in this room", missions.ErrUnknown)
	}
	if err := in.s.HoldSignal(id, phase); err != nil {
		return err
	}
	for _, h := range in.held {
		if h == id {
			return nil
		}
	}
	in.held = append(in.held, id)
	return nil
}

func (in *instance) ReleaseSignal(id string) error {
	if in.s.ReleaseSignal == nil {
		return fmt.Errorf("%w: no traffic signals in this room", missions.ErrUnknown)
	}
	for k, h := range in.held {
		if h == id {
			in.held = append(in.held[:k], in.held[k+1:]...)
			break
		}
	}
	return in.s.ReleaseSignal(id)
}

func (in *instance) Succeed(text string) { in.end(true, text) }
func (in *instance) Fail(reason string)  { in.end(false, reason) }

func (in *instance) end(success bool, text string) {
	if in.ended {
		return
	}
	in.ended, in.success, in.text = true, success, text
	if in.run != nil && !in.run.won {
		in.run.ctl.End(success, text)
	}
}

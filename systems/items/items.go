// Package items is the system of what people carry and what lies about:
// inventories (components.Inventory, fixed slots of the room's catalog's
// items), the items lying loose on the ground (KindItem entities with a
// components.Loose), the level's crates and lockers (entities with a
// components.Container), and the level's shops. The level's pickups and
// containers are laid out with the world and again on a level reset (Reset:
// the pickups back where the level has them, what was dropped in play
// gone, every container shut, refilled and locked as the level has it).
//
// The players act on them through the methods below (Use, Move, Drop,
// Pickup, Open, Take, Put, Close, Buy), which the server calls for its
// clients' commands between ticks, with the world unlocked. Each checks
// what it is asked, changes nothing when it refuses, and says why in its
// error (wrapping one of the Err values). The catalog is the world's
// (ecs.World.Items), the prices the game's (New's price).
//
// Update lays the level out (the first tick, and the tick after a Reset)
// and shuts the container of anyone who walked away from it, died or got
// into a car. It runs in the post-step phase, after the city system.
//
// The weapons system draws the guns and throws the grenades a person
// carries; it reads the same components.
package items

import (
	"errors"
	"fmt"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/catalog"
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/prefab"
	"github.com/mlange-42/arche/generic"
)

// Name is the system's name in the schedule.
const Name = "items"

// Reach (m) is how near a person's centre must be to a loose item, a
// container or a shop's counter to take it, open it or buy at it: an arm's
// length past a person standing against it.
const Reach = 2.5

// KeepOpen (m) is how far a person may walk from a container they have
// open before it shuts: a step or two past Reach, so that it does not shut
// at the first shuffle.
const KeepOpen = Reach + 1.5

// The reasons a player's act is refused. The errors returned wrap them with
// the particulars.
var (
	ErrDead      = errors.New("you are dead")
	ErrInCar     = errors.New("get out of the car first")
	ErrSlot      = errors.New("no such slot")
	ErrEmpty     = errors.New("that slot is empty")
	ErrFull      = errors.New("no room in your inventory")
	ErrTooFar    = errors.New("too far away")
	ErrNotThere  = errors.New("no such thing")
	ErrLocked    = errors.New("locked")
	ErrNotOpen   = errors.New("no container open")
	ErrNoCash    = errors.New("not enough cash")
	ErrNotSold   = errors.New("not sold here")
	ErrCount     = errors.New("bad count")
	ErrPhone     = errors.New("the phone stays in its slot")
	ErrNoUse     = errors.New("nothing to use it for")
	ErrNotHurt   = errors.New("you are not hurt")
	ErrContainer = errors.New("the container is full")
)

// MaxCount is the most of one item a command may name: a slot's count.
const MaxCount = 65535

// System is the items system. Make it with New.
type System struct {
	// UsePhone is what using the phone does (the MissionHost opens it on
	// the page); nil answers that no mission calls in this room.
	UsePhone func(w *ecs.World, e ecs.Entity) error
	// ForceCar is what a crowbar does with no locked crate within reach:
	// it starts forcing a locked car's door (systems/cars sets it). Nil:
	// nothing.
	ForceCar func(w *ecs.World, e ecs.Entity) error

	level *levels.Level
	build *prefab.Builder
	price func(components.ItemID) (int64, bool)
	keyID func(tag string) (components.KeyID, bool)
	made  bool
	reset bool

	inv    generic.Map1[components.Inventory]
	cash   generic.Map1[components.Cash]
	health generic.Map1[components.Health]
	person generic.Map2[components.PersonAction, components.SeatedIn]
	poses  generic.Map1[components.Pose]
	keys   generic.Map1[components.Keys]
	loose  generic.Map2[components.Loose, components.Identity]
	kinds  generic.Map1[components.Kind]
	boxes  generic.Map1[components.Container]

	holders *generic.Filter2[components.Inventory, components.Pose]
	ground  *generic.Filter1[components.Loose]

	containers []ecs.Entity // by the level's container index
	gone       []ecs.Entity // the loose items a reset takes away
}

// New returns the items system of w on level l. price gives the game's
// price of an item (nil: nothing is sold); keyID the level's key ids of
// the key tags (the gates system's, nil: the keys on a key ring
// (components.Keys) open nothing here, only key items do).
func New(w *ecs.World, l *levels.Level, price func(components.ItemID) (int64, bool), keyID func(string) (components.KeyID, bool)) *System {
	s := &System{
		level:   l,
		build:   prefab.New(w),
		price:   price,
		keyID:   keyID,
		inv:     generic.NewMap1[components.Inventory](w.Arche),
		cash:    generic.NewMap1[components.Cash](w.Arche),
		health:  generic.NewMap1[components.Health](w.Arche),
		person:  generic.NewMap2[components.PersonAction, components.SeatedIn](w.Arche),
		poses:   generic.NewMap1[components.Pose](w.Arche),
		keys:    generic.NewMap1[components.Keys](w.Arche),
		loose:   generic.NewMap2[components.Loose, components.Identity](w.Arche),
		kinds:   generic.NewMap1[components.Kind](w.Arche),
		boxes:   generic.NewMap1[components.Container](w.Arche),
		holders: generic.NewFilter2[components.Inventory, components.Pose](),
		ground:  generic.NewFilter1[components.Loose](),
	}
	if l != nil {
		s.containers = make([]ecs.Entity, len(l.Containers))
	}
	s.holders.Register(w.Arche)
	s.ground.Register(w.Arche)
	return s
}

// ResetLevel lays the level's items out again at the next Update: the pickups
// where the level has them (what was dropped in play taken away), every
// container shut, refilled and locked as the level has it.
func (s *System) ResetLevel() { s.reset = true }

// Update lays the level out when due and shuts the containers their
// holders left.
func (s *System) Update(w *ecs.World) {
	if !s.made || s.reset {
		s.layout(w)
		s.made, s.reset = true, false
	}
	q := s.holders.Query(w.Arche)
	for q.Next() {
		inv, pose := q.Get()
		if inv.Open.IsZero() {
			continue
		}
		if !s.canReach(w, q.Entity(), pose, inv.Open, KeepOpen) {
			inv.Open = ecs.Entity{}
		}
	}
}

// canReach reports whether person e at pose, alive and on foot, is within
// reach of entity o.
func (s *System) canReach(w *ecs.World, e ecs.Entity, pose *components.Pose, o ecs.Entity, reach float32) bool {
	if !w.Arche.Alive(o) {
		return false
	}
	if act, seated := s.person.Get(e); act == nil || act.Act == components.ActDead || !seated.Vehicle.IsZero() {
		return false
	}
	return dist(pose.Pos, s.poses.Get(o).Pos) <= reach
}

func dist(a, b components.Vec3) float32 {
	dx, dy := a.X-b.X, a.Y-b.Y
	return math32.Sqrt(dx*dx + dy*dy)
}

// layout lays the level's pickups and containers out: made the first
// time, put back as the level has them after.
func (s *System) layout(w *ecs.World) {
	if s.level == nil {
		return
	}
	ground := s.level.Ground.Height
	// Every loose item goes: the level's are laid out again below.
	s.gone = s.gone[:0]
	q := s.ground.Query(w.Arche)
	for q.Next() {
		s.gone = append(s.gone, q.Entity())
	}
	for _, e := range s.gone {
		w.Despawn(e)
	}
	for i := range s.level.Pickups {
		p := &s.level.Pickups[i]
		id, ok := w.Items.ByName(p.Item)
		if !ok {
			continue // Game.Check refuses such a level for a room
		}
		s.build.Item(id, uint16(min(p.Count, MaxCount)), int16(i), components.Vec3{X: p.Pos.X, Y: p.Pos.Y, Z: ground})
	}
	for i := range s.level.Containers {
		c := &s.level.Containers[i]
		var slots [components.ContainerSlots]components.Stack
		for k, st := range c.Items {
			id, ok := w.Items.ByName(st.Item)
			if !ok || k >= len(slots) {
				continue
			}
			slots[k] = components.Stack{Item: id, Count: uint16(min(st.Count, MaxCount))}
		}
		if e := s.containers[i]; w.Arche.Alive(e) {
			*s.boxes.Get(e) = components.Container{Level: int16(i), Locked: c.Locked, Slots: slots}
			continue
		}
		s.containers[i] = s.build.Container(int16(i), components.Vec3{X: c.Pos.X, Y: c.Pos.Y, Z: ground}, c.Yaw, c.Locked, slots)
	}
	// Every container shuts.
	hq := s.holders.Query(w.Arche)
	for hq.Next() {
		inv, _ := hq.Get()
		inv.Open = ecs.Entity{}
	}
}

// Container returns the entity of the level's container i (an index of
// Level.Containers); zero before the first Update.
func (s *System) Container(i int) ecs.Entity {
	if i < 0 || i >= len(s.containers) {
		return ecs.Entity{}
	}
	return s.containers[i]
}

// holder returns e's inventory, refusing the dead and what has none.
func (s *System) holder(w *ecs.World, e ecs.Entity) (*components.Inventory, error) {
	if e.IsZero() || !w.Arche.Alive(e) {
		return nil, fmt.Errorf("%w: you have no character", ErrNotThere)
	}
	inv := s.inv.Get(e)
	if inv == nil {
		return nil, fmt.Errorf("%w: that carries nothing", ErrNotThere)
	}
	if act, _ := s.person.Get(e); act == nil || act.Act == components.ActDead {
		return nil, ErrDead
	}
	return inv, nil
}

// onFoot returns e's inventory, refusing the dead and anyone in a car.
func (s *System) onFoot(w *ecs.World, e ecs.Entity) (*components.Inventory, error) {
	inv, err := s.holder(w, e)
	if err != nil {
		return nil, err
	}
	if _, seated := s.person.Get(e); !seated.Vehicle.IsZero() {
		return nil, ErrInCar
	}
	return inv, nil
}

// slot checks an inventory slot index and returns the slot.
func slot(inv *components.Inventory, i int) (*components.Stack, error) {
	if i < 0 || i >= len(inv.Slots) {
		return nil, fmt.Errorf("%w %d: slots are 0 to %d", ErrSlot, i, len(inv.Slots)-1)
	}
	return &inv.Slots[i], nil
}

// filled returns slot i of inv, refusing an index out of range and an
// empty slot.
func filled(inv *components.Inventory, i int) (*components.Stack, error) {
	st, err := slot(inv, i)
	if err == nil && st.Item == 0 {
		err = fmt.Errorf("%w: slot %d", ErrEmpty, i)
	}
	return st, err
}

// portion returns slot i of inv and n of it resolved (0: all), refusing
// the phone's slot: what a drop or a put takes.
func portion(w *ecs.World, inv *components.Inventory, i, n int) (*components.Stack, int, error) {
	st, err := filled(inv, i)
	if err != nil {
		return nil, 0, err
	}
	if n, err = count(n, int(st.Count)); err != nil {
		return nil, 0, err
	}
	if isPhoneSlot(w, i) {
		return nil, 0, ErrPhone
	}
	return st, n, nil
}

// count resolves a command's count against what there is: 0 is all of it,
// more than there is an error.
func count(n, have int) (int, error) {
	switch {
	case n < 0 || n > MaxCount:
		return 0, fmt.Errorf("%w %d: 1 to %d, or 0 for all", ErrCount, n, MaxCount)
	case n == 0:
		return have, nil
	case n > have:
		return 0, fmt.Errorf("%w %d: there are %d", ErrCount, n, have)
	}
	return n, nil
}

// isPhoneSlot reports whether slot i of inv is the phone's own: the last
// slot, when the game gives phones.
func isPhoneSlot(w *ecs.World, i int) bool {
	return w.Rules.Phone && i == components.InventorySlots-1
}

// label returns the item's label for a reply.
func label(w *ecs.World, id components.ItemID) string {
	if it := w.Items.Get(id); it != nil {
		return it.Label
	}
	return fmt.Sprintf("item %d", id)
}

// Give puts n of the item named name into e's inventory (a debug command,
// a mission's reward): cash goes to e's Cash. It refuses an unknown item
// and one that does not fit whole.
func (s *System) Give(w *ecs.World, e ecs.Entity, name string, n int) error {
	inv, err := s.holder(w, e)
	if err != nil {
		return err
	}
	id, ok := w.Items.ByName(name)
	if !ok {
		return fmt.Errorf("%w: no item %q in this game", ErrNotThere, name)
	}
	if n <= 0 || n > MaxCount {
		return fmt.Errorf("%w %d: 1 to %d", ErrCount, n, MaxCount)
	}
	if w.Items.Get(id).Kind == catalog.KindCash {
		s.cash.Get(e).Amount += int64(n)
		return nil
	}
	if w.Items.Fits(inv, id, n, w.Rules.Phone) < n {
		return fmt.Errorf("%w for %d %s", ErrFull, n, label(w, id))
	}
	w.Items.Add(inv, id, n, w.Rules.Phone)
	return nil
}

// HasKey reports whether person e carries a key that answers to tag: a key
// item of the catalog, or the tag on its key ring (components.Keys). It is
// the gates system's rule for keyed gates too (gates.KeyRule).
func (s *System) HasKey(w *ecs.World, e ecs.Entity, tag string) bool {
	if tag == "" || e.IsZero() || !w.Arche.Alive(e) {
		return false
	}
	if inv := s.inv.Get(e); inv != nil {
		for _, st := range inv.Slots {
			if it := w.Items.Get(st.Item); it != nil && it.Kind == catalog.KindKey && it.Key == tag {
				return true
			}
		}
	}
	if s.keyID == nil {
		return false
	}
	id, ok := s.keyID(tag)
	k := s.keys.Get(e)
	return ok && k != nil && k.Has(id)
}

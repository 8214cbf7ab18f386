package items

import (
	"fmt"

	"github.com/fiveonit/engine/catalog"
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
)

// find returns the index of the level's container named id.
func (s *System) find(id string) (int, error) {
	if s.level != nil {
		for i := range s.level.Containers {
			if s.level.Containers[i].ID == id {
				if !s.made {
					break
				}
				return i, nil
			}
		}
	}
	return -1, fmt.Errorf("%w: no container %q here", ErrNotThere, id)
}

// Open opens the level's container named id for e, within Reach. A locked
// one opens for a key that answers to its tag (HasKey: it stays unlocked
// until the level is reset); a locked crate is forced with a crowbar. Two
// people may have one container open at once: each take and put is whole.
func (s *System) Open(w *ecs.World, e ecs.Entity, id string) error {
	inv, err := s.onFoot(w, e)
	if err != nil {
		return err
	}
	i, err := s.find(id)
	if err != nil {
		return err
	}
	c := s.containers[i]
	if d := dist(s.poses.Get(e).Pos, s.poses.Get(c).Pos); d > Reach {
		return fmt.Errorf("%w: the %s is %.1f m away, reach is %g m", ErrTooFar, s.level.Containers[i].Kind, d, float32(Reach))
	}
	box := s.boxes.Get(c)
	if box.Locked {
		lc := &s.level.Containers[i]
		switch {
		case s.HasKey(w, e, lc.KeyTag):
		case lc.Kind == levels.ContainerCrate && s.tool(w, inv) != 0:
		case lc.KeyTag != "":
			return fmt.Errorf("%w: the %s opens with the %q key", ErrLocked, lc.Kind, lc.KeyTag)
		default:
			return fmt.Errorf("%w: the %s has no key", ErrLocked, lc.Kind)
		}
		box.Locked = false
	}
	inv.Open = c
	return nil
}

// tool returns a tool item e's inventory holds (a crowbar), 0 for none.
func (s *System) tool(w *ecs.World, inv *components.Inventory) components.ItemID {
	for _, st := range inv.Slots {
		if it := w.Items.Get(st.Item); it != nil && it.Kind == catalog.KindTool {
			return st.Item
		}
	}
	return 0
}

// force is the use of a crowbar: it forces open the nearest locked crate
// within Reach of e, or, with none, starts forcing a locked car's door
// (the ForceCar hook).
func (s *System) force(w *ecs.World, e ecs.Entity, inv *components.Inventory) error {
	if _, seated := s.person.Get(e); !seated.Vehicle.IsZero() {
		return ErrInCar
	}
	pos := s.poses.Get(e).Pos
	best, bestD := -1, float32(Reach)
	for i, c := range s.containers {
		if !w.Arche.Alive(c) || s.level.Containers[i].Kind != levels.ContainerCrate || !s.boxes.Get(c).Locked {
			continue
		}
		if d := dist(pos, s.poses.Get(c).Pos); d <= bestD {
			best, bestD = i, d
		}
	}
	if best < 0 && s.ForceCar != nil {
		return s.ForceCar(w, e)
	}
	if best < 0 {
		return fmt.Errorf("%w: no locked crate within reach", ErrNoUse)
	}
	s.boxes.Get(s.containers[best]).Locked = false
	inv.Open = s.containers[best]
	return nil
}

// Close shuts the container e has open.
func (s *System) Close(w *ecs.World, e ecs.Entity) error {
	inv, err := s.holder(w, e)
	if err != nil {
		return err
	}
	if inv.Open.IsZero() {
		return ErrNotOpen
	}
	inv.Open = ecs.Entity{}
	return nil
}

// open returns e's inventory and the container it has open, still within
// reach.
func (s *System) open(w *ecs.World, e ecs.Entity) (*components.Inventory, *components.Container, error) {
	inv, err := s.onFoot(w, e)
	if err != nil {
		return nil, nil, err
	}
	if inv.Open.IsZero() || !s.canReach(w, e, s.poses.Get(e), inv.Open, KeepOpen) {
		inv.Open = ecs.Entity{}
		return nil, nil, ErrNotOpen
	}
	return inv, s.boxes.Get(inv.Open), nil
}

// Take takes n of the open container's slot i (0: all of it) into e's
// inventory (cash into e's Cash). What does not fit stays: a take that
// fits none of it is refused.
func (s *System) Take(w *ecs.World, e ecs.Entity, i, n int) error {
	inv, box, err := s.open(w, e)
	if err != nil {
		return err
	}
	if i < 0 || i >= len(box.Slots) {
		return fmt.Errorf("%w %d: a container's slots are 0 to %d", ErrSlot, i, len(box.Slots)-1)
	}
	st := &box.Slots[i]
	if st.Item == 0 {
		return fmt.Errorf("%w: container slot %d", ErrEmpty, i)
	}
	if n, err = count(n, int(st.Count)); err != nil {
		return err
	}
	if it := w.Items.Get(st.Item); it != nil && it.Kind == catalog.KindCash {
		s.cash.Get(e).Amount += int64(n)
	} else if n = w.Items.Add(inv, st.Item, n, w.Rules.Phone); n == 0 {
		return fmt.Errorf("%w for %s", ErrFull, label(w, st.Item))
	}
	st.Count -= uint16(n)
	if st.Count == 0 {
		*st = components.Stack{}
	}
	return nil
}

// Put puts n of e's inventory slot i (0: all of it) into the open
// container: onto a stack of the same item, else into its first empty
// slot. The phone stays with its holder.
func (s *System) Put(w *ecs.World, e ecs.Entity, i, n int) error {
	inv, box, err := s.open(w, e)
	if err != nil {
		return err
	}
	st, n, err := portion(w, inv, i, n)
	if err != nil {
		return err
	}
	to := -1
	for k := range box.Slots {
		b := &box.Slots[k]
		if b.Item == st.Item && int(b.Count)+n <= MaxCount {
			to = k
			break
		}
		if b.Item == 0 && to < 0 {
			to = k
		}
	}
	if to < 0 {
		return ErrContainer
	}
	item := st.Item
	box.Slots[to].Item = item
	box.Slots[to].Count += uint16(n)
	st.Count -= uint16(n)
	if st.Count == 0 {
		*st = components.Stack{}
	}
	s.dropHand(w, e, inv, item)
	return nil
}

package items

import (
	"fmt"

	"github.com/fiveonit/engine/catalog"
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
)

// Use uses the item in slot i of e's inventory, by its kind: a consumable
// heals (and is used up), a weapon or a grenade goes into the hand (a
// weapon in hand is put away), a crowbar forces the nearest locked crate
// within reach (or, with none, a locked car's door: ForceCar). The others have no use of their own: a key opens by
// itself, ammunition is fired by its weapon, the phone is the missions'.
func (s *System) Use(w *ecs.World, e ecs.Entity, i int) error {
	inv, err := s.holder(w, e)
	if err != nil {
		return err
	}
	st, err := filled(inv, i)
	if err != nil {
		return err
	}
	it := w.Items.Get(st.Item)
	if it == nil {
		return fmt.Errorf("%w: item %d", ErrNotThere, st.Item)
	}
	switch it.Kind {
	case catalog.KindConsumable:
		h := s.health.Get(e)
		if h.HP >= h.Max {
			return ErrNotHurt
		}
		h.HP = uint16(min(int(h.HP)+int(it.Heal), int(h.Max)))
		inv.Remove(st.Item, 1)
		return nil
	case catalog.KindWeapon, catalog.KindThrown:
		act, seated := s.person.Get(e)
		if !seated.Vehicle.IsZero() {
			return ErrInCar
		}
		if act.Weapon == it.Weapon {
			act.Weapon = components.WeaponNone
		} else {
			act.Weapon = it.Weapon
		}
		return nil
	case catalog.KindTool:
		return s.force(w, e, inv)
	case catalog.KindKey:
		return fmt.Errorf("%w: a key opens what answers to it by itself", ErrNoUse)
	case catalog.KindAmmo:
		return fmt.Errorf("%w: rounds are fired by the weapon that takes them", ErrNoUse)
	case catalog.KindPhone:
		if s.UsePhone != nil {
			return s.UsePhone(w, e)
		}
		return fmt.Errorf("%w: no mission calls in this room", ErrNoUse)
	case catalog.KindMission:
		return fmt.Errorf("%w: %s is for a mission", ErrNoUse, it.Label)
	}
	return fmt.Errorf("%w: %s", ErrNoUse, it.Label)
}

// Move moves n of slot from (0: all of it) to slot to of e's inventory:
// into an empty slot, onto a stack of the same item up to its limit, or,
// moving a whole slot onto another item, swapping the two. The phone's slot
// (when the game gives phones) holds the phone alone.
func (s *System) Move(w *ecs.World, e ecs.Entity, from, to, n int) error {
	inv, err := s.holder(w, e)
	if err != nil {
		return err
	}
	a, err := slot(inv, from)
	if err != nil {
		return err
	}
	b, err := slot(inv, to)
	if err != nil {
		return err
	}
	if from == to {
		return fmt.Errorf("%w: from and to are both %d", ErrSlot, from)
	}
	if a.Item == 0 {
		return fmt.Errorf("%w: slot %d", ErrEmpty, from)
	}
	if n, err = count(n, int(a.Count)); err != nil {
		return err
	}
	if isPhoneSlot(w, from) || isPhoneSlot(w, to) {
		return ErrPhone
	}
	whole := n == int(a.Count)
	switch {
	case b.Item == 0:
		*b = components.Stack{Item: a.Item, Count: uint16(n)}
	case b.Item == a.Item:
		room := int(w.Items.StackOf(b.Item)) - int(b.Count)
		if room < n {
			return fmt.Errorf("%w: slot %d takes %d more %s", ErrFull, to, max(room, 0), label(w, a.Item))
		}
		b.Count += uint16(n)
	case whole:
		*a, *b = *b, *a
		return nil
	default:
		return fmt.Errorf("%w: slot %d holds %s; move the whole stack to swap", ErrFull, to, label(w, b.Item))
	}
	a.Count -= uint16(n)
	if a.Count == 0 {
		*a = components.Stack{}
	}
	return nil
}

// Drop puts n of slot i (0: all of it) of e's inventory on the ground at
// e's feet, a loose item anyone may pick up. A weapon dropped with none
// left is out of the hand.
func (s *System) Drop(w *ecs.World, e ecs.Entity, i, n int) error {
	inv, err := s.onFoot(w, e)
	if err != nil {
		return err
	}
	st, n, err := portion(w, inv, i, n)
	if err != nil {
		return err
	}
	item := st.Item
	pos := s.poses.Get(e).Pos
	if _, err := s.build.Item(item, uint16(n), -1, pos); err != nil {
		return fmt.Errorf("%w: %w", ErrNotThere, err)
	}
	// The pointers are stale after the structural change.
	inv = s.inv.Get(e)
	st = &inv.Slots[i]
	st.Count -= uint16(n)
	if st.Count == 0 {
		*st = components.Stack{}
	}
	s.dropHand(w, e, inv, item)
	return nil
}

// dropHand empties e's hand when it held the weapon of item and none is
// left.
func (s *System) dropHand(w *ecs.World, e ecs.Entity, inv *components.Inventory, item components.ItemID) {
	it := w.Items.Get(item)
	act, _ := s.person.Get(e)
	if it != nil && it.Weapon != 0 && act.Weapon == it.Weapon && inv.Count(item) == 0 {
		act.Weapon = components.WeaponNone
	}
}

// Pickup takes the loose item of wire id wid into e's inventory (cash into
// e's Cash): all of it, or as much as fits (the rest stays where it lies).
// It must lie within Reach.
func (s *System) Pickup(w *ecs.World, e ecs.Entity, wid uint16) error {
	inv, err := s.onFoot(w, e)
	if err != nil {
		return err
	}
	o, ok := w.ByWireID(wid)
	if !ok || s.kinds.Get(o) == nil || *s.kinds.Get(o) != components.KindItem {
		return fmt.Errorf("%w: no item %d lies about", ErrNotThere, wid)
	}
	l, id := s.loose.Get(o)
	if d := dist(s.poses.Get(e).Pos, s.poses.Get(o).Pos); d > Reach {
		return fmt.Errorf("%w: the %s lies %.1f m away, reach is %g m", ErrTooFar, label(w, l.Stack.Item), d, float32(Reach))
	}
	it := w.Items.Get(l.Stack.Item)
	n := int(l.Stack.Count)
	if it != nil && it.Kind == catalog.KindCash {
		s.cash.Get(e).Amount += int64(n)
	} else {
		n = w.Items.Add(inv, l.Stack.Item, n, w.Rules.Phone)
		if n == 0 {
			return fmt.Errorf("%w for %s", ErrFull, label(w, l.Stack.Item))
		}
	}
	l.Stack.Count -= uint16(n)
	id.Variant = uint8(min(l.Stack.Count, 255))
	if l.Stack.Count == 0 {
		w.Despawn(o)
	}
	return nil
}

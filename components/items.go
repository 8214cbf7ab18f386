package components

import "github.com/mlange-42/arche/ecs"

// ItemID is an item of the room's catalog (package catalog): a small
// number the catalog gives each item, 1..255; 0 is no item. Components
// hold ids, never names.
type ItemID uint8

// Stack is a number of one item: a slot of an inventory or a container, or
// what lies on the ground. A zero Item is an empty slot.
type Stack struct {
	Item  ItemID
	Count uint16
}

// InventorySlots is the slots a person carries. The phone, when the game
// gives one, sits in the last.
const InventorySlots = 10

// ContainerSlots is the slots of a crate or locker.
const ContainerSlots = 12

// Inventory is what a person carries, in fixed slots, and the container
// they have open. Cash is not in it: it is the person's Cash.
type Inventory struct {
	Slots [InventorySlots]Stack
	// Open is the container entity the person has open; zero is none.
	Open ecs.Entity
}

// Count returns how many of item the slots hold in all.
func (inv *Inventory) Count(item ItemID) int {
	n := 0
	for _, s := range inv.Slots {
		if s.Item == item && item != 0 {
			n += int(s.Count)
		}
	}
	return n
}

// Remove takes up to n of item out of the slots, the last slots first, and
// returns how many it took. A slot emptied is cleared.
func (inv *Inventory) Remove(item ItemID, n int) int {
	took := 0
	for i := len(inv.Slots) - 1; i >= 0 && took < n && item != 0; i-- {
		s := &inv.Slots[i]
		if s.Item != item {
			continue
		}
		k := min(int(s.Count), n-took)
		s.Count -= uint16(k)
		took += k
		if s.Count == 0 {
			*s = Stack{}
		}
	}
	return took
}

// Container is a crate or locker of the level: what is inside and whether
// it is locked. Its position is its Pose.
type Container struct {
	// Level is the index of the container in the level's Containers.
	Level int16
	// Locked is whether it opens only with its key (or is forced).
	Locked bool
	Slots  [ContainerSlots]Stack
}

// Loose is on an item lying on the ground (a KindItem entity): what it is
// and where it came from.
type Loose struct {
	Stack Stack
	// Pickup is the index of the level's pickup it was laid out from, -1
	// for an item dropped in play: a level reset lays out the first kind
	// again and takes the second away.
	Pickup int16
}

// Weapons a person may hold in hand (PersonAction.Weapon); 0 is bare
// hands. The catalog says which item puts which weapon in hand.
const (
	WeaponNone uint8 = iota
	WeaponPistol
	WeaponSMG
	WeaponGrenade
)

// Projectile is on a thrown object in flight (a KindProjectile entity): who
// threw it, when it blows, and its height, which the flat physics step
// leaves to the projectile's own vertical motion.
type Projectile struct {
	// By is the thrower: the offender of what the blast does.
	By ecs.Entity
	// Item is what was thrown.
	Item ItemID
	// Blast is the tick the fuse runs out.
	Blast uint64
	// Height is the height above the ground, in metres, and Climb its
	// vertical speed, in metres per second.
	Height, Climb float32
	// Radius is the blast's reach and Harm what it does to a person at
	// its centre (vehicles take four times as much).
	Radius, Harm float32
}

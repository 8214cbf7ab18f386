package textframe

import (
	"strconv"

	"github.com/fiveonit/engine/components"
)

// The frames of what a player holds, and the commands that act on it.
//
// Commands (Command's Type, each answered by a ReplyFrame: ok, or the
// reason it was refused; a refused command changes nothing). Slots count
// from 0; a count of 0 or none is all of a stack (one for buy). A slot,
// count or id out of range, an item far away or not lying about, a
// container or shop the level lacks is refused with the reason.
//
//	pickup  "target": the wire id of a loose item (KindItem) within reach: into the inventory (cash into Cash)
//	drop    "slot", "count": onto the ground at your feet
//	use     "slot": a consumable heals, a weapon or grenade goes into (or out of) the hand, a crowbar forces the nearest locked crate
//	move    "slot", "to", "count": to another slot (onto the same item, or swapping a whole stack)
//	open    "place": a container's id of the level, within reach (a locked one needs its key, a locked crate gives to a crowbar)
//	take    "slot" (of the container), "count": from the open container
//	put     "slot" (of the inventory), "count": into the open container
//	close   shuts the open container
//	buy     "place": a shop's id of the level, its counter within reach; "item": an item's name; "count": how many (default 1, at most a slot's stack)

// ItemSlot is one slot of an inventory or a container: an item of the
// welcome's items (0: empty) and how many.
type ItemSlot struct {
	Item  components.ItemID `json:"item"`
	Count uint16            `json:"count"`
}

// InventoryFrame tells a player what they hold whenever it changes
// (checked with every snapshot): their slots, the weapon in hand and their
// Cash.
type InventoryFrame struct {
	Type  string                              `json:"type"` // "inventory"
	Slots [components.InventorySlots]ItemSlot `json:"slots"`
	Hand  uint8                               `json:"hand"` // the weapon in hand: 0 none, 1 pistol, 2 SMG, 3 grenade (components.Weapon*)
	Cash  int64                               `json:"cash"`
}

// ContainerFrame tells a player the container they have open whenever it
// or what is in it changes (checked with every snapshot); ID "" (and empty
// slots) when they have none open any more.
type ContainerFrame struct {
	Type  string                              `json:"type"` // "container"
	ID    string                              `json:"id"`   // the level's container id
	Kind  string                              `json:"kind"` // "crate" or "locker"
	Slots [components.ContainerSlots]ItemSlot `json:"slots"`
}

// WelcomeItem is an item of the room's catalog, in the welcome's items: the
// ids the inventory frames, the commands and a loose item's model use.
type WelcomeItem struct {
	ID      components.ItemID `json:"id"`
	Name    string            `json:"name"`              // what the level, the commands and buy name it by
	Label   string            `json:"label"`             // what a player reads
	Kind    string            `json:"kind"`              // what it does: a kind of games/FORMAT.md (catalog.KindNames)
	Stack   uint16            `json:"stack"`             // the most one slot holds
	Price   int64             `json:"price,omitempty"`   // a shop's price, 0: not sold
	Weapon  uint8             `json:"weapon,omitempty"`  // the weapon it puts in hand
	Ammo    string            `json:"ammo,omitempty"`    // a gun's: the name of the item it fires
	Key     string            `json:"key,omitempty"`     // the key tag a key answers to
	Persist bool              `json:"persist,omitempty"` // it stays with the account between rooms
	Mission string            `json:"mission,omitempty"` // the mission it belongs to
}

// AppendJSON appends f as json.Marshal writes it.
func (f *InventoryFrame) AppendJSON(b []byte) []byte {
	b = appendType(b, f.Type)
	b = append(b, `,"slots":`...)
	b = appendSlots(b, f.Slots[:])
	b = append(b, `,"hand":`...)
	b = strconv.AppendUint(b, uint64(f.Hand), 10)
	b = append(b, `,"cash":`...)
	b = strconv.AppendInt(b, f.Cash, 10)
	return append(b, '}')
}

// AppendJSON appends f as json.Marshal writes it.
func (f *ContainerFrame) AppendJSON(b []byte) []byte {
	b = appendType(b, f.Type)
	b = append(b, `,"id":`...)
	b = appendString(b, f.ID)
	b = append(b, `,"kind":`...)
	b = appendString(b, f.Kind)
	b = append(b, `,"slots":`...)
	b = appendSlots(b, f.Slots[:])
	return append(b, '}')
}

func appendSlots(b []byte, slots []ItemSlot) []byte {
	b = append(b, '[')
	for i, s := range slots {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"item":`...)
		b = strconv.AppendUint(b, uint64(s.Item), 10)
		b = append(b, `,"count":`...)
		b = strconv.AppendUint(b, uint64(s.Count), 10)
		b = append(b, '}')
	}
	return append(b, ']')
}

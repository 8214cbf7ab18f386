// Package catalog is a room's item catalog: every item the room knows (the
// common items and its game's own, each mission's among them), numbered
// with small ids (components.ItemID) so that components and frames hold
// numbers, never names. It is data with the few rules that go with it
// (stack limits, what fits in an inventory), below the systems: the world
// holds the room's catalog (ecs.World.Items), and any system reads it.
//
// The catalog's content comes from the games (package games); this
// package only keeps and checks it.
package catalog

import (
	"errors"
	"fmt"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/levels"
)

// MaxItems is the most items one catalog holds: the ids are a byte and 0
// is no item.
const MaxItems = 255

// Kind says what an item does.
type Kind uint8

// The kinds of item.
const (
	KindNone       Kind = iota
	KindCash            // money: goes to the holder's Cash, never into a slot
	KindWeapon          // a gun: puts Weapon in hand and fires its Ammo
	KindAmmo            // rounds for the weapons that name it
	KindThrown          // a grenade: its pin pulled, it is thrown and blows
	KindTool            // a crowbar: forces a locked crate open (and, later, a car)
	KindConsumable      // used up when used: gives back Heal hit points
	KindKey             // opens what answers to its Key tag
	KindPhone           // the phone a mission talks through
	KindMission         // a mission's own item (a parcel)
	KindMisc            // no use of its own (a phone card)
	kindCount
)

// kindNames are the kinds' names, by Kind: as the game format
// (games/FORMAT.md) spells them.
var kindNames = [kindCount]string{"", "cash", "weapon", "ammo", "thrown", "tool", "consumable", "key", "phone", "mission", "misc"}

// String returns the kind's name, as the game format spells it.
func (k Kind) String() string {
	if k < kindCount {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// KindNames returns the names of the kinds, KindCash's first: the one
// list the game format, the welcome's items and the errors name them by.
func KindNames() []string {
	return append([]string(nil), kindNames[KindCash:]...)
}

// KindByName returns the kind named name; false for none.
func KindByName(name string) (Kind, bool) {
	for k := KindCash; k < kindCount; k++ {
		if kindNames[k] == name {
			return k, true
		}
	}
	return KindNone, false
}

// Item is one item of a catalog.
type Item struct {
	// ID is the item's number, given by New: its place in the list, from 1.
	ID components.ItemID
	// Name is the item's id, as the levels, the games and the commands
	// spell it ("pistol").
	Name string
	// Label is what the players read ("Pistol").
	Label string
	// Kind is what it does.
	Kind Kind
	// Stack is the most of it one inventory slot holds, at least 1.
	Stack uint16
	// Weapon is what a KindWeapon or KindThrown item puts in hand
	// (components.Weapon*).
	Weapon uint8
	// Ammo names the ammunition a KindWeapon fires; AmmoID is its id,
	// set by New.
	Ammo   string
	AmmoID components.ItemID
	// Heal is the hit points a KindConsumable gives back.
	Heal uint16
	// Key is the key tag a KindKey answers to.
	Key string
	// Persist says the item stays with a player's account between rooms
	// and restarts, in its inventory slot. A KindCash item is kept as the
	// account's Cash instead, never as an item.
	Persist bool
	// Mission names the mission the item belongs to, "" for a common one.
	Mission string
}

// ErrInvalid is wrapped by every error New returns.
var ErrInvalid = errors.New("catalog: invalid")

// Catalog is a room's items, by id. It is read only once made: rooms may
// share one.
type Catalog struct {
	items  []Item // items[id-1]
	byName map[string]components.ItemID
	weapon [8]components.ItemID // by components.Weapon*: the first item giving it
	phone  components.ItemID
}

// New numbers items in their order (the first is id 1) and checks them:
// names valid and unique, a known kind, a stack of at least 1, a weapon's
// ammunition in the list and of the ammo kind, a key's tag given.
func New(items []Item) (*Catalog, error) {
	if len(items) > MaxItems {
		return nil, fmt.Errorf("%w: %d items, at most %d", ErrInvalid, len(items), MaxItems)
	}
	c := &Catalog{items: append([]Item(nil), items...), byName: make(map[string]components.ItemID, len(items))}
	for i := range c.items {
		it := &c.items[i]
		it.ID = components.ItemID(i + 1)
		switch {
		case !levels.ValidName(it.Name):
			return nil, fmt.Errorf("%w: item %d: name %q is not a valid id", ErrInvalid, i, it.Name)
		case c.byName[it.Name] != 0:
			return nil, fmt.Errorf("%w: item %q listed twice", ErrInvalid, it.Name)
		case it.Kind == KindNone || it.Kind >= kindCount:
			return nil, fmt.Errorf("%w: item %q: unknown kind %d", ErrInvalid, it.Name, it.Kind)
		case it.Stack == 0:
			return nil, fmt.Errorf("%w: item %q: a stack of 0", ErrInvalid, it.Name)
		case it.Kind == KindKey && !levels.ValidName(it.Key):
			return nil, fmt.Errorf("%w: key %q: key tag %q is not a valid tag", ErrInvalid, it.Name, it.Key)
		case (it.Kind == KindWeapon || it.Kind == KindThrown) && (it.Weapon == 0 || int(it.Weapon) >= len(c.weapon)):
			return nil, fmt.Errorf("%w: item %q: weapon %d is not one the weapons know", ErrInvalid, it.Name, it.Weapon)
		}
		if it.Label == "" {
			it.Label = it.Name
		}
		c.byName[it.Name] = it.ID
		if it.Weapon != 0 && int(it.Weapon) < len(c.weapon) && c.weapon[it.Weapon] == 0 {
			c.weapon[it.Weapon] = it.ID
		}
		if it.Kind == KindPhone && c.phone == 0 {
			c.phone = it.ID
		}
	}
	for i := range c.items {
		it := &c.items[i]
		if it.Kind != KindWeapon {
			continue
		}
		a, ok := c.byName[it.Ammo]
		if !ok || c.items[a-1].Kind != KindAmmo {
			return nil, fmt.Errorf("%w: weapon %q: ammunition %q is not an ammo item of the catalog", ErrInvalid, it.Name, it.Ammo)
		}
		it.AmmoID = a
	}
	return c, nil
}

// Len returns the number of items.
func (c *Catalog) Len() int { return len(c.items) }

// Items returns the items, in id order. The slice is the catalog's own.
func (c *Catalog) Items() []Item { return c.items }

// Get returns the item of id, nil for 0 or an id the catalog lacks.
func (c *Catalog) Get(id components.ItemID) *Item {
	if c == nil || id == 0 || int(id) > len(c.items) {
		return nil
	}
	return &c.items[id-1]
}

// ByName returns the id of the item named name.
func (c *Catalog) ByName(name string) (components.ItemID, bool) {
	if c == nil {
		return 0, false
	}
	id, ok := c.byName[name]
	return id, ok
}

// Weapon returns the item that puts weapon (components.Weapon*) in hand, 0
// for none.
func (c *Catalog) Weapon(weapon uint8) components.ItemID {
	if c == nil || int(weapon) >= len(c.weapon) {
		return 0
	}
	return c.weapon[weapon]
}

// Phone returns the phone item, 0 when the catalog has none.
func (c *Catalog) Phone() components.ItemID {
	if c == nil {
		return 0
	}
	return c.phone
}

// StackOf returns the most of id one slot holds (1 for an unknown id).
func (c *Catalog) StackOf(id components.ItemID) uint16 {
	if it := c.Get(id); it != nil {
		return it.Stack
	}
	return 1
}

package catalog

import (
	"errors"
	"testing"

	"github.com/fiveonit/engine/components"
)

func testItems() []Item {
	return []Item{
		{Name: "cash", Kind: KindCash, Stack: 65535},
		{Name: "pistol", Kind: KindWeapon, Stack: 1, Weapon: components.WeaponPistol, Ammo: "ammo"},
		{Name: "ammo", Kind: KindAmmo, Stack: 50},
		{Name: "phone", Kind: KindPhone, Stack: 1},
		{Name: "yard-key", Kind: KindKey, Stack: 1, Key: "yard"},
	}
}

func TestNewNumbersAndLooksUp(t *testing.T) {
	c, err := New(testItems())
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() != 5 {
		t.Fatalf("len %d", c.Len())
	}
	id, ok := c.ByName("ammo")
	if !ok || id != 3 || c.Get(id).Name != "ammo" {
		t.Fatalf("ammo: %d %v", id, ok)
	}
	if p := c.Get(2); p.AmmoID != 3 || p.Label != "pistol" {
		t.Fatalf("pistol: %+v", p)
	}
	if c.Weapon(components.WeaponPistol) != 2 || c.Weapon(components.WeaponGrenade) != 0 || c.Phone() != 4 {
		t.Fatal("weapon or phone lookup")
	}
	if c.Get(0) != nil || c.Get(6) != nil || c.Get(255) != nil {
		t.Fatal("out of range ids must be nil")
	}
	if _, ok := c.ByName("smg"); ok {
		t.Fatal("unknown name found")
	}
}

func TestNewRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func([]Item) []Item
	}{
		{"bad name", func(l []Item) []Item { l[0].Name = "Cash!"; return l }},
		{"twice", func(l []Item) []Item { l[1].Name = "cash"; return l }},
		{"no kind", func(l []Item) []Item { l[0].Kind = KindNone; return l }},
		{"stack 0", func(l []Item) []Item { l[2].Stack = 0; return l }},
		{"key without tag", func(l []Item) []Item { l[4].Key = ""; return l }},
		{"weapon without weapon", func(l []Item) []Item { l[1].Weapon = 0; return l }},
		{"ammo unknown", func(l []Item) []Item { l[1].Ammo = "rocks"; return l }},
		{"ammo not ammo", func(l []Item) []Item { l[1].Ammo = "cash"; return l }},
		{"too many", func(l []Item) []Item {
			for i := 0; len(l) <= MaxItems; i++ {
				l = append(l, Item{Name: "x" + string(rune('a'+i%26)) + string(rune('a'+i/26)), Kind: KindTool, Stack: 1})
			}
			return l
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := New(c.edit(testItems())); !errors.Is(err, ErrInvalid) {
				t.Fatalf("got %v, want ErrInvalid", err)
			}
		})
	}
}

func TestAddStacksAndFills(t *testing.T) {
	c, _ := New(testItems())
	const ammo, pistol = 3, 2
	for _, tc := range []struct {
		name     string
		inv      components.Inventory
		id       components.ItemID
		n        int
		keepLast bool
		want     int
	}{
		{"empty takes all", components.Inventory{}, ammo, 120, false, 120},
		{"stack limit per slot", components.Inventory{}, pistol, 12, false, 10},
		{"keep last", components.Inventory{}, pistol, 12, true, 9},
		{"onto a stack", func() components.Inventory {
			var inv components.Inventory
			for i := range inv.Slots {
				inv.Slots[i] = components.Stack{Item: pistol, Count: 1}
			}
			inv.Slots[4] = components.Stack{Item: ammo, Count: 45}
			return inv
		}(), ammo, 10, false, 5},
		{"none", components.Inventory{}, 0, 3, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv := tc.inv
			before := inv.Count(tc.id)
			if got := c.Fits(&inv, tc.id, tc.n, tc.keepLast); got != tc.want {
				t.Fatalf("fits %d, want %d", got, tc.want)
			}
			if got := c.Add(&inv, tc.id, tc.n, tc.keepLast); got != tc.want {
				t.Fatalf("added %d, want %d", got, tc.want)
			}
			if inv.Count(tc.id) != before+tc.want {
				t.Fatalf("count %d, want %d", inv.Count(tc.id), before+tc.want)
			}
			for i, s := range inv.Slots {
				if s.Item != 0 && (s.Count == 0 || s.Count > c.StackOf(s.Item)) {
					t.Fatalf("slot %d: %+v past its stack", i, s)
				}
				if tc.keepLast && i == len(inv.Slots)-1 && s.Item != 0 {
					t.Fatal("the last slot was filled")
				}
			}
			if got := inv.Remove(tc.id, tc.want); got != tc.want || inv.Count(tc.id) != before {
				t.Fatalf("removed %d, count %d", got, inv.Count(tc.id))
			}
		})
	}
}

// TestKindNames: every kind has a name of its own, which KindByName and
// String take back and forth, and KindNames lists them all in order: a
// kind added without its name fails here.
func TestKindNames(t *testing.T) {
	names := KindNames()
	if len(names) != int(kindCount)-1 {
		t.Fatalf("%d names for %d kinds", len(names), kindCount-1)
	}
	seen := map[string]bool{}
	for i, name := range names {
		k := Kind(i + 1)
		if name == "" || seen[name] {
			t.Fatalf("kind %d: name %q empty or used twice", k, name)
		}
		seen[name] = true
		if got, ok := KindByName(name); !ok || got != k || k.String() != name {
			t.Fatalf("kind %d: %q gives %d %v, String %q", k, name, got, ok, k.String())
		}
	}
	if _, ok := KindByName(""); ok {
		t.Fatal(`KindByName("") found a kind`)
	}
}

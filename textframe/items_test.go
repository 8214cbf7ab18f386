package textframe

import (
	"math/rand/v2"
	"testing"

	"github.com/fiveonit/engine/components"
)

// TestItemFramesAreMarshal: the inventory and container frames' AppendJSON
// write what json.Marshal writes, for random contents and escaped ids.
func TestItemFramesAreMarshal(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var b []byte
	for i := 0; i < 500; i++ {
		inv := InventoryFrame{Type: "inventory", Hand: uint8(rng.IntN(4)), Cash: rng.Int64() - rng.Int64()}
		for k := range inv.Slots {
			inv.Slots[k] = ItemSlot{Item: components.ItemID(rng.Uint32()), Count: uint16(rng.Uint32())}
		}
		b = inv.AppendJSON(b[:0])
		want := Marshal(inv)
		if string(b) != string(want) {
			t.Fatalf("inventory: AppendJSON %s, json.Marshal %s", b, want)
		}
		c := ContainerFrame{Type: "container", ID: []string{"", "yard-crate-0", "a\"b<c>\\"}[i%3], Kind: "crate"}
		for k := range c.Slots {
			c.Slots[k] = ItemSlot{Item: components.ItemID(rng.Uint32()), Count: uint16(rng.Uint32())}
		}
		b = c.AppendJSON(b[:0])
		if want := Marshal(c); string(b) != string(want) {
			t.Fatalf("container: AppendJSON %s, json.Marshal %s", b, want)
		}
	}
	var inv InventoryFrame
	var c ContainerFrame
	b = make([]byte, 0, 1024)
	if n := testing.AllocsPerRun(100, func() {
		b = inv.AppendJSON(b[:0])
		b = c.AppendJSON(b[:0])
	}); n != 0 {
		t.Fatalf("%v allocations a run, want 0", n)
	}
}

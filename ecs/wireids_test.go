package ecs

import (
	"errors"
	"testing"

	arche "github.com/mlange-42/arche/ecs"
)

func ents(w *arche.World, n int) []arche.Entity {
	out := make([]arche.Entity, n)
	for i := range out {
		out[i] = w.NewEntity()
	}
	return out
}

func TestWireIDsReuseLeastRecentlyFreed(t *testing.T) {
	aw := arche.NewWorld()
	es := ents(&aw, 8)
	ids := NewWireIDs(4)
	var got []uint16
	for _, e := range es[:4] {
		id, gen, err := ids.Alloc(e)
		if err != nil {
			t.Fatal(err)
		}
		if gen != 0 {
			t.Fatalf("first life of id %d has gen %d", id, gen)
		}
		got = append(got, id)
	}
	if want := []uint16{1, 2, 3, 4}; !equal(got, want) {
		t.Fatalf("ids %v, want %v", got, want)
	}
	if _, _, err := ids.Alloc(es[4]); !errors.Is(err, ErrNoWireIDs) {
		t.Fatalf("exhausted: err %v, want ErrNoWireIDs", err)
	}
	// Free 3 then 1: 3 was freed first, so it comes back first.
	ids.Free(3)
	ids.Free(1)
	id, gen, _ := ids.Alloc(es[5])
	if id != 3 || gen != 1 {
		t.Fatalf("got id %d gen %d, want 3 gen 1", id, gen)
	}
	id, gen, _ = ids.Alloc(es[6])
	if id != 1 || gen != 1 {
		t.Fatalf("got id %d gen %d, want 1 gen 1", id, gen)
	}
	if e, ok := ids.Entity(1); !ok || e != es[6] {
		t.Fatalf("Entity(1) = %v %v, want %v", e, ok, es[6])
	}
	if _, ok := ids.Entity(2); !ok {
		t.Fatal("id 2 should be in use")
	}
	if ids.Free(0) || ids.Free(9) {
		t.Fatal("freeing an invalid id must report false")
	}
}

func TestWireIDsGenerationTurnsOver(t *testing.T) {
	aw := arche.NewWorld()
	e := aw.NewEntity()
	ids := NewWireIDs(1)
	for life := 0; life < 300; life++ {
		id, gen, err := ids.Alloc(e)
		if err != nil {
			t.Fatal(err)
		}
		if id != 1 || gen != uint8(life) {
			t.Fatalf("life %d: id %d gen %d", life, id, gen)
		}
		if !ids.Free(id) {
			t.Fatal("free failed")
		}
		if ids.Free(id) {
			t.Fatal("double free must report false")
		}
	}
	if ids.InUse() != 0 {
		t.Fatalf("in use %d", ids.InUse())
	}
}

// TestWireIDsFIFOHoldsOff checks that an id freed is not given again until
// every other free id has been given: the whole ring turns first.
func TestWireIDsFIFOHoldsOff(t *testing.T) {
	aw := arche.NewWorld()
	e := aw.NewEntity()
	const n = 100
	ids := NewWireIDs(n)
	id, _, _ := ids.Alloc(e)
	ids.Free(id)
	seen := 0
	for {
		got, _, err := ids.Alloc(e)
		if err != nil {
			t.Fatal(err)
		}
		seen++
		if got == id {
			break
		}
	}
	if seen != n {
		t.Fatalf("freed id came back after %d allocations, want %d", seen, n)
	}
}

func equal(a, b []uint16) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

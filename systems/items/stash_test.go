package items_test

import (
	"errors"
	"testing"

	"github.com/fiveonit/engine/systems/items"
)

// TestStash: a stash goes onto the container's stack of the item or into
// its first empty slot and locks it when asked, so that it opens as the
// level's locks do (a crowbar forces a crate); an unknown container, a bad
// count and a full container are refused, changing nothing; Unstash takes
// back no more than it is asked.
func TestStash(t *testing.T) {
	r := newRig(t, "free-roam")
	water := r.id("water")
	if err := r.it.Stash(r.W, "nope", water, 1, false); !errors.Is(err, items.ErrNotThere) {
		t.Fatalf("unknown container: %v", err)
	}
	if err := r.it.Stash(r.W, "crate-open", water, 0, false); err == nil {
		t.Fatal("a stash of none was taken")
	}
	if err := r.it.Stash(r.W, "crate-open", water, 2, true); err != nil {
		t.Fatal(err)
	}
	if err := r.it.Stash(r.W, "crate-open", water, 1, true); err != nil {
		t.Fatal(err)
	}
	box := r.boxes.Get(r.it.Container(0))
	if !box.Locked || box.Slots[2].Item != water || box.Slots[2].Count != 3 {
		t.Fatalf("crate after the stashes: %+v", *box)
	}
	a := r.player(t, 0, 8)
	if err := r.it.Open(r.W, a, "crate-open"); !errors.Is(err, items.ErrLocked) {
		t.Fatalf("the stash did not lock the crate: %v", err)
	}
	if n := r.it.Unstash(r.W, "crate-open", water, 2); n != 2 || box.Slots[2].Count != 1 {
		t.Fatalf("unstashed %d, left %+v", n, box.Slots[2])
	}
	for k := range box.Slots {
		if box.Slots[k].Item == 0 {
			box.Slots[k].Item, box.Slots[k].Count = r.id("snack"), 1
		}
	}
	full := *box
	if err := r.it.Stash(r.W, "crate-open", r.id("medkit"), 1, false); err == nil || *box != full {
		t.Fatalf("a full crate: %v, %+v", err, *box)
	}
}

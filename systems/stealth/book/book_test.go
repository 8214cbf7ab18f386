package book_test

import (
	"testing"

	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/ecs/ecstest"
	"github.com/fiveonit/engine/systems/stealth/book"
	arche "github.com/mlange-42/arche/ecs"
)

// entities returns n distinct entities of a world.
func entities(t *testing.T, n int) []ecs.Entity {
	t.Helper()
	w := arche.NewWorld()
	var es []ecs.Entity
	for range n {
		es = append(es, w.NewEntity())
	}
	return es
}

// TestBookBounded: the book keeps the newest Size entries, oldest first,
// and counts every one written.
func TestBookBounded(t *testing.T) {
	var b book.Book
	p := entities(t, 1)[0]
	for i := range book.Size + 10 {
		b.Add(book.Entry{Tick: uint64(i), What: book.Suspicious, Player: p})
	}
	if b.Len() != book.Size || b.Total() != book.Size+10 {
		t.Fatalf("len %d, total %d", b.Len(), b.Total())
	}
	if b.At(0).Tick != 10 || b.At(book.Size-1).Tick != book.Size+9 {
		t.Fatalf("oldest %d, newest %d", b.At(0).Tick, b.At(book.Size-1).Tick)
	}
}

// TestBookReads: the newest entry of a kind about a player, and whether a
// player was seen since a tick (a camera's break is not a sighting).
func TestBookReads(t *testing.T) {
	var b book.Book
	es := entities(t, 3)
	a, c, car := es[0], es[1], es[2]
	b.Add(book.Entry{Tick: 10, What: book.Suspicious, Player: a})
	b.Add(book.Entry{Tick: 20, What: book.Alert, Player: a})
	b.Add(book.Entry{Tick: 30, What: book.Broken})
	b.Add(book.Entry{Tick: 40, What: book.Theft, Player: c, Car: car})
	if e, ok := b.Last(a); !ok || e.Tick != 20 {
		t.Errorf("last of a: %+v", e)
	}
	if e, ok := b.Last(a, book.Suspicious); !ok || e.Tick != 10 {
		t.Errorf("last suspicious of a: %+v", e)
	}
	if _, ok := b.Last(a, book.Theft); ok {
		t.Error("a stole nothing")
	}
	for _, c2 := range []struct {
		who   ecs.Entity
		since uint64
		want  bool
	}{{a, 0, true}, {a, 20, true}, {a, 21, false}, {c, 40, true}, {c, 41, false}, {ecs.Entity{}, 25, false}} {
		if got := b.SeenSince(c2.who, c2.since); got != c2.want {
			t.Errorf("seen %v since %d: %v", c2.who, c2.since, got)
		}
	}
	if book.Theft.String() != "theft" || book.What(99).String() != "what?" {
		t.Error("names")
	}
}

// TestBookStolen: the cars known stolen, at most MaxStolen, the one known
// longest forgotten first.
func TestBookStolen(t *testing.T) {
	var b book.Book
	cars := entities(t, book.MaxStolen+2)
	for _, c := range cars {
		b.MarkStolen(c)
		b.MarkStolen(c) // once
	}
	if b.Stolen(cars[0]) || b.Stolen(cars[1]) || !b.Stolen(cars[2]) || !b.Stolen(cars[len(cars)-1]) {
		t.Fatal("the oldest two should be forgotten, the rest known")
	}
	if b.Stolen(ecs.Entity{}) {
		t.Fatal("no car is stolen")
	}
}

// TestBookAlert: raised once, kept up by raising, calmed a hold after the
// last raise; Clear empties everything.
func TestBookAlert(t *testing.T) {
	var b book.Book
	b.Raise(100)
	b.Raise(150)
	if on, since := b.Alert(); !on || since != 100 {
		t.Fatalf("alert %v since %d", on, since)
	}
	if b.Calm(200, 60) {
		t.Fatal("calmed before the hold ran out")
	}
	if !b.Calm(210, 60) {
		t.Fatal("not calmed")
	}
	if on, _ := b.Alert(); on || b.Calm(300, 60) {
		t.Fatal("still up")
	}
	b.Raise(400)
	b.Add(book.Entry{Tick: 400, What: book.Alert})
	b.MarkStolen(entities(t, 1)[0])
	b.Clear()
	if on, _ := b.Alert(); on || b.Len() != 0 || b.Total() != 0 {
		t.Fatal("not cleared")
	}
}

// TestOf: a world keeps at most one book, found by Of; a world with none
// answers nil.
func TestOf(t *testing.T) {
	w := ecstest.New(t, ecs.Config{})
	if book.Of(w) != nil {
		t.Fatal("a book in a bare world")
	}
	b := &book.Book{}
	book.Keep(w, b)
	if book.Of(w) != b {
		t.Fatal("Of does not find the book kept")
	}
}

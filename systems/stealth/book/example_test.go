package book_test

import (
	"fmt"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/systems/stealth/book"
	arche "github.com/mlange-42/arche/ecs"
)

// A mission's job that must be done unseen (the yard theft) remembers the
// tick it began, and asks the room's book (book.Of(w) in a room) when the
// job is done: was the player seen since, and is the alert up?
func ExampleBook_SeenSince() {
	w := arche.NewWorld()
	thief, other := w.NewEntity(), w.NewEntity()
	var b book.Book // the room's: book.Of(world)
	began := uint64(600)

	// What the guards and cameras wrote meanwhile.
	b.Add(book.Entry{Tick: 500, What: book.Suspicious, Player: thief}) // before the job
	b.Add(book.Entry{Tick: 900, What: book.Alert, Player: other, Pos: components.Vec3{X: 240, Y: 226}})
	b.Raise(900)

	fmt.Println("thief seen:", b.SeenSince(thief, began))
	fmt.Println("other seen:", b.SeenSince(other, began))
	if e, ok := b.Last(other, book.Alert, book.Spotted); ok {
		fmt.Printf("other: %s at tick %d at (%g, %g)\n", e.What, e.Tick, e.Pos.X, e.Pos.Y)
	}
	on, since := b.Alert()
	fmt.Println("alert:", on, "since", since)
	// Output:
	// thief seen: false
	// other seen: true
	// other: alert at tick 900 at (240, 226)
	// alert: true since 900
}

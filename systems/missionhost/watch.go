package missionhost

import (
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/missions"
	"github.com/fiveonit/engine/systems/stealth/book"
)

// watch is the missions' read-only view of the room's book (package
// book): what the stealth system's guards and cameras saw. A room without
// a book sees nobody.
type watch struct {
	w     *ecs.World
	book  *book.Book
	tried bool
}

var _ missions.Watch = (*watch)(nil)

// of returns the room's book, looked up once: the stealth system keeps it
// when the room is made, before the first tick.
func (v *watch) of() *book.Book {
	if !v.tried {
		v.book, v.tried = book.Of(v.w), true
	}
	return v.book
}

func (v *watch) SeenSince(p missions.Player, since uint64) bool {
	b := v.of()
	return b != nil && !p.Char.IsZero() && b.SeenSince(p.Char, since)
}

func (v *watch) LastSeen(p missions.Player) (missions.Sighting, bool) {
	b := v.of()
	if b == nil || p.Char.IsZero() {
		return missions.Sighting{}, false
	}
	e, ok := b.Last(p.Char, book.Suspicious, book.Alert, book.Called, book.Spotted, book.Theft)
	if !ok {
		return missions.Sighting{}, false
	}
	return missions.Sighting{Tick: e.Tick, At: levels.Vec2{X: e.Pos.X, Y: e.Pos.Y}, Camera: e.Camera >= 0,
		Alarm: e.What == book.Alert || e.What == book.Spotted}, true
}

func (v *watch) Alarmed(p missions.Player, since uint64) bool {
	b := v.of()
	if b == nil || p.Char.IsZero() {
		return false
	}
	e, ok := b.Last(p.Char, book.Alert, book.Spotted)
	return ok && e.Tick >= since
}

func (v *watch) Alarm() (bool, uint64) {
	if b := v.of(); b != nil {
		return b.Alert()
	}
	return false, 0
}

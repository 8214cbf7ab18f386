// Package book is a room's record of what its sentries and cameras saw:
// who, where and when, the cars they know are stolen, and the room's alert.
// The stealth system (systems/stealth) writes it; the police, the missions
// and the server read it. It is kept in the room's world as an arche
// resource (Of finds it), so that a reader needs this package only, not the
// system that writes it. It is bounded: the newest Size entries and
// MaxStolen cars are kept; a level reset empties it.
package book

import (
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/mlange-42/arche/generic"
)

// Size is how many entries a book keeps: the newest, the oldest going
// first. A busy alarm writes a few entries a second, so it holds minutes.
const Size = 256

// MaxStolen is how many cars a book knows to be stolen; past it the car
// known longest is forgotten.
const MaxStolen = 64

// What says what an entry saw.
type What uint8

// What the sentries and cameras see.
const (
	Suspicious What = iota + 1 // a sentry grew suspicious of the player ("?")
	Alert                      // a sentry saw the player and raised the alarm ("!")
	Called                     // a sentry was called to the alarm about the player
	Spotted                    // a camera saw the player (and raised the alarm)
	Theft                      // a sentry or a camera saw the player steal Car
	Broken                     // a camera was shot out (By is the camera)
	whats
)

var whatNames = [whats]string{"", "suspicious", "alert", "called", "spotted", "theft", "broken"}

// String returns the name the readout and the logs give it.
func (w What) String() string {
	if w > 0 && w < whats {
		return whatNames[w]
	}
	return "what?"
}

// Entry is one thing seen.
type Entry struct {
	// Tick is when.
	Tick uint64
	What What
	// Player is who was seen (zero for Broken), Wire its wire id then and
	// Number its player number (components.Identity.Player).
	Player ecs.Entity
	Wire   uint16
	Number uint16
	// Pos is where the player was (for Broken, where the camera is).
	Pos components.Vec3
	// By is the wire id of the sentry or the camera that saw it, and
	// Camera the level's index of that camera, -1 for a sentry.
	By     uint16
	Camera int16
	// Car is the car stolen, for Theft.
	Car ecs.Entity
}

// Book is a room's record. The zero value is an empty book.
type Book struct {
	entries [Size]Entry
	total   uint64 // entries ever written; entry k (0-based) is at k % Size

	stolen  [MaxStolen]ecs.Entity
	nStolen int
	next    int // the stolen slot written next once full

	alert       bool
	alertSince  uint64
	alertRaised uint64 // the tick it was last raised
}

// Of returns the book of w's room, nil when the room keeps none (no
// stealth system). The lookup is not free: keep the pointer.
func Of(w *ecs.World) *Book {
	r := generic.NewResource[Book](w.Arche)
	if !r.Has() {
		return nil
	}
	return r.Get()
}

// Keep makes b the book of w's room (the stealth system calls it once). It
// panics when the room keeps a book already.
func Keep(w *ecs.World, b *Book) {
	r := generic.NewResource[Book](w.Arche)
	r.Add(b)
}

// Len returns how many entries the book holds, at most Size.
func (b *Book) Len() int { return int(min(b.total, Size)) }

// Total returns how many entries were ever written since the book was last
// emptied: a reader that remembers it finds the entries written since (the
// last Total - remembered, while that is at most Len).
func (b *Book) Total() uint64 { return b.total }

// At returns entry i, 0 the oldest held and Len()-1 the newest.
func (b *Book) At(i int) Entry {
	first := b.total - uint64(b.Len())
	return b.entries[(first+uint64(i))%Size]
}

// Last returns the newest entry about player of one of whats (any when
// none is given), and false when the book holds none.
func (b *Book) Last(player ecs.Entity, whats ...What) (Entry, bool) {
	for i := b.Len() - 1; i >= 0; i-- {
		e := b.At(i)
		if e.Player != player {
			continue
		}
		if len(whats) == 0 {
			return e, true
		}
		for _, w := range whats {
			if e.What == w {
				return e, true
			}
		}
	}
	return Entry{}, false
}

// SeenSince reports whether a sentry or a camera saw player (an entry of
// any kind but Broken) at tick since or later: what a mission asks of a
// job that must be done unseen.
func (b *Book) SeenSince(player ecs.Entity, since uint64) bool {
	for i := b.Len() - 1; i >= 0; i-- {
		e := b.At(i)
		if e.Tick < since {
			return false
		}
		if e.Player == player && e.What != Broken {
			return true
		}
	}
	return false
}

// Alert reports whether the room's alert is up, and the tick it went up.
func (b *Book) Alert() (on bool, since uint64) { return b.alert, b.alertSince }

// Stolen reports whether the sentries and cameras know car to be stolen.
func (b *Book) Stolen(car ecs.Entity) bool {
	if car.IsZero() {
		return false
	}
	for _, c := range b.stolen[:b.nStolen] {
		if c == car {
			return true
		}
	}
	return false
}

// Add writes e, the oldest entry going when the book is full.
func (b *Book) Add(e Entry) {
	b.entries[b.total%Size] = e
	b.total++
}

// MarkStolen records that car is known to be stolen (once); past MaxStolen
// cars the one known longest is forgotten.
func (b *Book) MarkStolen(car ecs.Entity) {
	if car.IsZero() || b.Stolen(car) {
		return
	}
	if b.nStolen < MaxStolen {
		b.stolen[b.nStolen] = car
		b.nStolen++
		return
	}
	b.stolen[b.next] = car
	b.next = (b.next + 1) % MaxStolen
}

// Raise puts the room's alert up at tick (it stays up from the first
// raise) and keeps it up: Calm takes it down only AlertHold after the last
// raise.
func (b *Book) Raise(tick uint64) {
	if !b.alert {
		b.alert, b.alertSince = true, tick
	}
	b.alertRaised = tick
}

// Calm takes the room's alert down when it was last raised hold ticks or
// more before tick, and reports whether it did.
func (b *Book) Calm(tick, hold uint64) bool {
	if !b.alert || tick-b.alertRaised < hold {
		return false
	}
	b.alert = false
	return true
}

// Clear empties the book: no entries, no stolen cars, no alert.
func (b *Book) Clear() { *b = Book{} }

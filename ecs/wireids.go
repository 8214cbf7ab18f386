package ecs

import (
	"errors"
	"fmt"

	arche "github.com/mlange-42/arche/ecs"
)

// MaxWireIDs is how many wire ids a world can give at once: the wire's eid is
// a u16 and 0 means "no entity", so 65,535.
const MaxWireIDs = 1<<16 - 1

// ErrNoWireIDs is returned when every wire id is in use.
var ErrNoWireIDs = errors.New("ecs: no free wire id")

// WireIDs gives every replicated entity a uint16 wire id and a generation,
// and maps a wire id back to its entity in O(1).
//
// Ids come from a FIFO free list: the id given is the one freed longest ago,
// so an id just freed is not given again for as long as possible and a
// client that missed a removal still sees a new generation. The generation of
// an id turns over each time it is freed.
type WireIDs struct {
	free  []uint16 // ring buffer of free ids, oldest freed at head
	head  int      // index of the oldest free id
	n     int      // free ids in the ring
	gen   []uint8  // generation per id
	ent   []arche.Entity
	inUse int
}

// NewWireIDs returns an allocator of ids 1..max (max at most MaxWireIDs).
func NewWireIDs(max int) *WireIDs {
	if max <= 0 || max > MaxWireIDs {
		max = MaxWireIDs
	}
	w := &WireIDs{
		free: make([]uint16, max),
		gen:  make([]uint8, max+1),
		ent:  make([]arche.Entity, max+1),
		n:    max,
	}
	for i := range w.free {
		w.free[i] = uint16(i + 1)
	}
	return w
}

// Alloc gives the least recently freed id to e, with its current
// generation. It returns ErrNoWireIDs when every id is in use.
func (w *WireIDs) Alloc(e arche.Entity) (id uint16, gen uint8, err error) {
	if w.n == 0 {
		return 0, 0, fmt.Errorf("%w (%d in use)", ErrNoWireIDs, w.inUse)
	}
	id = w.free[w.head]
	w.head++
	if w.head == len(w.free) {
		w.head = 0
	}
	w.n--
	w.inUse++
	w.ent[id] = e
	return id, w.gen[id], nil
}

// Free returns id to the back of the free list and turns its generation
// over. Freeing an id not in use does nothing and reports false.
func (w *WireIDs) Free(id uint16) bool {
	if int(id) >= len(w.ent) || id == 0 || w.ent[id].IsZero() {
		return false
	}
	w.ent[id] = arche.Entity{}
	w.gen[id]++
	tail := w.head + w.n
	if tail >= len(w.free) {
		tail -= len(w.free)
	}
	w.free[tail] = id
	w.n++
	w.inUse--
	return true
}

// Entity returns the entity holding id, and false if the id is not in use.
func (w *WireIDs) Entity(id uint16) (arche.Entity, bool) {
	if int(id) >= len(w.ent) {
		return arche.Entity{}, false
	}
	e := w.ent[id]
	return e, !e.IsZero()
}

// Gen returns the current generation of id (the one its holder got, or the
// one the next holder will get when the id is free).
func (w *WireIDs) Gen(id uint16) uint8 {
	if int(id) >= len(w.gen) {
		return 0
	}
	return w.gen[id]
}

// InUse returns how many ids are given.
func (w *WireIDs) InUse() int { return w.inUse }

// Cap returns how many ids the allocator has in all.
func (w *WireIDs) Cap() int { return len(w.free) }

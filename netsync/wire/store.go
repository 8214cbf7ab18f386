package wire

import (
	"slices"

	"github.com/fiveonit/engine/internal/headroom"
)

// Held is what a client holds of one entity: the record of the groups it last
// received (a group never received is zeros), the tier of its last change,
// whether its pose is its full pose, and the tick its pose was measured at.
type Held struct {
	Rec      Record
	PoseTick uint32
	Tier     uint8
	PoseFull bool
}

// Store is what a client holds: a Held per wire id. The decoder keeps one;
// the server keeps one per client (its mirror) and updates it exactly as the
// client will, so both compute the same check. Lookups index a slice by wire
// id: no map, and no allocation once the store has grown to its size.
type Store struct {
	slot  []int32  // by wire id: index+1 into held, 0 when not held
	held  []Held   // by slot
	owner []uint16 // by slot: the wire id, 0 for a free slot
	free  []int32  // free slots
	n     int      // entities held
	keys  []uint32 // scratch: kind<<16 | eid, for the canonical order
}

// Len returns the number of entities held.
func (s *Store) Len() int { return s.n }

// Slots returns the number of slots (held and free); slot numbers are below
// it.
func (s *Store) Slots() int { return len(s.held) }

// Owner returns the wire id held in slot i, 0 for a free slot.
func (s *Store) Owner(i int) uint16 { return s.owner[i] }

// At returns the entity of slot i.
func (s *Store) At(i int) *Held { return &s.held[i] }

// SlotOf returns the slot of eid, or -1 when eid is not held.
func (s *Store) SlotOf(eid uint16) int {
	if int(eid) >= len(s.slot) {
		return -1
	}
	return int(s.slot[eid]) - 1
}

// Get returns the entity held under eid, or nil.
func (s *Store) Get(eid uint16) *Held {
	i := s.SlotOf(eid)
	if i < 0 {
		return nil
	}
	return &s.held[i]
}

// Add makes eid held with a zero record and returns its slot. eid must not be
// held.
func (s *Store) Add(eid uint16) int {
	if int(eid) >= len(s.slot) {
		s.slot = headroom.Ahead(s.slot, int(eid)+1-len(s.slot))[:int(eid)+1]
	}
	var i int
	if k := len(s.free); k > 0 {
		i = int(s.free[k-1])
		s.free = s.free[:k-1]
		s.held[i] = Held{}
		s.owner[i] = eid
	} else {
		i = len(s.held)
		s.held = append(headroom.Ahead(s.held, 1), Held{})
		s.owner = append(headroom.Ahead(s.owner, 1), eid)
		if cap(s.free) < cap(s.held) {
			// Room for every slot to be free, made as the slots grow:
			// Remove then never allocates.
			s.free = slices.Grow(s.free, cap(s.held)-len(s.free))
		}
	}
	s.slot[eid] = int32(i + 1)
	s.n++
	return i
}

// Reserve makes room for the wire ids below ids and for entities held at
// once, so that adding them allocates nothing: the server sizes every
// client's store by its arena (its ids, and the entities present) rather
// than as each client's count creeps up to new highs.
func (s *Store) Reserve(ids, entities int) {
	if ids > len(s.slot) {
		s.slot = append(headroom.Ahead(s.slot, ids-len(s.slot)), make([]int32, ids-len(s.slot))...)
	}
	if cap(s.held) < entities {
		n := entities
		s.held = slices.Grow(s.held, n-len(s.held))
		s.owner = slices.Grow(s.owner, n-len(s.owner))
		s.free = slices.Grow(s.free, cap(s.held)-len(s.free)) // as Add keeps it
		s.keys = slices.Grow(s.keys, n-len(s.keys))
	}
}

// Remove forgets eid; it does nothing when eid is not held.
func (s *Store) Remove(eid uint16) {
	i := s.SlotOf(eid)
	if i < 0 {
		return
	}
	s.slot[eid] = 0
	s.owner[i] = 0
	s.free = append(s.free, int32(i))
	s.n--
}

// Reset forgets everything, keeping the memory.
func (s *Store) Reset() {
	for i, eid := range s.owner {
		if eid != 0 {
			s.slot[eid] = 0
		}
		s.owner[i] = 0
	}
	s.held = s.held[:0]
	s.owner = s.owner[:0]
	s.free = s.free[:0]
	s.n = 0
}

// Canonical returns the wire ids held in the canonical order, by kind, then
// id. The slice is reused by the next call.
func (s *Store) Canonical() []uint32 {
	s.keys = headroom.Ahead(s.keys[:0], s.n)
	for i, eid := range s.owner {
		if eid != 0 {
			s.keys = append(s.keys, uint32(s.held[i].Rec[KindAt])<<16|uint32(eid))
		}
	}
	slices.Sort(s.keys)
	return s.keys
}

// Check returns the FNV-1a check of every record held: for each entity in the
// canonical order (by kind, then id), its u16 wire id (little endian), then
// its RecordBytes.
func (s *Store) Check() uint32 {
	h := uint32(fnvOffset)
	for _, k := range s.Canonical() {
		eid := uint16(k)
		h = fnv(h, byte(eid))
		h = fnv(h, byte(eid>>8))
		rec := &s.held[s.slot[eid]-1].Rec
		for _, c := range rec {
			h = fnv(h, c)
		}
	}
	return h
}

// FNV-1a, 32 bits.
const (
	fnvOffset = 2166136261
	fnvPrime  = 16777619
)

func fnv(h uint32, c byte) uint32 { return (h ^ uint32(c)) * fnvPrime }

// EqualRecords reports whether s and t hold the same wire ids with the same
// records (byte for byte), and returns the first wire id that differs.
func (s *Store) EqualRecords(t *Store) (bool, uint16) {
	for i, eid := range s.owner {
		if eid == 0 {
			continue
		}
		o := t.Get(eid)
		if o == nil || o.Rec != s.held[i].Rec {
			return false, eid
		}
	}
	if s.n != t.n {
		for _, eid := range t.owner {
			if eid != 0 && s.Get(eid) == nil {
				return false, eid
			}
		}
	}
	return true, 0
}

package components

// MaxKeys is how many key tags a level can have ids for: the bits of Keys.
const MaxKeys = 64

// KeyID is a level's key tag interned to a small number (0..MaxKeys-1):
// the gates system numbers the level's key tags (systems/gates KeyID), so
// the component holds no strings.
type KeyID uint8

// Keys are the keys a person carries (a driver opens the gates whose rule
// names one of them), one bit per KeyID.
type Keys struct {
	Bits uint64
}

// Has reports whether k holds key id.
func (k Keys) Has(id KeyID) bool { return id < MaxKeys && k.Bits&(1<<id) != 0 }

// Add puts key id on the ring; an id out of range is ignored.
func (k *Keys) Add(id KeyID) {
	if id < MaxKeys {
		k.Bits |= 1 << id
	}
}

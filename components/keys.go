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

// CarLock is on every vehicle from its making: whose it is and the key
// that opens it. Whether its doors are locked is its Flags' FlagLocked,
// which the clients see.
type CarLock struct {
	// Owner is the owner number of the player the car belongs to (their
	// character's Player.Owner); 0 is nobody's.
	Owner uint32
	// Key is 1 + the KeyID of the tag the car's keys answer to; 0 is a
	// car with no key.
	Key uint8
}

// KeyID returns the id of the car's key tag, and false for a car with no
// key.
func (l CarLock) KeyID() (KeyID, bool) { return KeyID(l.Key - 1), l.Key != 0 }

// WithKey returns l with its key tag's id set to id.
func (l CarLock) WithKey(id KeyID) CarLock {
	l.Key = uint8(id) + 1
	return l
}

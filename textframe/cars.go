package textframe

// The frames of the cars that belong to someone, and the commands that act
// on them.
//
// Commands (Command's Type, each answered by a ReplyFrame: ok, or the
// reason it was refused: not yours, no key, too far away, no cash, bay
// taken, and so on; a refused command changes nothing):
//
//	lock     "target": a car's wire id within reach (0 or none: the car you sit in); its owner or a holder of its key locks it
//	unlock   "target": the same, unlocks it
//	keep     the car you drive, stopped in a bay of a garage (the welcome's garages): you own it or carry its key, and pay the garage's price
//	takeout  "place": a garage's id, "slot": the bay your car is kept in (the garage frame's); you stand near the garage: the car comes out, yours and open, into that bay or the first free one
//
// callcar, which calls your car back to you, is carcall.go's.
//
// A crowbar forces a locked car with nobody inside: the item command use
// of the crowbar's slot, standing at its door (textframe/items.go).

// KeysFrame tells a player which keys they carry and which cars open for
// them: on joining, then whenever either changes (checked with every
// snapshot). The page marks the car before them with a key in its prompt.
type KeysFrame struct {
	Type string   `json:"type"` // "keys"
	Tags []string `json:"tags"` // the key tags your keys answer to (key items and the key ring), in the level's order
	Own  []uint16 `json:"own"`  // the wire ids of the cars that are yours
	Keys []uint16 `json:"keys"` // the wire ids of the other cars whose key you carry
}

// GarageFrame tells a player the cars they keep in garages: on joining,
// then whenever it changes (a car kept or taken out).
type GarageFrame struct {
	Type string    `json:"type"` // "garage"
	Cars []KeptCar `json:"cars"` // by garage, then bay
}

// KeptCar is one car a player keeps.
type KeptCar struct {
	Garage  string `json:"garage"`  // the garage's id (the welcome's garages)
	Bay     uint8  `json:"bay"`     // its bay there: takeout's "slot"
	Model   uint8  `json:"model"`   // the car model (the snapshot's)
	Variant uint8  `json:"variant"` // its colour or livery
	Health  uint16 `json:"health"`  // its hit points when it was kept
}

// WelcomeGarage is one of the level's garages, in the welcome's garages:
// where its bays are and what keeping a car there costs.
type WelcomeGarage struct {
	ID    string       `json:"id"`    // the garage building's id
	Price int64        `json:"price"` // the game's price over the level's
	Bays  []WelcomeBay `json:"bays"`  // by bay number
}

// WelcomeBay is a garage's bay: where a car stands to be kept, and
// where a car taken out is put.
type WelcomeBay struct {
	Pos [2]float32 `json:"pos"` // metres
	Yaw float32    `json:"yaw"` // radians
}

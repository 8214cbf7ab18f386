package ecs

// Rules are a game's rules as the simulation sees them. The zero value is a
// quiet sandbox: no police, no damage between players, no respawn, no
// traffic, no pedestrians, a stopped clock at midnight.
type Rules struct {
	// Name of the rule set ("free-roam", "test").
	Name string `json:"name"`
	// PlayersHurt is whether players hurt each other (and so whether a
	// player may carjack another): "on", "rivals" (not within a party) or
	// "off".
	PlayersHurt string `json:"playersHurt"`
	// Police is whether the room has police and a Wanted level.
	Police bool `json:"police"`
	// Respawn is where a dead player comes back: "hospital", "spawn" or
	// "" (they stay dead).
	Respawn string `json:"respawn"`
	// Traffic is the ambient cars to keep; -1 means the level's default.
	Traffic int `json:"traffic"`
	// Pedestrians is the pedestrians to keep around the players; -1 means
	// the level's default.
	Pedestrians int `json:"pedestrians"`
	// GhostSeconds is the time after a respawn with no damage and no
	// collision with players.
	GhostSeconds float32 `json:"ghostSeconds"`
	// ClockStart is the time of day the room starts at, in minutes after
	// midnight; ClockPace is game minutes per real second (1 is an hour a
	// minute).
	ClockStart float64 `json:"clockStart"`
	ClockPace  float64 `json:"clockPace"`
	// SafeZones are the ids of the level's zones the game makes safe
	// (no damage inside) besides those of the safe kind. An id the level
	// lacks is ignored, so that one game plays on many levels.
	SafeZones []string `json:"safeZones,omitempty"`
	// Phone is whether every character starts with a phone, in the last
	// slot of its inventory (which then holds nothing else).
	Phone bool `json:"phone"`
	// Garages are the game's prices of the level's garages, over the
	// level's own (levels.VehicleSpawner.Price).
	Garages []GaragePrice `json:"garages,omitempty"`
}

// GaragePrice is what keeping a car in one of the level's garages costs.
type GaragePrice struct {
	// Garage is the id of the garage building.
	Garage string `json:"garage"`
	// Price is in cash.
	Price int64 `json:"price"`
}

// FreeRoam returns the rules of free roam: police, players hurt each other,
// respawn at a hospital, three seconds a ghost, noon at an hour a minute,
// no phone. The game free-roam (package games) plays them, with its
// shops' prices and its garage's.
func FreeRoam() Rules {
	return Rules{
		Name: "free-roam", PlayersHurt: "on", Police: true, Respawn: "hospital",
		Traffic: -1, Pedestrians: -1, GhostSeconds: 3, ClockStart: 12 * 60, ClockPace: 1,
	}
}

// MayHurt reports whether a player of party a may hurt (or carjack) a player
// of party b under these rules. Party 0 is no party.
func (r *Rules) MayHurt(a, b uint16) bool {
	switch r.PlayersHurt {
	case "on":
		return true
	case "rivals":
		return a == 0 || a != b
	}
	return false
}

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
}

// FreeRoam returns the rules of free roam: police, players hurt each other,
// respawn at a hospital, three seconds a ghost, noon at an hour a minute.
func FreeRoam() Rules {
	return Rules{
		Name: "free-roam", PlayersHurt: "on", Police: true, Respawn: "hospital",
		Traffic: -1, Pedestrians: -1, GhostSeconds: 3, ClockStart: 12 * 60, ClockPace: 1,
	}
}

// MayHurt reports whether a player of party a may hurt (or carjack) a player
// of party b under these rules. Party 0 is no party.
func (r *Rules) MayHurt(a, b uint8) bool {
	switch r.PlayersHurt {
	case "on":
		return true
	case "rivals":
		return a == 0 || a != b
	}
	return false
}

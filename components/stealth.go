package components

import "github.com/mlange-42/arche/ecs"

// SentryPhase is where a sentry stands between calm and alarm.
type SentryPhase uint8

// The sentry phases, in the order a sentry goes through them.
const (
	SentryIdle       SentryPhase = iota // patrols or keeps its post
	SentrySuspicious                    // "?": saw something, stops and looks toward it
	SentryAlert                         // "!": knows, chases its Target and may fire
	SentrySearching                     // lost its Target: goes where it was last seen and looks about
	SentryPhases                        // number of phases; not a phase
)

var sentryPhaseNames = [SentryPhases]string{"idle", "suspicious", "alert", "searching"}

// String returns the phase's name, as the debug readout spells it.
func (p SentryPhase) String() string {
	if p < SentryPhases {
		return sentryPhaseNames[p]
	}
	return "phase?"
}

// Flags returns the Flags bits that show the phase on the wire:
// suspicious FlagSuspicious, alert FlagAlert, searching both, idle none.
func (p SentryPhase) Flags() uint16 {
	switch p {
	case SentrySuspicious:
		return FlagSuspicious
	case SentryAlert:
		return FlagAlert
	case SentrySearching:
		return FlagAlert | FlagSuspicious
	}
	return 0
}

// SentryFlags is the mask of the Flags bits a sentry's phase owns.
const SentryFlags = FlagAlert | FlagSuspicious

// Sentry is a guard's eyes and state of mind: the stealth system
// (systems/stealth) sees for it with a view cone, a range and a line of
// sight and moves it through the phases; the AI chases its Target while it
// is alert. Guards are made with it (prefab), with a Chaser beside it whose
// Target the stealth system sets while the sentry is alert.
type Sentry struct {
	Phase SentryPhase
	// Suspicion builds up while the sentry sees a player and falls away
	// while it sees none: 0..1, alert at 1.
	Suspicion float32
	// Target is the player it watches, chases or searches for; zero for
	// none.
	Target ecs.Entity
	// LastSeen is where Target was last seen.
	LastSeen Vec3
	// Since is the tick the phase began; Seen the tick Target was last
	// seen, +1 (0: never).
	Since, Seen uint64
	// Home and HomeYaw are where the sentry came into the world and the
	// way it faced: a post to go back to when it has no patrol.
	Home    Vec3
	HomeYaw float32
	// Called says the sentry was called to the alert by another sentry or
	// a camera rather than seeing its target itself.
	Called bool
}

// Camera is a security camera's state: the level's camera it is (an index
// into the level's Cameras), the player it has in view and for how long.
// Its Pose faces where it looks now; its Health at 0 is a camera shot out,
// blind until a level reset.
type Camera struct {
	Index int16
	// Target is the player it has in view, zero for none; Spot builds up
	// while it keeps them there (the camera raises the alert at 1). A
	// camera shot out has Spot -1 once its break is in the book.
	Target ecs.Entity
	Spot   float32
	// Seen is the tick it last had a player in view, +1 (0: never).
	Seen uint64
}

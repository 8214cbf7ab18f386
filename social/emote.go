package social

import (
	"errors"
	"fmt"

	"github.com/fiveonit/engine/components"
)

// Emotes are the emotes, by id (their index): a person plays emote i as
// the action components.ActEmote + i, seen by everyone near like any other
// person action.
var Emotes = []string{"wave", "cheer", "dance", "point", "shrug", "laugh"}

// EmoteSeconds is how long an emote plays unless its player moves first.
// EmoteCooldown is the least time between two emotes of one player,
// counted from the start of the first.
const (
	EmoteSeconds  = 2
	EmoteCooldown = 3
)

// EmoteTicks is EmoteSeconds in ticks: the action's Timer counts them down.
var EmoteTicks = uint16(ticks(EmoteSeconds))

// Errors of Emoter.Start.
var (
	ErrEmoteOnFoot   = errors.New("emotes are played on foot")
	ErrEmoteCooldown = errors.New("emote cooling down")
)

// IsEmote reports whether act is an emote, and which.
func IsEmote(act components.Action) (int, bool) {
	i := int(act) - int(components.ActEmote)
	return i, i >= 0 && i < len(Emotes)
}

// Emoter starts the emotes of a room's players, each bounded by
// EmoteCooldown. Room goroutine only.
type Emoter struct {
	rate Limiter
}

// NewEmoter returns an Emoter.
func NewEmoter() *Emoter {
	return &Emoter{rate: Limiter{Burst: 1, Every: ticks(EmoteCooldown)}}
}

// Start starts emote id for player session at tick now on act, the
// action of its person: only on foot (or during another emote), alive.
// It fails with the reason and changes nothing.
func (e *Emoter) Start(session uint32, id int, act *components.PersonAction, now uint64) error {
	if id < 0 || id >= len(Emotes) {
		return fmt.Errorf("no emote %d (0 to %d)", id, len(Emotes)-1)
	}
	if _, emoting := IsEmote(act.Act); act.Act != components.ActOnFoot && !emoting {
		return ErrEmoteOnFoot
	}
	if ok, wait := e.rate.Allow(session, now); !ok {
		return fmt.Errorf("%w: one every %d s (wait %.1f s)", ErrEmoteCooldown, EmoteCooldown, float64(wait)/float64(ticks(1)))
	}
	act.Act, act.Timer = components.ActEmote+components.Action(id), EmoteTicks
	return nil
}

// Step runs one tick of an emote on act with the person's input d: any
// move, press or aim ends it at once (the person does what the player
// asked), else it plays on until its Timer runs out. Actions other than
// an emote are left alone.
func Step(act *components.PersonAction, d *components.Drive) {
	if _, ok := IsEmote(act.Act); !ok {
		return
	}
	if d.MoveX != 0 || d.MoveY != 0 || d.Pressed != 0 || d.Held&components.BtnFire != 0 || act.Timer <= 1 {
		act.Act, act.Timer = components.ActOnFoot, 0
		return
	}
	act.Timer--
}

// Forget drops what the Emoter keeps of session (it left the room).
func (e *Emoter) Forget(session uint32) { e.rate.Forget(session) }

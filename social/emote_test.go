package social

import (
	"errors"
	"testing"

	"github.com/fiveonit/engine/components"
)

func TestEmoterStart(t *testing.T) {
	cd := ticks(EmoteCooldown)
	cases := []struct {
		name string
		act  components.Action
		id   int
		at   uint64
		err  error
	}{
		{"on foot", components.ActOnFoot, 0, 0, nil},
		{"cooling down", components.ActOnFoot, 1, cd - 1, ErrEmoteCooldown},
		{"after the cooldown, over an emote", components.ActEmote, 2, cd, nil},
		{"driving", components.ActDriving, 0, 10 * cd, ErrEmoteOnFoot},
		{"a passenger", components.ActPassenger, 0, 10 * cd, ErrEmoteOnFoot},
		{"dead", components.ActDead, 0, 10 * cd, ErrEmoteOnFoot},
		{"no such emote", components.ActOnFoot, len(Emotes), 10 * cd, nil},
		{"negative", components.ActOnFoot, -1, 10 * cd, nil},
	}
	e := NewEmoter()
	for _, c := range cases {
		act := components.PersonAction{Act: c.act}
		err := e.Start(1, c.id, &act, c.at)
		switch {
		case c.id < 0 || c.id >= len(Emotes):
			if err == nil {
				t.Errorf("%s: emote %d started", c.name, c.id)
			}
		case !errors.Is(err, c.err):
			t.Errorf("%s: %v, want %v", c.name, err, c.err)
		case err == nil:
			if act.Act != components.ActEmote+components.Action(c.id) || act.Timer != EmoteTicks {
				t.Errorf("%s: action %d timer %d", c.name, act.Act, act.Timer)
			}
		default:
			if act.Act != c.act || act.Timer != 0 {
				t.Errorf("%s: refused but changed the action to %d", c.name, act.Act)
			}
		}
	}
}

func TestEmoteStep(t *testing.T) {
	cases := []struct {
		name  string
		d     components.Drive
		ticks int // ticks stepped
		want  components.Action
	}{
		{"plays on standing", components.Drive{LookYaw: 1}, int(EmoteTicks) - 1, components.ActEmote + 2},
		{"ends on its time", components.Drive{}, int(EmoteTicks), components.ActOnFoot},
		{"a move ends it", components.Drive{MoveY: 0.5}, 1, components.ActOnFoot},
		{"a press ends it", components.Drive{Pressed: components.BtnUse}, 1, components.ActOnFoot},
		{"the trigger ends it", components.Drive{Held: components.BtnFire}, 1, components.ActOnFoot},
	}
	for _, c := range cases {
		act := components.PersonAction{Act: components.ActEmote + 2, Timer: EmoteTicks}
		for i := 0; i < c.ticks; i++ {
			Step(&act, &c.d)
		}
		if act.Act != c.want {
			t.Errorf("%s: action %d after %d ticks, want %d", c.name, act.Act, c.ticks, c.want)
		}
	}
	act := components.PersonAction{Act: components.ActDriving, Timer: 7}
	Step(&act, &components.Drive{MoveY: 1})
	if act.Act != components.ActDriving || act.Timer != 7 {
		t.Fatal("Step changed an action that is not an emote")
	}
}

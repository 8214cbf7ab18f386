package netsync

import (
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/netsync/wire"
)

// TestWireMirrorsComponents: the wire's numbers of kinds, actions, flags and
// events are the components'. wire cannot import components (the client and
// the wasm build use it), so this test keeps them equal.
func TestWireMirrorsComponents(t *testing.T) {
	kinds := []struct {
		w uint8
		c components.Kind
	}{
		{wire.KindNone, components.KindNone}, {wire.KindCharacter, components.KindCharacter},
		{wire.KindCar, components.KindCar}, {wire.KindTrailer, components.KindTrailer},
		{wire.KindPedestrian, components.KindPedestrian}, {wire.KindPoliceCar, components.KindPoliceCar},
		{wire.KindOfficer, components.KindOfficer}, {wire.KindGuard, components.KindGuard},
		{wire.KindProjectile, components.KindProjectile}, {wire.KindItem, components.KindItem},
		{wire.KindGate, components.KindGate}, {wire.KindCamera, components.KindCamera},
	}
	for _, k := range kinds {
		if k.w != uint8(k.c) {
			t.Errorf("kind %s: wire %d, components %d", k.c, k.w, k.c)
		}
	}
	if int(wire.KindCamera)+1 != int(components.KindCount) {
		t.Errorf("components has %d kinds, wire mirrors %d", components.KindCount, wire.KindCamera+1)
	}
	acts := [][2]uint8{
		{wire.ActOnFoot, uint8(components.ActOnFoot)}, {wire.ActDriving, uint8(components.ActDriving)},
		{wire.ActPassenger, uint8(components.ActPassenger)}, {wire.ActEntering, uint8(components.ActEntering)},
		{wire.ActExiting, uint8(components.ActExiting)}, {wire.ActDead, uint8(components.ActDead)},
		{wire.ActEmote, uint8(components.ActEmote)},
	}
	for _, a := range acts {
		if a[0] != a[1] {
			t.Errorf("action: wire %d, components %d", a[0], a[1])
		}
	}
	flags := [][2]uint16{
		{wire.FlagSiren, components.FlagSiren}, {wire.FlagHeadlights, components.FlagHeadlights},
		{wire.FlagBraking, components.FlagBraking}, {wire.FlagHorn, components.FlagHorn},
		{wire.FlagWrecked, components.FlagWrecked}, {wire.FlagGhost, components.FlagGhost},
		{wire.FlagLocked, components.FlagLocked}, {wire.FlagOpen, components.FlagOpen},
		{wire.FlagAlert, components.FlagAlert}, {wire.FlagSuspicious, components.FlagSuspicious},
	}
	for _, f := range flags {
		if f[0] != f[1] {
			t.Errorf("flag: wire %#x, components %#x", f[0], f[1])
		}
	}
	events := [][2]uint8{
		{wire.EventShot, uint8(components.EventShot)}, {wire.EventBlast, uint8(components.EventBlast)},
		{wire.EventHit, uint8(components.EventHit)}, {wire.EventCarjack, uint8(components.EventCarjack)},
	}
	for _, e := range events {
		if e[0] != e[1] {
			t.Errorf("event: wire %d, components %d", e[0], e[1])
		}
	}
	// components.Vec3 and Quat convert to the wire's (the sync system relies
	// on it).
	_ = wire.Vec3(components.Vec3{})
	_ = wire.Quat(components.Quat{})
}

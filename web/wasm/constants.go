package main

import (
	"strings"
	"time"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/netsync/wire"
	"github.com/fiveonit/engine/systems/cars"
	"github.com/fiveonit/engine/systems/items"
	"github.com/fiveonit/engine/systems/motion"
	"github.com/fiveonit/engine/systems/seats"
	"github.com/fiveonit/engine/systems/weapons"
)

// Constants returns every number the page's JavaScript shares with the Go
// side, by group and name, each taken from its Go constant. main_js.go
// hands the page this object as foi.constants; the page declares no copy
// of its own (TestJSCopiesNoConstant). The values are ints, float64s and
// lists of ints: what syscall/js and encoding/json both take.
//
//	tickRate      ecs.TickRate
//	kind          components.Kind by its name in camel case (policeCar)
//	vehicleKinds  the kinds of Kind.IsVehicle
//	personKinds   the kinds of Kind.IsPerson
//	act           wire.Act*, flag wire.Flag*, light components.Light*
//	weapon        components.Weapon*
//	key, draw, own  the page's key bits, draw list and draw list's own bits
//	items         systems/items: reach
//	cars          systems/cars: garageReach
//	seats         systems/seats: reach (m from a vehicle's body, where E gets in)
//	grenade       systems/weapons' throw and blast, systems/motion's gravity
//	reconnect     the page's backoff after a drop: Reconnect*, in ms
func Constants() map[string]any {
	kind := map[string]any{}
	var vehicles, people []any
	for k := components.KindNone + 1; k < components.KindCount; k++ {
		kind[camel(k.String())] = int(k)
		if k.IsVehicle() {
			vehicles = append(vehicles, int(k))
		}
		if k.IsPerson() {
			people = append(people, int(k))
		}
	}
	return map[string]any{
		"tickRate":     ecs.TickRate,
		"kind":         kind,
		"vehicleKinds": vehicles,
		"personKinds":  people,
		"act": map[string]any{
			"onFoot": int(wire.ActOnFoot), "driving": int(wire.ActDriving), "passenger": int(wire.ActPassenger),
			"entering": int(wire.ActEntering), "exiting": int(wire.ActExiting), "dead": int(wire.ActDead),
			"emote": int(wire.ActEmote),
		},
		"flag": map[string]any{
			"siren": int(wire.FlagSiren), "headlights": int(wire.FlagHeadlights), "braking": int(wire.FlagBraking),
			"horn": int(wire.FlagHorn), "wrecked": int(wire.FlagWrecked), "ghost": int(wire.FlagGhost),
			"locked": int(wire.FlagLocked), "open": int(wire.FlagOpen), "alert": int(wire.FlagAlert),
			"suspicious": int(wire.FlagSuspicious),
		},
		"light": map[string]any{
			"none": int(components.LightNone), "green": int(components.LightGreen),
			"amber": int(components.LightAmber), "red": int(components.LightRed),
		},
		"weapon": map[string]any{
			"none": int(components.WeaponNone), "pistol": int(components.WeaponPistol),
			"smg": int(components.WeaponSMG), "grenade": int(components.WeaponGrenade),
		},
		"key": map[string]any{
			"up": KeyUp, "down": KeyDown, "left": KeyLeft, "right": KeyRight, "handbrake": KeyHandbrake,
			"sprint": KeySprint, "use": KeyUse, "horn": KeyHorn, "aim": KeyAim, "weapon": KeyWeapon, "pin": KeyPin,
		},
		"draw": map[string]any{
			"eid": DrawEID, "kind": DrawKind, "model": DrawModel, "x": DrawX, "y": DrawY, "yaw": DrawYaw,
			"halfX": DrawHalfX, "halfY": DrawHalfY, "flags": DrawFlags, "act": DrawAct, "player": DrawPlayer,
			"vehicle": DrawVehicle, "own": DrawOwn, "hp": DrawHP, "maxHP": DrawMaxHP, "speed": DrawSpeed,
			"stride": DrawStride,
		},
		"own": map[string]any{
			"predicted": OwnPredicted, "character": OwnCharacter, "watched": OwnWatched,
		},
		"items": map[string]any{"reach": float64(items.Reach)},
		"cars":  map[string]any{"garageReach": float64(cars.GarageReach)},
		"seats": map[string]any{"reach": float64(seats.Reach)},
		"grenade": map[string]any{
			"throwMin": float64(weapons.ThrowMin), "throwMax": float64(weapons.ThrowMax),
			"throwAngle": float64(weapons.ThrowAngle), "throwHeight": float64(weapons.ThrowHeight),
			"chargeTicks": int(weapons.ChargeTicks), "blastRadius": float64(weapons.BlastRadius),
			"gravity": float64(motion.Gravity),
		},
		"reconnect": map[string]any{
			"tries": ReconnectTries, "firstMs": int(ReconnectFirst / time.Millisecond),
			"maxMs": int(ReconnectMax / time.Millisecond),
		},
	}
}

// camel turns a kind's name ("police-car") into the page's ("policeCar").
func camel(name string) string {
	parts := strings.Split(name, "-")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

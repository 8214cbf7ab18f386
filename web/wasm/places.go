package main

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/fiveonit/engine/levels"
)

// The places of a level the page labels on the map and the minimap: its
// shops, containers, garages and their bays, hospital and police station,
// and its safe and restricted zones, each with a title a player reads.
//
// The levels name their places by id only ("corner-shop", "yard-crate-0",
// "garage"), so the titles are derived here from the ids (Title): the
// words of the id, the first capitalised, a trailing number counted from
// one ("Yard crate 1"). One function gives every title the page shows: the
// labels, the shop, container and garage windows.

// Place is one labelled place of the level.
type Place struct {
	// Kind is what it is: "shop", "container", "garage", "bay",
	// "hospital", "police", "zone".
	Kind  string  `json:"kind"`
	ID    string  `json:"id"`
	Title string  `json:"title"`
	X     float32 `json:"x"`
	Y     float32 `json:"y"`
	// Yaw is a bay's heading, radians.
	Yaw float32 `json:"yaw,omitempty"`
	// Sub is a container's kind ("crate", "locker") or a zone's ("safe",
	// "restricted").
	Sub string `json:"sub,omitempty"`
	// Locked is a container's lock.
	Locked bool `json:"locked,omitempty"`
	// Garage is a bay's garage, and N its number, from 1.
	Garage string `json:"garage,omitempty"`
	N      int    `json:"n,omitempty"`
}

// Title returns the title of a place whose id is id: its words, the first
// capitalised, a last word that is a number counted from one
// ("yard-crate-0" is "Yard crate 1").
func Title(id string) string {
	words := strings.FieldsFunc(id, func(r rune) bool { return r == '-' || r == '_' || r == ' ' })
	if len(words) == 0 {
		return id
	}
	if n, err := strconv.Atoi(words[len(words)-1]); err == nil && n >= 0 && len(words) > 1 {
		words[len(words)-1] = strconv.Itoa(n + 1)
	}
	words[0] = strings.ToUpper(words[0][:1]) + words[0][1:]
	return strings.Join(words, " ")
}

// Places returns the labelled places of level l.
func Places(l *levels.Level) []Place {
	out := []Place{}
	for _, s := range l.Shops {
		out = append(out, Place{Kind: "shop", ID: s.ID, Title: Title(s.ID), X: s.Pos.X, Y: s.Pos.Y})
	}
	for _, c := range l.Containers {
		out = append(out, Place{Kind: "container", ID: c.ID, Title: Title(c.ID), X: c.Pos.X, Y: c.Pos.Y, Sub: string(c.Kind), Locked: c.Locked})
	}
	for _, v := range l.VehicleSpawners {
		if v.Garage == "" || len(v.Bays) == 0 {
			continue
		}
		x, y := centroid(l, v.Garage)
		if x == 0 && y == 0 {
			for _, b := range v.Bays {
				x += b.Pos.X / float32(len(v.Bays))
				y += b.Pos.Y / float32(len(v.Bays))
			}
		}
		out = append(out, Place{Kind: "garage", ID: v.Garage, Title: Title(v.Garage), X: x, Y: y})
		for i, b := range v.Bays {
			n := i + 1
			out = append(out, Place{Kind: "bay", ID: v.Garage, Title: "Bay " + strconv.Itoa(n), X: b.Pos.X, Y: b.Pos.Y,
				Yaw: b.Yaw, Garage: v.Garage, N: n})
		}
	}
	for _, b := range l.Buildings {
		if b.Use != levels.UseHospital && b.Use != levels.UsePolice {
			continue
		}
		x, y := centroid(l, b.ID)
		out = append(out, Place{Kind: string(b.Use), ID: b.ID, Title: Title(b.ID), X: x, Y: y})
	}
	for _, z := range l.Zones {
		var x, y float32
		for _, p := range z.Polygon {
			x += p.X / float32(len(z.Polygon))
			y += p.Y / float32(len(z.Polygon))
		}
		out = append(out, Place{Kind: "zone", ID: z.ID, Title: Title(z.ID), X: x, Y: y, Sub: string(z.Kind)})
	}
	return out
}

// centroid returns the middle of the footprint of building id (the mean
// of its corners), (0, 0) when the level has none of that id.
func centroid(l *levels.Level, id string) (x, y float32) {
	for _, b := range l.Buildings {
		if b.ID != id || len(b.Footprint) == 0 {
			continue
		}
		for _, p := range b.Footprint {
			x += p.X / float32(len(b.Footprint))
			y += p.Y / float32(len(b.Footprint))
		}
		return x, y
	}
	return 0, 0
}

// PlacesJSON returns the places of the level the welcome named, as JSON,
// "[]" before the level is known.
func (p *Page) PlacesJSON() string {
	if !p.levelOK || p.lvl == nil {
		return "[]"
	}
	if p.places == "" {
		b, err := json.Marshal(Places(p.lvl))
		if err != nil {
			return "[]"
		}
		p.places = string(b)
	}
	return p.places
}

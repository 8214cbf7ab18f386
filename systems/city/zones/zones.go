// Package zones answers where a point lies among a level's zones: in a safe
// zone (no damage), in a restricted one (entering it is a crime, unless the
// zone is watched: then the guards and cameras that see the intruder raise
// the alarm). It is the lookup the city, damage and stealth systems share,
// built once per level; it holds no state of a room, so rooms on one level
// may share one.
package zones

import (
	"slices"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/levels"
)

// Zones is the level's safe and restricted zones with their bounding boxes.
// A nil *Zones has no zones.
type Zones struct {
	safe       []zone
	restricted []zone
}

type zone struct {
	index                  int // into Level.Zones
	minX, minY, maxX, maxY float32
	poly                   []levels.Vec2
	watched                bool
}

// New returns the zones of l: the safe zones are those of kind safe and
// those whose ids the game's rules name in safeIDs (a game may make any zone
// safe); the restricted ones those of kind restricted not named safe.
func New(l *levels.Level, safeIDs ...string) *Zones {
	z := &Zones{}
	for i := range l.Zones {
		lz := &l.Zones[i]
		zz := zone{index: i, poly: lz.Polygon, minX: lz.Polygon[0].X, minY: lz.Polygon[0].Y, maxX: lz.Polygon[0].X, maxY: lz.Polygon[0].Y}
		for _, p := range lz.Polygon {
			zz.minX, zz.minY = min(zz.minX, p.X), min(zz.minY, p.Y)
			zz.maxX, zz.maxY = max(zz.maxX, p.X), max(zz.maxY, p.Y)
		}
		switch {
		case lz.Kind == levels.ZoneSafe || slices.Contains(safeIDs, lz.ID):
			z.safe = append(z.safe, zz)
		case lz.Kind == levels.ZoneRestricted:
			zz.watched = watched(l, lz.Polygon)
			z.restricted = append(z.restricted, zz)
		}
	}
	return z
}

// watched reports whether a guard spawner of l or one of its cameras stands
// inside poly.
func watched(l *levels.Level, poly []levels.Vec2) bool {
	for i := range l.NPCSpawners {
		if s := &l.NPCSpawners[i]; s.Role == levels.NPCGuard && levels.PointInPolygon(s.Pos, poly) {
			return true
		}
	}
	for i := range l.Cameras {
		if levels.PointInPolygon(l.Cameras[i].Pos, poly) {
			return true
		}
	}
	return false
}

// Watched reports whether the restricted zone of level index i has guards
// (a guard spawner stands in it) or cameras in it. Entering a watched zone
// is no crime by itself: the stealth system files the crime when a guard or
// a camera sees the intruder there.
func (z *Zones) Watched(i int) bool {
	if z == nil {
		return false
	}
	for k := range z.restricted {
		if z.restricted[k].index == i {
			return z.restricted[k].watched
		}
	}
	return false
}

// Safe reports whether p lies in a safe zone.
func (z *Zones) Safe(p components.Vec3) bool {
	if z == nil {
		return false
	}
	return find(z.safe, p) >= 0
}

// Restricted returns the index (into the level's Zones) of the restricted
// zone p lies in, or -1.
func (z *Zones) Restricted(p components.Vec3) int {
	if z == nil {
		return -1
	}
	return find(z.restricted, p)
}

// Len returns the numbers of safe and restricted zones.
func (z *Zones) Len() (safe, restricted int) {
	if z == nil {
		return 0, 0
	}
	return len(z.safe), len(z.restricted)
}

// find returns the level index of the first zone of list holding p, or -1.
func find(list []zone, p components.Vec3) int {
	for i := range list {
		zz := &list[i]
		if p.X < zz.minX || p.X > zz.maxX || p.Y < zz.minY || p.Y > zz.maxY {
			continue
		}
		if levels.PointInPolygon(levels.Vec2{X: p.X, Y: p.Y}, zz.poly) {
			return zz.index
		}
	}
	return -1
}

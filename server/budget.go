package server

import (
	"errors"
	"fmt"

	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/netsync/wire"
)

// A client's downstream is a budget (Config.ClientKbps): each snapshot's
// pose changes go by priority until the snapshot's share is spent
// (netsync's budget: the client's own, the new and the removed entities,
// states and stops always go), and the client's bytes over time are held
// to it by a credit. Each of its snapshot ticks adds the snapshot's share
// to the credit, at most a second's worth; each frame sent takes its
// bytes; a snapshot tick whose credit is below zero sends nothing, and
// the next frame carries what it would have. So a client costs at most
// its budget, a keyframe and one that never acknowledges included, and a
// frame larger than its share (a busy keyframe) is paid for by the
// snapshots after it. The first keyframe of a session is free: a joining
// client waits for nothing but it. An acked client in debt still gets a
// frame before its acknowledged base expires (baseExpires), and pays for
// it after.

// Bounds of Config.ClientKbps (-client-kbps): Quake 3 clamps its rate to
// 8 to 720 kbps.
const (
	// DefaultClientKbps is a client's budget when the Config names none:
	// 128 kbps, 16 KB/s, 800 bytes per snapshot.
	DefaultClientKbps = 128
	MinClientKbps     = 8
	MaxClientKbps     = 8000
)

// ErrClientKbps is returned by New for a Config.ClientKbps out of its
// range.
var ErrClientKbps = errors.New("server: a client's budget is 8 to 8000 kbps")

// snapshotsPerSecond is how many snapshots a client gets a second.
const snapshotsPerSecond = ecs.TickRate / wire.SnapshotEvery

// budgetOf returns the bytes of one snapshot's share of kbps, and the
// most a client's credit holds: a second's worth.
func budgetOf(kbps int) (share, most int) {
	perSecond := kbps * 1000 / 8
	return perSecond / snapshotsPerSecond, perSecond
}

// checkClientKbps fills in the default and refuses a budget out of range.
func checkClientKbps(kbps int) (int, error) {
	switch {
	case kbps == 0:
		return DefaultClientKbps, nil
	case kbps < MinClientKbps || kbps > MaxClientKbps:
		return 0, fmt.Errorf("%w, not %d", ErrClientKbps, kbps)
	}
	return kbps, nil
}

// afford adds s's snapshot share to its credit and reports whether s may
// be sent a snapshot now.
func (s *Session) afford(share, most int) bool {
	s.credit = min(s.credit+share, most)
	return s.credit >= 0
}

// baseExpires reports whether s, an acked client held back by its credit,
// must have its frame of tick, the arena's, to keep its acknowledged base.
// At its next snapshot tick the base would be older than wire.MaxPoseAge,
// and the frame a keyframe. A keyframe of a crowded room costs more than
// the credit earns in MaxPoseAge ticks, so the base of the frame after it
// would expire as well, and the client would get nothing but keyframes.
// The frame is paid for like any other.
func (s *Session) baseExpires(tick uint32) bool {
	ack := s.snap.AckedEncoder()
	if ack == nil {
		return false
	}
	base, ok := ack.AckedBase()
	age := tick - base
	return ok && age <= wire.MaxPoseAge && age+wire.SnapshotEvery > wire.MaxPoseAge
}

// spend takes a frame of n bytes from s's credit; the first keyframe of
// the session is free.
func (s *Session) spend(n int, first bool) {
	if !first {
		s.credit -= n
	}
}

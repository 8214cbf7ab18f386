// Package social is a room's social side as pure logic: the roster's lines,
// the chat channel with its bounds and its moderation hook, the quick-chat
// lines and the emotes, the votes to kick, and the parties. It has no
// sockets, no clock and no goroutines of its own: the server calls it from
// its room goroutine with the room's tick as the time, turns what it
// returns into text frames, and delivers a moderator's late verdict back
// to its tick.
//
// Players are named by their session number in the room (a uint32, the
// server's), which is never given twice in a room's life.
package social

import "github.com/fiveonit/engine/ecs"

// ticks is d seconds of room time in ticks.
func ticks(seconds int) uint64 { return uint64(seconds * ecs.TickRate) }

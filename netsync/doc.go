// Package netsync is the server's side of the snapshots: once per tick the
// Arena quantizes every replicated entity into its record (package wire's
// layout), and one Encoder per client writes that client's delta snapshot
// from the arena every SnapshotEvery ticks.
//
// The work is split in two so that the acked snapshots can share it. The
// first part computes what the client holds after each frame, S(N): its
// area of interest, tiers, due poses, rests, pose modes and new lives. The
// encoder then serializes the changes that led there against its base,
// which for the ordered snapshots is the frame before. The wire format is
// in wire/PROTOCOL.md.
//
// Nothing here allocates in a steady state: the arena and the client states
// are flat slices indexed by wire id or slot, grown to the highest id seen,
// and every frame is written into the encoder's reused buffer.
package netsync

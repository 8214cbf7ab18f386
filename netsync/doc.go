// Package netsync is the server's side of the snapshots: once per tick the
// Arena quantizes every replicated entity into its record (package wire's
// layout), and one Encoder per client writes that client's delta snapshot
// from the arena every SnapshotEvery ticks.
//
// Both kinds of snapshot share one computation of what the client holds
// after each frame, S(N): its area of interest, tiers, due poses, rests,
// pose modes and new lives. It writes the ordered delta, S(N-1) to S(N), as
// it goes. The ordered Encoder sends that delta. The AckedEncoder keeps
// the deltas of its last frames and sends those since the frame the client
// acknowledged, one after the other. The wire format is in
// wire/PROTOCOL.md.
//
// Nothing here allocates in a steady state: the arena and the client states
// are flat slices indexed by wire id or slot, grown to the highest id seen,
// and every frame is written into the encoder's reused buffer.
package netsync

// Package serve runs the game server: the rooms, their transports and the
// account store behind two HTTP listeners. The public one serves the
// rooms' routes and the web page; the admin one serves the metrics, pprof,
// the join tokens and the probes /healthz and /readyz, on 127.0.0.1 by
// default. In a fleet on Kubernetes it talks to Agones (package
// fleet/agones): Ready, health, labels, counts, allocations, Shutdown.
//
// Command server parses its flags into a Config and calls Run. Start,
// Wait, Drain and Shutdown are Run's steps, for a caller that does more
// between them. Each job has its file: config.go checks the settings,
// log.go sets up the logging, store.go opens the account store, rooms.go
// starts the rooms and the WebRTC transport, public.go and admin.go make
// the two listeners' handlers, health.go the probes, agones.go the link to
// Agones, server.go starts them, and drain.go stops them.
package serve

// Command server runs the game server: the default room on the embedded
// main-city level from start, more rooms on demand, the web page at /, and
// an admin listener (pprof, metrics) on 127.0.0.1.
//
//	go run ./cmd/server
//
// The reference for running it (limits, logs, metrics, accounts) is
// docs/operations.md; the commands and text frames are docs/commands.md.
//
// # Flags
//
// Every flag has an environment variable that sets its default; a flag
// given on the command line wins. Booleans take 1, 0, true, false (Go's
// strconv.ParseBool); durations take Go's syntax (30s, 1m30s). A value
// that does not parse, from either, is an error: the server exits 2,
// naming the variable (or the flag) and what it takes. TestFlagsDocumented
// holds this list and the table of docs/operations.md to the flags the
// binary defines.
//
//   - -addr, FOI_ADDR, default :8080: the public listener: the web page, GET
//     /rooms, the joins (GET /rooms/{name} WebSocket, POST /rooms/{name}/rtc
//     WebRTC), GET /levels/{name}.
//   - -admin-addr, FOI_ADMIN_ADDR, default 127.0.0.1:6060: the admin listener:
//     /metrics (Prometheus), /debug/pprof/, POST /tokens (join tokens for a
//     platform), and /healthz and /readyz (Kubernetes' probes); never on the
//     public listener. Keep it on a private address.
//   - -level, FOI_LEVEL, default main-city: the default room's level, and a new
//     room's when its join names none.
//   - -game, FOI_GAME, default free-roam: the default room's game, and a new
//     room's when its join names none: free-roam or city-jobs
//     (games/FORMAT.md); an unknown game is an error.
//   - -secret, FOI_SECRET, default random per run: the HS256 join token
//     secret, at least 16 bytes; without it tokens are signed with a random
//     secret that dies with the process (a warning is logged). It is an error
//     when -jwt-algs does not take HS256.
//   - -jwt-algs, FOI_JWT_ALGS, default HS256: the join token algorithms the
//     server accepts, comma-separated: HS256 (signed with -secret; POST
//     /tokens mints them), EdDSA (Ed25519) and RS256 (signed by the
//     platform, checked with -jwt-keys). A token's own header never widens
//     it; alg none is never accepted. Without HS256 the server holds no
//     secret and mints no token (docs/operations.md, Join tokens).
//   - -jwt-keys, FOI_JWT_KEYS, default none: the platform's public keys for
//     EdDSA and RS256 tokens: a JWKS file, or an http or https URL, read at
//     start (a start that cannot read it fails) and again every 5 minutes,
//     and at once for a key id it lacks (at most every 10 s); a read that
//     fails keeps the last keys and logs a warning.
//   - -origins, FOI_ORIGINS, default none: comma-separated browser origins
//     allowed to join over WebSocket besides the server's own (e.g.
//     localhost:5173).
//   - -any-origin, FOI_ANY_ORIGIN, default false: allow WebSocket joins from
//     any origin (development only).
//   - -debug, FOI_DEBUG, default false: honour every client's debug commands
//     (they are always on in a test-* level's room, and for a join token that
//     carries debug).
//   - -debug-accounts, FOI_DEBUG_ACCOUNTS, default none: comma-separated
//     accounts whose debug commands are honoured in every room, as for a join
//     token that carries debug.
//   - -chat-words, FOI_CHAT_WORDS, default none: a file of words the chat
//     refuses, one per line (# starts a comment), matched as whole words
//     whatever their case.
//   - -moderation-url, FOI_MODERATION_URL, default none: an http or https URL
//     each chat message is POSTed to before it is relayed, after the word list
//     (docs/commands.md, the room's social side); it fails closed.
//   - -moderation-timeout, FOI_MODERATION_TIMEOUT, default 2s: how long a
//     message waits for the moderation service before it is refused.
//   - -admin-token, FOI_ADMIN_TOKEN, default empty: the bearer token the
//     admin listener's run routes ask for (POST /runs makes a run room,
//     POST /runs/{room}/seats adds a seat; docs/operations.md), and POST
//     /tokens too once it is set. Empty turns the run routes off.
//   - -grace, FOI_GRACE, default 30s: how long an empty room other than the
//     default stays open.
//   - -rejoin-window, FOI_REJOIN_WINDOW, default 30s: how long a room holds
//     the place of a player whose connection dropped (not one who left):
//     their character and car stay in the world, input held, for them to
//     take back with their reconnect token or their account; 0 holds none,
//     at most 10m. A run room holds its players' places a minute.
//   - -max-rooms, FOI_MAX_ROOMS, default 64: the most rooms open at once, the
//     default room among them: any join may open a room, so size it for the
//     machine (a main-city room took ~0.2 ms a tick empty and ~0.5 ms with 8
//     bots on this 2-core machine: foi_tick_seconds); a join that would open
//     one more is closed with the reason.
//   - -max-rooms-from, FOI_MAX_ROOMS_FROM, default 8: the most rooms open at
//     once that joins from one address (the connection's, not a proxy's header)
//     made, so that one client cannot take all of -max-rooms; players behind
//     one NAT share it. A join that would make one more is closed with the
//     reason (over WebRTC: 429); joins to open rooms are not bounded by it.
//   - -max-players, FOI_MAX_PLAYERS, default 64: the most players per room, 1
//     to 1024 (server.MaxPlayers): every per-player list of a room, its
//     systems' included, is sized by it when the room is made; a join to a
//     full room is closed with "room full" (over WebRTC: 503). Out of range,
//     the server exits 2 naming the flag and the range.
//   - -client-kbps, FOI_CLIENT_KBPS, default 128: each client's downstream
//     budget in kilobits per second, 8 to 8000. Each snapshot's pose changes go
//     by priority, near and long-waiting first, until its share is spent; the
//     client's own, new and removed entities, states and stops always go. Out
//     of range, the server exits 2 naming the flag and the range.
//   - -max-players-from, FOI_MAX_PLAYERS_FROM, default 64: the most players
//     joined from one address (the connection's) in all the rooms together, so
//     that one client cannot take the places of every room; players behind one
//     NAT share it. A join past it is closed with the reason (over WebRTC:
//     429).
//   - -drain-timeout, FOI_DRAIN_TIMEOUT, default 0s: on SIGTERM or SIGINT:
//     how long the players get before their rooms close. From the signal on
//     the server is not ready (/readyz), no new player joins (the refusal
//     gives the time left), every player gets a notice with the time left,
//     and a run still playing ends with a result 5 s before the end; the
//     drain ends sooner once nobody plays. 0 closes the rooms at once. The
//     whole shutdown takes at most -drain-timeout plus -drain.
//   - -drain, FOI_DRAIN, default 5s: then how long the shutdown waits for the
//     rooms to close their clients (each gets the close reason "server
//     shutting down"), for every account to be written and for the
//     connections to end; the process exits 0 once drained, 1 if this ran
//     out of time.
//   - -agones, FOI_AGONES, default false: talk to the Agones SDK server (the
//     sidecar of a GameServer pod) over its REST API at
//     localhost:$AGONES_SDK_HTTP_PORT (9358 when unset): Ready once the rooms
//     take players, a health ping while /healthz passes, the labels rooms and
//     players, the counter rooms and the list players where the fleet
//     declares them, a run room for an allocation that names one, and
//     Shutdown after the drain. On by itself when AGONES_SDK_HTTP_PORT is
//     set, as Agones sets it.
//   - -agones-health, FOI_AGONES_HEALTH, default 2s: how often the health ping
//     goes to Agones while the server is healthy (Agones' default check fails
//     after 3 missed pings 5 s apart); at most 1m.
//   - -log-level, FOI_LOG_LEVEL, default info: debug, info, warn or error
//     (debug adds pion's own WebRTC messages).
//   - -log-format, FOI_LOG_FORMAT, default text: text (logfmt, log/slog's
//     TextHandler) or json (one JSON object a line).
//   - -rtc, FOI_RTC, default true: serve WebRTC joins at POST
//     /rooms/{name}/rtc; false answers that route with 404.
//   - -rtc-ips, FOI_RTC_IPS, default every interface, loopback included:
//     comma-separated local IPs the WebRTC host candidates are gathered on.
//     Only loopback addresses (127.0.0.1): a server for this machine only,
//     which also keeps the clients' candidates to loopback ones.
//   - -rtc-public-ips, FOI_RTC_PUBLIC_IPS, default none: comma-separated public
//     IPs announced in place of the host candidates' addresses, for a server
//     behind a 1:1 NAT (there is no STUN or TURN server).
//   - -rtc-ports, FOI_RTC_PORTS, default ephemeral: the UDP port range WebRTC
//     uses, MIN-MAX (e.g. 50000-50999; each client takes one port), for a
//     firewall.
//   - -data, FOI_DATA, default data: the directory of the account store's
//     SQLite file, accounts.db (relative to the working directory; made with
//     the directory if missing; beside it SQLite's -wal and -shm files and the
//     server's .lock). One server process per file: a second one is refused at
//     start.
//   - -store, FOI_STORE, default empty, SQLite in -data: the account store: a
//     postgres:// (or postgresql://) URL for PostgreSQL, shared by a fleet of
//     servers; none keeps nothing (every account starts anew). A store that
//     cannot be opened at start (its schema migrated) stops the server with the
//     reason.
//   - -public-addr, FOI_PUBLIC_ADDR, default http:// and -addr: the URL
//     players reach this process's public listener at (http://host:port or
//     https://host, no path), which the fleet's room directory gives for its
//     rooms; a listener on every interface (:8080) gives the machine's host
//     name.
//   - -directory-ttl, FOI_DIRECTORY_TTL, default 15s: with a PostgreSQL
//     store, the fleet's room directory: this process's rooms are in it, GET
//     /rooms lists every process's, a join to another process's room is
//     sent there, and a room name is the fleet's; a process that stops
//     heartbeating (every third of the TTL) leaves it within the TTL. 0 keeps
//     no directory (docs/operations.md, Running a fleet).
package main

package server

import "github.com/fiveonit/engine/server/conn"

// Conn is a client's connection as the game server sees it (package conn
// documents the contract in full).
type Conn = conn.Conn

// ErrSendFull and ErrClosed are what Conn.Send returns for a full queue and
// a closed connection (conn.ErrSendFull, conn.ErrClosed).
var (
	ErrSendFull = conn.ErrSendFull
	ErrClosed   = conn.ErrClosed
)

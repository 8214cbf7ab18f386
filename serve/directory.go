package serve

import (
	"context"
	"net"
	"os"

	"github.com/fiveonit/engine/fleet/directory"
	"github.com/fiveonit/engine/store/postgres"
)

// openDirectory opens the fleet's room directory (fleet/directory) in the
// PostgreSQL store's database, this process registered at its public
// address, unless DirectoryTTL is 0. With another store there is none:
// one process, its rooms its own. The listeners are open: an address left
// to the default takes the public listener's port.
func (s *Server) openDirectory(ctx context.Context) error {
	pg, ok := s.store.(*postgres.Store)
	if !ok || s.c.DirectoryTTL == 0 {
		if s.c.PublicAddr != "" {
			s.log.Warn("-public-addr is the fleet's room directory's, which needs a PostgreSQL -store and a -directory-ttl above 0: ignored")
		}
		return nil
	}
	addr := s.c.PublicAddr
	if addr == "" {
		addr = s.defaultPublicAddr()
	}
	ctx, cancel := context.WithTimeout(ctx, openTimeout)
	defer cancel()
	d, err := directory.Open(ctx, pg.Pool(), directory.Config{Addr: addr, TTL: s.c.DirectoryTTL, Log: s.log,
		Rooms: func() []directory.Room {
			if m := s.ready.Load(); m != nil {
				return m.DirectoryRooms()
			}
			return nil
		}})
	if err != nil {
		return err
	}
	s.dir = d
	s.log.Info("room directory", "public_addr", addr, "ttl", s.c.DirectoryTTL, "id", d.ID())
	return nil
}

// defaultPublicAddr is http:// and the public listener's address, the
// machine's host name in place of an address of every interface (which
// it warns of: the other processes' players may not reach that name).
func (s *Server) defaultPublicAddr() string {
	host, port, _ := net.SplitHostPort(s.Addr())
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host, _ = os.Hostname()
		s.log.Warn("no -public-addr: the room directory sends joins for this process's rooms to its host name; set -public-addr to the address players reach", "host", host)
	}
	return "http://" + net.JoinHostPort(host, port)
}

// closeDirectory takes this process and its rooms out of the directory.
func (s *Server) closeDirectory(ctx context.Context) error {
	if s.dir == nil {
		return nil
	}
	return s.dir.Close(ctx)
}

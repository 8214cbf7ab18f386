//go:build unix

package sqlite

import (
	"fmt"
	"os"
	"syscall"
)

// lock takes an exclusive flock on the file at path (made if need be), or
// fails with ErrInUse. The lock goes with the process: a killed server's
// lock is free at once.
func lock(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("store/sqlite: lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if err == syscall.EWOULDBLOCK {
			return nil, fmt.Errorf("%w: %s is locked", ErrInUse, path)
		}
		return nil, fmt.Errorf("store/sqlite: lock %s: %w", path, err)
	}
	return func() { f.Close() }, nil // closing the file lets go of the lock
}

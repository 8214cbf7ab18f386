//go:build !unix

package sqlite

// lock does nothing where flock is missing: the operator keeps to one
// server process per file.
func lock(path string) (unlock func(), err error) { return func() {}, nil }

package pgtest

import (
	"errors"
	"fmt"
	"os"
	"testing"
)

// Main runs a package's tests, m, against a server it starts before them
// and stops after, and returns their exit code for os.Exit. *srv is the
// server, nil where PostgreSQL is missing, and then *skip says why: the
// tests skip with it. Any other failure to start ends the run.
func Main(m *testing.M, srv **Server, skip *string) int {
	s, err := Start()
	switch {
	case errors.Is(err, ErrMissing):
		*skip = err.Error()
	case err != nil:
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	*srv = s
	code := m.Run()
	if s != nil {
		s.Stop()
	}
	return code
}

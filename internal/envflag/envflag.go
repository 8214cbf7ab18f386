// Package envflag lets environment variables set the defaults of a
// command's flags: each flag has its variable, and a flag given on the
// command line wins. A value that does not parse is an error, as a bad
// flag is: a command run on settings other than its operator's is worse
// than none.
package envflag

import (
	"flag"
	"fmt"
	"os"
)

// Set sets each flag of fs that pairs names from its environment variable,
// when that is set: pairs[i] is {flag name, variable}, in the order the
// errors are looked for. Call it before fs.Parse. A value that does not
// parse is an error naming the variable, its value, the flag and what the
// flag takes.
func Set(fs *flag.FlagSet, pairs [][2]string) error {
	for _, p := range pairs {
		f := fs.Lookup(p[0])
		if f == nil {
			return fmt.Errorf("%s: no flag -%s", p[1], p[0])
		}
		v, ok := os.LookupEnv(p[1])
		if !ok {
			continue
		}
		if err := fs.Set(p[0], v); err != nil {
			return fmt.Errorf("%s=%q: -%s takes %s: %w", p[1], v, p[0], takes(f), err)
		}
	}
	return nil
}

// takes says what values flag f takes; only those of the kinds below can
// fail to parse.
func takes(f *flag.Flag) string {
	switch kind, _ := flag.UnquoteUsage(f); kind {
	case "":
		return "1, 0, true or false"
	case "int":
		return "a whole number"
	case "uint":
		return "a whole number, 0 or more"
	case "float":
		return "a number"
	case "duration":
		return "a duration such as 30s or 1m30s"
	default:
		return "a " + kind
	}
}

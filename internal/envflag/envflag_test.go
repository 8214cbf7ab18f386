package envflag

import (
	"flag"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// TestSet: a variable that is set gives its flag's default, one unset
// leaves it, a flag on the command line wins, and a value that does not
// parse is an error naming the variable, the flag and what it takes.
func TestSet(t *testing.T) {
	type vals struct {
		b bool
		n int
		u uint64
		f float64
		d time.Duration
		s string
	}
	pairs := [][2]string{{"b", "T_B"}, {"n", "T_N"}, {"u", "T_U"}, {"f", "T_F"}, {"d", "T_D"}, {"s", "T_S"}}
	parse := func(t *testing.T, env map[string]string, args ...string) (vals, error) {
		t.Helper()
		for _, p := range pairs {
			t.Setenv(p[1], env[p[1]]) // restores the variable after the test
			if _, ok := env[p[1]]; !ok {
				os.Unsetenv(p[1])
			}
		}
		var v vals
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.BoolVar(&v.b, "b", true, "")
		fs.IntVar(&v.n, "n", 1, "")
		fs.Uint64Var(&v.u, "u", 1, "")
		fs.Float64Var(&v.f, "f", 1, "")
		fs.DurationVar(&v.d, "d", time.Second, "")
		fs.StringVar(&v.s, "s", "def", "")
		if err := Set(fs, pairs); err != nil {
			return v, err
		}
		return v, fs.Parse(args)
	}
	def := vals{true, 1, 1, 1, time.Second, "def"}
	for _, c := range []struct {
		name    string
		env     map[string]string
		args    []string
		want    vals
		wantErr string
	}{
		{name: "unset", want: def},
		{name: "every variable", env: map[string]string{"T_B": "0", "T_N": "-3", "T_U": "4", "T_F": "0.5", "T_D": "1m", "T_S": ""},
			want: vals{false, -3, 4, 0.5, time.Minute, ""}},
		{name: "flags win", env: map[string]string{"T_N": "3", "T_S": "env"}, args: []string{"-n", "5", "-s", "flag"},
			want: vals{true, 5, 1, 1, time.Second, "flag"}},
		{name: "bool", env: map[string]string{"T_B": "yes"}, wantErr: `T_B="yes": -b takes 1, 0, true or false`},
		{name: "int", env: map[string]string{"T_N": "many"}, wantErr: `T_N="many": -n takes a whole number`},
		{name: "uint", env: map[string]string{"T_U": "-1"}, wantErr: `T_U="-1": -u takes a whole number, 0 or more`},
		{name: "float", env: map[string]string{"T_F": "half"}, wantErr: `T_F="half": -f takes a number`},
		{name: "duration", env: map[string]string{"T_D": "10"}, wantErr: `T_D="10": -d takes a duration`},
		{name: "empty int", env: map[string]string{"T_N": ""}, wantErr: `T_N=""`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := parse(t, c.env, c.args...)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err %v, want one with %q", err, c.wantErr)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
}

// TestSetNoSuchFlag: a pair that names no flag is the command's mistake,
// reported whether its variable is set or not.
func TestSetNoSuchFlag(t *testing.T) {
	t.Setenv("T_X", "1")
	os.Unsetenv("T_X")
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	if err := Set(fs, [][2]string{{"x", "T_X"}}); err == nil || !strings.Contains(err.Error(), "-x") {
		t.Fatalf("err %v, want one naming -x", err)
	}
}

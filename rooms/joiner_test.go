package rooms

import (
	"strings"
	"testing"
	"time"
)

// TestJoinerName: a join without a token plays under the name its query
// gives; one too long is let go; a token's name is the token's, not the
// query's (a token is refused here: no verifier, so the query's name never
// stands in for it).
func TestJoinerName(t *testing.T) {
	for _, c := range []struct {
		name string
		q    map[string][]string
		want string
	}{
		{"no name", map[string][]string{}, ""},
		{"a name", map[string][]string{"name": {"Robin"}}, "Robin"},
		{"too long", map[string][]string{"name": {strings.Repeat("x", maxName+1)}}, ""},
	} {
		who, err := Joiner(nil, "default", c.q, time.Now())
		if err != nil || who.Name != c.want {
			t.Errorf("%s: name %q, err %v; want %q", c.name, who.Name, err, c.want)
		}
	}
	if who, err := Joiner(nil, "default", map[string][]string{"name": {"Robin"}, "token": {"x"}}, time.Now()); err == nil || who.Name != "" {
		t.Errorf("a token with no verifier: name %q, err %v; want refused, no name", who.Name, err)
	}
}

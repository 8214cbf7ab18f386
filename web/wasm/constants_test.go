package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fiveonit/engine/components"
)

// TestConstants: every group of Constants names each value once; the kinds
// are every kind but none; the draw list's fields are 0 up to its stride,
// once each; the object goes to JSON as it goes to the page.
func TestConstants(t *testing.T) {
	c := Constants()
	for group, v := range c {
		m, ok := v.(map[string]any)
		if !ok {
			continue
		}
		seen := map[float64]string{}
		for name, x := range m {
			f, ok := number(x)
			if !ok {
				t.Errorf("%s.%s is %T, not a number", group, name, x)
				continue
			}
			if other, dup := seen[f]; dup && group != "items" && group != "cars" && group != "grenade" {
				t.Errorf("%s.%s and %s.%s are both %v", group, name, group, other, f)
			}
			seen[f] = name
		}
	}
	kinds := c["kind"].(map[string]any)
	if len(kinds) != int(components.KindCount)-1 || kinds["policeCar"] != int(components.KindPoliceCar) || kinds["camera"] != int(components.KindCamera) {
		t.Errorf("kinds %v", kinds)
	}
	draw := c["draw"].(map[string]any)
	var idx []int
	for name, v := range draw {
		if name != "stride" {
			idx = append(idx, v.(int))
		}
	}
	slices.Sort(idx)
	if len(idx) != DrawStride || idx[0] != 0 || idx[len(idx)-1] != DrawStride-1 || draw["stride"] != DrawStride {
		t.Errorf("draw fields %v, stride %v", idx, draw["stride"])
	}
	if vk := fmt.Sprint(c["vehicleKinds"]); vk != fmt.Sprint([]any{int(components.KindCar), int(components.KindTrailer), int(components.KindPoliceCar)}) {
		t.Errorf("vehicle kinds %s", vk)
	}
	if _, err := json.Marshal(c); err != nil {
		t.Error(err)
	}
}

func number(x any) (float64, bool) {
	switch v := x.(type) {
	case int:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

// pageOwn are the numbers in the page's JavaScript under a constant's name
// (UPPER_CASE) that are the page's own choices, with no Go constant behind
// them.
var pageOwn = map[string]string{
	"NOTICE_MS":    "missions.js: how long a notice stays",
	"CALL_NOTE_MS": "carcall.js: how long a refusal or an arrival of your car shows",
	"CAUGHT_M":     "carcall.js: how near its arrival place the drawn car must come for the blip to follow it",
	"CHAT_LINES":   "social.js: the lines the chat box shows",
	"CHAT_FADE":    "social.js: how long a chat line stays once the box is closed",
	"TRACER_MS":    "combat.js: how long a tracer shows",
	"SPARK_MS":     "combat.js: how long a hit's spark shows",
	"BLAST_MS":     "combat.js: how long a blast's flash shows",
	"MARKER_MS":    "combat.js: how long a hit marker shows on the crosshair",
	"HURT_MS":      "combat.js: how long the arc toward what hurt you shows",
	"NOTE_MS":      "combat.js: how long the note after a respawn shows",
	"MINI":         "map.js: the minimap's side, CSS pixels",
	"MINI_MS":      "map.js: how often the minimap is drawn",
	"ROUTE_MS":     "map.js: how often the route is worked out",
	"LABEL_RANGE":  "map.js: how near a place is labelled on the view",
	"HINT_MS":      "hud.js: how long the first-run hint stays",
	"MAX_STARS":    "hud.js: the stars the Wanted meter shows (the police system's most)",
	"ALERT_RANGE":  "stealth.js: how near a restricted zone the room's alert shows",
	"HEAR_RANGE":   "sound.js: how far a sound carries",
	"SIREN_LOW":    "sound.js: the siren's low note",
	"SIREN_HIGH":   "sound.js: the siren's high note",
	"SIREN_PERIOD": "sound.js: the siren's wail, seconds",
	"VOLUME":       "sound.js: the sound's loudness",
}

// TestJSCopiesNoConstant reads the page's JavaScript (web/static, but for
// wasm_exec.js, the Go distribution's) and fails on any copy of a number
// the Go side hands the page in Constants (foi.constants). See checkJS for
// what it finds.
func TestJSCopiesNoConstant(t *testing.T) {
	names, err := filepath.Glob("../static/*.js")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, n := range names {
		if filepath.Base(n) == "wasm_exec.js" {
			continue
		}
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(n)] = string(b)
	}
	if files["client.js"] == "" || len(files) < 8 {
		t.Fatalf("read %d files of the page: %v", len(files), names)
	}
	for _, p := range checkJS(Constants(), files) {
		t.Error(p)
	}
}

// TestCheckJSFails: checkJS finds each kind of copy, and passes what is
// no copy.
func TestCheckJSFails(t *testing.T) {
	files := map[string]string{
		"client.js": "const C = foi.constants;\nexport const K = C.kind;\nexport const F = C.flag;\nexport const TICK_RATE = C.tickRate;\nexport const Z = C.nothing;\n",
		"a.js": `// const F_LOCKED = 64 in a comment is no copy.
const s = "K_CAR = 2 in a string is none either";
const F_LOCKED = 64, GREEN = 1 << 0;
let tickRate = 60;
const colours = { NONE: 0, [F.open]: "#fff" };
const NOTICE_MS = 4, SCALE = K.car * 2, W = 200;
x = b ? NONE : 3;
if (flags & 16) drawIt(f[b + 8]);
if (k === K.car || k === K.carr || f[b] & F.locked) go(C.tickRate);
`,
	}
	got := checkJS(Constants(), files)
	want := []string{
		"client.js: C.nothing is no group of Constants",
		`a.js:3: F_LOCKED = 64: a copy of a Go constant (a name in capitals bound to a number), or a page's own number missing from pageOwn`,
		`a.js:3: GREEN = 1 << 0: a copy of a Go constant (a name in capitals bound to a number), or a page's own number missing from pageOwn`,
		"a.js:3: F_LOCKED = 64: a copy of flag.locked",
		"a.js:3: GREEN = 1 << 0: a copy of light.green",
		"a.js:4: tickRate = 60: a copy of tickRate",
		`a.js:5: NONE: 0: a copy of a Go constant (a name in capitals bound to a number), or a page's own number missing from pageOwn`,
		"a.js:5: NONE: 0: a copy of light.none or weapon.none",
		"a.js:8: & 16: a bit mask written as a number",
		"a.js:8: [b + 8]: a place in the draw list written as a number",
		"a.js:9: K.carr: kind has no carr",
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("found:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

var (
	// binding is a name bound to a number: a declaration or an assignment
	// (const A = 1, B = 2; A = 3) or an object's property ({A: 1, b: 2}).
	// The name is not a property read (a.b = 1) nor the middle of a
	// ternary (c ? a : 1). What follows the number must end the binding
	// (checkJS looks: RE2 has no lookahead).
	binding = regexp.MustCompile(`(?m)(?:^|[{,;(]|\bconst|\blet|\bvar)\s*([A-Za-z_$][\w$]*)\s*(=|:)\s*(-?(?:0[xX][0-9a-fA-F]+|\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+)(?:\s*<<\s*\d+)?)`)
	upper   = regexp.MustCompile(`^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$`)
	mask    = regexp.MustCompile(`(?:[^&|]|^)[&|]\s*((?:0[xX][0-9a-fA-F]+|\d+))\b|\b(\d+)\s*[&|](?:[^&|]|$)`)
	drawAt  = regexp.MustCompile(`\[\s*[A-Za-z_$][\w$]*\s*\+\s*\d+\s*\]`)
	alias   = regexp.MustCompile(`export const ([A-Za-z_$][\w$]*) = C\.(\w+);`)
	group   = regexp.MustCompile(`\bC\.(\w+)`)
)

// checkJS returns what it finds in the page's files (name to source) that
// copies a number of consts (Constants) rather than reading it there:
//   - a name in capitals (two characters or more) bound to a number, as a
//     declaration or an object's property (const F_LOCKED = 64,
//     {NONE: 0}), but for the page's own numbers (pageOwn);
//   - any name bound to a constant's value whose name is the constant's,
//     in any case and with or without its group or a prefix (tickRate = 60,
//     KEY_UP = 1, REACH = 2.5);
//   - a bit mask written as a number (flags & 16);
//   - a place in the draw list written as a number (f[b + 8]);
//   - a use of a group client.js exports (K.car) that names no constant
//     of it: undefined in the page, where a comparison is quietly false;
//     and a group client.js reads (C.kind) that Constants does not have.
//
// Comments and strings are left out first.
func checkJS(consts map[string]any, files map[string]string) []string {
	var found []string
	// The constants by normalised name: "locked" and "flaglocked" are
	// flag.locked; "tickrate" is tickRate.
	type constant struct {
		path  string
		value float64
	}
	byName := map[string][]constant{}
	for g, v := range consts {
		if f, ok := number(v); ok {
			byName[norm(g)] = append(byName[norm(g)], constant{g, f})
		}
		m, ok := v.(map[string]any)
		if !ok {
			continue
		}
		for name, x := range m {
			f, _ := number(x)
			c := constant{g + "." + name, f}
			byName[norm(name)] = append(byName[norm(name)], c)
			byName[norm(g+name)] = append(byName[norm(g+name)], c)
		}
	}
	// The groups client.js exports, by the name the modules import.
	groups := map[string]string{}
	if src, ok := files["client.js"]; ok {
		for _, m := range alias.FindAllStringSubmatch(src, -1) {
			groups[m[1]] = m[2]
		}
		for _, m := range group.FindAllStringSubmatch(stripJS(src), -1) {
			if _, ok := consts[m[1]]; !ok {
				found = append(found, fmt.Sprintf("client.js: C.%s is no group of Constants", m[1]))
			}
		}
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, file := range names {
		code := stripJS(files[file])
		lineOf := func(off int) int { return strings.Count(code[:off], "\n") + 1 }
		for _, m := range binding.FindAllStringSubmatchIndex(code, -1) {
			name, op, lit := code[m[2]:m[3]], code[m[4]:m[5]], code[m[6]:m[7]]
			if rest := strings.TrimLeft(code[m[1]:], " \t"); rest != "" && !strings.ContainsRune(",;})]\n", rune(rest[0])) {
				continue // the number is part of an expression
			}
			at := fmt.Sprintf("%s:%d: %s%s %s", file, lineOf(m[2]), name, map[string]string{"=": " =", ":": ":"}[op], lit)
			if len(name) >= 2 && upper.MatchString(name) && pageOwn[name] == "" {
				found = append(found, at+": a copy of a Go constant (a name in capitals bound to a number), or a page's own number missing from pageOwn")
			}
			v, ok := jsNumber(lit)
			if !ok {
				continue
			}
			keys := []string{norm(name)}
			if _, rest, cut := strings.Cut(name, "_"); cut {
				keys = append(keys, norm(rest))
			}
			var copies []string
			for _, k := range keys {
				for _, c := range byName[k] {
					if c.value == v && !slices.Contains(copies, c.path) {
						copies = append(copies, c.path)
					}
				}
			}
			if len(copies) > 0 {
				slices.Sort(copies)
				found = append(found, at+": a copy of "+strings.Join(copies, " or "))
			}
		}
		for _, m := range mask.FindAllStringSubmatchIndex(code, -1) {
			lo, hi := m[2], m[3]
			if lo < 0 {
				lo, hi = m[4], m[5]
			}
			found = append(found, fmt.Sprintf("%s:%d: & %s: a bit mask written as a number", file, lineOf(lo), code[lo:hi]))
		}
		for _, m := range drawAt.FindAllStringIndex(code, -1) {
			found = append(found, fmt.Sprintf("%s:%d: %s: a place in the draw list written as a number", file, lineOf(m[0]), code[m[0]:m[1]]))
		}
		for a, g := range groups {
			m, ok := consts[g].(map[string]any)
			if !ok {
				continue
			}
			re := regexp.MustCompile(`(?:^|[^\w$.])` + regexp.QuoteMeta(a) + `\.([A-Za-z_$][\w$]*)`)
			for _, r := range re.FindAllStringSubmatchIndex(code, -1) {
				if name := code[r[2]:r[3]]; m[name] == nil {
					found = append(found, fmt.Sprintf("%s:%d: %s.%s: %s has no %s", file, lineOf(r[2]), a, name, g, name))
				}
			}
		}
	}
	return found
}

// norm is a name lower case without underscores or dollars.
func norm(name string) string {
	return strings.ToLower(strings.NewReplacer("_", "", "$", "").Replace(name))
}

// jsNumber is the value of a numeric literal, with a left shift.
func jsNumber(lit string) (float64, bool) {
	a, b, shift := strings.Cut(lit, "<<")
	v, err := strconv.ParseFloat(strings.TrimSpace(a), 64)
	if err != nil {
		n, err2 := strconv.ParseInt(strings.TrimSpace(a), 0, 64)
		if err2 != nil {
			return 0, false
		}
		v = float64(n)
	}
	if shift {
		s, err := strconv.Atoi(strings.TrimSpace(b))
		if err != nil {
			return 0, false
		}
		v *= float64(int64(1) << s)
	}
	return v, true
}

// stripJS blanks JavaScript's comments and the text of its strings (a
// template's ${...} stays code), keeping every newline so that the lines
// count as in the source. A regular expression literal is taken for code:
// the page's have no quote or comment in them.
func stripJS(src string) string {
	b := []byte(src)
	out := make([]byte, len(b))
	copy(out, b)
	blank := func(i int) {
		if out[i] != '\n' {
			out[i] = ' '
		}
	}
	var templ []int // brace depth of each template's ${ open
	depth := 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '/' && i+1 < len(b) && b[i+1] == '/':
			for ; i < len(b) && b[i] != '\n'; i++ {
				blank(i)
			}
		case c == '/' && i+1 < len(b) && b[i+1] == '*':
			for j := i; j < len(b); j++ {
				blank(j)
				if j > i+1 && b[j-1] == '*' && b[j] == '/' {
					i = j
					break
				}
			}
		case c == '"' || c == '\'':
			for i++; i < len(b) && b[i] != c; i++ {
				if b[i] == '\\' {
					blank(i)
					i++
				}
				blank(i)
			}
		case c == '`' || (c == '}' && len(templ) > 0 && templ[len(templ)-1] == depth):
			if c == '}' {
				templ = templ[:len(templ)-1]
			}
			for i++; i < len(b) && b[i] != '`'; i++ {
				if b[i] == '\\' {
					blank(i)
					i++
				} else if b[i] == '$' && i+1 < len(b) && b[i+1] == '{' {
					templ = append(templ, depth)
					i++
					break
				}
				blank(i)
			}
		case c == '{':
			depth++
		case c == '}':
			depth--
		}
	}
	return string(out)
}

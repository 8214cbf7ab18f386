package docs

import (
	"bufio"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// TestLinks: every relative link of every Markdown file in the repository
// (testdata aside) names a file or directory that exists, and its #anchor,
// if any, names a heading of the Markdown file it points at.
func TestLinks(t *testing.T) {
	root := repoRoot(t)
	files := markdownFiles(t, root)
	if len(files) < 2 {
		t.Fatalf("found %d Markdown files under %s; want the README and more", len(files), root)
	}
	for _, f := range files {
		for _, p := range checkFile(root, f) {
			t.Error(p)
		}
	}
}

// TestDocSizes: the README stays a landing page, under 12 KiB, and
// bench/RESULTS.md keeps current figures only, under 300 lines. Reference
// goes to docs/, history to nowhere.
func TestDocSizes(t *testing.T) {
	root := repoRoot(t)
	for _, c := range []struct {
		file       string
		size       func([]byte) int
		limit      int
		unit, move string
	}{
		{"README.md", func(b []byte) int { return len(b) }, 12 << 10, "bytes", "move reference into docs/"},
		{"bench/RESULTS.md", func(b []byte) int { return strings.Count(string(b), "\n") }, 300, "lines", "keep current figures only"},
	} {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(c.file)))
		if err != nil {
			t.Fatal(err)
		}
		if n := c.size(b); n >= c.limit {
			t.Errorf("%s is %d %s, want under %d: %s", c.file, n, c.unit, c.limit, c.move)
		}
	}
}

// TestLinksCatchBroken: the check reports a missing file, a missing anchor
// in another file and in the same file, and passes good links, code and
// absolute URLs.
func TestLinksCatchBroken(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("sub/b.md", "# B's title\n\n## Add a component and a system\n\n## The web page (`web/`)\n")
	write("sub/c.go", "package c\n")
	write("a.md", strings.Join([]string{
		"# A",
		"[ok](sub/b.md) [ok](sub/b.md#bs-title) [ok](sub/b.md#add-a-component-and-a-system)",
		"[ok](sub/b.md#the-web-page-web) [ok](sub/) [ok](sub/c.go#L1) [ok](#a) [ok](https://x.example/nope)",
		"`[code](nope.md)` [ok](mailto:a@b.example)",
		"```",
		"[fenced](nope.md)",
		"```",
		"[missing](nope.md)",
		"[bad anchor](sub/b.md#nope)",
		"[bad self anchor](#nope)",
		"![missing image](img.png)",
		"[ref]: gone/",
	}, "\n"))
	got := checkFile(root, filepath.Join(root, "a.md"))
	want := []string{"nope.md", "sub/b.md#nope", "#nope", "img.png", "gone/"}
	if len(got) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i, w := range want {
		if !strings.Contains(got[i], "("+w+")") {
			t.Errorf("problem %d = %q, want one about %q", i, got[i], w)
		}
	}
}

// TestSlug: headings become anchors by GitHub's rule.
func TestSlug(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Add a component and a system", "add-a-component-and-a-system"},
		{"The netcode (package `client`)", "the-netcode-package-client"},
		{"Metrics (`GET /metrics` on the admin listener)", "metrics-get-metrics-on-the-admin-listener"},
		{"Accounts: what persists", "accounts-what-persists"},
		{"city-64 with the game on top: items, cars, stealth, 16 missions", "city-64-with-the-game-on-top-items-cars-stealth-16-missions"},
		{"Peer replay: netsync against @colyseus/schema 5", "peer-replay-netsync-against-colyseusschema-5"},
		{"The [page](web/) and snake_case", "the-page-and-snake_case"},
		{"**Bold** words", "bold-words"},
	} {
		if got := slug(c.in); got != c.want {
			t.Errorf("slug(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// repoRoot is the directory above this package that holds go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatalf("no go.mod above the docs package: %v", err)
	}
	return dir
}

// markdownFiles lists every .md file under root, leaving out testdata and
// hidden directories (.git among them).
func markdownFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(d.Name(), ".md") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

var (
	// inlineLink matches [text](target) and ![alt](target); the target
	// may be in angle brackets and may be followed by a title.
	inlineLink = regexp.MustCompile(`\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+"[^"]*")?\s*\)`)
	// refLink matches a reference definition, [name]: target.
	refLink = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)`)
	// codeSpan matches inline code, whose brackets are no links.
	codeSpan = regexp.MustCompile("`+[^`]*`+")
	heading  = regexp.MustCompile(`^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$`)
)

// checkFile returns a line per broken link of the Markdown file path:
// where it is and what it points at.
func checkFile(root, path string) []string {
	var problems []string
	rel, _ := filepath.Rel(root, path)
	for _, l := range links(path) {
		target := strings.Trim(l.target, "<>")
		if u, err := url.Parse(target); err == nil && u.Scheme != "" {
			continue // http:, https:, mailto: and the like
		}
		file, anchor, _ := strings.Cut(target, "#")
		if p, err := url.PathUnescape(file); err == nil {
			file = p
		}
		dest := path
		if file != "" {
			dest = filepath.Join(filepath.Dir(path), filepath.FromSlash(file))
			if strings.HasPrefix(file, "/") {
				dest = filepath.Join(root, filepath.FromSlash(file))
			}
		}
		where := fmt.Sprintf("%s:%d: link (%s)", filepath.ToSlash(rel), l.line, l.target)
		info, err := os.Stat(dest)
		if err != nil {
			problems = append(problems, where+": no such file or directory")
			continue
		}
		if anchor == "" || info.IsDir() || !strings.HasSuffix(dest, ".md") {
			continue // a line anchor of a source file is GitHub's, not a heading
		}
		if !anchors(dest)[anchor] {
			problems = append(problems, where+": no heading with that anchor")
		}
	}
	return problems
}

// link is a link's target and the line it is on.
type link struct {
	target string
	line   int
}

// links returns the links of a Markdown file, outside code blocks and
// inline code.
func links(path string) []link {
	var out []link
	eachLine(path, func(n int, s string) {
		if m := refLink.FindStringSubmatch(s); m != nil {
			out = append(out, link{m[1], n})
			return
		}
		s = codeSpan.ReplaceAllString(s, "")
		for _, m := range inlineLink.FindAllStringSubmatch(s, -1) {
			out = append(out, link{m[1], n})
		}
	})
	return out
}

// anchors returns the anchors of a Markdown file's headings, with GitHub's
// -1, -2 suffixes on repeats.
func anchors(path string) map[string]bool {
	set := map[string]bool{}
	seen := map[string]int{}
	eachLine(path, func(_ int, s string) {
		m := heading.FindStringSubmatch(s)
		if m == nil {
			return
		}
		a := slug(m[1])
		if n := seen[a]; n > 0 {
			set[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			set[a] = true
		}
		seen[a]++
	})
	return set
}

// eachLine calls f with each line of a Markdown file outside fenced code
// blocks and its 1-based number. A file that cannot be read has no lines;
// the link to it has already been checked.
func eachLine(path string, f func(n int, s string)) {
	file, err := os.Open(path)
	if err != nil {
		return
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	fence := ""
	for n := 1; sc.Scan(); n++ {
		s := sc.Text()
		t := strings.TrimLeft(s, " ")
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			continue
		}
		f(n, s)
	}
}

// mdLink matches a link inside a heading, whose text alone is kept.
var mdLink = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)

// slug is GitHub's anchor for a heading: its text in lower case, spaces
// made hyphens, every other character but letters, digits, '-' and '_'
// dropped.
func slug(h string) string {
	h = mdLink.ReplaceAllString(h, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

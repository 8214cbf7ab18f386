//go:build unix

package e2e

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/fiveonit/engine/runs"
	"github.com/fiveonit/engine/serve"
)

// The image can be neither built nor pulled here (no registry but Go's,
// Debian's and npm's is reached): these tests hold the Dockerfile and the
// Agones manifests to the binary instead, and run the Dockerfile's own
// build from an empty directory.

// dockerfile reads the repository's Dockerfile.
func dockerfile(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	return lines
}

// buildLine returns the Dockerfile's RUN line that builds command server,
// its environment and its go command's arguments.
func buildLine(t *testing.T) (env, args []string) {
	t.Helper()
	for _, l := range dockerfile(t) {
		cmd, ok := strings.CutPrefix(l, "RUN ")
		if !ok || !strings.Contains(cmd, "go build") {
			continue
		}
		words, err := shellWords(cmd)
		if err != nil {
			t.Fatalf("Dockerfile: %q: %v", l, err)
		}
		i := slices.Index(words, "go")
		if i < 0 {
			t.Fatalf("Dockerfile: %q: no go command", l)
		}
		return words[:i], words[i+1:]
	}
	t.Fatal("Dockerfile: no RUN line with go build")
	return nil, nil
}

// shellWords splits s as a shell does a simple command: words between
// blanks, "double" and 'single' quotes kept together and dropped.
func shellWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	quote, started := byte(0), false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			w.WriteByte(c)
		case c == '"' || c == '\'':
			quote, started = c, true
		case c == ' ' || c == '\t':
			if started {
				words = append(words, w.String())
				w.Reset()
				started = false
			}
		case strings.ContainsRune("|&;<>$`\\", rune(c)):
			return nil, fmt.Errorf("%q: more than a simple command", c)
		default:
			w.WriteByte(c)
			started = true
		}
	}
	if quote != 0 {
		return nil, errors.New("a quote left open")
	}
	if started {
		words = append(words, w.String())
	}
	return words, nil
}

// TestImageDockerfile: the Dockerfile builds in a Go image and runs from a
// second, small one: a static binary (cgo off, -trimpath) of command
// server, a base of distroless's static nonroot (or scratch) with no
// shell, a non-root user, the entrypoint in exec form, and the ports the
// manifests use exposed.
func TestImageDockerfile(t *testing.T) {
	lines := dockerfile(t)
	var froms []string
	var user, entry string
	var exposed []string
	for _, l := range lines {
		op, rest, _ := strings.Cut(l, " ")
		switch strings.ToUpper(op) {
		case "FROM":
			froms = append(froms, rest)
		case "USER":
			user = rest
		case "ENTRYPOINT":
			entry = rest
		case "EXPOSE":
			exposed = append(exposed, strings.Fields(rest)...)
		}
	}
	if len(froms) < 2 || !strings.Contains(strings.ToLower(froms[0]), " as ") || !strings.HasPrefix(froms[0], "golang:") {
		t.Errorf("stages %q: want a golang build stage named with AS, then the image", froms)
	}
	final := froms[len(froms)-1]
	if final != "scratch" && !(strings.HasPrefix(final, "gcr.io/distroless/static") && strings.HasSuffix(final, ":nonroot")) {
		t.Errorf("the image's base %q: want distroless static nonroot or scratch (no shell)", final)
	}
	if name, _, _ := strings.Cut(user, ":"); user == "" || name == "root" || name == "0" {
		t.Errorf("USER %q: want a non-root user", user)
	}
	var argv []string
	if err := json.Unmarshal([]byte(entry), &argv); err != nil || len(argv) != 1 || argv[0] != "/server" {
		t.Errorf("ENTRYPOINT %s: want the exec form [\"/server\"] (there is no shell)", entry)
	}
	env, args := buildLine(t)
	if !slices.Contains(env, "CGO_ENABLED=0") || !slices.Contains(args, "-trimpath") || args[0] != "build" || args[len(args)-1] != "./cmd/server" {
		t.Errorf("the build %q %q: want CGO_ENABLED=0 go build -trimpath ... ./cmd/server", env, args)
	}
	for _, p := range []string{"8080/tcp", "6060/tcp"} {
		if !slices.Contains(exposed, p) {
			t.Errorf("EXPOSE %q: no %s", exposed, p)
		}
	}
}

// TestImageStaticBinary builds command server as the Dockerfile does, checks
// it is static (no interpreter, no shared library), and runs it as the
// image does: from an empty directory, with an empty environment and its
// default store (the SQLite file it makes in ./data). It serves /healthz,
// /readyz, the page and the embedded levels, and exits 0 on SIGTERM.
func TestImageStaticBinary(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build with")
	}
	env, args := buildLine(t)
	out := filepath.Join(t.TempDir(), "server")
	if i := slices.Index(args, "-o"); i >= 0 && i+1 < len(args) {
		args[i+1] = out
	} else {
		t.Fatalf("the build %q has no -o", args)
	}
	build := exec.Command(goBin, args...)
	build.Dir = ".."
	build.Env = append(os.Environ(), env...)
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, b)
	}
	f, err := elf.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the binary asks for an interpreter: not static")
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("the binary needs %v: not static", libs)
	}
	f.Close()

	dir := t.TempDir()
	logs := &logBuf{}
	cmd := exec.Command(out, "-addr", "127.0.0.1:0", "-admin-addr", "127.0.0.1:0", "-rtc=false", "-log-format", "json")
	cmd.Dir, cmd.Env, cmd.Stderr = dir, []string{}, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	done := false
	defer func() {
		if !done {
			cmd.Process.Kill()
			<-exited
		}
	}()
	var serving map[string]any
	for deadline := time.Now().Add(30 * time.Second); serving == nil; time.Sleep(20 * time.Millisecond) {
		if recs := logs.records(t, "serving"); len(recs) > 0 {
			serving = recs[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("not serving:\n%s", logs.String())
		}
	}
	addr, _ := serving["addr"].(string)
	admin, _ := serving["admin"].(string)
	for _, c := range []struct{ url, want string }{
		{"http://" + admin + "/healthz", "ok"},
		{"http://" + admin + "/readyz", "ok"},
		{"http://" + addr + "/", "<html"},
		{"http://" + addr + "/levels/main-city", `"name"`},
	} {
		// Polled: a machine busy with other tests may hold a room's tick
		// past the second /healthz allows, for a moment.
		var code int
		var body string
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			code, body = fetch(t, c.url)
			if code == 200 && strings.Contains(strings.ToLower(body), c.want) || time.Now().After(deadline) {
				break
			}
		}
		if code != 200 || !strings.Contains(strings.ToLower(body), c.want) {
			t.Errorf("%s: %d %.80q", c.url, code, body)
		}
	}
	if st, ok := serving["store"].(string); !ok || st != "sqlite:data/accounts.db" {
		t.Errorf("store %v, want the SQLite file in ./data", serving["store"])
	}
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		done = true
		if err != nil {
			t.Errorf("exit after SIGTERM: %v\n%s", err, logs.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("no exit after SIGTERM")
	}
	names, _ := os.ReadDir(dir)
	if len(names) != 1 || names[0].Name() != "data" {
		t.Errorf("the directory holds %v after the run, want data alone", names)
	}
}

// fetch GETs url without keeping the connection.
func fetch(t *testing.T, url string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Close = true
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// binaryFlags runs the binary with -h and returns the flags it defines
// and the environment variables they name.
func binaryFlags(t *testing.T) (flags, vars map[string]bool) {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command(serverBinary(t), "-h")
	cmd.Stderr = &stderr
	cmd.Run() // -h exits 2
	flags, vars = map[string]bool{}, map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z0-9-]+)`).FindAllStringSubmatch(stderr.String(), -1) {
		flags[m[1]] = true
	}
	for _, m := range regexp.MustCompile(`\(env (FOI_[A-Z0-9_]+)`).FindAllStringSubmatch(stderr.String(), -1) {
		vars[m[1]] = true
	}
	if len(flags) < 10 || len(vars) < 10 {
		t.Fatalf("-h lists %d flags and %d variables:\n%s", len(flags), len(vars), stderr.String())
	}
	return flags, vars
}

// manifest is one YAML document of deploy/agones.
type manifest struct {
	file string
	doc  map[string]any
}

// manifests parses every YAML document of deploy/agones.
func manifests(t *testing.T) []manifest {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "deploy", "agones", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in deploy/agones: %v", err)
	}
	var out []manifest
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(b))
		for {
			var doc map[string]any
			err := dec.Decode(&doc)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if doc != nil {
				out = append(out, manifest{filepath.Base(f), doc})
			}
		}
	}
	return out
}

// at walks doc along path: map keys, or list indexes as numbers.
func at(doc any, path ...string) any {
	for _, p := range path {
		switch d := doc.(type) {
		case map[string]any:
			doc = d[p]
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(d) {
				return nil
			}
			doc = d[i]
		default:
			return nil
		}
	}
	return doc
}

// str is at's value as a string ("" for none); num as a number (-1).
func str(doc any, path ...string) string {
	switch v := at(doc, path...).(type) {
	case string:
		return v
	case int:
		return strconv.Itoa(v)
	case bool:
		return strconv.FormatBool(v)
	}
	return ""
}

func num(doc any, path ...string) int {
	if v, ok := at(doc, path...).(int); ok {
		return v
	}
	return -1
}

// TestImageManifests parses deploy/agones and holds it to the binary: a Fleet,
// a FleetAutoscaler on it, a GameServer example and an allocation. Every
// environment variable and flag they give the container is one the binary
// has; the Agones port is the public listener's; the probes are /healthz
// and /readyz on the admin listener, which listens on the pod's address;
// the health check's period leaves room for two pings; the counter rooms
// has -max-rooms' capacity; the grace period covers the drain; the
// container runs as non-root; the allocation's annotations are those the
// server reads, with a roster that parses.
func TestImageManifests(t *testing.T) {
	flags, vars := binaryFlags(t)
	kinds := map[string][]manifest{}
	for _, m := range manifests(t) {
		kinds[str(m.doc, "kind")] = append(kinds[str(m.doc, "kind")], m)
	}
	for _, k := range []string{"Fleet", "FleetAutoscaler", "GameServer", "GameServerAllocation"} {
		if len(kinds[k]) != 1 {
			t.Errorf("%d manifests of kind %s, want 1", len(kinds[k]), k)
		}
	}
	if t.Failed() {
		return
	}
	fleet := kinds["Fleet"][0]
	fleetName := str(fleet.doc, "metadata", "name")
	checkGameServer(t, fleet.file, at(fleet.doc, "spec", "template", "spec"), flags, vars)
	gs := kinds["GameServer"][0]
	checkGameServer(t, gs.file, at(gs.doc, "spec"), flags, vars)

	fa := kinds["FleetAutoscaler"][0]
	if str(fa.doc, "spec", "fleetName") != fleetName {
		t.Errorf("%s: fleetName %q, want %q", fa.file, str(fa.doc, "spec", "fleetName"), fleetName)
	}
	if p := str(fa.doc, "spec", "policy", "type"); p == "Counter" {
		capacity := num(fleet.doc, "spec", "template", "spec", "counters", serve.CounterRooms, "capacity")
		if str(fa.doc, "spec", "policy", "counter", "key") != serve.CounterRooms || num(fa.doc, "spec", "policy", "counter", "minCapacity") < capacity {
			t.Errorf("%s: a Counter policy on %q with minCapacity %d, want one on %q with at least a server's %d", fa.file,
				str(fa.doc, "spec", "policy", "counter", "key"), num(fa.doc, "spec", "policy", "counter", "minCapacity"), serve.CounterRooms, capacity)
		}
	}

	alloc := kinds["GameServerAllocation"][0]
	for i := 0; at(alloc.doc, "spec", "selectors", strconv.Itoa(i)) != nil; i++ {
		if f := str(alloc.doc, "spec", "selectors", strconv.Itoa(i), "matchLabels", "agones.dev/fleet"); f != fleetName {
			t.Errorf("%s: selector %d picks fleet %q, want %q", alloc.file, i, f, fleetName)
		}
	}
	ann, _ := at(alloc.doc, "spec", "metadata", "annotations").(map[string]any)
	known := []string{serve.AnnotationRunRoom, serve.AnnotationRunMission, serve.AnnotationRunRoster, serve.AnnotationRunGame, serve.AnnotationRunLevel}
	for k := range ann {
		if !slices.Contains(known, k) {
			t.Errorf("%s: annotation %q is not one the server reads (%v)", alloc.file, k, known)
		}
	}
	var roster runs.Roster
	dec := json.NewDecoder(strings.NewReader(str(ann, serve.AnnotationRunRoster)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&roster); err != nil || len(roster.Seats) == 0 || str(ann, serve.AnnotationRunRoom) == "" || str(ann, serve.AnnotationRunMission) == "" {
		t.Errorf("%s: the run annotations %v do not name a room, a mission and a roster: %v", alloc.file, ann, err)
	}
}

// checkGameServer holds one GameServer spec to the binary.
func checkGameServer(t *testing.T, file string, spec any, flags, vars map[string]bool) {
	t.Helper()
	pod := at(spec, "template", "spec")
	c := at(pod, "containers", "0")
	if c == nil {
		t.Fatalf("%s: no container", file)
	}
	// The settings: each variable and flag one the binary has.
	set := map[string]string{}
	for i := 0; at(c, "env", strconv.Itoa(i)) != nil; i++ {
		name := str(c, "env", strconv.Itoa(i), "name")
		if !vars[name] {
			t.Errorf("%s: env %s is not a variable of the binary", file, name)
		}
		set[name] = str(c, "env", strconv.Itoa(i), "value")
	}
	args, _ := at(c, "args").([]any)
	for i := 0; i < len(args); i++ {
		a, _ := args[i].(string)
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !flags[name] {
			t.Errorf("%s: flag %s is not one the binary has", file, a)
			continue
		}
		if !hasValue && i+1 < len(args) {
			if v, ok := args[i+1].(string); ok && !strings.HasPrefix(v, "-") {
				value = v
				i++
			}
		}
		set["FOI_"+strings.ToUpper(strings.ReplaceAll(name, "-", "_"))] = value
	}
	port := func(v string) int {
		_, p, err := net.SplitHostPort(set[v])
		n, err2 := strconv.Atoi(p)
		if err != nil || err2 != nil {
			t.Errorf("%s: %s %q is not host:port", file, v, set[v])
			return -1
		}
		return n
	}
	public, admin := port("FOI_ADDR"), port("FOI_ADMIN_ADDR")
	if host, _, _ := net.SplitHostPort(set["FOI_ADMIN_ADDR"]); host != "" && host != "0.0.0.0" {
		t.Errorf("%s: FOI_ADMIN_ADDR %q: the kubelet probes the pod's address, not %s", file, set["FOI_ADMIN_ADDR"], host)
	}
	if str(spec, "ports", "0", "name") != "default" || num(spec, "ports", "0", "containerPort") != public || str(spec, "ports", "0", "protocol") != "TCP" {
		t.Errorf("%s: Agones port %v, want default on TCP %d (FOI_ADDR)", file, at(spec, "ports", "0"), public)
	}
	for _, p := range []struct{ probe, path string }{{"livenessProbe", "/healthz"}, {"readinessProbe", "/readyz"}} {
		if str(c, p.probe, "httpGet", "path") != p.path || num(c, p.probe, "httpGet", "port") != admin {
			t.Errorf("%s: %s %v, want GET %s on %d (FOI_ADMIN_ADDR)", file, p.probe, at(c, p.probe), p.path, admin)
		}
	}
	if set["FOI_RTC"] != "false" {
		t.Errorf("%s: FOI_RTC %q: a GameServer's ports carry no WebRTC (a UDP range one to one), want false", file, set["FOI_RTC"])
	}
	// Health: at least two pings per period.
	ping := 2 * time.Second
	if v, ok := set["FOI_AGONES_HEALTH"]; ok {
		ping, _ = time.ParseDuration(v)
	}
	if period := num(spec, "health", "periodSeconds"); period < 0 || time.Duration(period)*time.Second < 2*ping || str(spec, "health", "disabled") == "true" {
		t.Errorf("%s: health %v with a ping every %v: want it on, with a period of two pings at least", file, at(spec, "health"), ping)
	}
	if rooms := set["FOI_MAX_ROOMS"]; str(spec, "counters", serve.CounterRooms, "capacity") != rooms || at(spec, "lists", serve.ListPlayers) == nil {
		t.Errorf("%s: counter %s %v with FOI_MAX_ROOMS %q, list %s %v: want the capacity -max-rooms and the list", file,
			serve.CounterRooms, at(spec, "counters"), rooms, serve.ListPlayers, at(spec, "lists"))
	}
	drain := func(v, def string) time.Duration {
		s := set[v]
		if s == "" {
			s = def
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			t.Errorf("%s: %s %q: %v", file, v, s, err)
		}
		return d
	}
	need := drain("FOI_DRAIN_TIMEOUT", "0s") + drain("FOI_DRAIN", "5s") + 5*time.Second
	if grace := num(pod, "terminationGracePeriodSeconds"); time.Duration(grace)*time.Second < need {
		t.Errorf("%s: terminationGracePeriodSeconds %d, want at least %v (the drain timeout, the drain, and 5 s)", file, grace, need)
	}
	if str(c, "securityContext", "runAsNonRoot") != "true" {
		t.Errorf("%s: the container may run as root", file)
	}
}

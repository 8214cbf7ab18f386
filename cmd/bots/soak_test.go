package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The soak: FOI_SOAK=1 plays FOI_SOAK_N thin bots (default 256) for
// FOI_SOAK_DURATION (default 5m) in the default room (main-city) of command
// server run as a process built from this tree, over real WebSockets, and
// samples the server every FOI_SOAK_EVERY (default 10s): its resident memory
// (/proc/PID/status VmRSS), its CPU, and from its admin listener's /metrics
// the room's players, ticks, tick times, overruns and check mismatches, the
// bytes sent and the Go heap (in use, and the next GC's goal: twice the live
// heap, which tells a leak from the heap's swings between collections).
// FOI_SOAK_PROFILES=DIR saves the server's heap profile (after a GC) at the
// first sample after a minute and at the last before the bots leave, as
// DIR/heap-1.pb.gz and DIR/heap-2.pb.gz: go tool pprof -base heap-1.pb.gz
// heap-2.pb.gz shows what grew. It wants
// no bot failed or ended early, no check mismatch on either side, and the
// server's RSS flat after the warm-up: its last sample at most 10 % over
// the first sample after a minute. Too long for CI:
//
//	FOI_SOAK=1 go test ./cmd/bots -run Soak -v -timeout 20m
//
// bench/RESULTS.md has its figures.
func TestSoak(t *testing.T) {
	if os.Getenv("FOI_SOAK") == "" {
		t.Skip("FOI_SOAK=1 runs the soak: 256 thin bots for 5 minutes against a server process")
	}
	n := soakEnv(t, "FOI_SOAK_N", 256, strconv.Atoi)
	d := soakEnv(t, "FOI_SOAK_DURATION", 5*time.Minute, time.ParseDuration)
	every := soakEnv(t, "FOI_SOAK_EVERY", 10*time.Second, time.ParseDuration)
	profiles := os.Getenv("FOI_SOAK_PROFILES")
	srv := startServer(t, "-max-players", strconv.Itoa(n+44), "-max-players-from", strconv.Itoa(n+44))
	t.Logf("server pid %d on %s, admin %s; %d thin bots for %s; load %s", srv.pid, srv.addr, srv.admin, n, d, loadAvg())

	start := time.Now()
	samples := []soakSample{srv.sample(t, 0)}
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tk := time.NewTicker(every)
		defer tk.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tk.C:
				s := srv.sample(t, time.Since(start))
				samples = append(samples, s)
				if profiles != "" && s.at >= time.Minute && s.at-every < time.Minute {
					srv.heapProfile(t, filepath.Join(profiles, "heap-1.pb.gz"))
				}
				if profiles != "" && s.at > d-every && s.at <= d {
					srv.heapProfile(t, filepath.Join(profiles, "heap-2.pb.gz"))
				}
			}
		}
	}()
	c := config{url: "ws://" + srv.addr + "/rooms/default", n: n, duration: d, transport: "ws", seed: 1, thin: true}
	res, failed := runThin(context.Background(), c)
	close(stop)
	<-sampled
	samples = append(samples, srv.sample(t, time.Since(start)))
	line := thinSummary(res, failed)
	t.Log(line)

	t.Log("   t  players  RSS MB  heap MB  GC goal MB  gorout  ticks/s  tick p50  tick p99  overruns  mismatches  out MB/s  server CPU  bots CPU  load")
	for i, s := range samples {
		row := fmt.Sprintf("%4.0fs  %7.0f  %6.1f  %7.1f  %10.1f  %6.0f", s.at.Seconds(), s.players, s.rss/1e6, s.heap/1e6, s.gcGoal/1e6, s.goroutines)
		if i > 0 {
			p := samples[i-1]
			secs := (s.at - p.at).Seconds()
			row += fmt.Sprintf("  %7.1f  %8s  %8s  %8.0f  %10.0f  %8.1f  %9.0f%%  %7.0f%%  %s",
				(s.tickCount-p.tickCount)/secs, tickQuantile(p, s, 0.5), tickQuantile(p, s, 0.99), s.overruns-p.overruns, s.mismatches,
				(s.transportBytesOut-p.transportBytesOut)/secs/1e6, 100*(s.cpu-p.cpu)/secs, 100*(s.botsCPU-p.botsCPU)/secs, s.load)
		}
		t.Log(row)
	}
	// The steady state: from the first sample after a minute (every bot
	// has joined and warmed up) to the last.
	warm := slices.IndexFunc(samples, func(s soakSample) bool { return s.at >= time.Minute })
	if warm < 0 {
		warm = 0
	}
	first, last := samples[warm], samples[len(samples)-1]
	t.Logf("from %.0f s to %.0f s: %.1f ticks/s, tick p50 %s, p99 %s, p99.9 %s; %.0f overruns; server CPU %.0f%%, bots CPU %.0f%%; RSS %.1f MB to %.1f MB (%+.1f%%), most %.1f MB",
		first.at.Seconds(), last.at.Seconds(), (last.tickCount-first.tickCount)/(last.at-first.at).Seconds(), tickQuantile(first, last, 0.5), tickQuantile(first, last, 0.99), tickQuantile(first, last, 0.999),
		last.overruns-first.overruns, 100*(last.cpu-first.cpu)/(last.at-first.at).Seconds(),
		100*(last.botsCPU-first.botsCPU)/(last.at-first.at).Seconds(), first.rss/1e6, last.rss/1e6, 100*(last.rss/first.rss-1), maxRSS(samples[warm:])/1e6)

	srv.stop(t)
	t.Logf("the server's warnings and errors: %q", srv.logs.warnings())
	early, desync, refused := 0, 0, uint64(0)
	for _, r := range res {
		if r.Err != nil && r.Stats.Snapshots > 0 {
			early++
		}
		if r.Desynced {
			desync++
		}
		refused += r.Stats.Resyncs
	}
	if failed != 0 || early != 0 || desync != 0 || refused != 0 || len(res) != n {
		t.Errorf("%d results of %d: %d failed, %d ended early, %d desynced, %d frames refused", len(res), n, failed, early, desync, refused)
	}
	if last.mismatches != 0 || last.kicked != 0 {
		t.Errorf("server: %.0f check mismatches, %.0f clients kicked", last.mismatches, last.kicked)
	}
	if d >= 2*time.Minute && last.rss > 1.1*first.rss {
		t.Errorf("server RSS grew from %.1f MB at %s to %.1f MB at %s after the warm-up", first.rss/1e6, first.at, last.rss/1e6, last.at)
	}
}

// soakEnv returns the environment variable name parsed, or def when unset.
func soakEnv[T any](t *testing.T, name string, def T, parse func(string) (T, error)) T {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := parse(s)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, s, err)
	}
	return v
}

// serverProc is command server run as a process for the soak.
type serverProc struct {
	cmd         *exec.Cmd
	pid         int
	addr, admin string
	exited      chan error
	logs        *tailBuf
}

// tailBuf keeps the last lines of a process's JSON log, and counts its
// warnings and errors by message.
type tailBuf struct {
	mu     sync.Mutex
	lines  []string
	warned map[string]int
}

func (b *tailBuf) add(s string, rec map[string]any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.lines) >= 200 {
		b.lines = b.lines[1:]
	}
	b.lines = append(b.lines, s)
	if lvl, _ := rec["level"].(string); lvl == "WARN" || lvl == "ERROR" {
		msg, _ := rec["msg"].(string)
		if r, ok := rec["reason"].(string); ok {
			msg += ": " + r
		}
		b.warned[lvl+" "+msg]++
	}
}

// warnings returns the warnings and errors logged, by message, sorted.
func (b *tailBuf) warnings() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for msg, n := range b.warned {
		out = append(out, fmt.Sprintf("%s (%d)", msg, n))
	}
	slices.Sort(out)
	return out
}

func (b *tailBuf) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Join(b.lines, "\n")
}

// startServer builds command server from this tree and runs it on loopback
// ports (WebRTC off, no account store, JSON logs at warn past the serving
// record) with the flags of more, and waits for it to serve. The process is
// killed when the test ends, if still running.
func startServer(t *testing.T, more ...string) *serverProc {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "server")
	build := exec.Command("go", "build", "-o", bin, "./cmd/server")
	build.Dir = filepath.Join("..", "..") // the module's root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/server: %v\n%s", err, out)
	}
	args := append([]string{"-addr", "127.0.0.1:0", "-admin-addr", "127.0.0.1:0", "-rtc=false", "-store", "none",
		"-data", dir, "-drain", "5s", "-log-format", "json"}, more...)
	p := &serverProc{cmd: exec.Command(bin, args...), exited: make(chan error, 1), logs: &tailBuf{warned: map[string]int{}}}
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.pid = p.cmd.Process.Pid
	serving := make(chan map[string]any, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			var rec map[string]any
			json.Unmarshal(sc.Bytes(), &rec)
			p.logs.add(sc.Text(), rec)
			if rec["msg"] == "serving" {
				serving <- rec
			}
		}
		io.Copy(io.Discard, stderr)
		p.exited <- p.cmd.Wait()
	}()
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
		}
	})
	select {
	case rec := <-serving:
		p.addr, _ = rec["addr"].(string)
		p.admin, _ = rec["admin"].(string)
	case err := <-p.exited:
		t.Fatalf("the server exited at start: %v\n%s", err, p.logs)
	case <-time.After(60 * time.Second):
		t.Fatalf("the server did not serve:\n%s", p.logs)
	}
	return p
}

// stop sends SIGTERM and waits for the process to exit 0.
func (p *serverProc) stop(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-p.exited:
		if err != nil {
			t.Errorf("the server's exit: %v\n%s", err, p.logs)
		}
	case <-time.After(30 * time.Second):
		t.Errorf("the server did not exit on SIGTERM")
	}
}

// heapProfile saves the server's heap profile, taken after a GC, to path.
func (p *serverProc) heapProfile(t *testing.T, path string) {
	t.Helper()
	resp, err := http.Get("http://" + p.admin + "/debug/pprof/heap?gc=1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil {
		err = os.WriteFile(path, b, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// soakSample is the server's state at a time of the soak.
type soakSample struct {
	at                               time.Duration
	rss                              float64 // bytes, VmRSS
	cpu, botsCPU                     float64 // seconds of CPU: the server's, this process's (the bots')
	load                             string  // the machine's load averages
	players, heap, goroutines        float64
	gcGoal                           float64 // the heap size the next GC aims at: twice the live heap at GOGC 100
	overruns, mismatches, kicked     float64
	tickCount                        float64
	tickBuckets                      [][2]float64 // the room's tick histogram: upper bound (s), cumulative count
	snapshotBytes, transportBytesOut float64
}

// sample reads the server's process and metrics at at.
func (p *serverProc) sample(t *testing.T, at time.Duration) soakSample {
	t.Helper()
	s := soakSample{at: at, load: loadAvg(), cpu: procCPU(t, strconv.Itoa(p.pid)), botsCPU: procCPU(t, "self")}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(status), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmRSS:" && f[2] == "kB" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			s.rss = kb * 1024
		}
	}
	resp, err := http.Get("http://" + p.admin + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range parseMetrics(string(body)) {
		room := m.labels["room"] == "default"
		switch {
		case m.name == "go_memstats_heap_inuse_bytes":
			s.heap = m.value
		case m.name == "go_memstats_next_gc_bytes":
			s.gcGoal = m.value
		case m.name == "go_goroutines":
			s.goroutines = m.value
		case m.name == "foi_players" && room:
			s.players = m.value
		case m.name == "foi_tick_overruns_total" && room:
			s.overruns = m.value
		case m.name == "foi_check_mismatches_total" && room:
			s.mismatches = m.value
		case m.name == "foi_kicked_total" && room:
			s.kicked = m.value
		case m.name == "foi_snapshot_bytes_total" && room:
			s.snapshotBytes = m.value
		case m.name == "foi_transport_bytes_total" && m.labels["transport"] == "websocket" && m.labels["direction"] == "out":
			s.transportBytesOut = m.value
		case m.name == "foi_tick_seconds_count" && room:
			s.tickCount = m.value
		case m.name == "foi_tick_seconds_bucket" && room:
			le, err := strconv.ParseFloat(m.labels["le"], 64) // +Inf parses
			if err == nil {
				s.tickBuckets = append(s.tickBuckets, [2]float64{le, m.value})
			}
		}
	}
	slices.SortFunc(s.tickBuckets, func(a, b [2]float64) int { return int(math.Copysign(1, a[0]-b[0])) })
	return s
}

// metric is one series of a Prometheus text exposition.
type metric struct {
	name   string
	labels map[string]string
	value  float64
}

// parseMetrics reads the series of a Prometheus text exposition (label
// values without escaped quotes, as the server's are).
func parseMetrics(body string) []metric {
	var out []metric
	for _, l := range strings.Split(body, "\n") {
		if l == "" || l[0] == '#' {
			continue
		}
		sp := strings.LastIndexByte(l, ' ')
		if sp < 0 {
			continue
		}
		v, err := strconv.ParseFloat(l[sp+1:], 64)
		if err != nil {
			continue
		}
		m := metric{name: l[:sp], labels: map[string]string{}, value: v}
		if i := strings.IndexByte(m.name, '{'); i >= 0 {
			for _, kv := range strings.Split(strings.TrimSuffix(m.name[i+1:], "}"), ",") {
				if k, v, ok := strings.Cut(kv, "="); ok {
					m.labels[k] = strings.Trim(v, `"`)
				}
			}
			m.name = m.name[:i]
		}
		out = append(out, m)
	}
	return out
}

// tickQuantile returns the upper bound of the tick histogram's bucket that
// holds the quantile q of the ticks run between samples a and b.
func tickQuantile(a, b soakSample, q float64) string {
	total := b.tickCount - a.tickCount
	if total <= 0 || len(a.tickBuckets) != len(b.tickBuckets) {
		return "-"
	}
	for i, bk := range b.tickBuckets {
		if bk[1]-a.tickBuckets[i][1] >= q*total {
			if math.IsInf(bk[0], 1) {
				return ">" + strconv.FormatFloat(1000*b.tickBuckets[i-1][0], 'f', -1, 64) + "ms"
			}
			return "≤" + strconv.FormatFloat(math.Round(1000*bk[0]*10)/10, 'f', -1, 64) + "ms"
		}
	}
	return "-"
}

// procCPU returns the CPU seconds (user and system) of process pid ("self":
// this one).
func procCPU(t *testing.T, pid string) float64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	// The fields after the command's name, which may hold spaces: utime
	// and stime are the 12th and 13th, in clock ticks (100 a second).
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / 100
}

// loadAvg returns the machine's load averages over 1, 5 and 15 minutes.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// maxRSS returns the largest RSS of samples.
func maxRSS(samples []soakSample) float64 {
	most := 0.0
	for _, s := range samples {
		most = max(most, s.rss)
	}
	return most
}

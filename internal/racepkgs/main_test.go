package main

import (
	"go/token"
	"os"
	"slices"
	"testing"
)

func writeFile(t *testing.T, name, s string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSelected runs the selection on the module: the server, which runs
// encoders on workers, and the rooms, which serve HTTP, are raced; the
// physics and the AI, one goroutine each, are not.
func TestSelected(t *testing.T) {
	pkgs, err := list("github.com/fiveonit/engine/...")
	if err != nil {
		t.Fatal(err)
	}
	got := selected(pkgs)
	const mod = "github.com/fiveonit/engine/"
	for _, p := range []string{"server", "rooms", "netsync", "transport/websocket", "bench/loadgen"} {
		if !slices.Contains(got, mod+p) {
			t.Errorf("%s is not selected: %v", p, got)
		}
	}
	for _, p := range []string{"physics", "systems/ai", "netsync/wire", "levels"} {
		if slices.Contains(got, mod+p) {
			t.Errorf("%s is selected", p)
		}
	}
}

// TestStarters finds each way to start a goroutine, and none in plain code.
func TestStarters(t *testing.T) {
	for _, c := range []struct {
		src  string
		want bool
	}{
		{"func f() { go g() }", true},
		{"func f(t *testing.T) { t.Parallel() }", true},
		{"func f() { httptest.NewServer(nil) }", true},
		{"func f() { exec.Command(\"go\") }", true},
		{"func f() { time.AfterFunc(0, nil) }", true},
		{"func f() { signal.Notify(nil) }", true},
		{"func f() { g(); time.Sleep(0) }", false},
	} {
		dir := t.TempDir()
		writeFile(t, dir+"/a.go", "package a\n"+c.src+"\n")
		got, err := anyStarts(token.NewFileSet(), dir, []string{"a.go"})
		if err != nil || got != c.want {
			t.Errorf("%s: %v, %v; want %v", c.src, got, err, c.want)
		}
	}
}

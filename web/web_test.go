package web

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// TestEmbeddedWasmFresh rebuilds the WebAssembly client with the one
// command that made it (go run ./gen, as go generate runs it) into a
// temporary directory and compares the bytes with the embedded build. It
// fails when any Go package the client uses changed since the last go
// generate ./web. The build is reproducible only with the same Go version:
// go.mod's toolchain line names it, and the go command runs the tests with
// it (downloading it if need be), so the test never skips. It fails too
// when the build, go.mod's toolchain or the Go running the test disagree.
func TestEmbeddedWasmFresh(t *testing.T) {
	built, err := os.ReadFile("static/client.wasm.version")
	if err != nil {
		t.Fatal(err)
	}
	version := strings.TrimSpace(string(built))
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^toolchain\s+(\S+)\s*$`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod has no toolchain line: the Go that builds static/client.wasm must be named there")
	}
	if string(m[1]) != version {
		t.Fatalf("go.mod's toolchain is %s, static/client.wasm was built by %s: go generate ./web with %s, or set the toolchain back", m[1], version, m[1])
	}
	if runtime.Version() != version {
		t.Fatalf("static/client.wasm was built by %s, this test runs %s (GOTOOLCHAIN=%s): the bytes cannot match; run the tests with go.mod's toolchain",
			version, runtime.Version(), os.Getenv("GOTOOLCHAIN"))
	}
	dir := t.TempDir()
	cmd := exec.Command("go", "run", "./gen", "-o", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run ./gen: %v\n%s", err, out)
	}
	for _, name := range []string{"client.wasm", "wasm_exec.js", "client.wasm.version"} {
		built, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		embedded, err := files.ReadFile("static/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(built, embedded) {
			t.Errorf("static/%s is stale (%d bytes embedded, %d built): run go generate ./web", name, len(embedded), len(built))
		}
	}
}

func TestHandler(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	index, _ := files.ReadFile("static/index.html")
	wasm, _ := files.ReadFile("static/client.wasm")
	cases := []struct {
		method, path string
		status       int
		ctype        string
		body         []byte
	}{
		{"GET", "/", 200, "text/html; charset=utf-8", index},
		{"GET", "/index.html", 200, "text/html; charset=utf-8", index},
		{"HEAD", "/", 200, "text/html; charset=utf-8", nil},
		{"GET", "/client.wasm", 200, "application/wasm", wasm},
		{"GET", "/app.js", 200, "text/javascript; charset=utf-8", nil},
		{"GET", "/main.js", 200, "text/javascript; charset=utf-8", nil},
		{"GET", "/style.css", 200, "text/css; charset=utf-8", nil},
		{"GET", "/wasm_exec.js", 200, "text/javascript; charset=utf-8", nil},
		{"GET", "/client.wasm.version", 404, "", nil},
		{"GET", "/nothing", 404, "", nil},
		{"GET", "/static/app.js", 404, "", nil},
		{"POST", "/", 405, "", nil},
	}
	for _, c := range cases {
		req, _ := http.NewRequest(c.method, srv.URL+c.path, nil)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body bytes.Buffer
		body.ReadFrom(res.Body)
		res.Body.Close()
		if res.StatusCode != c.status {
			t.Errorf("%s %s: %d, want %d", c.method, c.path, res.StatusCode, c.status)
			continue
		}
		if c.ctype != "" && res.Header.Get("Content-Type") != c.ctype {
			t.Errorf("%s %s: Content-Type %q, want %q", c.method, c.path, res.Header.Get("Content-Type"), c.ctype)
		}
		if c.body != nil && !bytes.Equal(body.Bytes(), c.body) {
			t.Errorf("%s %s: %d bytes, want the %d embedded", c.method, c.path, body.Len(), len(c.body))
		}
		if c.status == 200 && (res.Header.Get("ETag") == "" || res.Header.Get("Cache-Control") != "no-cache") {
			t.Errorf("%s %s: ETag %q Cache-Control %q", c.method, c.path, res.Header.Get("ETag"), res.Header.Get("Cache-Control"))
		}
	}
	// A browser revalidating gets 304 while the build is the same.
	res, err := http.Get(srv.URL + "/client.wasm")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/client.wasm", nil)
	req.Header.Set("If-None-Match", res.Header.Get("ETag"))
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotModified {
		t.Errorf("revalidating /client.wasm: %d, want 304", res.StatusCode)
	}
}

// TestHandlerGzip: a browser that takes gzip gets client.wasm gzipped,
// under its own ETag; one that does not, or asks for a range, the bytes.
func TestHandlerGzip(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	wasm, _ := files.ReadFile("static/client.wasm")
	get := func(accept, rng string) (*http.Response, []byte) {
		req, _ := http.NewRequest("GET", srv.URL+"/client.wasm", nil)
		req.Header.Set("Accept-Encoding", accept) // set by hand: the transport leaves the body as sent
		if rng != "" {
			req.Header.Set("Range", rng)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return res, b
	}
	res, body := get("br, gzip;q=0.8", "")
	if res.Header.Get("Content-Encoding") != "gzip" || len(body) >= len(wasm)/2 {
		t.Fatalf("gzip accepted: Content-Encoding %q, %d bytes of %d", res.Header.Get("Content-Encoding"), len(body), len(wasm))
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(plain, wasm) {
		t.Fatalf("gunzipped: %d bytes (%v), want the %d embedded", len(plain), err, len(wasm))
	}
	gzTag := res.Header.Get("ETag")
	for _, c := range []struct{ accept, rng string }{{"identity", ""}, {"gzip;q=0", ""}, {"gzip", "bytes=0-9"}} {
		res, body := get(c.accept, c.rng)
		if res.Header.Get("Content-Encoding") != "" || res.Header.Get("ETag") == gzTag {
			t.Errorf("Accept-Encoding %q Range %q: Content-Encoding %q ETag %s", c.accept, c.rng, res.Header.Get("Content-Encoding"), res.Header.Get("ETag"))
		}
		if want := wasm; c.rng != "" {
			want = wasm[:10]
			if !bytes.Equal(body, want) {
				t.Errorf("range: %d bytes", len(body))
			}
		} else if !bytes.Equal(body, want) {
			t.Errorf("Accept-Encoding %q: %d bytes, want the %d embedded", c.accept, len(body), len(wasm))
		}
	}
}

// TestPageModules: index.html runs two scripts, wasm_exec.js (the Go
// distribution's, a classic script: it defines Go) and the entry module
// main.js; every other script of static/ is an ES module that main.js
// reaches through imports, and every import names a file there.
func TestPageModules(t *testing.T) {
	index, err := files.ReadFile("static/index.html")
	if err != nil {
		t.Fatal(err)
	}
	var scripts []string
	for _, m := range regexp.MustCompile(`<script([^>]*)>`).FindAllStringSubmatch(string(index), -1) {
		scripts = append(scripts, strings.TrimSpace(m[1]))
	}
	if want := []string{`src="wasm_exec.js"`, `type="module" src="main.js"`}; strings.Join(scripts, "|") != strings.Join(want, "|") {
		t.Errorf("index.html's scripts %q, want %q", scripts, want)
	}
	imports := regexp.MustCompile(`(?m)^import (?:[^"]* from )?"\./([\w.-]+\.js)";`)
	reached := map[string]bool{}
	var visit func(name string)
	visit = func(name string) {
		if reached[name] {
			return
		}
		reached[name] = true
		src, err := files.ReadFile("static/" + name)
		if err != nil {
			t.Errorf("an import of %s: %v", name, err)
			return
		}
		for _, m := range imports.FindAllStringSubmatch(string(src), -1) {
			visit(m[1])
		}
	}
	visit("main.js")
	all, err := fs.Glob(files, "static/*.js")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range all {
		if name := path.Base(p); name != "wasm_exec.js" && !reached[name] {
			t.Errorf("static/%s is no module main.js imports", name)
		}
	}
	if len(reached) < 10 {
		t.Errorf("main.js reaches %d modules: %v", len(reached), reached)
	}
}

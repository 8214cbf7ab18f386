package web

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestEmbeddedWasmFresh rebuilds the WebAssembly client with the one
// command that made it (go run ./gen, as go generate runs it) into a
// temporary directory and compares the bytes with the embedded build. It
// fails when any Go package the client uses changed since the last go
// generate ./web. The build is reproducible only with the same Go version:
// under another the test skips.
func TestEmbeddedWasmFresh(t *testing.T) {
	want, err := os.ReadFile("static/client.wasm.version")
	if err != nil {
		t.Fatal(err)
	}
	if v := strings.TrimSpace(string(want)); v != runtime.Version() {
		t.Skipf("static/client.wasm was built by %s, this is %s: the bytes cannot match (go generate ./web with %s rebuilds it)", v, runtime.Version(), runtime.Version())
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH to rebuild the client with")
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

// TestPageConstants checks that app.js's key bits and draw-list layout are
// web/wasm's (page.go): the two sides of one format.
func TestPageConstants(t *testing.T) {
	js, err := files.ReadFile("static/app.js")
	if err != nil {
		t.Fatal(err)
	}
	goSrc, err := os.ReadFile("wasm/page.go")
	if err != nil {
		t.Fatal(err)
	}
	jsConst := map[string]int{}
	for _, m := range regexp.MustCompile(`\b((?:KEY|D|OWN)_[A-Z]+) = (\d+)`).FindAllSubmatch(js, -1) {
		n, _ := strconv.Atoi(string(m[2]))
		jsConst[string(m[1])] = n
	}
	// The Go side: iota blocks in page.go, read in order.
	goConst := map[string]int{}
	block := func(first, goPrefix, prefix string, shift bool) {
		i := bytes.Index(goSrc, []byte(first))
		if i < 0 {
			t.Fatalf("page.go has no %s", first)
		}
		rest := goSrc[i:]
		end := bytes.Index(rest, []byte("\n)"))
		for n, line := range strings.Split(string(rest[:end]), "\n") {
			name := strings.Fields(line)[0]
			v := n
			if shift {
				v = 1 << n
			}
			goConst[prefix+strings.ToUpper(strings.TrimPrefix(name, goPrefix))] = v
		}
	}
	block("KeyUp ", "Key", "KEY_", true)
	block("DrawEID ", "Draw", "D_", false)
	block("OwnPredicted ", "Own", "OWN_", true)
	// app.js abbreviates a few of the draw list's names.
	rename := map[string]string{"D_HALFX": "D_HX", "D_HALFY": "D_HY"}
	for name, v := range goConst {
		if r, ok := rename[name]; ok {
			name = r
		}
		got, ok := jsConst[name]
		if !ok {
			t.Errorf("app.js lacks %s (= %d in page.go)", name, v)
			continue
		}
		if got != v {
			t.Errorf("app.js %s = %d, page.go says %d", name, got, v)
		}
	}
	if len(jsConst) != len(goConst) {
		t.Errorf("app.js has %d of these constants, page.go %d", len(jsConst), len(goConst))
	}
}

// Package web is the page served at /: a lobby that lists, makes and joins
// rooms, and a top-down view of a room to drive in or watch. The page
// decodes the snapshots with the project's own Go client built for
// WebAssembly (web/wasm); the build is committed under static/ and embedded
// here, so the server binary serves everything itself.
//
// Rebuild the WebAssembly client after changing any Go package it uses
// (client, netsync/wire, physics, levels, ...):
//
//	go generate ./web
//
// The build is reproducible with one Go version: go.mod's toolchain line
// names it. TestEmbeddedWasmFresh fails while the committed build is stale.
//
// The page's JavaScript is ES modules with no build step: index.html loads
// main.js, which imports the rest. They read every number they share with
// the Go side from the client (foi.constants) and copy none.
package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"
)

//go:generate go run ./gen -o static

// files is the page: HTML, CSS, JS, wasm_exec.js and client.wasm.
//
//go:embed static
var files embed.FS

// file is one embedded file, ready to serve.
type file struct {
	name  string
	data  []byte
	etag  string
	ctype string

	gzOnce sync.Once
	gz     []byte // data gzipped, made on the first request that takes it; nil when it would not be smaller
}

// GzipAbove is the size from which a file goes gzipped to a browser that
// takes it: client.wasm shrinks from 4.4 MB to 1.2 MB; a small file is
// not worth the header.
const GzipAbove = 1024

// gzipped returns the file gzipped, or nil.
func (f *file) gzipped() []byte {
	f.gzOnce.Do(func() {
		if len(f.data) < GzipAbove {
			return
		}
		var b bytes.Buffer
		zw := gzip.NewWriter(&b) // the default level: best compression would take 4 times as long for 1% less
		zw.Write(f.data)
		zw.Close()
		if b.Len() < len(f.data) {
			f.gz = b.Bytes()
		}
	})
	return f.gz
}

// Handler returns the page's routes: GET / (index.html) and GET /NAME for
// each file of static/. Anything else is 404; a method other than GET or
// HEAD is 405. Every file has a strong ETag (its content's hash) and
// "Cache-Control: no-cache": a browser revalidates, and gets 304 until the
// server's build changes. A file of GzipAbove bytes or more goes gzipped
// (its own ETag) to a request that accepts gzip and asks for no range.
func Handler() http.Handler {
	byPath := map[string]*file{}
	sub, _ := fs.Sub(files, "static") // cannot fail: the directory is embedded
	fs.WalkDir(sub, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(sub, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		ctype := mime.TypeByExtension(path.Ext(p))
		if ctype == "" {
			ctype = "application/octet-stream"
		}
		byPath["/"+p] = &file{name: p, data: data, etag: `"` + hex.EncodeToString(sum[:12]) + `"`, ctype: ctype}
		return nil
	})
	byPath["/"] = byPath["/index.html"]
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		f := byPath[r.URL.Path]
		if f == nil || strings.HasSuffix(f.name, ".version") {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Type", f.ctype)
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Content-Type-Options", "nosniff")
		data, etag := f.data, f.etag
		if len(f.data) >= GzipAbove {
			h.Set("Vary", "Accept-Encoding")
			if r.Header.Get("Range") == "" && acceptsGzip(r.Header.Get("Accept-Encoding")) {
				if gz := f.gzipped(); gz != nil {
					data, etag = gz, f.etag[:len(f.etag)-1]+`-gz"`
					h.Set("Content-Encoding", "gzip")
				}
			}
		}
		h.Set("ETag", etag)
		http.ServeContent(w, r, f.name, time.Time{}, bytes.NewReader(data))
	})
}

// acceptsGzip reports whether an Accept-Encoding header takes gzip (and does
// not refuse it with q=0).
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			continue
		}
		q := strings.ReplaceAll(params, " ", "")
		return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
	}
	return false
}

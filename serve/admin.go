package serve

import (
	"net/http"
	"net/http/pprof"

	"github.com/fiveonit/engine/jointoken"
	"github.com/fiveonit/engine/metrics"
)

// adminMux serves the metrics, pprof and the join tokens (POST /tokens,
// jointoken.Handler): the admin listener only (127.0.0.1 by default), never
// the public one.
func adminMux(met *metrics.Metrics, secret []byte) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", met.Handler())
	mux.Handle("/tokens", jointoken.Handler(secret, nil))
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

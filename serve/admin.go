package serve

import (
	"crypto/subtle"
	"net/http"
	"net/http/pprof"

	"github.com/fiveonit/engine/jointoken"
	"github.com/fiveonit/engine/metrics"
	"github.com/fiveonit/engine/rooms"
)

// adminMux serves the metrics, pprof, the join tokens (POST /tokens,
// jointoken.Handler) and the run rooms (POST /runs and POST
// /runs/{room}/seats, rooms.Manager.RunHandler): the admin listener only
// (127.0.0.1 by default), never the public one. The run routes ask for
// the bearer token c.AdminToken, and /tokens too once it is set. A server
// without a secret (-jwt-algs without HS256) mints no tokens: /tokens
// answers 404 with the reason. The server adds the probes /healthz and
// /readyz (health.go), which ask for none: the kubelet has no token.
func adminMux(met *metrics.Metrics, secret []byte, m *rooms.Manager, token string) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", met.Handler())
	var tokens http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "this server mints no join tokens: it takes the platform's, signed with the keys of -jwt-keys", http.StatusNotFound)
	})
	if secret != nil {
		tokens = jointoken.Handler(secret, nil)
	}
	if token != "" {
		tokens = bearer(token, tokens)
	}
	mux.Handle("/tokens", tokens)
	runs := m.RunHandler(token)
	mux.Handle("/runs", runs)
	mux.Handle("/runs/", runs)
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// bearer serves h only to a request with "Authorization: Bearer token";
// others get 403.
func bearer(token string, h http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			http.Error(w, "a bearer token is required: Authorization: Bearer <the -admin-token>", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

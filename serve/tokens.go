package serve

import (
	"context"
	"fmt"

	"github.com/fiveonit/engine/jointoken"
)

// openTokens sets up the join tokens' verifier from JWTAlgs, the secret
// (HS256) and JWTKeys (EdDSA, RS256): the key set is read once here, and
// a start whose keys cannot be read fails with the reason.
func (s *Server) openTokens(ctx context.Context) error {
	vc := jointoken.VerifierConfig{Algorithms: list(s.c.JWTAlgs), Secret: s.secret}
	if s.c.JWTKeys != "" {
		ctx, cancel := context.WithTimeout(ctx, openTimeout)
		defer cancel()
		keys, err := jointoken.OpenKeySet(ctx, jointoken.KeySetConfig{Source: s.c.JWTKeys, Log: s.log.With("jwt_keys", s.c.JWTKeys)})
		if err != nil {
			return fmt.Errorf("-jwt-keys: %w", err)
		}
		s.keys, vc.Keys = keys, keys
	}
	v, err := jointoken.NewVerifier(vc)
	if err != nil {
		s.closeTokens()
		return fmt.Errorf("-jwt-algs %q, -jwt-keys %q: %w", s.c.JWTAlgs, s.c.JWTKeys, err)
	}
	s.tokens = v
	return nil
}

// closeTokens stops the key set's refreshing.
func (s *Server) closeTokens() {
	if s.keys != nil {
		s.keys.Close()
	}
}

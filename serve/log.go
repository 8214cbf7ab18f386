package serve

import (
	"fmt"
	"io"
	"log/slog"
	"os"
)

// newLogger makes the server's logger: LogFormat's handler writing to
// LogTo (stderr when nil) at LogLevel.
func newLogger(c Config) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.LogLevel)); err != nil {
		return nil, fmt.Errorf("-log-level: %w", err)
	}
	var out io.Writer = os.Stderr
	if c.LogTo != nil {
		out = c.LogTo
	}
	opts := &slog.HandlerOptions{Level: level}
	switch c.LogFormat {
	case "text":
		return slog.New(slog.NewTextHandler(out, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(out, opts)), nil
	}
	return nil, fmt.Errorf("-log-format %q: text or json", c.LogFormat)
}

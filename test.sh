#!/usr/bin/env bash
# The project's test command: formatting, vet, then every test.
set -euo pipefail
cd "$(dirname "$0")"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
go vet ./...
go test ./... "$@"
# The encoders' Go loops, which amd64 runs in assembly: built and tested
# alone under purego, as other machines run them.
go vet -tags purego ./netsync
go test -tags purego ./netsync "$@"

#!/usr/bin/env bash
# The project's test command: formatting, vet, the linters, every test,
# every test again under the race detector, then every fuzz target for a
# few seconds.
# Arguments go to the test runs (./test.sh -short skips the long soaks).
# FOI_FUZZTIME sets how long each fuzz target runs (default 3s).
set -euo pipefail
cd "$(dirname "$0")"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
go vet ./...
# golangci-lint runs the linters of .golangci.yml. .ci/run installs the
# version below. Without it CI (CI set, as .ci/run sets it) fails; a local
# run says how to install it and goes on without the lint.
lint_version=2.15.0
lint_install="go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v$lint_version"
lint_have=$(golangci-lint version --short 2>/dev/null || true)
if [ "$lint_have" = "$lint_version" ]; then
  golangci-lint run ./...
else
  lint_why="golangci-lint $lint_version is missing (found: ${lint_have:-none})"
  case "${CI:-}" in
  "" | 0 | false) echo "$lint_why; the lint is skipped. Install it with: $lint_install" ;;
  *) echo "$lint_why. Install it with: $lint_install"; exit 1 ;;
  esac
fi
go test ./... "$@"
# The pick's Go twin, which amd64 runs in AVX2 assembly: built and tested
# alone under purego, as other machines run it.
go vet -tags purego ./netsync
go test -tags purego ./netsync "$@"
# The race detector needs cgo. It runs the packages whose tests may run
# the module's code on more than one goroutine (internal/racepkgs says
# which and why); the simulation's, one goroutine each, it would only slow.
# -short: the soaks' longer runs take minutes at the race detector's speed
# and go through the same code.
CGO_ENABLED=1 go test -race -short $(go run ./internal/racepkgs) "$@"
# Every fuzz target, found here so that a new one runs without editing this
# script. Each starts from its seeds and its testdata/fuzz; an input that
# fails is written to the package's testdata/fuzz, to keep as a test case.
#
# Go 1.26's fuzzing coordinator can fail a target with a bare "context
# deadline exceeded" when -fuzztime ends while a worker is busy (golang/go
# issue 75804, fixed in Go 1.27). Such a failure wrote no input and names no
# panic, so the target runs once more; any other failure, or the same one
# twice, fails the script.
fuzztime=${FOI_FUZZTIME:-3s}
fuzzlog=$(mktemp)
trap 'rm -f "$fuzzlog"' EXIT
fuzz() {
  go test "$1" -run '^$' -fuzz "^$2\$" -fuzztime "$fuzztime" 2>&1 | tee "$fuzzlog"
  return "${PIPESTATUS[0]}"
}
for file in $(grep -rlE --include='*_test.go' --exclude-dir=testdata '^func Fuzz[A-Za-z0-9_]*\(' . | sort); do
  dir=$(dirname "$file")
  for name in $(sed -nE 's/^func (Fuzz[A-Za-z0-9_]*)\(.*/\1/p' "$file"); do
    fuzz "$dir" "$name" && continue
    if grep -q '^    context deadline exceeded$' "$fuzzlog" && ! grep -q 'Failing input written' "$fuzzlog"; then
      echo "$name: the fuzzing coordinator's deadline race; running it once more"
      fuzz "$dir" "$name" && continue
    fi
    exit 1
  done
done

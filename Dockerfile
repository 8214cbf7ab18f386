# The game server's image. Build it from the repository's root:
#
#   docker build -t fiveonit-server .
#
# Two stages: a Go image builds command server as one static binary (no
# cgo: the SQLite store is pure Go; the levels and the web page are
# embedded), and distroless's static image runs it as its non-root user.
# The final image has no shell and no package manager: the binary alone,
# with CA certificates and time zones. docs/operations.md, "Running a
# fleet", has the rest; e2e/image_test.go checks this file and runs the
# same build from an empty directory.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/server ./cmd/server

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/server /server
# 65532, distroless's nonroot user; its home is writable, for the SQLite
# store's default -data directory when no -store is given.
USER nonroot:nonroot
WORKDIR /home/nonroot
# The public listener (WebSocket joins, the page) and the admin listener
# (the probes, metrics, tokens); set -admin-addr to :6060 in a pod.
EXPOSE 8080/tcp 6060/tcp
ENTRYPOINT ["/server"]

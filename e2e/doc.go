// Package e2e holds the end-to-end tests, which use the server as a player
// or an operator does. The process tests build command server, run it,
// and send it signals: the drain on SIGTERM, and the accounts kept across
// restarts and kill -9 on SQLite and on PostgreSQL. The browser tests
// drive the web page in headless Chromium against a server run in-process.
//
// The package has no code of its own: kit_test.go starts the servers and
// the processes, and page_test.go is the kit that drives the page.
package e2e

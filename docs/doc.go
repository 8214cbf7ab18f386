// Package docs holds the engine's reference, the Markdown files beside this
// one: the netcode, the commands and text frames, operations (flags,
// limits, logs, metrics, accounts) and the walkthroughs that extend the
// engine. The README at the repository's root is the landing page that
// links them.
//
// The package has no code. Its test keeps every relative link in every
// Markdown file of the repository pointing at a file that exists, and every
// #anchor at a heading of its target.
package docs

// Package abicompat builds plugins as older releases of the SDK built
// them, so that tests can check that every plugin of an older ABI minor
// still works with this host: a plugin binary from a pinned commit of this
// repository, built from source rather than committed (a Go plugin binary
// is some 20 MB per platform and cannot be reviewed; the source at a
// commit can, and builds the same binary on any platform in seconds from
// the build cache).
//
// It needs the repository's history (git) and the go tool; without them
// Build returns ErrNoHistory, and tests skip with that reason.
//
// Package abicompat imports nothing of mlperf-host's; only tests and
// benchmarks import it.
package abicompat

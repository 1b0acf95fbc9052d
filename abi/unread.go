package abi

// MaxUnreadBytesEnv names the environment variable through which a host
// bounds the completions a subprocess plugin holds for it unread: the
// bytes of their records and outputs that the plugin produced and could
// not yet send, because its host does not read them. Past the bound the
// plugin fails the session with [ResourceExhausted], naming the cause,
// rather than grow without bound. A decimal byte count; without the
// variable (or with 0) the plugin takes [DefaultMaxUnreadBytes].
const MaxUnreadBytesEnv = "MLPERF_HOST_MAX_UNREAD_BYTES"

// DefaultMaxUnreadBytes is the bound of a plugin told none: a host that
// leaves a gigabyte of completions unread has stopped reading.
const DefaultMaxUnreadBytes = 1 << 30

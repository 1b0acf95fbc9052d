package abi

import "fmt"

// The ABI version. Major changes only for a breaking change and is
// negotiated at the handshake; Minor grows with every additive change. Each
// side uses only what both know: the host learns the plugin's minor from
// Info, the plugin learns the host's from the Info request.
const (
	Major = 1
	Minor = 4
)

// Version is Major and Minor packed as the WASM export
// [ExportABIVersion] returns them: Major<<16 | Minor.
const Version = Major<<16 | Minor

// PackVersion packs a version as [ExportABIVersion] returns it.
func PackVersion(major, minor uint16) uint32 { return uint32(major)<<16 | uint32(minor) }

// UnpackVersion splits a version packed by [PackVersion].
func UnpackVersion(v uint32) (major, minor uint16) { return uint16(v >> 16), uint16(v) }

// VersionString formats a version as "v1.0".
func VersionString(major, minor uint16) string { return fmt.Sprintf("v%d.%d", major, minor) }

// The subprocess handshake (hashicorp/go-plugin). The host sets the cookie
// in the plugin's environment; a binary started without it is not being run
// as a plugin and says so instead of waiting for a host. ProtocolVersion is
// the ABI major the plugin serves.
const (
	MagicCookieKey   = "MLPERF_HOST_PLUGIN"
	MagicCookieValue = "f1b3c0de-mlperf-backend-abi"
	ProtocolVersion  = Major
	// PluginName is the name the backend is dispensed under.
	PluginName = "backend"
)

package abi

// Capability is a bit set a plugin advertises in InfoResponse.capabilities:
// optional behavior it has. The host never infers behavior from a version
// number, only from these bits. Unknown bits are ignored.
type Capability uint64

// Plugin capabilities of ABI v1.
const (
	// CapFlush: the plugin wants the LoadGen's FlushQueries forwarded.
	CapFlush Capability = 1 << iota
	// CapWarmup: the plugin wants an untimed Warmup call before the run.
	CapWarmup
	// CapFirstToken: the plugin reports first tokens (LLM backends).
	CapFirstToken
	// CapModelPath: the plugin can open a model file by path itself; without
	// it the host sends the model's bytes.
	CapModelPath
	// CapSharedArena: the plugin can map a host shared-memory arena of
	// samples (LoadSamplesRequest.arena) instead of receiving inline bytes.
	CapSharedArena
	// CapSampleLoader: the backend prepares samples at load time (for
	// example copies them to device memory). Informational.
	CapSampleLoader
	// CapSharedRing (v1.1): the plugin can attach the shared rings of a
	// session (HostMessage.ring_attach).
	CapSharedRing
	// CapMembers (v1.4): the plugin answers the Members call with what
	// each member of the system it drives did (its endpoints, say).
	CapMembers
)

// Has reports whether every bit of want is set in c.
func (c Capability) Has(want Capability) bool { return c&want == want }

// HostCapability is a bit set the host advertises in
// InfoRequest.host_capabilities.
type HostCapability uint64

// Host capabilities of ABI v1.
const (
	// HostCapSharedArena: the host can place samples in a shared-memory
	// arena the plugin maps.
	HostCapSharedArena HostCapability = 1 << iota
	// HostCapSharedRing (v1.1): the host can offer shared rings for a
	// session's issue records and completions.
	HostCapSharedRing
)

// Has reports whether every bit of want is set in c.
func (c HostCapability) Has(want HostCapability) bool { return c&want == want }

package mllog

// Keys of the entries mlperf-host adds to a detail log for a pool (several
// plugin instances run as one SUT).
const (
	// KeyPoolMembers is written after sut_name: the members, each a
	// [PoolMemberStart].
	KeyPoolMembers = "sut_pool_members"
	// KeyPoolMember is written after a timed pass's results, once per
	// member: a [PoolMemberEntry].
	KeyPoolMember = "sut_pool_member"
	// KeyPluginMember is written after a timed pass's results, once per
	// member of a plugin's own (ABI v1.4 Members: a serving engine's
	// endpoints): a [PoolMemberEntry], its latency as the plugin
	// measures it.
	KeyPluginMember = "sut_plugin_member"
)

// PoolMemberStart is one member in the sut_pool_members entry.
type PoolMemberStart struct {
	Name      string `json:"name"`
	Plugin    string `json:"plugin"`
	Version   string `json:"version"`
	Transport string `json:"transport"`
}

// PoolMemberEntry is the value of a sut_pool_member entry: what one member
// did in the timed pass.
type PoolMemberEntry struct {
	Name      string `json:"name"`
	Plugin    string `json:"plugin"`
	Transport string `json:"transport"`
	// Samples and Failed count the member's samples; Share is Samples over
	// every member's.
	Samples int64   `json:"samples"`
	Failed  int64   `json:"failed"`
	Share   float64 `json:"share"`
	// Rate is the member's samples per second while it had samples in
	// flight.
	Rate float64 `json:"samples_per_second_busy"`
	// Latency holds min, mean, p50, p90, p99 and max in ns, from a
	// sample's arrival in the pool to its completion (a plugin's member:
	// as the plugin measures it).
	Latency map[string]int64 `json:"latency_ns"`
	// FirstError is a plugin's member's first failure; absent when none.
	FirstError string `json:"first_error,omitempty"`
}

package mllog

// KeyProcessTree is written after sut_name for a subprocess plugin the
// host started: whether every process the plugin starts dies with it
// (a [ProcessTreeEntry]).
const KeyProcessTree = "sut_plugin_process_tree"

// ProcessTreeEntry is the value of a sut_plugin_process_tree entry.
type ProcessTreeEntry struct {
	// Contained: the plugin runs in a PID namespace of its own, whose
	// processes all die with it.
	Contained bool `json:"contained"`
	// How names the mechanism: "pid namespace", "pid namespace in a user
	// namespace", or "process group" when not contained.
	How string `json:"how"`
	// Why says why not, when not contained.
	Why string `json:"why,omitempty"`
	// Text is the line the console gives.
	Text string `json:"text"`
}

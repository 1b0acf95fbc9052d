package ortnn

// Config configures a Runtime.
type Config struct {
	// Library is the path of libonnxruntime; empty: DefaultLibrary through
	// the loader's search path.
	Library string
	// Threads is each session's intra-op thread count; 0 means 1 (a host
	// runs one session per WASM instance, one instance per core).
	Threads int
	// Hint says how to get the library when it cannot be loaded.
	Hint string
}

// Type is a tensor element type.
type Type int

// The element types SetInput takes.
const (
	Float32 Type = iota + 1
	Uint8
	Int32
	Int64
)

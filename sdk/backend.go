package sdk

import "context"

// Backend is the interface a vendor implements to serve an inference
// backend to mlperf-host. The same Backend value can be served as a
// subprocess ([Serve]) or registered in a WASM reactor ([Register]).
//
// The host owns concurrency: it calls Infer from up to Info().MaxInFlight
// goroutines at once (WASM guests always get one call at a time) and never
// calls Load, Close or the optional capabilities concurrently with Infer.
//
// Optional capabilities are detected by type assertion: [SampleLoader],
// [Flusher] and [Warmer].
type Backend interface {
	// Info describes the backend. It must not block. The SDK calls it
	// before Load and once more after Load succeeds: the second answer's
	// MaxBatch and MaxInFlight replace the first's (so that Load's options,
	// a stream count or a batch size, can set them); nothing else of it
	// may change.
	Info() Info

	// Load prepares the model. It is untimed and may be slow (engine
	// deserialization, compilation, warm-up allocations).
	Load(ctx context.Context, m Model) error

	// Infer runs one query of one or more samples. Every sample of q must be
	// completed or failed through c before Infer returns; the SDK fails any
	// sample left over with an error naming it. Returning an error fails
	// every sample not completed yet.
	Infer(ctx context.Context, q Query, c Completer) error

	// Close releases every resource. It is called once; no call follows it.
	Close() error
}

// SampleLoader is implemented by backends that prepare samples ahead of the
// timed run: preprocess them, or copy them to device memory. LoadSamples and
// UnloadSamples are untimed, as in the MLPerf LoadGen QSL.
//
// A backend that does not implement SampleLoader still receives each
// sample's bytes in [Sample.Data] during Infer.
type SampleLoader interface {
	// LoadSamples is called with the bytes of each sample the run will use.
	// The Data slices stay valid until UnloadSamples for their index.
	LoadSamples(ctx context.Context, samples []LoadedSample) error

	// UnloadSamples releases samples loaded before.
	UnloadSamples(ctx context.Context, indices []uint64) error
}

// Flusher is implemented by backends that hold samples back to build
// batches. Flush maps to the LoadGen's FlushQueries: issue whatever is
// queued now.
type Flusher interface {
	Flush(ctx context.Context) error
}

// Warmer is implemented by backends that want an untimed warm-up after
// Load and LoadSamples, before the first timed query.
type Warmer interface {
	Warmup(ctx context.Context) error
}

// Info describes a backend.
type Info struct {
	// Name is the plugin name users pass to --plugin, e.g. "onnx".
	Name string
	// Version is the backend's own version, e.g. "1.2.0".
	Version string
	// Description is one line shown by "mlperf-host plugins list".
	Description string
	// Devices lists the accelerators the backend found; empty for CPU-only.
	Devices []Device
	// MaxBatch is the largest number of samples the backend accepts in one
	// Infer call; 0 means no limit.
	MaxBatch int
	// MaxInFlight is how many Infer calls may run at once; 0 means 1.
	MaxInFlight int
	// FirstTokens says the backend reports first tokens through
	// [Completer.FirstToken] (LLM backends): the host then measures the
	// time to first token.
	FirstTokens bool
}

// Device is one accelerator visible to a backend.
type Device struct {
	ID          int
	Name        string
	Kind        string // e.g. "cpu", "gpu", "aic"
	MemoryBytes uint64
	Driver      string // driver or runtime version, when known
}

// Model tells a backend what to load.
type Model struct {
	// Path is a file the backend opens itself. Empty for WASM guests, which
	// have no filesystem: they get Bytes.
	Path string
	// Bytes is the model file's content when the host sends it.
	Bytes []byte
	// Options are the plugin options from the host's configuration, e.g.
	// "--set onnx.threads=4" arrives as Options["threads"] == "4".
	Options map[string]string
}

// LoadedSample is one sample handed to [SampleLoader.LoadSamples].
type LoadedSample struct {
	Index uint64
	Data  []byte
}

// Query is one LoadGen query: one or more samples to run.
type Query struct {
	Samples []Sample
}

// Sample is one sample of a query.
type Sample struct {
	// ID identifies the response; it must be echoed exactly once.
	ID uint64
	// Index is the sample's index in the data set.
	Index uint64
	// Data is the sample's bytes as loaded; read-only and valid for the
	// duration of Infer. Nil when the host supplied no data.
	Data []byte
	// WantOutput is true when the LoadGen will log this response (accuracy
	// mode, or an audit sample). Otherwise the backend may complete the
	// sample with nil data and save the copy.
	WantOutput bool
}

// Completer receives the results of one Infer call. It is safe for use from
// several goroutines, but only until Infer returns.
type Completer interface {
	// Complete reports that sample id finished. data is copied before
	// Complete returns. nTokens is the number of output tokens for LLM
	// backends and 0 otherwise.
	Complete(id uint64, data []byte, nTokens int64)
	// FirstToken reports the first token of sample id (LLM backends), before
	// its Complete.
	FirstToken(id uint64, data []byte)
	// Fail reports that sample id failed.
	Fail(id uint64, err error)
}

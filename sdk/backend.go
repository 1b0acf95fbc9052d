package sdk

import (
	"context"
	"time"
)

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
	// MaxBatch, MaxInFlight and BatchTimeout replace the first's (so that
	// Load's options, a stream count or a batch size, can set them);
	// nothing else of it may change.
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

// Submitter is implemented by backends that complete asynchronously, from
// threads of their own (a GPU backend waiting on CUDA events, a runtime's
// completion callbacks): the SDK then calls Submit instead of Infer.
// Submit starts one batch and returns without waiting for it; the
// backend answers every sample of q through c later, from any goroutine.
// q, its samples' data and c stay valid until the last sample of q is
// answered, and the batch holds one of the MaxInFlight call slots until
// then. Returning an error fails the samples not answered yet; so does
// the end of ctx (the session's), with ctx's error.
//
// Infer of a Submitter is never called by the SDK; implement it with
// [WaitSubmit] for callers that drive the backend directly.
type Submitter interface {
	Submit(ctx context.Context, q Query, c Completer) error
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
	// MaxInFlight is how many Infer (or Submit) calls may run at once, the
	// backend's execution slots; 0 means 1. It does not bound how many
	// samples the host may have issued: those wait in the SDK's queue.
	MaxInFlight int
	// BatchTimeout, when positive, batches samples across queries: issued
	// samples wait in one queue and a batch of up to MaxBatch of them goes
	// to the next free slot once MaxBatch wait or the oldest has waited
	// BatchTimeout (MLPerf Server: many one-sample queries, one large
	// batch). 0 cuts each query into batches of its own samples and never
	// waits. Like MaxBatch and MaxInFlight it may change with Load (a
	// scenario's own option); WASM guests, which have no threads, ignore
	// it.
	BatchTimeout time.Duration
	// FirstTokens says the backend reports first tokens through
	// [Completer.FirstToken] (LLM backends): the host then measures the
	// time to first token.
	FirstTokens bool
	// Options is the option schema: every option Load accepts (ABI v1.2).
	// When it is not empty, the SDK rejects an unknown option or a value
	// of the wrong type before Load (naming the close matches of a
	// misspelt name) and fills in the declared defaults, and the host
	// prints it (`mlperf-host plugins describe NAME`). Empty: Load checks
	// its options itself.
	Options []Option
}

// Device is one accelerator visible to a backend.
type Device struct {
	ID          int
	Name        string
	Kind        string // e.g. "cpu", "gpu", "aic"
	MemoryBytes uint64
	Driver      string // driver or runtime version, when known
	// NUMANode is the NUMA node nearest the device, as the operating
	// system numbers them; it is sent only when HasNUMANode is set (ABI
	// v1.2).
	NUMANode    int
	HasNUMANode bool
	// PCIBusID is the device's PCI address ("0000:3b:00.0") and UUID its
	// stable identity ("GPU-8f3c..."), when known (ABI v1.2).
	PCIBusID string
	UUID     string
}

// Model tells a backend what to load.
type Model struct {
	// Path is a file the backend opens itself. Empty for WASM guests, which
	// have no filesystem: they get Bytes.
	Path string
	// Bytes is the model file's content when the host sends it.
	Bytes []byte
	// Options are the plugin options from the host's configuration, e.g.
	// "--set onnx.threads=4" arrives as Options["threads"] == "4"; the
	// host has already picked the run's scenario's own options
	// ("--set onnx.Server.threads=8"). With an option schema
	// ([Info.Options]) every value was checked and the defaults of the
	// options not set are filled in.
	Options map[string]string
	// Run says what the model is loaded for: benchmark, scenario, mode
	// and the effective LoadGen settings (ABI v1.2). Its zero value means
	// the host did not say (an older host, a conformance check).
	Run Run
	// Inputs is the data set's schema: every sample's named tensors, in
	// the order a sample's bytes hold them, with [abi.Varies] for a
	// dimension that differs between samples (ABI v1.2). Check in Load
	// that it has the tensors the model needs. Empty from an older host.
	Inputs []TensorSpec
}

// BatchSizer is implemented by backends whose batch is not counted in
// samples: DLRM counts user-item pairs, a BERT backend that packs
// sequences counts tokens. The SDK then fills each batch up to MaxBatch
// units, a sample weighing Units (at least 1; a sample heavier than
// MaxBatch goes alone), computed once per sample when it is loaded. What
// the backend does with a batch's samples (pack, sort, split) is its own
// business: each is still answered by its id.
type BatchSizer interface {
	Units(s LoadedSample) int
}

// LoadedSample is one sample handed to [SampleLoader.LoadSamples].
type LoadedSample struct {
	Index uint64
	// Data is the sample's bytes: its tensors' bytes concatenated.
	Data []byte
	// Tensors are the sample's named tensors, in the order of
	// [Model.Inputs], each with this sample's shape and its part of Data;
	// nil when the host declared no inputs (an older host: the sample is
	// the one tensor the backend knows).
	Tensors []Tensor
	// refs is where a transport found the tensors, before the server
	// checks them and fills Tensors.
	refs []tensorRef
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
	// Tensors are the sample's named tensors (see [LoadedSample.Tensors]),
	// read by name with [Sample.Tensor]; the same slices as Data.
	Tensors []Tensor
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

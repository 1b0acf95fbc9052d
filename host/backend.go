package host

import (
	"context"
	"errors"

	"github.com/mlperf-host/mlperf-host/abi"
)

// Backend is one opened plugin, whatever its transport. The caller drives it
// in ABI order: Info (cached at Open), Load, LoadSamples, Warmup, then any
// number of Issue and Flush calls with completions delivered to the
// [Handler] set by SetHandler, UnloadSamples, and Close.
//
// Load, LoadSamples, UnloadSamples, Warmup, SetHandler and Close must not
// run concurrently with each other or with Issue. Issue and Flush may be
// called from several goroutines.
//
// A plugin that fails fatally (crash, trap, hang, protocol violation) fails
// every sample in flight through the Handler, closes Done and makes Err
// return a [*PluginError]; every later call returns that error.
type Backend interface {
	// Info describes the plugin as it answered at Open.
	Info() Info

	// Load asks the plugin to load a model. Untimed.
	Load(ctx context.Context, m Model) error

	// LoadSamples makes samples resident in the plugin before a run.
	// Untimed. The host copies what it needs before returning; the caller
	// may reuse the samples' Data afterwards.
	LoadSamples(ctx context.Context, samples []Sample) error

	// UnloadSamples releases samples loaded before. Untimed.
	UnloadSamples(ctx context.Context, indices []uint64) error

	// Warmup runs the plugin's untimed warm-up; a no-op for a plugin without
	// [abi.CapWarmup].
	Warmup(ctx context.Context) error

	// SetHandler sets where completions go. Call it before the first Issue
	// and never while samples are in flight.
	SetHandler(h Handler)

	// Issue hands the plugin one query and returns without waiting for it:
	// it copies samples, queues them and wakes the transport. Every sample
	// of a query Issue accepted completes exactly once through the Handler,
	// successfully or not. When Issue returns an error it accepted none of
	// them and the caller still owns them.
	Issue(ctx context.Context, samples []abi.IssueRecord) error

	// Flush forwards the LoadGen's FlushQueries: it returns once the plugin
	// has issued whatever it held back. A no-op for a plugin without
	// [abi.CapFlush].
	Flush(ctx context.Context) error

	// Close ends the plugin: it waits (bounded by Config.CloseTimeout) for
	// samples in flight, releases the plugin and every resource the host
	// holds for it. It is idempotent; after it every call returns
	// [ErrClosed].
	Close() error

	// Done is closed when the backend can no longer serve: it failed, or it
	// was closed.
	Done() <-chan struct{}

	// Err returns nil while the backend serves, the [*PluginError] that
	// ended it, or [ErrClosed] after a clean Close.
	Err() error
}

// Handler receives completions. Its methods may be called from several
// goroutines at once (one per WASM instance, or the subprocess receiver),
// and must not block for long: they run on the transport's delivery path.
//
// A batch and the Data of its completions are valid only during the call:
// the host reuses them. Copy what you keep.
type Handler interface {
	// Complete reports finished samples, each exactly once.
	Complete(batch []Completion)
	// FirstTokens reports first tokens (plugins with [abi.CapFirstToken]),
	// each before its sample's completion.
	FirstTokens(batch []Completion)
}

// HandlerFuncs adapts two functions to a [Handler]. A nil function drops
// its batches.
type HandlerFuncs struct {
	OnComplete   func(batch []Completion)
	OnFirstToken func(batch []Completion)
}

// Complete calls OnComplete.
func (h HandlerFuncs) Complete(batch []Completion) {
	if h.OnComplete != nil {
		h.OnComplete(batch)
	}
}

// FirstTokens calls OnFirstToken.
func (h HandlerFuncs) FirstTokens(batch []Completion) {
	if h.OnFirstToken != nil {
		h.OnFirstToken(batch)
	}
}

var _ Handler = HandlerFuncs{}

// Completion is one finished sample (or first token).
type Completion struct {
	// ID is the id the sample was issued with.
	ID uint64
	// Status is abi.OK, or why the sample failed.
	Status abi.Code
	// Data is the sample's output when Status is OK (possibly empty when
	// the sample was issued without abi.FlagWantOutput), otherwise the error
	// message. Valid only during the Handler call.
	Data []byte
	// NTokens is the number of output tokens (LLM backends), else 0.
	NTokens int64
}

// Err returns nil for a successful completion, else a [*StatusError] with
// the plugin's message. It allocates only for a failed sample.
func (c Completion) Err() error {
	if c.Status == abi.OK {
		return nil
	}
	return &StatusError{Code: c.Status, Message: string(c.Data)}
}

// Info describes an opened plugin.
type Info struct {
	// Name and Version are what the plugin says it is.
	Name    string
	Version string
	// Description is one line for "plugins list".
	Description string
	// ABIMajor and ABIMinor are the ABI version the plugin speaks.
	ABIMajor, ABIMinor int
	// Capabilities are the optional behaviors the plugin has.
	Capabilities abi.Capability
	// Devices are the accelerators the plugin found.
	Devices []Device
	// MaxBatch is the most samples one inference call takes; 0 = no limit.
	MaxBatch int
	// MaxInFlight is how many inference calls the plugin runs at once.
	// Both limits are what Info answered at Open; a v1.1 plugin's Load may
	// change them (its options set a stream count, a batch size) and Info
	// returns the new values after Load.
	MaxInFlight int
	// Transport says how the plugin runs.
	Transport Transport
	// Instances is the number of WASM instances in the pool; 1 otherwise.
	Instances int
	// Options is the plugin's option schema (ABI v1.2); empty when it
	// declared none.
	Options []OptionSpec
	// Facts is what a v1.2 plugin reported at Load for the submission;
	// nil before Load and when it reported nothing.
	Facts *SubmissionFacts
}

// Device is an accelerator a plugin can use.
type Device struct {
	ID          int
	Name        string
	Kind        string
	MemoryBytes uint64
	Driver      string
	// NUMANode is the NUMA node nearest the device, -1 when unknown;
	// PCIBusID ("0000:3b:00.0") and UUID are empty when unknown (ABI
	// v1.2).
	NUMANode int
	PCIBusID string
	UUID     string
}

// Transport is how a plugin runs.
type Transport string

// The transports.
const (
	TransportWASM    Transport = "wasm"
	TransportProcess Transport = "process"
	// TransportRemote is a subprocess plugin on another machine, served
	// by ServeRemote and reached over mutual TLS (OpenRemote).
	TransportRemote    Transport = "remote"
	TransportInProcess Transport = "in-process"
)

// Model tells a plugin what to load: a file or its bytes, plus options.
// When a plugin cannot open files itself (every WASM plugin, and subprocess
// plugins without [abi.CapModelPath]) the host reads Path and sends the
// bytes.
type Model struct {
	Path    string
	Bytes   []byte
	Options map[string]string
	// Run says what the model is loaded for (ABI v1.2); nil sends
	// nothing.
	Run *Run
	// Inputs is the data set's schema: every sample's named tensors, in
	// the order a sample's bytes hold them (ABI v1.2); empty sends none.
	Inputs []TensorSpec
}

// TensorSpec is one named tensor of every sample (ABI v1.2).
type TensorSpec struct {
	Name  string
	DType abi.DType
	// Shape is one sample's shape; abi.Varies (-1) marks a dimension that
	// differs between samples.
	Shape []int
}

// TensorRef is one tensor of one sample: its shape and where its bytes
// lie in the sample's Data. A Sample's Tensors follow Model.Inputs.
type TensorRef struct {
	Shape          []int
	Offset, Length int
}

// Sample is one data set sample for LoadSamples.
type Sample struct {
	Index uint64
	Data  []byte
	// Tensors are the sample's tensors, one per Model.Inputs entry (ABI
	// v1.2); nil when the model was loaded without inputs.
	Tensors []TensorRef
}

// ErrClosed is returned by every call on a closed Backend.
var ErrClosed = errors.New("backend closed")

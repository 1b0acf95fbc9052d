package engine

import (
	"context"
	"errors"
)

// Engine loads ONNX models into sessions. An Engine value holds no per-model
// state and is safe for concurrent use.
type Engine interface {
	// Name is the engine's name as users select it, e.g. "go" or "ort".
	Name() string

	// Load parses and plans model (the bytes of an ONNX ModelProto) and
	// returns a session ready to run. Every check that can fail before the
	// first Run fails here: malformed model, unsupported IR version, opset,
	// operator or attribute, missing initializer.
	//
	// The engine must not keep model after Load returns.
	//
	// # Errors
	//
	// Errors wrap [ErrInvalidModel] when the model is malformed and
	// [ErrUnsupported] when it is well formed but uses something the engine
	// cannot run. A context error is returned as is.
	Load(ctx context.Context, model []byte, opts Options) (Session, error)
}

// Session is one loaded model.
//
// # Notes
//
// Run is not safe for concurrent use: a Session owns the buffers of one run
// (the Go engine plans them once and reuses them). A caller that wants
// several runs in flight loads one Session per run slot. Inputs, Outputs and
// Close may be called at any time; Close is idempotent and Run after Close
// returns [ErrClosed].
type Session interface {
	// Inputs describes the model's graph inputs (initializers excluded), in
	// graph order. A dimension the model leaves free (the batch dimension)
	// is -1.
	Inputs() []TensorDesc

	// Outputs describes the model's graph outputs, in graph order, with -1
	// for dimensions that depend on the batch size.
	Outputs() []TensorDesc

	// Run executes the model once.
	//
	// inputs holds one tensor per Inputs() entry, in the same order, each
	// with a concrete shape: its free dimensions may take any value from 1
	// to Options.MaxBatch (or any value when MaxBatch is 0); fixed
	// dimensions must match. Data holds exactly Shape's element count in
	// the tensor's DType, little endian. Run only reads inputs.
	//
	// outputs holds one tensor per Outputs() entry, in the same order. Run
	// sets each one's Name, DType and Shape and writes its Data, reusing
	// the Data slice's capacity when it suffices (so a caller that keeps
	// outputs across calls does not allocate in steady state) and
	// allocating a larger one otherwise.
	//
	// # Errors
	//
	// A wrong number of tensors, a wrong dtype, shape or data length wraps
	// [ErrInput]. Cancellation of ctx is checked at least once per Run
	// (engines may check it between operators); it returns ctx.Err().
	Run(ctx context.Context, inputs, outputs []Tensor) error

	// Close releases the session's resources.
	Close() error
}

// Options tune how a model is loaded and run. The zero value is valid.
type Options struct {
	// Threads is the number of threads one Run may use. 0 lets the engine
	// choose (all cores natively; the WASM build is always
	// single-threaded).
	Threads int

	// MaxBatch is the largest value a free (batch) dimension will take in
	// Run. Engines may plan buffers for it at Load. 0 means unknown: the
	// engine plans on first use of each size.
	MaxBatch int

	// ModelDir is the directory of the model's file, where the files of
	// its external data lie (TensorProto external_data locations are
	// relative to it). "" when the model came as bytes with no file: a
	// model with external data then fails Load with an error naming the
	// tensor and the file it wants.
	ModelDir string

	// Extra holds engine-specific options by name (for example the ONNX
	// Runtime library path or graph optimization level), passed through
	// from the plugin's options. Engines ignore keys they do not know and
	// reject bad values of keys they do know.
	Extra map[string]string
}

// Sentinel errors shared by all engines. Engines wrap them with context.
var (
	// ErrInvalidModel reports a model file that is not a valid ONNX model:
	// malformed protobuf, inconsistent graph, bad tensor data.
	ErrInvalidModel = errors.New("invalid onnx model")

	// ErrUnsupported reports a valid model that uses an IR version, opset,
	// operator, attribute or data type the engine does not implement.
	ErrUnsupported = errors.New("unsupported by engine")

	// ErrInput reports Run inputs or outputs that do not match the model.
	ErrInput = errors.New("bad run tensors")

	// ErrClosed reports a call on a closed session.
	ErrClosed = errors.New("session closed")

	// ErrUnavailable reports an engine that cannot run on this machine: a
	// native library it binds is missing, cannot be loaded or is too old.
	// Another engine may serve the model instead.
	ErrUnavailable = errors.New("engine unavailable")
)

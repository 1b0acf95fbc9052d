//go:build linux || darwin

package ort

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// The engine's keys in [engine.Options.Extra] (the plugin's
// `--set onnx.<key>=<value>` options).
const (
	// OptLibrary is the path of libonnxruntime for this model, overriding
	// [Config.Library].
	OptLibrary = "ort_library"
	// OptOptimization is ONNX Runtime's graph optimization level: "all"
	// (the default), "extended", "basic" or "disable".
	OptOptimization = "ort_optimization"
	// OptInterOpThreads is ONNX Runtime's inter-op thread count: 1 (the
	// default) runs the graph's nodes one after another (ORT_SEQUENTIAL);
	// more runs independent nodes at once (ORT_PARALLEL) on that many
	// threads. The intra-op count, the threads inside one node, is
	// [engine.Options.Threads].
	OptInterOpThreads = "ort_inter_op_threads"
)

var _ engine.Describer = (*Engine)(nil)

// OptionSpecs implements engine.Describer.
func (*Engine) OptionSpecs() []engine.OptionSpec {
	return []engine.OptionSpec{
		{Name: OptInterOpThreads, Type: "uint", Default: "1",
			Doc: "ort engine: inter-op threads; 1 runs the graph's nodes one after another, more runs independent nodes at once"},
		{Name: OptLibrary, Type: string(abi.OptionPath), Doc: "ort engine: path of libonnxruntime (default: the plugin's, else the loader's)"},
		{Name: OptOptimization, Type: "enum", Allowed: []string{"all", "extended", "basic", "disable"}, Default: "all",
			Doc: "ort engine: ONNX Runtime's graph optimization level"},
	}
}

// maxThreads bounds the thread counts the engine accepts.
const maxThreads = 4096

// interOpThreads parses OptInterOpThreads.
func interOpThreads(v string) (int, error) {
	if v == "" {
		return 1, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > maxThreads {
		return 0, fmt.Errorf("option %s=%q: want an integer from 1 to %d", OptInterOpThreads, v, maxThreads)
	}
	return n, nil
}

// optimizationLevels maps OptOptimization values to GraphOptimizationLevel.
func optimizationLevel(v string) (uintptr, error) {
	switch v {
	case "", "all":
		return 99, nil // ORT_ENABLE_ALL
	case "extended":
		return 2, nil
	case "basic":
		return 1, nil
	case "disable":
		return 0, nil
	default:
		return 0, fmt.Errorf("option %s=%q: want all, extended, basic or disable", OptOptimization, v)
	}
}

// Config configures an [Engine]. The zero value is valid.
type Config struct {
	// Library is the path of libonnxruntime (ONNX Runtime 1.30 or newer).
	// Empty means [DefaultLibrary], found through the dynamic loader's
	// search path.
	Library string
	// Hint tells the user how to get the library when it cannot be
	// loaded (a *[LibraryError] ends with it); empty means [DefaultHint].
	Hint string
}

// Validate reports whether the configuration is usable.
func (c Config) Validate() error {
	if len(c.Library) > 4096 {
		return fmt.Errorf("ort: library path of %d bytes", len(c.Library))
	}
	if len(c.Hint) > 4096 {
		return fmt.Errorf("ort: hint of %d bytes", len(c.Hint))
	}
	return nil
}

// Engine is the ONNX Runtime engine. It loads the library on the first
// Load that names it and keeps it loaded. Engine is safe for concurrent
// use.
type Engine struct {
	cfg Config

	mu   sync.Mutex
	libs map[string]*library
}

var _ engine.Engine = (*Engine)(nil)

// New returns an engine that uses [DefaultLibrary] unless a Load passes
// [OptLibrary].
func New() *Engine {
	return &Engine{libs: map[string]*library{}}
}

// NewWithConfig returns an engine with the given configuration.
func NewWithConfig(cfg Config) (*Engine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	e := New()
	e.cfg = cfg
	return e, nil
}

// Name returns "ort".
func (e *Engine) Name() string { return "ort" }

// library returns the loaded library at path, loading it on first use. A
// failed load is not remembered, so a library installed later is found.
func (e *Engine) library(path string) (*library, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if l, ok := e.libs[path]; ok {
		return l, nil
	}
	l, err := openLibrary(path)
	if err != nil {
		if le := (*LibraryError)(nil); errors.As(err, &le) {
			le.Hint = e.cfg.Hint
		}
		return nil, err
	}
	e.libs[path] = l
	return l, nil
}

// Load creates an ONNX Runtime session for model. Options.Threads sets
// the intra-op thread count (0: ONNX Runtime's default, one per physical
// core); execution is sequential unless [OptInterOpThreads] is above 1.
// Options.MaxBatch bounds the free dimensions Run accepts.
//
// # Errors
//
// A missing or unusable library gives a *[LibraryError] (wrapping
// [ErrLibrary]) that says how to get it. A model ONNX Runtime rejects
// wraps [engine.ErrInvalidModel] or, for an operator or type it does not
// implement, [engine.ErrUnsupported], together with the *[StatusError].
func (e *Engine) Load(ctx context.Context, model []byte, opts engine.Options) (engine.Session, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if opts.Threads < 0 || opts.MaxBatch < 0 {
		return nil, fmt.Errorf("ort: threads %d, max batch %d: must not be negative", opts.Threads, opts.MaxBatch)
	}
	level, err := optimizationLevel(opts.Extra[OptOptimization])
	if err != nil {
		return nil, fmt.Errorf("ort: %w", err)
	}
	interOp, err := interOpThreads(opts.Extra[OptInterOpThreads])
	if err != nil {
		return nil, fmt.Errorf("ort: %w", err)
	}
	if len(model) == 0 {
		return nil, fmt.Errorf("ort: %w: empty model", engine.ErrInvalidModel)
	}
	path := e.cfg.Library
	if p := opts.Extra[OptLibrary]; p != "" {
		path = p
	}
	if path == "" {
		path = DefaultLibrary
	}
	l, err := e.library(path)
	if err != nil {
		return nil, fmt.Errorf("ort: %w", err)
	}
	// A model the scan cannot read goes to ONNX Runtime anyway, so that
	// its words report what is malformed; should it load the model all
	// the same, the scan's error stands.
	external, scanErr := checkExternal(model, opts.ModelDir)
	if errors.Is(scanErr, onnxpb.ErrExternalData) {
		return nil, fmt.Errorf("ort: %w: %w", engine.ErrInvalidModel, scanErr)
	}
	cfg := sessionConfig{threads: opts.Threads, interOp: interOp, level: level, maxBatch: opts.MaxBatch}
	if external || scanErr != nil {
		cfg.externalDir = opts.ModelDir
	}
	s, err := newSession(l, model, cfg)
	if err != nil {
		return nil, fmt.Errorf("ort: %w", err)
	}
	if scanErr != nil {
		_ = s.Close()
		return nil, fmt.Errorf("ort: %w: %w", engine.ErrInvalidModel, scanErr)
	}
	return s, nil
}

// loadError classifies a failed CreateSessionFromArray status as
// [engine.ErrUnsupported] or [engine.ErrInvalidModel], keeping the status.
func loadError(err error) error {
	var st *StatusError
	if !errors.As(err, &st) {
		return err
	}
	// ONNX Runtime reports what it does not implement with the generic
	// codes ORT_FAIL and ORT_INVALID_GRAPH too, so for those the message
	// is the only signal.
	unsupported := st.Code == CodeNotImplemented
	for _, phrase := range []string{
		"Unsupported model IR version", // IR version newer than the runtime's
		"is under development",         // opset newer than the runtime's
		"No Op registered for",         // operator unknown to the runtime
	} {
		unsupported = unsupported || strings.Contains(st.Message, phrase)
	}
	if unsupported {
		return fmt.Errorf("%w: %w", engine.ErrUnsupported, err)
	}
	return fmt.Errorf("%w: %w", engine.ErrInvalidModel, err)
}

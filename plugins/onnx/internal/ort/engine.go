//go:build linux || darwin

package ort

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
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
)

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
}

// Validate reports whether the configuration is usable.
func (c Config) Validate() error {
	if len(c.Library) > 4096 {
		return fmt.Errorf("ort: library path of %d bytes", len(c.Library))
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
		return nil, err
	}
	e.libs[path] = l
	return l, nil
}

// Load creates an ONNX Runtime session for model. Options.Threads sets
// the intra-op thread count (0: ONNX Runtime's default, one per physical
// core); execution is sequential. Options.MaxBatch bounds the free
// dimensions Run accepts.
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
	s, err := newSession(l, model, sessionConfig{threads: opts.Threads, level: level, maxBatch: opts.MaxBatch})
	if err != nil {
		return nil, fmt.Errorf("ort: %w", err)
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

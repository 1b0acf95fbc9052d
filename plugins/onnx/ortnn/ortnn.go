//go:build linux || darwin

package ortnn

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/ort"
)

// Errors of Load, SetInput, Compute and Output, for callers to map.
var (
	// ErrInvalidModel: the bytes are not an ONNX model ONNX Runtime can
	// read.
	ErrInvalidModel = engine.ErrInvalidModel
	// ErrUnsupported: a valid model or tensor this service cannot run (an
	// operator ONNX Runtime lacks, an element type it does not take).
	ErrUnsupported = engine.ErrUnsupported
	// ErrUnavailable: ONNX Runtime's library cannot be loaded.
	ErrUnavailable = engine.ErrUnavailable
	// ErrInput: tensors that do not fit the model (type, shape, count).
	ErrInput = engine.ErrInput
	// ErrNoTensor: an input or output index past the model's.
	ErrNoTensor = errors.New("no such tensor")
)

// DefaultLibrary is the file name of ONNX Runtime's library that the
// dynamic loader looks for when Config.Library is empty.
const DefaultLibrary = ort.DefaultLibrary

// Version is the ONNX Runtime version the service is built and tested
// against.
const Version = ort.Version

// Runtime loads models. It is safe for concurrent use.
type Runtime struct {
	eng     *ort.Engine
	threads int
}

// New returns a Runtime; the library is loaded by the first Load.
func New(cfg Config) (*Runtime, error) {
	if cfg.Threads < 0 {
		return nil, fmt.Errorf("ortnn: %d threads", cfg.Threads)
	}
	eng, err := ort.NewWithConfig(ort.Config{Library: cfg.Library, Hint: cfg.Hint})
	if err != nil {
		return nil, err
	}
	return &Runtime{eng: eng, threads: max(cfg.Threads, 1)}, nil
}

var dtypes = map[Type]engine.DType{Float32: engine.Float32, Uint8: engine.Uint8, Int32: engine.Int32, Int64: engine.Int64}

// Graph is a loaded model. Its contexts run sessions of their own: the
// first reuses the session Load made, later ones load the model again
// (an ONNX Runtime session of this package runs one inference at a time).
type Graph struct {
	r     *Runtime
	model []byte

	mu    sync.Mutex
	spare engine.Session
	open  []*Context
}

// Load creates a graph from an ONNX model (copied; model may be reused
// after Load returns).
//
// # Errors
//
// ErrInvalidModel, ErrUnsupported or ErrUnavailable (wrapped with
// ONNX Runtime's message), or ctx's error.
func (r *Runtime) Load(ctx context.Context, model []byte) (*Graph, error) {
	s, err := r.session(ctx, model)
	if err != nil {
		return nil, err
	}
	return &Graph{r: r, model: slices.Clone(model), spare: s}, nil
}

// session loads model into a new ONNX Runtime session (a missing library
// is ErrUnavailable: ort's LibraryError matches it).
func (r *Runtime) session(ctx context.Context, model []byte) (engine.Session, error) {
	return r.eng.Load(ctx, model, engine.Options{Threads: r.threads})
}

// NewContext returns an execution context of the graph.
func (g *Graph) NewContext(ctx context.Context) (*Context, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	s := g.spare
	g.spare = nil
	if s == nil {
		var err error
		if s, err = g.r.session(ctx, g.model); err != nil {
			return nil, err
		}
	}
	c := &Context{g: g, s: s, in: make([]engine.Tensor, len(s.Inputs())), set: make([]bool, len(s.Inputs())),
		out: make([]engine.Tensor, len(s.Outputs()))}
	for i, d := range s.Inputs() {
		c.in[i].Name = d.Name
	}
	g.open = append(g.open, c)
	return c, nil
}

// Close closes the graph's contexts and sessions.
func (g *Graph) Close() error {
	g.mu.Lock()
	open, spare := g.open, g.spare
	g.open, g.spare = nil, nil
	g.mu.Unlock()
	var errs []error
	for _, c := range open {
		errs = append(errs, c.Close())
	}
	if spare != nil {
		errs = append(errs, spare.Close())
	}
	return errors.Join(errs...)
}

// Context runs the graph: inputs set by index, one Compute at a time.
type Context struct {
	g        *Graph
	s        engine.Session
	in, out  []engine.Tensor
	set      []bool
	computed bool
	once     sync.Once
}

// SetInput sets input index (in the model's order) to a copy of data,
// little endian, with the given type and dimensions.
func (c *Context) SetInput(index int, typ Type, dims []int64, data []byte) error {
	if index < 0 || index >= len(c.in) {
		return fmt.Errorf("%w: input %d of a model with %d", ErrNoTensor, index, len(c.in))
	}
	dt, ok := dtypes[typ]
	if !ok {
		return fmt.Errorf("%w: element type %d", ErrUnsupported, typ)
	}
	t := &c.in[index]
	t.DType = dt
	t.Shape = append(t.Shape[:0], dims...)
	t.Data = append(t.Data[:0], data...)
	c.set[index] = true
	return nil
}

// Compute runs the model on the inputs set; cancelling ctx stops it.
func (c *Context) Compute(ctx context.Context) error {
	for i, ok := range c.set {
		if !ok {
			return fmt.Errorf("%w: input %d (%s) is not set", ErrInput, i, c.in[i].Name)
		}
	}
	c.computed = false
	if err := c.s.Run(ctx, c.in, c.out); err != nil {
		return err
	}
	c.computed = true
	return nil
}

// Output returns output index of the last Compute (the context's buffer,
// valid until the next Compute).
func (c *Context) Output(index int) ([]byte, error) {
	if index < 0 || index >= len(c.out) {
		return nil, fmt.Errorf("%w: output %d of a model with %d", ErrNoTensor, index, len(c.out))
	}
	if !c.computed {
		return nil, fmt.Errorf("%w: no computed output yet", ErrInput)
	}
	return c.out[index].Data, nil
}

// Close releases the context's session.
func (c *Context) Close() error {
	var err error
	c.once.Do(func() { err = c.s.Close() })
	return err
}

package nnort

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/ortnn"
)

// Config configures the engine.
type Config struct {
	// Library is libonnxruntime's path; empty: the loader's search path.
	Library string
	// Threads is each session's intra-op thread count; 0 means 1.
	Threads int
	// Hint says how to get the library when it is missing.
	Hint string
}

// New returns ONNX Runtime as a host.NN. The library is loaded by the
// first model a guest loads; until then nothing can fail.
func New(cfg Config) (host.NN, error) {
	r, err := ortnn.New(ortnn.Config{Library: cfg.Library, Threads: cfg.Threads, Hint: cfg.Hint})
	if err != nil {
		return nil, fmt.Errorf("wasi-nn engine: %w", err)
	}
	return &nn{r: r}, nil
}

// FindLibrary returns where a binary at executable finds ONNX Runtime's
// library: beside it, or where `make build` installs it for the onnx-ort
// plugin (plugins/onnx-ort/ beside it); "" lets the dynamic loader search.
// The working directory is never searched: whoever can write it must not
// choose native code for the host to load.
func FindLibrary(executable string) string {
	if executable == "" || ortnn.DefaultLibrary == "" {
		return ""
	}
	dir := filepath.Dir(executable)
	for _, p := range []string{
		filepath.Join(dir, ortnn.DefaultLibrary),
		filepath.Join(dir, "plugins", "onnx-ort", ortnn.DefaultLibrary),
	} {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	return ""
}

type nn struct{ r *ortnn.Runtime }

type graph struct{ g *ortnn.Graph }

// execContext is one context; dims is SetInput's scratch, so that a
// query allocates nothing here.
type execContext struct {
	c    *ortnn.Context
	dims []int64
}

var (
	_ host.NN        = (*nn)(nil)
	_ host.NNGraph   = graph{}
	_ host.NNContext = (*execContext)(nil)
)

func (n *nn) Load(ctx context.Context, enc host.NNEncoding, target host.NNTarget, builders [][]byte) (host.NNGraph, error) {
	switch {
	case enc != host.NNONNX && enc != host.NNAutodetect:
		return nil, fmt.Errorf("%w: encoding %d: this host runs ONNX models (encoding %d) only", host.ErrNNInvalidEncoding, enc, host.NNONNX)
	case target != host.NNCPU:
		return nil, fmt.Errorf("%w: execution target %d: this host runs on the CPU (target %d) only", host.ErrNNUnsupported, target, host.NNCPU)
	case len(builders) != 1:
		return nil, fmt.Errorf("%w: %d graph builders: an ONNX graph is one, the model", host.ErrNNInvalidArgument, len(builders))
	}
	g, err := n.r.Load(ctx, builders[0])
	if err != nil {
		return nil, nnError(err)
	}
	return graph{g}, nil
}

func (g graph) NewContext() (host.NNContext, error) {
	c, err := g.g.NewContext(context.Background())
	if err != nil {
		return nil, nnError(err)
	}
	return &execContext{c: c}, nil
}

func (g graph) Close() error { return g.g.Close() }

var types = map[host.NNType]ortnn.Type{host.NNF32: ortnn.Float32, host.NNU8: ortnn.Uint8, host.NNI32: ortnn.Int32, host.NNI64: ortnn.Int64}

func (c *execContext) SetInput(index int, t host.NNTensor) error {
	typ, ok := types[t.Type]
	if !ok {
		return fmt.Errorf("%w: tensor type %d (f16 and f64 are not supported)", host.ErrNNUnsupported, t.Type)
	}
	c.dims = c.dims[:0]
	for _, d := range t.Dims {
		c.dims = append(c.dims, int64(d))
	}
	return nnError(c.c.SetInput(index, typ, c.dims, t.Data))
}

func (c *execContext) Compute(ctx context.Context) error { return nnError(c.c.Compute(ctx)) }

func (c *execContext) Output(index int) ([]byte, error) {
	b, err := c.c.Output(index)
	return b, nnError(err)
}

func (c *execContext) Close() error { return c.c.Close() }

// nnError maps the service's errors onto wasi-nn's, keeping the message.
func nnError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ortnn.ErrNoTensor):
		return fmt.Errorf("%w: %w", host.ErrNNNotFound, err)
	case errors.Is(err, ortnn.ErrInvalidModel), errors.Is(err, ortnn.ErrInput):
		return fmt.Errorf("%w: %w", host.ErrNNInvalidArgument, err)
	case errors.Is(err, ortnn.ErrUnsupported), errors.Is(err, ortnn.ErrUnavailable):
		return fmt.Errorf("%w: %w", host.ErrNNUnsupported, err)
	}
	return err
}

package goengine

import (
	"context"
	"fmt"
	"runtime"
	"strconv"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/kernels"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// Name is the engine's name in the plugin's engine option.
const Name = "go"

// Engine is the pure-Go ONNX engine. The zero value is not valid: use
// [New].
type Engine struct{}

var _ engine.Engine = (*Engine)(nil)

// New returns the Go engine.
func New() *Engine { return &Engine{} }

// Name implements engine.Engine.
func (*Engine) Name() string { return Name }

// Engine-specific keys of engine.Options.Extra.
const (
	// OptKernel selects the GEMM micro-kernel: "auto" (default: the best
	// this CPU runs) or "go" (the portable one).
	OptKernel = "kernel"
	// OptFuse turns load-time fusion off with "false" (for tests).
	OptFuse = "fuse"
	// OptWinograd selects when 3×3 stride-1 convolutions run as Winograd
	// minimal filtering (the WASM build's SIMD kernels only): "auto"
	// (default), "off", "f2" or "f4" (kernels.ParseWinogradMode).
	OptWinograd = "winograd"
	// OptMaxArenaMB bounds the activation arena of one plan, in MiB.
	OptMaxArenaMB = "max_arena_mb"
	// OptBatchSplit runs the sample-separable stretches of a batch's plan
	// one sample at a time: "auto" (default: with one thread, where it
	// was measured faster), "on" or "off".
	OptBatchSplit = "batch_split"
)

var _ engine.Describer = (*Engine)(nil)

// OptionSpecs implements engine.Describer.
func (*Engine) OptionSpecs() []engine.OptionSpec {
	return []engine.OptionSpec{
		{Name: OptKernel, Type: "enum", Allowed: []string{"auto", "go"}, Default: "auto",
			Doc: "go engine: GEMM micro-kernel, auto (the best this CPU runs) or go (portable)"},
		{Name: OptWinograd, Type: "enum", Allowed: []string{"auto", "off", "f2", "f4"}, Default: "auto",
			Doc: "go engine in WASM: 3×3 stride-1 convolutions as Winograd F(4×4,3×3) (auto), F(2×2,3×3) (f2, f4 forces F(4×4)) or on the GEMM (off, the direct convolution's rounding)"},
		{Name: OptFuse, Type: "bool", Default: "true", Doc: "go engine: load-time fusion (off only for testing)"},
		{Name: OptMaxArenaMB, Type: "uint", Doc: "go engine: memory budget of one plan in MiB (default 8192, 1024 in WASM)"},
		{Name: OptBatchSplit, Type: "enum", Allowed: []string{"auto", "on", "off"}, Default: "auto",
			Doc: "go engine: run a batch's sample-separable layers one sample at a time, auto (with one thread), on or off"},
	}
}

// config is the parsed engine.Options.
type config struct {
	threads  int
	maxBatch int
	gemm     *kernels.Gemm
	fuse     bool
	maxArena int64
	// split runs batches split where the graph allows (OptBatchSplit).
	split bool
}

func parseOptions(o engine.Options) (config, error) {
	c := config{threads: o.Threads, maxBatch: o.MaxBatch, fuse: true, maxArena: defaultMaxArenaMB << 20}
	if c.threads <= 0 {
		c.threads = runtime.GOMAXPROCS(0)
	}
	if c.maxBatch < 0 {
		return c, fmt.Errorf("max batch %d is negative", c.maxBatch)
	}
	switch k := o.Extra[OptKernel]; k {
	case "", "auto":
		c.gemm = kernels.BestGemm()
	case "go":
		c.gemm = kernels.NewGemm()
	default:
		return c, fmt.Errorf("option %s=%q: want auto or go", OptKernel, k)
	}
	wino, err := kernels.ParseWinogradMode(o.Extra[OptWinograd])
	if err != nil {
		return c, fmt.Errorf("option %s: %w", OptWinograd, err)
	}
	if wino != kernels.WinogradAuto {
		c.gemm = c.gemm.WithWinograd(wino)
	}
	if v, ok := o.Extra[OptFuse]; ok {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return c, fmt.Errorf("option %s=%q: %w", OptFuse, v, err)
		}
		c.fuse = b
	}
	switch v := o.Extra[OptBatchSplit]; v {
	case "", "auto":
		c.split = c.threads == 1
	case "on", "off":
		c.split = v == "on"
	default:
		return c, fmt.Errorf("option %s=%q: want auto, on or off", OptBatchSplit, v)
	}
	if v, ok := o.Extra[OptMaxArenaMB]; ok {
		mb, err := strconv.ParseInt(v, 10, 32)
		if err != nil || mb <= 0 {
			return c, fmt.Errorf("option %s=%q: want a positive number of MiB", OptMaxArenaMB, v)
		}
		c.maxArena = mb << 20
	}
	return c, nil
}

// Load implements engine.Engine: decode, validate, fuse, then plan the
// model once for batch 1 (and Options.MaxBatch) so that shape errors
// surface here.
func (e *Engine) Load(ctx context.Context, model []byte, opts engine.Options) (engine.Session, error) {
	cfg, err := parseOptions(opts)
	if err != nil {
		return nil, fmt.Errorf("go engine: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m, err := onnxpb.Decode(model)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", engine.ErrInvalidModel, err)
	}
	if err := readExternal(m, opts.ModelDir); err != nil {
		return nil, fmt.Errorf("%w: %w", engine.ErrInvalidModel, err)
	}
	g, err := buildGraph(m)
	if err != nil {
		return nil, err
	}
	s := newSession(g, cfg)
	if cfg.fuse {
		if err := s.fuse(); err != nil {
			s.Close()
			return nil, err
		}
	}
	if err := s.prepare(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

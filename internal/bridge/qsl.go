package bridge

import (
	"context"
	"fmt"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
	"github.com/mlperf-host/mlperf-host/loadgen"
)

// QSL is a data set seen as a loadgen.QSL: loading samples reads them into
// an arena and hands them to the plugin, each with its tensors (the
// plugin was loaded with the data set's schema, [Inputs]).
type QSL struct {
	b       host.Backend
	d       dataset.Dataset
	arena   *dataset.Arena
	perf    uint64
	samples []host.Sample
	warm    bool
	// benchmark names the benchmark in Name, "" for none.
	benchmark string
}

var _ loadgen.QSL = (*QSL)(nil)

// NewQSL makes the QSL of d for backend b; performanceCount is how many
// samples fit in memory (0 or more than the data set: all of them).
func NewQSL(b host.Backend, d dataset.Dataset, performanceCount int) *QSL {
	n := uint64(d.Len())
	perf := uint64(performanceCount)
	if perf == 0 || perf > n {
		perf = n
	}
	return &QSL{b: b, d: d, arena: dataset.NewArena(d), perf: perf}
}

// SetBenchmark makes Name say which benchmark the samples are for.
func (q *QSL) SetBenchmark(name string) { q.benchmark = name }

// Name returns the data set's name, which the LoadGen logs as qsl_name:
// "BENCHMARK (DATA SET)" after SetBenchmark, so that a detail log says
// which benchmark it measured (`mlperf-host report` reads it back).
func (q *QSL) Name() string {
	if q.benchmark == "" {
		return q.d.Name()
	}
	return q.benchmark + " (" + q.d.Name() + ")"
}

// TotalSampleCount returns the data set's size.
func (q *QSL) TotalSampleCount() uint64 { return uint64(q.d.Len()) }

// PerformanceSampleCount returns how many samples fit in memory.
func (q *QSL) PerformanceSampleCount() uint64 { return q.perf }

// LoadSamplesToRAM reads the samples and gives them to the plugin. The
// first time, it then runs the plugin's warm-up: untimed, after the
// samples are loaded and before the first query, as the ABI orders it.
func (q *QSL) LoadSamplesToRAM(ctx context.Context, indices []uint64) error {
	if err := q.arena.Load(ctx, q.d, indices); err != nil {
		return err
	}
	q.samples = appendSamples(q.samples[:0], q.arena)
	if err := q.b.LoadSamples(ctx, q.samples); err != nil {
		return fmt.Errorf("load %d samples into the plugin: %w", len(q.samples), err)
	}
	if !q.warm {
		q.warm = true
		if err := q.b.Warmup(ctx); err != nil {
			return fmt.Errorf("plugin warm-up: %w", err)
		}
	}
	return nil
}

// UnloadSamplesFromRAM tells the plugin to release the samples and
// forgets them.
func (q *QSL) UnloadSamplesFromRAM(ctx context.Context, indices []uint64) error {
	err := q.b.UnloadSamples(ctx, indices)
	q.arena.Reset()
	if err != nil {
		return fmt.Errorf("unload %d samples from the plugin: %w", len(indices), err)
	}
	return nil
}

// Inputs is the schema of d as the plugin is told it at Load.
func Inputs(d dataset.Dataset) []host.TensorSpec {
	var out []host.TensorSpec
	for _, t := range d.Schema() {
		out = append(out, host.TensorSpec{Name: t.Name, DType: abi.DType(t.DType.String()), Shape: t.Shape})
	}
	return out
}

// Samples returns the samples loaded in a, in load order, each with its
// tensors; their Data aliases a.
func Samples(a *dataset.Arena) []host.Sample { return appendSamples(nil, a) }

func appendSamples(dst []host.Sample, a *dataset.Arena) []host.Sample {
	for _, idx := range a.Loaded() {
		s := host.Sample{Index: idx, Data: a.Sample(idx)}
		for _, l := range a.Layout(idx) {
			s.Tensors = append(s.Tensors, host.TensorRef{Shape: l.Shape, Offset: l.Offset, Length: l.Length})
		}
		dst = append(dst, s)
	}
	return dst
}

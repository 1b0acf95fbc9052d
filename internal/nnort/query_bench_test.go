//go:build linux

package nnort

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/internal/hostquery"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/fashionmnist"
	"github.com/mlperf-host/mlperf-host/sdk/sdktest"
)

// baseline is another build of the onnx plugin's module (one from before
// a change, made by make embed-onnx): it joins as the side wasinn-base.
var baseline = flag.String("nnort.baseline", "", "BenchmarkQuery: the onnx plugin's module from before a change, as the side wasinn-base")

// benchDir holds what the benchmarks build: the module and wazero's
// compilation cache.
var benchDir string

func TestMain(m *testing.M) {
	var err error
	if benchDir, err = os.MkdirTemp("", "nnort-bench"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(benchDir)
	os.Exit(code)
}

// onnxModule builds the onnx plugin's WASM module with its SIMD kernels
// linked, as make embed-onnx does (once per test binary).
var onnxModule = sync.OnceValues(func() ([]byte, error) {
	out := filepath.Join(benchDir, "onnx.wasm")
	if err := sdktest.GoBuild(out, "../../plugins/onnx/cmd/onnx", sdktest.WASM); err != nil {
		return nil, err
	}
	if b, err := exec.Command("go", "run", "../../plugins/onnx/internal/kernels/wasmsimd/link", out).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("link the onnx plugin's kernels: %w\n%s", err, b)
	}
	return os.ReadFile(out)
})

// BenchmarkQuery is the wasi-nn path's cost per query on the
// Fashion-MNIST CNN (about 0.03 ms of ONNX Runtime at batch 1), three
// sides in one process:
//
//   - ort: the engine alone, called as the host calls it for one query
//     (set_input, compute, get_output's copy);
//   - wasinn: the onnx plugin's WASM module through the host, its wasinn
//     engine on this engine: issue to the last completion;
//   - sandbox: the same with an engine that computes nothing, which
//     leaves what the guest, the host and the wasi-nn calls cost.
//
// Besides ns/op (wall) it reports cpu-us/query, the process's CPU time,
// which a loaded machine inflates less. wasinn minus ort is the fixed
// cost of the sandboxed path. With -nnort.baseline, another build of the
// module runs as the side wasinn-base, for before and after; -count
// interleaves the sides.
//
//	go test -run '^$' -bench Query -benchtime 5000x -count 5 ./internal/nnort
func BenchmarkQuery(b *testing.B) {
	module, err := onnxModule()
	require.NoError(b, err)
	var base []byte
	if *baseline != "" {
		base, err = os.ReadFile(*baseline)
		require.NoError(b, err)
	}
	for _, batch := range []int{1, 8} {
		b.Run(fmt.Sprintf("batch=%d/side=ort", batch), func(b *testing.B) { benchEngine(b, batch) })
		if base != nil {
			b.Run(fmt.Sprintf("batch=%d/side=wasinn-base", batch), func(b *testing.B) { benchGuest(b, base, batch, engineB(b)) })
		}
		b.Run(fmt.Sprintf("batch=%d/side=wasinn", batch), func(b *testing.B) { benchGuest(b, module, batch, engineB(b)) })
		b.Run(fmt.Sprintf("batch=%d/side=sandbox", batch), func(b *testing.B) { benchGuest(b, module, batch, noopNN{}) })
	}
}

func engineB(b *testing.B) host.NN {
	b.Helper()
	if _, err := os.Stat(library); err != nil {
		b.Skipf("ONNX Runtime library not found at %s (%v): run `make ort`", library, err)
	}
	nn, err := New(Config{Library: library, Threads: 1})
	require.NoError(b, err)
	return nn
}

// image is sample i of a batch: the pattern wasmcompare feeds.
func image(i int) []byte {
	img := make([]byte, 28*28)
	for k := range img {
		img[k] = byte((i*len(img) + k) % 251)
	}
	return img
}

func benchEngine(b *testing.B, batch int) { benchEngineNN(b, batch, engineB(b)) }

func benchEngineNN(b *testing.B, batch int, nn host.NN) {
	ctx := context.Background()
	g, err := nn.Load(ctx, host.NNONNX, host.NNCPU, [][]byte{fashionmnist.Model()})
	require.NoError(b, err)
	defer g.Close()
	c, err := g.NewContext()
	require.NoError(b, err)
	var in []byte
	for i := range batch {
		in = append(in, image(i)...)
	}
	t := host.NNTensor{Type: host.NNU8, Dims: []uint32{uint32(batch), 1, 28, 28}, Data: in}
	out := make([]byte, 64<<10)
	query := func() {
		if err := c.SetInput(0, t); err != nil {
			b.Fatal(err)
		}
		if err := c.Compute(ctx); err != nil {
			b.Fatal(err)
		}
		o, err := c.Output(0)
		if err != nil {
			b.Fatal(err)
		}
		copy(out, o)
	}
	query()
	timeQueries(b, query)
}

func benchGuest(b *testing.B, module []byte, batch int, nn host.NN) {
	ctx := context.Background()
	be, err := host.OpenWASM(ctx, "onnx", module, host.Config{Instances: 1, CallTimeout: time.Minute, NN: nn,
		CompilationCacheDir: filepath.Join(benchDir, "wazero-cache")})
	require.NoError(b, err)
	defer be.Close()
	q := hostquery.New(be, batch)
	opts := map[string]string{"engine": "wasinn", "batch": strconv.Itoa(batch), "threads": "1", "instances": "1"}
	require.NoError(b, be.Load(ctx, host.Model{Bytes: fashionmnist.Model(), Options: opts}))
	samples := make([]host.Sample, batch)
	for i := range samples {
		samples[i] = host.Sample{Index: uint64(i), Data: image(i)}
	}
	require.NoError(b, be.LoadSamples(ctx, samples))
	query := func() {
		if err := q.Query(ctx); err != nil {
			b.Fatal(err)
		}
	}
	query()
	timeQueries(b, query)
}

// timeQueries runs query in b.Loop and reports the process's CPU time
// per query.
func timeQueries(b *testing.B, query func()) {
	b.ReportAllocs()
	c0 := cpuTime()
	for b.Loop() {
		query()
	}
	b.ReportMetric(float64((cpuTime()-c0).Microseconds())/float64(b.N), "cpu-us/query")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// noopNN is an engine that computes nothing: ten zero float32 per row of
// input 0's first dimension, the Fashion-MNIST CNN's output shape.
type noopNN struct{}

type noopContext struct{ out []byte }

func (noopNN) Load(context.Context, host.NNEncoding, host.NNTarget, [][]byte) (host.NNGraph, error) {
	return noopNN{}, nil
}

func (noopNN) NewContext() (host.NNContext, error) { return &noopContext{}, nil }
func (noopNN) Close() error                        { return nil }

func (c *noopContext) SetInput(_ int, t host.NNTensor) error {
	if n := 10 * 4 * int(t.Dims[0]); len(c.out) != n {
		c.out = make([]byte, n)
	}
	return nil
}

func (*noopContext) Compute(context.Context) error { return nil }
func (c *noopContext) Output(int) ([]byte, error)  { return c.out, nil }
func (*noopContext) Close() error                  { return nil }

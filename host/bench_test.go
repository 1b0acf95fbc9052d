package host_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/host/manifest"
	"github.com/mlperf-host/mlperf-host/internal/inproc"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// nullBackend is the in-process baseline: it completes every sample with
// nothing, as the WAT echo and the fake subprocess plugin do when no
// output is wanted.
type nullBackend struct{}

func (nullBackend) Info() sdk.Info                        { return sdk.Info{Name: "null", MaxInFlight: 2} }
func (nullBackend) Load(context.Context, sdk.Model) error { return nil }
func (nullBackend) Close() error                          { return nil }
func (nullBackend) Infer(_ context.Context, q sdk.Query, c sdk.Completer) error {
	for _, s := range q.Samples {
		c.Complete(s.ID, nil, 0)
	}
	return nil
}

// counter counts completions and signals when a target is reached.
type counter struct {
	n      atomic.Int64
	target atomic.Int64
	done   chan struct{}
}

func newCounter() *counter { return &counter{done: make(chan struct{}, 1)} }

func (c *counter) expect(n int64) { c.target.Store(c.n.Load() + n) }

func (c *counter) Complete(batch []host.Completion) {
	if c.n.Add(int64(len(batch))) == c.target.Load() {
		c.done <- struct{}{}
	}
}

func (c *counter) FirstTokens([]host.Completion) {}

type transport struct {
	name string
	open func(b *testing.B) host.Backend
}

func transports() []transport {
	wasm := func(guard host.Guard) func(b *testing.B) host.Backend {
		return func(b *testing.B) host.Backend {
			mod, err := os.ReadFile(filepath.Join("testdata", "wasm", "echo.wasm"))
			require.NoError(b, err)
			be, err := host.OpenWASM(b.Context(), "watecho", mod, host.Config{Guard: guard})
			require.NoError(b, err)
			return be
		}
	}
	goGuest := func(guard host.Guard) func(b *testing.B) host.Backend {
		return func(b *testing.B) host.Backend {
			be, err := host.OpenWASM(b.Context(), "goguest", host.GoGuestModule(b),
				host.Config{Guard: guard, CompilationCacheDir: host.WASMCacheDir()})
			require.NoError(b, err)
			return be
		}
	}
	return []transport{
		{name: "inproc", open: func(b *testing.B) host.Backend {
			// The SDK's session, with the model and the samples the
			// benchmarks issue loaded as a run has them.
			be, err := inproc.Open(b.Context(), nullBackend{})
			require.NoError(b, err)
			require.NoError(b, be.Load(b.Context(), host.Model{Bytes: []byte("null")}))
			samples := make([]host.Sample, 4096)
			for i := range samples {
				samples[i].Index = uint64(i)
			}
			require.NoError(b, be.LoadSamples(b.Context(), samples))
			return be
		}},
		{name: "wasm", open: wasm(host.GuardLoops)},
		{name: "wasm-go", open: goGuest(host.GuardLoops)},
		{name: "wasm-go-unguarded", open: goGuest(host.GuardOff)},
		{name: "wasm-strict", open: wasm(host.GuardStrict)},
		{name: "wasm-unguarded", open: wasm(host.GuardOff)},
		{name: "process", open: func(b *testing.B) host.Backend {
			exe, err := os.Executable()
			require.NoError(b, err)
			be, err := host.Open(b.Context(), host.Plugin{Name: "fake", Kind: manifest.KindProcess, Entry: exe},
				host.Config{Env: []string{"MLPERF_HOST_TEST_PLUGIN=echo"}})
			require.NoError(b, err)
			return be
		}},
	}
}

// BenchmarkOffline issues queries of 4096 samples without output, as the
// LoadGen's Offline scenario does, and waits for every completion:
// ns/sample is the transport's cost per sample.
func BenchmarkOffline(b *testing.B) {
	const n = 4096
	recs := make([]abi.IssueRecord, n)
	for i := range recs {
		recs[i] = abi.IssueRecord{ID: uint64(i), Index: uint64(i)}
	}
	for _, tr := range transports() {
		b.Run(tr.name, func(b *testing.B) {
			be := tr.open(b)
			defer be.Close()
			c := newCounter()
			be.SetHandler(c)
			ctx := b.Context()
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			for b.Loop() {
				c.expect(n)
				if err := be.Issue(ctx, recs); err != nil {
					b.Fatal(err)
				}
				<-c.done
			}
			elapsed := time.Since(start)
			samples := float64(b.N) * n
			b.ReportMetric(float64(elapsed.Nanoseconds())/samples, "ns/sample")
			b.ReportMetric(samples/elapsed.Seconds(), "samples/s")
		})
	}
}

// BenchmarkServer issues one sample per query and waits for it, as a
// lightly loaded Server scenario does: the round trip is the latency the
// transport adds to each query.
func BenchmarkServer(b *testing.B) {
	for _, tr := range transports() {
		b.Run(tr.name, func(b *testing.B) {
			be := tr.open(b)
			defer be.Close()
			c := newCounter()
			be.SetHandler(c)
			ctx := b.Context()
			rec := []abi.IssueRecord{{}}
			lat := make([]time.Duration, 0, 1<<16)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				rec[0].ID++
				c.expect(1)
				t0 := time.Now()
				if err := be.Issue(ctx, rec); err != nil {
					b.Fatal(err)
				}
				<-c.done
				lat = append(lat, time.Since(t0))
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-µs")
		})
	}
}

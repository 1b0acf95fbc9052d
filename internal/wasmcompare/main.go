// Command wasmcompare measures the onnx plugin in the WASM sandbox against
// raw ONNX Runtime on the same models and batch sizes, on one thread, in
// one run: raw ONNX Runtime (the rawort C baseline, a subprocess) and the
// plugin's WASM module run through the host, with its go engine (the SIMD
// kernels, no host compute), its go engine with the portable kernels
// (the build before them), and its wasinn engine (ONNX Runtime behind the
// host's wasi-nn import). Sides alternate round by round so that all see
// the same machine; each query is timed in wall time and in CPU time of
// the process that computes it (steadier on a loaded machine). It prints a
// Markdown table of medians and their ratios to raw ONNX Runtime (above 1
// is slower).
//
//	make embed-onnx onnx-perf-models ort bin/rawort
//	go run ./internal/wasmcompare -models bin/onnx-models
//
// With -baseline another build of the module (before a kernel change)
// joins as the side "base", its go engine (or -base-engine's), interleaved
// with the others; -base-set gives the side base other plugin options (the
// same module with batch_split=off: one option's effect alone).
//
// make bench-wasm runs it. With -gemm it times the SIMD kernels' GEMM alone
// in wazero instead (make bench-wasm-gemm).
package main

import (
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/internal/hostquery"
	"github.com/mlperf-host/mlperf-host/internal/nnort"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/fashionmnist"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/rawort"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "wasmcompare:", err)
		os.Exit(1)
	}
}

type options struct {
	plugin, raw, lib, models, only string
	baseline                       []byte            // -baseline's module, or nil
	baseEngine                     string            // the side base's engine
	baseSet                        map[string]string // -base-set: the side base's extra plugin options
	guard                          host.Guard
	sides                          []string
	batches                        []int
	rounds, runs, slowRuns         int
}

// sideNames are the sides besides raw, in table order.
var sideNames = []string{"go", "portable", "wasinn", "base"}

func run() error {
	var o options
	var sides, batches string
	flag.StringVar(&o.plugin, "plugin", "cmd/mlperf-host/embedded/onnx.wasm", "the onnx plugin's WASM module, kernels linked (make embed-onnx)")
	flag.StringVar(&o.raw, "raw", "bin/rawort", "the rawort baseline (make bin/rawort)")
	flag.StringVar(&o.lib, "lib", "third_party/ort/libonnxruntime.so.1", "libonnxruntime for rawort and wasi-nn (make ort)")
	flag.StringVar(&o.models, "models", "bin/onnx-models", "directory with resnet50.onnx and mobilenetv2.onnx (make onnx-perf-models)")
	flag.StringVar(&o.only, "only", "", "run only the models whose name contains this")
	flag.StringVar(&sides, "sides", "go,portable,wasinn", "sides to compare with raw ONNX Runtime: go (SIMD kernels), portable, wasinn")
	flag.StringVar(&batches, "batches", "1,8", "comma-separated batch sizes")
	flag.IntVar(&o.rounds, "rounds", 3, "alternating rounds per configuration")
	flag.IntVar(&o.runs, "runs", 5, "timed queries per round and side")
	flag.IntVar(&o.slowRuns, "slow-runs", 1, "timed queries per round for the portable side (30-100x slower)")
	baseline := flag.String("baseline", "", "another build of the plugin's module: adds the side base (its go engine), for before/after")
	flag.StringVar(&o.baseEngine, "base-engine", "go", "the side base's engine: go or wasinn")
	baseSet := flag.String("base-set", "", "the side base's extra plugin options, key=value[,key=value] (e.g. batch_split=off: the same module with another option)")
	flag.StringVar((*string)(&o.guard), "guard", string(host.GuardLoops), "the host's hang guard for the WASM sides (loops, strict, off)")
	gemm := flag.String("gemm", "", "instead: time the GEMM of this SIMD kernel module (onnx_simd.wasm) in wazero, in thread CPU time")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run (go tool pprof) to this file")
	flag.Parse()
	if *cpuProfile != "" {
		stop, err := startProfile(*cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	if *gemm != "" {
		return benchGemm(*gemm, o.rounds*o.runs)
	}
	o.sides = strings.Split(sides, ",")
	for _, s := range o.sides {
		if !slices.Contains(sideNames, s) {
			return fmt.Errorf("side %q: want some of %v", s, sideNames)
		}
	}
	for _, f := range strings.Split(batches, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return fmt.Errorf("bad batch %q", f)
		}
		o.batches = append(o.batches, n)
	}
	module, err := os.ReadFile(o.plugin)
	if err != nil {
		return err
	}
	if *baseline != "" {
		if o.baseline, err = os.ReadFile(*baseline); err != nil {
			return err
		}
		o.sides = append(o.sides, "base")
	} else if slices.Contains(o.sides, "base") {
		return errors.New("side base needs -baseline")
	}
	o.baseSet = map[string]string{}
	for _, kv := range strings.Split(*baseSet, ",") {
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("-base-set %q: want key=value", kv)
		}
		o.baseSet[k] = v
	}
	if *baseSet != "" && o.baseline == nil {
		return errors.New("-base-set needs -baseline (the same module for an option alone)")
	}
	if !slices.Contains(sideNames[:3], o.baseEngine) {
		return fmt.Errorf("-base-engine %q: want one of %v", o.baseEngine, sideNames[:3])
	}
	tmp, err := os.MkdirTemp("", "wasmcompare")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	fashion := filepath.Join(tmp, "fashion.onnx")
	if err := os.WriteFile(fashion, fashionmnist.Model(), 0o644); err != nil {
		return err
	}
	models := []model{{"fashion", fashion, inputUint8, 28 * 28},
		{"mobilenetv2", filepath.Join(o.models, "mobilenetv2.onnx"), inputFloat32, 3 * 224 * 224},
		{"resnet50", filepath.Join(o.models, "resnet50.onnx"), inputFloat32, 3 * 224 * 224}}
	fmt.Printf("%d rounds × %d queries per side (portable: %d), one thread, one WASM instance; medians; CPU: the computing process's\n\n",
		o.rounds, o.runs, o.slowRuns)
	fmt.Print("| model | batch | raw ms (wall / CPU) |")
	for _, s := range o.sides {
		fmt.Printf(" %s ms (wall / CPU) | %s / raw (wall / CPU) |", s, s)
	}
	fmt.Print("\n|---|---:|---:|")
	for range o.sides {
		fmt.Print("---:|---:|")
	}
	fmt.Println()
	for _, m := range models {
		if !strings.Contains(m.name, o.only) {
			continue
		}
		for _, b := range o.batches {
			res, err := compare(o, module, m, b)
			if err != nil {
				return fmt.Errorf("%s batch %d: %w", m.name, b, err)
			}
			raw := res["raw"]
			fmt.Printf("| %s | %d | %s |", m.name, b, raw)
			for _, s := range o.sides {
				r := res[s]
				fmt.Printf(" %s | %.2f / %.2f |", r, r.wall/raw.wall, r.cpu/raw.cpu)
			}
			fmt.Println()
		}
	}
	return nil
}

// model is a benchmark model: a file and the input rawort fills.
type model struct {
	name, path string
	input      int // inputUint8 or inputFloat32
	elements   int // per sample
}

const (
	inputUint8 = iota
	inputFloat32
)

// pattern is sample s of the batch input rawort makes: element i of the
// batch is i mod 251, divided by 251 for float32.
func (m model) pattern(s int) []byte {
	out := make([]byte, 0, m.elements*4)
	for k := range m.elements {
		v := (s*m.elements + k) % 251
		if m.input == inputUint8 {
			out = append(out, byte(v))
			continue
		}
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(float32(v)/251))
	}
	return out
}

// times are one side's medians in milliseconds per query.
type times struct{ wall, cpu float64 }

func (t times) String() string { return ms(t.wall) + " / " + ms(t.cpu) }

// ms formats milliseconds: three decimals below 1 ms (a tiny model's
// microseconds), two above.
func ms(v float64) string {
	if v < 1 {
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// sample is one timed query: wall time and the computing process's CPU time.
type sample = rawort.Run

func medians(s []sample) times {
	w := make([]time.Duration, len(s))
	c := make([]time.Duration, len(s))
	for i, x := range s {
		w[i], c[i] = x.Wall, x.CPU
	}
	slices.Sort(w)
	slices.Sort(c)
	mid := (len(s) - 1) / 2
	return times{w[mid].Seconds() * 1e3, c[mid].Seconds() * 1e3}
}

// compare loads the model on every side and alternates rounds.
func compare(o options, module []byte, m model, batch int) (map[string]times, error) {
	bytes, err := os.ReadFile(m.path)
	if err != nil {
		return nil, err
	}
	raw, err := rawort.Start(o.raw, o.lib, m.path, 1, batch)
	if err != nil {
		return nil, err
	}
	defer raw.Close()
	sides := map[string]func(n int) ([]sample, error){"raw": raw.Round}
	order := []string{"raw"}
	for _, s := range o.sides {
		mod := module
		side := s
		var set map[string]string
		if s == "base" {
			mod, side, set = o.baseline, o.baseEngine, o.baseSet
		}
		g, err := openGuest(mod, bytes, m, side, o.lib, o.guard, batch, set)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s, err)
		}
		defer g.close()
		sides[s] = g.round
		order = append(order, s)
	}
	got := map[string][]sample{}
	for r := range o.rounds {
		for i := range order {
			name := order[(i+r)%len(order)]
			n := o.runs
			if name == "portable" {
				n = o.slowRuns
			}
			s, err := sides[name](n)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			got[name] = append(got[name], s...)
		}
	}
	out := map[string]times{}
	for name, s := range got {
		out[name] = medians(s)
	}
	return out, nil
}

// guest is the plugin's module through the host with one instance.
type guest struct {
	b host.Backend
	q *hostquery.Runner
}

func openGuest(module, bytes []byte, m model, side, lib string, guard host.Guard, batch int, set map[string]string) (*guest, error) {
	ctx := context.Background()
	cfg := host.Config{Instances: 1, CallTimeout: time.Hour, MemoryLimitMiB: 3072, Guard: guard}
	opts := map[string]string{"batch": strconv.Itoa(batch), "threads": "1", "instances": "1", "engine": "go"}
	maps.Copy(opts, set)
	switch side {
	case "portable":
		opts["kernel"] = "go"
	case "wasinn":
		opts["engine"] = "wasinn"
		nn, err := nnort.New(nnort.Config{Library: lib, Threads: 1})
		if err != nil {
			return nil, err
		}
		cfg.NN = nn
	}
	b, err := host.OpenWASM(ctx, "onnx", module, cfg)
	if err != nil {
		return nil, err
	}
	g := &guest{b: b, q: hostquery.New(b, batch)}
	if err := b.Load(ctx, host.Model{Bytes: bytes, Options: opts}); err != nil {
		b.Close()
		return nil, err
	}
	samples := make([]host.Sample, batch)
	for i := range samples {
		samples[i] = host.Sample{Index: uint64(i), Data: m.pattern(i)}
	}
	if err := b.LoadSamples(ctx, samples); err != nil {
		b.Close()
		return nil, err
	}
	if _, err := g.round(2); err != nil { // warm-up
		b.Close()
		return nil, err
	}
	return g, nil
}

// round times n queries of the batch.
func (g *guest) round(n int) ([]sample, error) {
	out := make([]sample, n)
	for r := range n {
		t0, c0 := time.Now(), cpuTime()
		if err := g.q.Query(context.Background()); err != nil {
			return nil, err
		}
		out[r] = sample{Wall: time.Since(t0), CPU: cpuTime() - c0}
	}
	return out, nil
}

func (g *guest) close() { _ = g.b.Close() }

// startProfile starts a CPU profile into path; stop ends it.
func startProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "wasmcompare: cpu profile:", err)
		}
	}, nil
}

// cpuTime is this process's CPU time: the host and its WASM guest, and
// ONNX Runtime when wasi-nn serves it.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

//go:build linux || darwin

// Command ortcompare measures the ORT engine against raw ONNX Runtime on
// the same models, thread counts and batch sizes, in one run: for each
// configuration it keeps a rawort process (the C baseline, rawort.c) and
// an ORT engine session loaded side by side and alternates rounds of runs
// between them, so both see the same machine state. It prints a Markdown
// table with the medians, means, throughputs and their ratios (ours / raw:
// above 1 is slower).
//
//	go run ./plugins/onnx/internal/ort/bench/ortcompare -lib third_party/ort/libonnxruntime.so.1 -raw bin/rawort
//
// make bench-ort builds rawort and runs this.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/fashionmnist"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/ort"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/ort/bench"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/zoo"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/rawort"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "ortcompare:", err)
		os.Exit(1)
	}
}

type options struct {
	lib, raw, models, only string
	threads, batches       []int
	rounds, runs           int
	pause                  time.Duration
}

func run() error {
	var o options
	var threads, batches string
	flag.StringVar(&o.lib, "lib", "third_party/ort/"+ort.DefaultLibrary, "libonnxruntime for both sides")
	flag.StringVar(&o.raw, "raw", "bin/rawort", "the rawort baseline binary")
	flag.StringVar(&o.models, "models", "", "directory with resnet50.onnx and mobilenetv2.onnx (default: the Go zoo's, written to a temporary directory)")
	flag.StringVar(&o.only, "only", "", "run only the models whose name contains this")
	flag.StringVar(&threads, "threads", "1,0", "comma-separated intra-op thread counts; 0 is runtime.NumCPU()")
	flag.StringVar(&batches, "batches", "1,8", "comma-separated batch sizes")
	flag.IntVar(&o.rounds, "rounds", 5, "alternating rounds per configuration")
	flag.IntVar(&o.runs, "runs", 20, "timed runs per round and side")
	flag.DurationVar(&o.pause, "pause", 100*time.Millisecond, "idle time between sides, so ONNX Runtime's spinning workers go to sleep")
	flag.Parse()
	var err error
	if o.threads, err = counts(threads); err != nil {
		return err
	}
	if o.batches, err = counts(batches); err != nil {
		return err
	}
	models, cleanup, err := modelFiles(o.models)
	if err != nil {
		return err
	}
	defer cleanup()
	eng, err := ort.NewWithConfig(ort.Config{Library: o.lib})
	if err != nil {
		return err
	}
	fmt.Printf("ONNX Runtime %s (%s), %d CPUs, %s/%s, %d rounds × %d runs per side\n\n", ort.Version, o.lib, runtime.NumCPU(),
		runtime.GOOS, runtime.GOARCH, o.rounds, o.runs)
	fmt.Println("| model | threads | batch | raw median ms | ORT engine median ms | ratio (median) | raw images/s | ORT engine images/s | ratio (mean) |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, m := range models {
		if !strings.Contains(m.name, o.only) {
			continue
		}
		for _, t := range o.threads {
			for _, b := range o.batches {
				raw, ours, err := compare(eng, o, m.path, t, b)
				if err != nil {
					return fmt.Errorf("%s threads=%d batch=%d: %w", m.name, t, b, err)
				}
				rm, om := median(raw), median(ours)
				ra, oa := mean(raw), mean(ours)
				fmt.Printf("| %s | %d | %d | %.3f | %.3f | %.3f | %.1f | %.1f | %.3f |\n", m.name, t, b,
					rm.Seconds()*1e3, om.Seconds()*1e3, float64(om)/float64(rm),
					float64(b)/ra.Seconds(), float64(b)/oa.Seconds(), float64(oa)/float64(ra))
			}
		}
	}
	return nil
}

// counts parses a comma-separated list of counts, 0 meaning NumCPU.
func counts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("bad count %q in %q", f, s)
		}
		if n == 0 {
			n = runtime.NumCPU()
		}
		out = append(out, n)
	}
	return out, nil
}

type model struct{ name, path string }

// modelFiles returns the benchmark models as files rawort can read:
// the committed Fashion-MNIST CNN and either dir's files or the zoo's
// models written to a temporary directory (removed by cleanup).
func modelFiles(dir string) ([]model, func(), error) {
	cleanup := func() {}
	tmp, err := os.MkdirTemp("", "ortcompare")
	if err != nil {
		return nil, cleanup, err
	}
	cleanup = func() { os.RemoveAll(tmp) }
	fashion := filepath.Join(tmp, "fashion.onnx")
	if err := os.WriteFile(fashion, fashionmnist.Model(), 0o644); err != nil {
		return nil, cleanup, err
	}
	models := []model{{"fashion", fashion}}
	for _, z := range []struct {
		name  string
		build func(uint64) []byte
	}{{"mobilenetv2", zoo.MobileNetV2}, {"resnet50", zoo.ResNet50}} {
		path := filepath.Join(dir, z.name+".onnx")
		if dir == "" {
			path = filepath.Join(tmp, z.name+".onnx")
			if err := os.WriteFile(path, z.build(1), 0o644); err != nil {
				return nil, cleanup, err
			}
		}
		models = append(models, model{z.name, path})
	}
	return models, cleanup, nil
}

// compare loads path on both sides and alternates rounds between them.
func compare(eng *ort.Engine, o options, path string, threads, batch int) (raw, ours []time.Duration, err error) {
	rw, err := rawort.Start(o.raw, o.lib, path, threads, batch)
	if err != nil {
		return nil, nil, err
	}
	defer rw.Close()
	m, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	ctx := context.Background()
	s, err := eng.Load(ctx, m, engine.Options{Threads: threads, MaxBatch: batch})
	if err != nil {
		return nil, nil, err
	}
	defer s.Close()
	in, err := bench.PatternInput(s.Inputs(), batch)
	if err != nil {
		return nil, nil, err
	}
	outs := make([]engine.Tensor, len(s.Outputs()))
	for range 3 {
		if err := s.Run(ctx, in, outs); err != nil {
			return nil, nil, err
		}
	}
	goSide := func() error {
		for range o.runs {
			t0 := time.Now()
			if err := s.Run(ctx, in, outs); err != nil {
				return err
			}
			ours = append(ours, time.Since(t0))
		}
		return nil
	}
	rawSide := func() error {
		runs, err := rw.Round(o.runs)
		for _, r := range runs {
			raw = append(raw, r.Wall)
		}
		return err
	}
	for r := range o.rounds {
		first, second := rawSide, goSide
		if r%2 == 1 {
			first, second = goSide, rawSide
		}
		for _, side := range []func() error{first, second} {
			time.Sleep(o.pause)
			if err := side(); err != nil {
				return nil, nil, err
			}
		}
	}
	return raw, ours, nil
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

func mean(d []time.Duration) time.Duration {
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	return sum / time.Duration(len(d))
}

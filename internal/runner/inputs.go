package runner

import (
	"context"
	"fmt"
	"os"

	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/internal/bench"
	"github.com/mlperf-host/mlperf-host/internal/bench/resnet"
	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
	"github.com/mlperf-host/mlperf-host/internal/bridge"
	"github.com/mlperf-host/mlperf-host/internal/config"
	"github.com/mlperf-host/mlperf-host/internal/conformance"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/fashionmnist"
)

// BuiltinPrefix names bundled data sets and models: "builtin:fashion-mnist".
const BuiltinPrefix = "builtin:"

// DemoSpec is the bundled demo's sample: one 28x28 grey image.
var DemoSpec = dataset.Spec{DType: dataset.Uint8, Shape: []int{1, 28, 28}}

// DemoDataset returns the bundled Fashion-MNIST subset as a data set.
func DemoDataset() (dataset.Dataset, error) {
	set, err := fashionmnist.Load()
	if err != nil {
		return nil, fmt.Errorf("bundled data set: %w", err)
	}
	labels := make([]int, len(set.Labels))
	for i, l := range set.Labels {
		labels[i] = int(l)
	}
	return dataset.NewMemory(BuiltinPrefix+benchmarks.DemoName, DemoSpec, set.Images, labels)
}

// OpenDataset opens the configured data set: the dataset key's path, or
// the benchmark's bundled one when it is empty.
func OpenDataset(c *config.Config) (dataset.Dataset, error) {
	switch c.Dataset {
	case "", BuiltinPrefix + benchmarks.DemoName:
		if c.Dataset == "" && !c.Benchmark.Demo {
			return nil, exitcode.New(exitcode.Dataset,
				fmt.Errorf("benchmark %s has no bundled data set", c.Benchmark.SubmissionName),
				"pass --dataset: a directory of preprocessed .npy files with val_map.txt, or a .mlph file")
		}
		return DemoDataset()
	}
	d, err := bench.Open(c.Dataset, dataset.Options{LabelMap: c.LabelMap, Features: c.DatasetFeatures()})
	if err != nil {
		return nil, err
	}
	if c.Benchmark.Demo {
		if err := dataset.Check(d, DemoSpec); err != nil {
			d.Close()
			return nil, err
		}
	}
	return d, nil
}

// Model returns what the plugin loads: the model key's file, or the
// benchmark's bundled model.
func Model(c *config.Config) (path string, bytes []byte, err error) {
	if c.Model != "" && c.Model != BuiltinPrefix+benchmarks.DemoName {
		if _, err := os.Stat(c.Model); err != nil {
			return "", nil, exitcode.New(exitcode.Config, fmt.Errorf("model %s: %w", c.Model, err), "pass --model FILE")
		}
		return c.Model, nil, nil
	}
	if !c.Benchmark.Demo {
		return "", nil, exitcode.New(exitcode.Config, fmt.Errorf("benchmark %s has no bundled model", c.Benchmark.SubmissionName),
			"pass --model FILE with the model your plugin loads")
	}
	m, err := fashionmnist.ClassModel()
	if err != nil {
		return "", nil, fmt.Errorf("bundled model: %w", err)
	}
	return "", m, nil
}

// AccuracyOutput returns how the benchmark's responses encode the class:
// the accuracy_output key, else a float32 class index, as MLPerf's
// ResNet-50 reference writes it and the bundled demo model answers.
func AccuracyOutput(c *config.Config) resnet.Output {
	if c.AccuracyOutput != "" {
		return resnet.Output(c.AccuracyOutput)
	}
	return resnet.ClassFloat32
}

// ScoreAccuracy scores an accuracy log with the configured data set's
// labels against the benchmark's quality target. With no data set but a
// label map (label_map, --label-map val_map.txt), the labels are the label
// map's, in its order, as accuracy-imagenet.py reads them: the log and
// the label map are all the score needs.
func ScoreAccuracy(c *config.Config, log string) (resnet.Result, error) {
	labels, err := top1Labels(c)
	if err != nil {
		return resnet.Result{}, err
	}
	f, err := os.Open(log)
	if err != nil {
		return resnet.Result{}, exitcode.New(exitcode.Dataset, fmt.Errorf("accuracy log: %w", err),
			"run with --mode accuracy first, or pass the log's path")
	}
	defer f.Close()
	res, err := resnet.Top1(f, labels, AccuracyOutput(c), c.Benchmark.Quality)
	if err != nil {
		return resnet.Result{}, fmt.Errorf("accuracy log %s: %w", log, err)
	}
	return res, nil
}

// top1Labels are the labels the top-1 scorer reads: the label map's when
// no data set is configured and a label map is, else the data set's.
func top1Labels(c *config.Config) ([]int, error) {
	if c.Dataset == "" && c.LabelMap != "" && !c.Benchmark.Demo {
		f, err := os.Open(c.LabelMap)
		if err != nil {
			return nil, exitcode.New(exitcode.Dataset, fmt.Errorf("label map: %w", err), "pass --label-map FILE (val_map.txt)")
		}
		defer f.Close()
		entries, err := dataset.ParseLabelMap(c.LabelMap, f)
		if err != nil {
			return nil, exitcode.New(exitcode.Dataset, err, "")
		}
		if !entries[0].HasLabel {
			return nil, exitcode.New(exitcode.Dataset, fmt.Errorf("label map %s has no labels", c.LabelMap),
				"pass ImageNet's val_map.txt: one \"NAME LABEL\" per sample")
		}
		labels := make([]int, len(entries))
		for i, e := range entries {
			labels[i] = e.Label
		}
		return labels, nil
	}
	d, err := OpenDataset(c)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	labels := d.Labels()
	if labels == nil {
		return nil, exitcode.New(exitcode.Dataset,
			fmt.Errorf("data set %s has no labels", d.Name()), "pass --label-map FILE (val_map.txt: one \"NAME LABEL\" per sample)")
	}
	return labels, nil
}

// CheckInput is what `plugins check` feeds a plugin: the configured model
// and the first n samples of the data set.
func CheckInput(ctx context.Context, c *config.Config, n int) (conformance.Input, error) {
	path, b, err := Model(c)
	if err != nil {
		return conformance.Input{}, err
	}
	d, err := OpenDataset(c)
	if err != nil {
		return conformance.Input{}, err
	}
	defer d.Close()
	n = max(1, min(n, d.Len()))
	in := conformance.Input{Model: host.Model{Path: path, Bytes: b, Options: c.PluginOptions(c.Plugin), Inputs: bridge.Inputs(d)}}
	a := dataset.NewArena(d)
	indices := make([]uint64, n)
	for i := range indices {
		indices[i] = uint64(i)
	}
	if err := a.Load(ctx, d, indices); err != nil {
		return conformance.Input{}, err
	}
	in.Samples = bridge.Samples(a)
	return in, nil
}

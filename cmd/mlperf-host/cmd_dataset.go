package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mlperf-host/mlperf-host/internal/bench"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
	"github.com/mlperf-host/mlperf-host/internal/runner"
)

func (a *app) cmdDataset(ctx context.Context, args []string) error {
	usage := exitcode.New(exitcode.Usage, fmt.Errorf("dataset: want info, convert, export or prepare"),
		"mlperf-host dataset info PATH | convert [--label-map FILE] SRC DST.mlph | export --format npy|mlph DST | prepare imagenet SRC DST")
	if len(args) == 0 {
		return usage
	}
	switch args[0] {
	case "info":
		return a.datasetInfo(args[1:])
	case "convert":
		return a.datasetConvert(args[1:])
	case "export":
		return a.datasetExport(args[1:])
	case "prepare":
		return a.datasetPrepare(ctx, args[1:])
	}
	return usage
}

func (a *app) datasetInfo(args []string) error {
	fs := a.newFlagSet("dataset info", "[--label-map FILE] [--features F] PATH", "Describe a data set and check every sample.")
	labelMap := fs.String("label-map", "", "label map `FILE` of a .npy directory")
	features := fs.String("features", "", "what a LibriSpeech data set's samples hold: audio (default), mel128 or mel80;\nan IGBH one's: seed (default) or neighbourhood")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return exitcode.New(exitcode.Usage, fmt.Errorf("dataset info: want one PATH"), "")
	}
	d, err := openDatasetArg(pos[0], dataset.Options{LabelMap: *labelMap, Features: *features})
	if err != nil {
		return err
	}
	defer d.Close()
	// Read every sample: a corrupt, truncated or mismatched file shows
	// now, naming the file and the sample, not mid-run.
	st := newShapeStats(d.Schema())
	if err := dataset.ReadAll(d, func(_ int, shapes [][]int, data []byte) error {
		st.add(shapes, len(data))
		return nil
	}); err != nil {
		return err
	}
	if v, ok := d.(dataset.Verifier); ok {
		if err := v.Verify(); err != nil {
			return err
		}
	}
	labels := "none"
	if l := d.Labels(); l != nil {
		labels = fmt.Sprintf("%d", len(l))
	}
	fmt.Fprintf(a.stdout, "data set %s\n", d.Name())
	if f := dataset.Form(d); f != "" {
		fmt.Fprintf(a.stdout, "form     %s\n", f)
	}
	fmt.Fprintf(a.stdout, "samples  %d\n", d.Len())
	st.print(a.stdout)
	fmt.Fprintf(a.stdout, "labels   %s\nchecked  every sample reads and matches\n", labels)
	return nil
}

func openDatasetArg(path string, o dataset.Options) (dataset.Dataset, error) {
	if path == runner.BuiltinPrefix+"fashion-mnist" {
		return runner.DemoDataset()
	}
	return bench.Open(path, o)
}

func (a *app) datasetConvert(args []string) error {
	fs := a.newFlagSet("dataset convert", "[--label-map FILE] SRC DST.mlph",
		"Convert a data set (a directory of .npy files in any form, with its label map) to the compact single-file form.")
	labelMap := fs.String("label-map", "", "label map `FILE` of the .npy directory (default SRC/val_map.txt)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return exitcode.New(exitcode.Usage, fmt.Errorf("dataset convert: want SRC and DST"), "")
	}
	d, err := openDatasetArg(pos[0], dataset.Options{LabelMap: *labelMap})
	if err != nil {
		return err
	}
	defer d.Close()
	if err := writeCompact(pos[1], d); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "wrote %s: %d samples of %s\n", pos[1], d.Len(), describeSchema(d.Schema()))
	return nil
}

func writeCompact(path string, d dataset.Dataset) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if err := dataset.WriteCompact(f, d); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

func (a *app) datasetExport(args []string) error {
	fs := a.newFlagSet("dataset export", "--format npy|mlph DST",
		"Write the bundled Fashion-MNIST subset as a .npy directory with val_map.txt (the MLPerf\nreference form) or as one .mlph file.")
	format := fs.String("format", "npy", "`FORMAT`: npy (a directory) or mlph (one file)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return exitcode.New(exitcode.Usage, fmt.Errorf("dataset export: want one DST"), "")
	}
	d, err := runner.DemoDataset()
	if err != nil {
		return err
	}
	dst := pos[0]
	switch *format {
	case "mlph":
		err = writeCompact(dst, d)
	case "npy":
		err = exportNPY(dst, d)
	default:
		return exitcode.New(exitcode.Usage, fmt.Errorf("dataset export: --format %q: want npy or mlph", *format), "")
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "wrote %s: %d samples of %s\n", dst, d.Len(), describeSchema(d.Schema()))
	return nil
}

// exportNPY writes one .npy per sample, named as ImageNet's, and
// val_map.txt.
func exportNPY(dir string, d dataset.Dataset) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	spec, ok := d.Schema().Single()
	if !ok {
		return fmt.Errorf("export npy: %s has %s: one .npy per sample holds one fixed-shape tensor", d.Name(), d.Schema())
	}
	buf := make([]byte, spec.Bytes())
	m, err := os.Create(filepath.Join(dir, dataset.DefaultLabelMap))
	if err != nil {
		return err
	}
	defer m.Close()
	for i := range d.Len() {
		if err := d.ReadSample(i, buf); err != nil {
			return err
		}
		name := fmt.Sprintf("fashion_test_%05d.png", i)
		f, err := os.Create(filepath.Join(dir, name+".npy"))
		if err != nil {
			return err
		}
		err = dataset.WriteNPY(f, spec, buf)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(m, "%s %d\n", name, d.Labels()[i]); err != nil {
			return err
		}
	}
	return m.Close()
}

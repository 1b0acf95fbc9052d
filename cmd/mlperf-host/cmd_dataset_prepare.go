package main

import (
	"context"
	"fmt"

	"github.com/mlperf-host/mlperf-host/internal/bench/resnet"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

// datasetPrepare writes a benchmark's data set in its reference
// implementation's preprocessed form from the public raw one.
func (a *app) datasetPrepare(ctx context.Context, args []string) error {
	fs := a.newFlagSet("dataset prepare", "imagenet [flags] SRC DST",
		"Preprocess a raw data set as the benchmark's reference implementation does. imagenet: the\n"+
			"ImageNet validation JPEGs of SRC (named by SRC/val_map.txt) into DST as ResNet-50's reference\n"+
			"form: NAME.npy, float32, shorter side resized to 256 (OpenCV's INTER_AREA), center 224x224,\n"+
			"channel means subtracted; and DST/val_map.txt (docs/benchmarks.md says how close to OpenCV).")
	labelMap := fs.String("label-map", "", "label map `FILE` naming the images (default SRC/val_map.txt)")
	layout := fs.String("layout", "NCHW", "sample `LAYOUT`: NCHW ([3, 224, 224]) or NHWC ([224, 224, 3])")
	count := fs.Int("count", 0, "prepare only the label map's first `N` images (0: all)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 3 || pos[0] != "imagenet" {
		return exitcode.New(exitcode.Usage, fmt.Errorf("dataset prepare: want imagenet SRC DST"), "")
	}
	if *layout != "NCHW" && *layout != "NHWC" {
		return exitcode.New(exitcode.Usage, fmt.Errorf("dataset prepare: --layout %q: want NCHW or NHWC", *layout), "")
	}
	n, err := resnet.PrepareImageNet(ctx, pos[1], pos[2], resnet.PrepareOptions{
		LabelMap: *labelMap, NHWC: *layout == "NHWC", Count: *count})
	if err != nil {
		return exitcode.New(exitcode.Dataset, fmt.Errorf("dataset prepare imagenet: %w", err), "")
	}
	fmt.Fprintf(a.stdout, "wrote %s: %d images in ResNet-50's reference form (%s)\n", pos[2], n, *layout)
	return nil
}

package resnet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/imaging"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// imageNetSide is ResNet-50's input side; imageNetResized the side the
// reference resizes the shorter side to first (224 / 0.875).
const (
	imageNetSide    = 224
	imageNetResized = 256
)

// imageNetMeans are the reference's per-channel means, R, G, B.
var imageNetMeans = [3]float32{123.68, 116.78, 103.94}

// PrepareOptions select how [PrepareImageNet] writes the data set.
type PrepareOptions struct {
	// LabelMap is the val_map.txt of the raw images; "" for SRC/val_map.txt.
	LabelMap string
	// NHWC writes [224, 224, 3] samples; the default is NCHW, [3, 224, 224].
	NHWC bool
	// Count stops after the label map's first Count images; 0 for all.
	Count int
	// Workers decode and write images at once; 0 for one per CPU.
	Workers int
}

// PrepareImageNet writes the ResNet-50 reference form of the ImageNet
// validation images of src (the JPEGs its val_map.txt names) into dst:
// NAME.npy per image, float32, and dst/val_map.txt with the same lines,
// which [dataset.OpenNPYDir] reads. Each image is preprocessed as the
// reference's pre_process_vgg: decoded to RGB, its shorter side resized
// to 256 with OpenCV's INTER_AREA (package imaging), center-cropped to
// 224×224, the channel means subtracted, transposed to CHW unless NHWC.
// It returns the images written.
//
// # Errors
//
// A label map that does not parse (naming file and line), an image that
// does not exist or does not decode (naming it), a file it cannot
// write; ctx's error when it ends first. Images written before an error
// stay.
func PrepareImageNet(ctx context.Context, src, dst string, opts PrepareOptions) (int, error) {
	mapPath := opts.LabelMap
	if mapPath == "" {
		mapPath = filepath.Join(src, dataset.DefaultLabelMap)
	}
	f, err := os.Open(mapPath)
	if err != nil {
		return 0, fmt.Errorf("imagenet label map: %w", err)
	}
	entries, err := dataset.ParseLabelMap(mapPath, f)
	f.Close()
	if err != nil {
		return 0, err
	}
	if opts.Count > 0 && opts.Count < len(entries) {
		entries = entries[:opts.Count]
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return 0, err
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	jobs := make(chan dataset.LabelMapEntry)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for e := range jobs {
				if err := prepareImage(filepath.Join(src, e.Name), filepath.Join(dst, e.Name+".npy"), opts.NHWC); err != nil {
					cancel(err)
				}
			}
		}()
	}
feed:
	for _, e := range entries {
		select {
		case jobs <- e:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return 0, err
	}
	var vm strings.Builder
	for _, e := range entries {
		vm.WriteString(e.Name)
		if e.HasLabel {
			fmt.Fprintf(&vm, " %d", e.Label)
		}
		vm.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(dst, dataset.DefaultLabelMap), []byte(vm.String()), 0o644); err != nil {
		return 0, err
	}
	return len(entries), nil
}

// prepareImage writes one image's reference form.
func prepareImage(src, dst string, nhwc bool) error {
	f, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("imagenet image: %w", err)
	}
	rgb, w, h, err := imaging.DecodeRGB(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("imagenet image %s: %w", src, err)
	}
	img, spec := PreprocessVGG(rgb, w, h, nhwc)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if err := dataset.WriteNPYFile(dst, spec, dataset.Float32Bytes(img)); err != nil {
		_ = os.Remove(dst) // never a torn sample under its name
		return fmt.Errorf("imagenet sample %s: %w", dst, err)
	}
	return nil
}

// PreprocessVGG is the reference's pre_process_vgg on an interleaved RGB
// image of w×h: the shorter side resized to 256 (the other to the same
// ratio, truncated) with INTER_AREA, the center 224×224, minus the
// channel means, as float32 HWC, or CHW unless nhwc.
func PreprocessVGG(rgb []uint8, w, h int, nhwc bool) ([]float32, dataset.Spec) {
	rw, rh := imageNetResized, imageNetResized
	if h > w {
		rh = int(float64(imageNetResized*h) / float64(w))
	} else {
		rw = int(float64(imageNetResized*w) / float64(h))
	}
	resized := imaging.ResizeArea(rgb, w, h, 3, rw, rh)
	left, top := (rw-imageNetSide)/2, (rh-imageNetSide)/2
	const n = imageNetSide
	out := make([]float32, n*n*3)
	for y := range n {
		for x := range n {
			for c := range 3 {
				v := float32(resized[((top+y)*rw+left+x)*3+c]) - imageNetMeans[c]
				if nhwc {
					out[(y*n+x)*3+c] = v
				} else {
					out[(c*n+y)*n+x] = v
				}
			}
		}
	}
	shape := []int{3, n, n}
	if nhwc {
		shape = []int{n, n, 3}
	}
	return out, dataset.Spec{DType: dataset.Float32, Shape: shape}
}

package trt

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Precision is the precision an engine is built in.
type Precision int

// Build precisions, as mlph_trt.h's MLPH_TRT_PRECISION_*.
const (
	PrecisionFP32 Precision = 0
	PrecisionFP16 Precision = 1
	// PrecisionINT8 keeps FP16 where INT8 cannot run; it reads its scales
	// from a calibration cache.
	PrecisionINT8 Precision = 2
)

var precisionNames = map[string]Precision{"fp32": PrecisionFP32, "fp16": PrecisionFP16, "int8": PrecisionINT8}

// String returns the option value of p.
func (p Precision) String() string {
	for k, v := range precisionNames {
		if v == p {
			return k
		}
	}
	return fmt.Sprintf("Precision(%d)", int(p))
}

// BuildOptions says how an ONNX model becomes an engine.
type BuildOptions struct {
	Precision Precision
	// MaxBatch is every profile's largest batch (the smallest is 1).
	MaxBatch int
	// Profiles is the number of optimization profiles: one per execution
	// context that runs at once.
	Profiles int
	// WorkspaceBytes caps the builder's workspace; 0 is TensorRT's default.
	WorkspaceBytes uint64
	// CalibrationCache is INT8's calibration cache file.
	CalibrationCache string
	// Shapes are the profile ranges of inputs dynamic beyond the batch.
	Shapes []ShapeRange
}

// isONNX reports whether the model source is an ONNX model to build: the
// build option says so, or the file is named *.onnx.
func isONNX(cfg Config, path string) bool {
	switch cfg.Build {
	case BuildAlways:
		return true
	case BuildNever:
		return false
	}
	return strings.EqualFold(filepath.Ext(path), ".onnx")
}

// buildOptions returns cfg's build options: the batch_size option (or 64)
// as the largest batch and one profile per stream unless set.
func buildOptions(cfg Config) BuildOptions {
	o := BuildOptions{Precision: cfg.Precision, MaxBatch: cfg.BuildBatch, Profiles: cfg.BuildProfiles,
		WorkspaceBytes: cfg.WorkspaceBytes, CalibrationCache: cfg.CalibrationCache, Shapes: cfg.BuildShapes}
	if o.MaxBatch == 0 {
		o.MaxBatch = cfg.BatchSize
	}
	if o.MaxBatch == 0 {
		o.MaxBatch = 64
	}
	if o.Profiles == 0 {
		o.Profiles = cfg.Streams
	}
	return o
}

// cacheKey names an engine built from onnx: a plan is bound to the model,
// the GPU architecture, the TensorRT version and the build options.
func cacheKey(onnx []byte, sm string, trtVersion int, o BuildOptions) (string, error) {
	h := sha256.Sum256(onnx)
	key := fmt.Sprintf("%s-%s-trt%d-b%d-%s-p%d", hex.EncodeToString(h[:8]), sm, trtVersion, o.MaxBatch, o.Precision,
		o.Profiles)
	if o.WorkspaceBytes > 0 {
		key += fmt.Sprintf("-w%d", o.WorkspaceBytes)
	}
	if len(o.Shapes) > 0 {
		s := sha256.Sum256([]byte(FormatShapeRanges(o.Shapes)))
		key += "-s" + hex.EncodeToString(s[:4])
	}
	if o.Precision == PrecisionINT8 {
		cache, err := os.ReadFile(o.CalibrationCache)
		if err != nil {
			return "", fmt.Errorf("calibration cache: %w", err)
		}
		c := sha256.Sum256(cache)
		key += "-c" + hex.EncodeToString(c[:4])
	}
	return key, nil
}

// architecture returns the compute capability the selected devices share,
// e.g. "sm90": an engine runs only on the architecture it was built for.
func architecture(cuda cudaAPI, ordinals []int) (string, error) {
	sm := ""
	for _, d := range ordinals {
		major, err := cuda.DeviceAttribute(attrComputeCapMajor, d)
		if err != nil {
			return "", err
		}
		minor, err := cuda.DeviceAttribute(attrComputeCapMinor, d)
		if err != nil {
			return "", err
		}
		this := fmt.Sprintf("sm%d%d", major, minor)
		if sm != "" && this != sm {
			return "", fmt.Errorf("devices of two architectures (%s, %s): build on one kind, or select devices", sm, this)
		}
		sm = this
	}
	return sm, nil
}

// buildEngine returns the engine for an ONNX model: from the engine cache
// when an earlier Load built it with the same key, else built on the first
// selected device (untimed: Load runs before the test) and stored there.
func buildEngine(cuda cudaAPI, trt trtAPI, cfg Config, onnx []byte, ordinals []int) ([]byte, error) {
	o := buildOptions(cfg)
	sm, err := architecture(cuda, ordinals)
	if err != nil {
		return nil, err
	}
	key, err := cacheKey(onnx, sm, trt.Version(), o)
	if err != nil {
		return nil, err
	}
	file := ""
	if cfg.EngineCache != "" {
		file = filepath.Join(cfg.EngineCache, key+".plan")
		if plan, err := os.ReadFile(file); err == nil && len(plan) > 0 {
			return plan, nil
		}
	}
	plan, err := buildOn(cuda, trt, ordinals[0], onnx, o)
	if err != nil {
		return nil, err
	}
	if file != "" {
		if err := store(file, plan); err != nil {
			return nil, fmt.Errorf("engine cache: %w", err)
		}
	}
	return plan, nil
}

func buildOn(cuda cudaAPI, trt trtAPI, ordinal int, onnx []byte, o BuildOptions) ([]byte, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := cuda.SetDevice(ordinal); err != nil {
		return nil, err
	}
	return trt.Build(onnx, o)
}

// store writes plan to file through a temporary file, so that a reader
// never sees half a plan.
func store(file string, plan []byte) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), ".plan-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(plan)
	if err := errors.Join(werr, tmp.Close()); err != nil {
		return errors.Join(err, os.Remove(tmp.Name()))
	}
	return os.Rename(tmp.Name(), file)
}

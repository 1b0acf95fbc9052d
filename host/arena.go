package host

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mlperf-host/mlperf-host/abi"

	"github.com/mlperf-host/mlperf-host/abi/backendv1"
)

// arenaAlign aligns each sample in an arena, so a plugin can read tensors
// in place.
const arenaAlign = 64

// sharedMemoryDir is where arenas and ring files go, as an absolute path
// (the plugin maps only files directly in it): cfgDir, else
// [abi.DefaultSharedMemoryDir].
func sharedMemoryDir(cfgDir string) string {
	if cfgDir == "" {
		return abi.DefaultSharedMemoryDir()
	}
	if abs, err := filepath.Abs(cfgDir); err == nil {
		return abs
	}
	return cfgDir
}

// writeArena writes samples into a new file in dir, each at an aligned
// offset, and returns the request that describes them. The caller removes
// the file when the plugin is closed.
func writeArena(dir string, samples []Sample) (_ *backendv1.LoadSamplesRequest, path string, err error) {
	f, err := os.CreateTemp(dir, abi.SharedMemoryPrefix+"arena-*")
	if err != nil {
		return nil, "", fmt.Errorf("create sample arena: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("write sample arena %s: %w", f.Name(), cerr)
		}
		if err != nil {
			_ = os.Remove(f.Name())
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	refs := make([]*backendv1.SampleRef, len(samples))
	var off uint64
	var pad [arenaAlign]byte
	for i, s := range samples {
		if rem := off % arenaAlign; rem != 0 {
			if _, err := w.Write(pad[:arenaAlign-rem]); err != nil {
				return nil, "", fmt.Errorf("write sample arena %s: %w", f.Name(), err)
			}
			off += arenaAlign - rem
		}
		if _, err := w.Write(s.Data); err != nil {
			return nil, "", fmt.Errorf("write sample arena %s: %w", f.Name(), err)
		}
		refs[i] = sampleRef(s)
		refs[i].Offset = off
		off += uint64(len(s.Data))
	}
	if err := w.Flush(); err != nil {
		return nil, "", fmt.Errorf("write sample arena %s: %w", f.Name(), err)
	}
	return &backendv1.LoadSamplesRequest{Arena: &backendv1.Arena{Path: f.Name(), Size: off}, Samples: refs}, f.Name(), nil
}

// inlineRequests splits samples into LoadSamples requests of about limit
// bytes each; a sample larger than limit goes alone.
func inlineRequests(samples []Sample, limit int) []*backendv1.LoadSamplesRequest {
	var reqs []*backendv1.LoadSamplesRequest
	cur := &backendv1.LoadSamplesRequest{}
	size := 0
	for _, s := range samples {
		n := len(s.Data) + 32 // field overhead
		if size+n > limit && len(cur.Samples) > 0 {
			reqs = append(reqs, cur)
			cur, size = &backendv1.LoadSamplesRequest{}, 0
		}
		r := sampleRef(s)
		r.Data = s.Data
		cur.Samples = append(cur.Samples, r)
		size += n
	}
	if len(cur.Samples) > 0 || len(reqs) == 0 {
		reqs = append(reqs, cur)
	}
	return reqs
}

func removeFile(path string) error {
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

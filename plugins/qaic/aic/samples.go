package aic

import (
	"context"
	"errors"
	"fmt"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel"
	"github.com/mlperf-host/mlperf-host/plugins/internal/native"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// samples holds the loaded samples, one replica per NUMA node of the
// cards in use under numa_config (KILT's NUMA-local data sources): a
// replica's copies live in memory mapped and written from its node's
// CPUs, so that its pages are the node's. Without numa_config, and for
// cards in no node, the one replica without CPUs keeps the host's bytes.
type samples struct {
	// data[r][index] is sample index's bytes in replica r.
	data []map[uint64][]byte
	// cpus[r] are replica r's CPUs; nil for the host's bytes.
	cpus [][]int
	// regions[index] are the mapped regions holding sample index, one per
	// replica with CPUs.
	regions map[uint64][]*region
}

// region is memory mapped for the samples of one LoadSamples call in one
// replica; it is unmapped once none of them is loaded.
type region struct {
	mem  native.Mapped
	live int
}

// newSamples returns the replicas of the devices' nodes: each device's
// replica index is set.
func newSamples(nodes []accel.NUMANode, devices []*device) *samples {
	s := &samples{regions: map[uint64][]*region{}}
	byNode := map[int]int{} // node (-1: none) → replica
	for _, d := range devices {
		node := accel.NodeOf(nodes, int(d.qid))
		r, ok := byNode[node]
		if !ok {
			r = len(s.data)
			byNode[node] = r
			s.data = append(s.data, map[uint64][]byte{})
			s.cpus = append(s.cpus, accel.CPUsOf(nodes, int(d.qid)))
		}
		d.replica, d.cpus = r, s.cpus[r]
	}
	return s
}

// load keeps loaded's bytes, each sampleBytes long, in every replica. A
// sample loaded again replaces its earlier copy.
func (s *samples) load(ctx context.Context, loaded []sdk.LoadedSample, sampleBytes int) error {
	for _, l := range loaded {
		if len(l.Data) != sampleBytes {
			return fmt.Errorf("qaic: load sample %d: %d bytes, but the program's inputs take %d per sample",
				l.Index, len(l.Data), sampleBytes)
		}
	}
	indices := make([]uint64, len(loaded))
	for i, l := range loaded {
		indices[i] = l.Index
	}
	if err := s.unload(indices); err != nil {
		return err
	}
	for r, cpus := range s.cpus {
		if err := ctx.Err(); err != nil {
			return errors.Join(fmt.Errorf("qaic: load samples: %w", err), s.unload(indices))
		}
		if cpus == nil {
			for _, l := range loaded {
				s.data[r][l.Index] = l.Data
			}
			continue
		}
		if err := s.replicate(r, loaded, sampleBytes); err != nil {
			return errors.Join(err, s.unload(indices))
		}
	}
	return nil
}

// replicate copies loaded into a region of replica r, mapped and written
// on the replica's CPUs.
func (s *samples) replicate(r int, loaded []sdk.LoadedSample, sampleBytes int) error {
	reg := &region{live: len(loaded)}
	ran := false
	err := accel.OnCPUs(s.cpus[r], func() (err error) {
		ran = true
		if reg.mem, err = mapHost(len(loaded) * sampleBytes); err != nil {
			return fmt.Errorf("qaic: samples for CPUs %v: %w", s.cpus[r], err)
		}
		mem := reg.mem.Bytes()
		for i, l := range loaded {
			dst := mem[i*sampleBytes : (i+1)*sampleBytes : (i+1)*sampleBytes]
			copy(dst, l.Data)
			s.data[r][l.Index] = dst
			s.regions[l.Index] = append(s.regions[l.Index], reg)
		}
		return nil
	})
	if err != nil && !ran {
		return fmt.Errorf("qaic: samples for CPUs %v: %w", s.cpus[r], err)
	}
	return err
}

// unload forgets the samples of indices in every replica and unmaps the
// regions left without a loaded sample.
func (s *samples) unload(indices []uint64) error {
	var errs []error
	for _, i := range indices {
		for _, m := range s.data {
			delete(m, i)
		}
		for _, reg := range s.regions[i] {
			if reg.live--; reg.live == 0 {
				errs = append(errs, reg.mem.Free())
			}
		}
		delete(s.regions, i)
	}
	return errors.Join(errs...)
}

// release unmaps every region.
func (s *samples) release() error {
	indices := make([]uint64, 0, len(s.regions))
	for i := range s.regions {
		indices = append(indices, i)
	}
	return s.unload(indices)
}

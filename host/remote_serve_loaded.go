package host

import (
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mlperf-host/mlperf-host/abi/backendv1"
)

// loadedBytes counts the sample bytes a host has loaded into the plugin.
type loadedBytes struct {
	size  map[uint64]int
	total int64
}

// load counts samples loaded into the plugin, refusing them when the
// host's samples would pass the bound.
func (p *remoteProxy) load(samples []*backendv1.SampleRef) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := &p.loaded
	if l.size == nil {
		l.size = map[uint64]int{}
	}
	total := l.total
	for _, s := range samples {
		total += int64(len(s.GetData()) - l.size[s.GetIndex()])
	}
	if total > p.maxLoaded {
		return status.Errorf(codes.ResourceExhausted, "remote plugin: the samples would hold %d bytes of this server, at most %d (serve --max-sample-bytes)",
			total, p.maxLoaded)
	}
	for _, s := range samples {
		l.size[s.GetIndex()] = len(s.GetData())
	}
	l.total = total
	return nil
}

// unload counts samples unloaded.
func (p *remoteProxy) unload(indices []uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, i := range indices {
		p.loaded.total -= int64(p.loaded.size[i])
		delete(p.loaded.size, i)
	}
}

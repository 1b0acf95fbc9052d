package host

import (
	"fmt"
	"sync"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
)

// networkSamples keeps the loaded samples on the host's side in the
// Network division: LoadSamples sends nothing, and each query carries its
// samples' bytes (Issue.sample_data), which the serving side loads into
// its plugin before it passes the query on.
type networkSamples struct {
	mu      sync.Mutex
	samples map[uint64]Sample
}

func newNetworkSamples() *networkSamples {
	return &networkSamples{samples: map[uint64]Sample{}}
}

// load keeps copies of the samples: the caller may reuse their Data.
func (n *networkSamples) load(samples []Sample) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, s := range samples {
		s.Data = append([]byte(nil), s.Data...)
		n.samples[s.Index] = s
	}
}

func (n *networkSamples) unload(indices []uint64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, i := range indices {
		delete(n.samples, i)
	}
}

// issueMessage is the Issue of packed records with the bytes of every
// sample they name, each sample once.
//
// # Errors
//
// A record naming a sample not loaded.
func (n *networkSamples) issueMessage(records []abi.IssueRecord, packed []byte) (*backendv1.HostMessage, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	refs := make([]*backendv1.SampleRef, 0, len(records))
	seen := make(map[uint64]bool, len(records))
	for _, r := range records {
		if seen[r.Index] {
			continue
		}
		seen[r.Index] = true
		s, ok := n.samples[r.Index]
		if !ok {
			return nil, fmt.Errorf("network division: sample index %d issued but not loaded", r.Index)
		}
		ref := sampleRef(s)
		ref.Data = s.Data
		refs = append(refs, ref)
	}
	return &backendv1.HostMessage{Kind: &backendv1.HostMessage_Issue{Issue: &backendv1.Issue{Samples: packed, SampleData: refs}}}, nil
}

// networkChunkBytes bounds the sample bytes of one Issue message in the
// Network division, well inside a gRPC server's default 4 MiB limit.
const networkChunkBytes = 2 << 20

// fit is how many of records (at least one) one Issue message carries:
// their samples' bytes stay within limit.
func (n *networkSamples) fit(records []abi.IssueRecord, limit int) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	total := 0
	for i, r := range records {
		total += len(n.samples[r.Index].Data)
		if total > limit && i > 0 {
			return i
		}
	}
	return len(records)
}

package acceltest

import (
	"maps"
	"slices"
	"sync"

	"github.com/mlperf-host/mlperf-host/sdk"
)

// Recorder is an sdk.Completer that keeps every report.
type Recorder struct {
	mu     sync.Mutex
	out    map[uint64][]byte
	failed map[uint64]error
	order  []uint64
}

var _ sdk.Completer = (*Recorder)(nil)

// NewRecorder returns an empty Recorder.
func NewRecorder() *Recorder {
	return &Recorder{out: map[uint64][]byte{}, failed: map[uint64]error{}}
}

// Complete keeps a copy of data.
func (r *Recorder) Complete(id uint64, data []byte, _ int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.out[id] = append([]byte(nil), data...)
	r.order = append(r.order, id)
}

// FirstToken does nothing: accelerator plugins report no tokens.
func (r *Recorder) FirstToken(uint64, []byte) {}

// Fail keeps err.
func (r *Recorder) Fail(id uint64, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed[id] = err
	r.order = append(r.order, id)
}

// Results returns copies of the outputs and failures by sample id, and the
// ids in the order they were reported.
func (r *Recorder) Results() (out map[uint64][]byte, failed map[uint64]error, order []uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.out), maps.Clone(r.failed), slices.Clone(r.order)
}

package simdevice

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// Version is the backend's version.
const Version = "0.1.0"

// The options Load takes, and their defaults: a batch of 64 costs
// 200 µs + 64 × 2 µs = 328 µs on each of 2 slots.
const (
	OptBatchBase     = "batch_base"
	OptBatchPerItem  = "batch_per_sample"
	OptMaxBatch      = "max_batch"
	OptSlots         = "slots"
	OptBatchTimeout  = "batch_timeout"
	DefaultBase      = 200 * time.Microsecond
	DefaultPerSample = 2 * time.Microsecond
	DefaultMaxBatch  = 64
	DefaultSlots     = 2
)

var options = []sdk.Option{
	{Name: OptBatchBase, Type: abi.OptionDuration, Default: DefaultBase.String(), Doc: "fixed cost of one batch"},
	{Name: OptBatchPerItem, Type: abi.OptionDuration, Default: DefaultPerSample.String(), Doc: "cost of each sample of a batch"},
	{Name: OptMaxBatch, Type: abi.OptionUint, Default: strconv.Itoa(DefaultMaxBatch), Doc: "largest batch"},
	{Name: OptSlots, Type: abi.OptionUint, Default: strconv.Itoa(DefaultSlots), Doc: "batches the device runs at once"},
	{Name: OptBatchTimeout, Type: abi.OptionDuration, Default: "0s",
		Doc: "longest a sample waits for a fuller batch (0: no batching across queries); set it per scenario: simdevice.Server.batch_timeout"},
}

// Backend is the simulated device. Create it with [New].
type Backend struct {
	base, perSample time.Duration
	maxBatch, slots int
	timeout         time.Duration
	loaded          bool

	mu sync.Mutex
	// busy[k] is when slot k finishes the batches it was given.
	busy    []time.Time
	batches int
	samples int
}

var (
	_ sdk.Backend            = (*Backend)(nil)
	_ sdk.Submitter          = (*Backend)(nil)
	_ sdk.SubmissionReporter = (*Backend)(nil)
)

// New returns a device with the default costs.
func New() *Backend {
	return &Backend{base: DefaultBase, perSample: DefaultPerSample, maxBatch: DefaultMaxBatch, slots: DefaultSlots}
}

// Info implements sdk.Backend.
func (b *Backend) Info() sdk.Info {
	return sdk.Info{
		Name: "simdevice", Version: Version,
		Description: fmt.Sprintf("simulated accelerator: a batch of n takes %v + n × %v on one of %d slots", b.base, b.perSample, b.slots),
		Devices:     []sdk.Device{{ID: 0, Name: "simulated device", Kind: "sim"}},
		MaxBatch:    b.maxBatch, MaxInFlight: b.slots, BatchTimeout: b.timeout, Options: options,
	}
}

// Load implements sdk.Backend: it reads the costs; any model will do.
// The SDK has checked the options against the schema and filled in the
// defaults.
func (b *Backend) Load(ctx context.Context, m sdk.Model) error {
	if b.loaded {
		return sdk.Errorf(abi.FailedPrecondition, "simdevice: model already loaded")
	}
	var err error
	dur := func(k string, d *time.Duration) {
		if v, ok := m.Options[k]; ok && err == nil {
			*d, err = time.ParseDuration(v)
		}
	}
	num := func(k string, n *int) {
		if v, ok := m.Options[k]; ok && err == nil {
			var x uint64
			if x, err = strconv.ParseUint(v, 10, 31); err == nil && x == 0 {
				err = sdk.Errorf(abi.InvalidArgument, "simdevice: option %s=0: want 1 or more", k)
			}
			*n = int(x)
		}
	}
	dur(OptBatchBase, &b.base)
	dur(OptBatchPerItem, &b.perSample)
	dur(OptBatchTimeout, &b.timeout)
	num(OptMaxBatch, &b.maxBatch)
	num(OptSlots, &b.slots)
	if err != nil {
		return err
	}
	b.busy = make([]time.Time, b.slots)
	b.loaded = true
	sdk.Logger(ctx).Info("simdevice loaded", "scenario", m.Run.Scenario, "base", b.base, "per_sample", b.perSample,
		"max_batch", b.maxBatch, "slots", b.slots, "batch_timeout", b.timeout)
	return nil
}

// Cost is what a batch of n samples takes on a slot.
func (b *Backend) Cost(n int) time.Duration { return b.base + time.Duration(n)*b.perSample }

// Submit implements sdk.Submitter: the batch goes to the slot free first,
// starts when that slot is done with its last batch and completes, from a
// timer, Cost(n) later. It never waits.
func (b *Backend) Submit(_ context.Context, q sdk.Query, c sdk.Completer) error {
	if !b.loaded {
		return sdk.Errorf(abi.FailedPrecondition, "simdevice: Submit before Load")
	}
	now := time.Now()
	b.mu.Lock()
	k := 0
	for i, t := range b.busy {
		if t.Before(b.busy[k]) {
			k = i
		}
	}
	end := b.busy[k]
	if end.Before(now) {
		end = now
	}
	end = end.Add(b.Cost(len(q.Samples)))
	b.busy[k] = end
	b.batches++
	b.samples += len(q.Samples)
	b.mu.Unlock()
	time.AfterFunc(end.Sub(now), func() { complete(q, c) })
	return nil
}

// complete answers every sample of a batch: its bytes when wanted.
func complete(q sdk.Query, c sdk.Completer) {
	for _, s := range q.Samples {
		var out []byte
		if s.WantOutput {
			out = s.Data
		}
		c.Complete(s.ID, out, 0)
	}
}

// Infer implements sdk.Backend for callers that drive the backend
// directly; the SDK calls Submit.
func (b *Backend) Infer(ctx context.Context, q sdk.Query, c sdk.Completer) error {
	return sdk.WaitSubmit(ctx, b, q, c)
}

// Stats returns how many batches and samples the device ran.
func (b *Backend) Stats() (batches, samples int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.batches, b.samples
}

// SubmissionFacts implements sdk.SubmissionReporter.
func (b *Backend) SubmissionFacts() sdk.SubmissionFacts {
	return sdk.SubmissionFacts{Framework: "mlperf-host simdevice " + Version + " (simulated)", InputDataTypes: "any",
		WeightDataTypes: "none", WeightTransformations: "none", DevicesUsed: []int{0}, AcceleratorModelName: "simulated device"}
}

// Close implements sdk.Backend.
func (b *Backend) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.busy = slices.Clip(b.busy[:0])
	return nil
}

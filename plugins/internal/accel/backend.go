package accel

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/mlperf-host/mlperf-host/sdk"
)

// Model is what a plugin loaded: an engine or program running on its
// devices, with the calls the SDK makes between Load and Close.
type Model interface {
	// LoadSamples and UnloadSamples are sdk.SampleLoader's.
	LoadSamples(ctx context.Context, samples []sdk.LoadedSample) error
	UnloadSamples(ctx context.Context, indices []uint64) error
	// Warmup is sdk.Warmer's.
	Warmup(ctx context.Context) error
	// Infer is sdk.Backend's.
	Infer(ctx context.Context, q sdk.Query, c sdk.Completer) error
	// SubmissionFacts is sdk.SubmissionReporter's: what the loaded model
	// runs on, for the submission.
	SubmissionFacts() sdk.SubmissionFacts
	// Stop waits for work in flight and frees every resource.
	Stop() error
}

// Limits are what a loaded model tells the SDK about how to call it: the
// sdk.Info fields of the same names.
type Limits struct {
	// MaxInFlight is how many Infer calls run at once: the model's slots.
	MaxInFlight int
	// MaxBatch is the most samples one Infer call takes: one slot's batch.
	MaxBatch int
	// BatchTimeout, when positive, has the SDK batch samples across
	// queries (see [BatchTimeout]).
	BatchTimeout time.Duration
}

// Sentinels are a plugin's errors for calls out of order.
type Sentinels struct {
	// NotLoaded is returned by calls that need a model before Load.
	NotLoaded error
	// Loaded is returned by a second Load: a backend serves one model.
	Loaded error
	// Closed is returned by calls after Close.
	Closed error
}

// Backend is the sdk.Backend skeleton an accelerator plugin embeds: it
// implements Info, LoadSamples, UnloadSamples, Warmup, Infer,
// SubmissionFacts and Close around the [Model] the plugin's Load builds
// with [Backend.Load].
type Backend[M Model] struct {
	errs Sentinels

	mu     sync.Mutex
	info   sdk.Info
	m      M
	loaded bool
	closed bool
}

// NewBackend returns a backend that describes itself with info until Load.
func NewBackend[M Model](info sdk.Info, errs Sentinels) *Backend[M] {
	return &Backend[M]{info: info, errs: errs}
}

// Info describes the backend and the devices it found. MaxInFlight is
// from the construction options until Load, then, with MaxBatch and
// BatchTimeout, the loaded model's [Limits] (the SDK asks again after Load
// and the host follows).
func (b *Backend[M]) Info() sdk.Info {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.info
}

// Load runs load, which builds the model, unless the backend is closed or
// already loaded. load returns the model and its limits. Info waits while
// load runs.
func (b *Backend[M]) Load(load func() (M, Limits, error)) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return b.errs.Closed
	}
	if b.loaded {
		return b.errs.Loaded
	}
	m, lim, err := load()
	if err != nil {
		return err
	}
	b.m, b.loaded = m, true
	b.info.MaxInFlight, b.info.MaxBatch, b.info.BatchTimeout = lim.MaxInFlight, lim.MaxBatch, lim.BatchTimeout
	return nil
}

// Model returns the loaded model, or why there is none.
func (b *Backend[M]) Model() (M, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var none M
	switch {
	case b.closed:
		return none, b.errs.Closed
	case !b.loaded:
		return none, b.errs.NotLoaded
	}
	return b.m, nil
}

// LoadSamples hands the samples to the model (sdk.SampleLoader).
func (b *Backend[M]) LoadSamples(ctx context.Context, samples []sdk.LoadedSample) error {
	m, err := b.Model()
	if err != nil {
		return err
	}
	return m.LoadSamples(ctx, samples)
}

// UnloadSamples makes the model forget samples (sdk.SampleLoader).
func (b *Backend[M]) UnloadSamples(ctx context.Context, indices []uint64) error {
	m, err := b.Model()
	if err != nil {
		return err
	}
	return m.UnloadSamples(ctx, indices)
}

// Warmup runs the model's warm-up (sdk.Warmer).
func (b *Backend[M]) Warmup(ctx context.Context) error {
	m, err := b.Model()
	if err != nil {
		return err
	}
	return m.Warmup(ctx)
}

// Infer runs q on the model and completes each sample as its batch
// finishes (sdk.Backend).
func (b *Backend[M]) Infer(ctx context.Context, q sdk.Query, c sdk.Completer) error {
	m, err := b.Model()
	if err != nil {
		return err
	}
	return m.Infer(ctx, q, c)
}

// SubmissionFacts returns the loaded model's facts for the submission
// (sdk.SubmissionReporter; the SDK asks after a successful Load), or none
// before Load. Devices Info does not list are left out of DevicesUsed:
// Info lists what the start-up configuration found, and Load's options
// may point at another runtime library (the SDK refuses facts naming a
// device Info did not list).
func (b *Backend[M]) SubmissionFacts() sdk.SubmissionFacts {
	m, err := b.Model()
	if err != nil {
		return sdk.SubmissionFacts{}
	}
	f := m.SubmissionFacts()
	b.mu.Lock()
	defer b.mu.Unlock()
	f.DevicesUsed = slices.DeleteFunc(slices.Clone(f.DevicesUsed), func(id int) bool {
		return !slices.ContainsFunc(b.info.Devices, func(d sdk.Device) bool { return d.ID == id })
	})
	return f
}

// Close waits for in-flight work and frees every resource. It is safe to
// call more than once.
func (b *Backend[M]) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	b.closed = true
	if !b.loaded {
		return nil
	}
	err := b.m.Stop()
	var none M
	b.m, b.loaded = none, false
	return err
}

package aic

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// Version is the plugin's own version, reported in Info.
const Version = "0.1.0"

// Backend runs compiled QPCs on Qualcomm Cloud AI 100 devices. It
// implements sdk.Backend, sdk.SampleLoader and sdk.Warmer.
type Backend struct {
	cfg   Config
	info  sdk.Info
	rt    *qaicLib
	found []int

	mu     sync.Mutex
	p      *program
	closed bool
}

var (
	_ sdk.Backend      = (*Backend)(nil)
	_ sdk.SampleLoader = (*Backend)(nil)
	_ sdk.Warmer       = (*Backend)(nil)
)

// New returns a backend that discovers devices through libQAic, found on
// cfg.LibraryPaths, by probing QIDs 0 to cfg.ProbeDevices-1. A missing
// runtime is not an error here: Info then lists no devices and Load
// reports the missing library.
//
// # Errors
//
// New fails only when cfg is invalid.
func New(cfg Config) (*Backend, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("qaic: config: %w", err)
	}
	b := &Backend{cfg: cfg, info: sdk.Info{
		Name:        "qaic",
		Version:     Version,
		Description: "Qualcomm Cloud AI 100 programs (QPC) through the AIC runtime",
		MaxInFlight: cfg.Activations * cfg.SetSize,
	}}
	rt, err := openRuntime(cfg.LibraryPaths)
	if err != nil {
		b.info.Description += " (unavailable: " + err.Error() + ")"
		return b, nil
	}
	b.rt = rt
	b.info.Devices = discover(rt, cfg.ProbeDevices)
	for _, d := range b.info.Devices {
		b.found = append(b.found, d.ID)
	}
	selected := b.found
	if cfg.Devices != nil {
		selected = nil
		for _, d := range cfg.Devices {
			if slices.Contains(b.found, d) {
				selected = append(selected, d)
			}
		}
	}
	b.info.MaxInFlight = max(1, len(selected)) * cfg.Activations * cfg.SetSize
	return b, nil
}

// discover probes QIDs with qaicGetResourceInfo.
func discover(rt runtimeAPI, probe int) []sdk.Device {
	version := rt.Version()
	var out []sdk.Device
	for q := range probe {
		r, err := rt.Resources(int32(q))
		if err != nil {
			continue
		}
		out = append(out, sdk.Device{
			ID:          q,
			Name:        fmt.Sprintf("Cloud AI 100 (QID %d)", q),
			Kind:        "aic",
			MemoryBytes: r.dramTotalMB << 20,
			Driver:      fmt.Sprintf("%s, %d NSPs (%d free)", version, r.nspTotal, r.nspFree),
		})
	}
	return out
}

// Info describes the backend and the devices New found. MaxInFlight is
// devices × activations × set size: from the construction Config until
// Load, then from the options Load applied (the SDK asks again after
// Load and the host follows).
func (b *Backend) Info() sdk.Info {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.info
}

// Load brings the QPC up on every selected device: one program per
// activation, loaded and activated, with its queue and exec objects. The
// QPC is the one the "qpc" option names when it is set, else the one
// m.Path names, else m.Bytes: the option wins because a host may send a
// benchmark's bundled model as m.Bytes.
//
// # Errors
//
// A missing libQAic gives a [*LibraryError] (errors.Is
// [ErrRuntimeMissing]) naming the library and how to install it.
func (b *Backend) Load(ctx context.Context, m sdk.Model) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return ErrClosed
	}
	if b.p != nil {
		return ErrLoaded
	}
	cfg, err := b.cfg.WithOptions(m.Options)
	if err != nil {
		return sdk.Errorf(abi.InvalidArgument, "qaic: %v", err)
	}
	path, program := cfg.QPC, m.Bytes
	if path == "" {
		path = m.Path
	}
	if path != "" {
		program = nil
	}
	if len(program) == 0 && path == "" {
		return errors.New("qaic: no program: pass a QPC as the model or set the qpc option")
	}
	rt := b.rt
	if rt == nil || !slices.Equal(cfg.LibraryPaths, b.cfg.LibraryPaths) {
		if rt, err = openRuntime(cfg.LibraryPaths); err != nil {
			return err
		}
	}
	qids, err := b.selectDevices(rt, cfg)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("qaic: load: %w", err)
	}
	p, err := openProgram(rt, cfg, qids, path, program)
	if err != nil {
		return fmt.Errorf("qaic: load program: %w", err)
	}
	b.p = p
	b.info.MaxInFlight = len(qids) * cfg.Activations * cfg.SetSize
	return nil
}

// selectDevices returns the QIDs Load uses, checking that each answers.
func (b *Backend) selectDevices(rt runtimeAPI, cfg Config) ([]int32, error) {
	want := cfg.Devices
	if want == nil {
		for _, d := range discover(rt, cfg.ProbeDevices) {
			want = append(want, d.ID)
		}
	}
	if len(want) == 0 {
		return nil, fmt.Errorf("%w: no device answered among QIDs 0-%d", ErrNoDevice, cfg.ProbeDevices-1)
	}
	var out []int32
	for _, d := range want {
		if _, err := rt.Resources(int32(d)); err != nil {
			return nil, fmt.Errorf("%w: device %d: %w", ErrNoDevice, d, err)
		}
		out = append(out, int32(d))
	}
	return out, nil
}

func (b *Backend) loaded() (*program, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.closed:
		return nil, ErrClosed
	case b.p == nil:
		return nil, ErrNotLoaded
	}
	return b.p, nil
}

// LoadSamples keeps the samples' bytes for Infer. Each sample holds every
// input buffer's row, concatenated in buffer-mapping order.
func (b *Backend) LoadSamples(ctx context.Context, samples []sdk.LoadedSample) error {
	p, err := b.loaded()
	if err != nil {
		return err
	}
	for _, s := range samples {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("qaic: load samples: %w", err)
		}
		if len(s.Data) != p.layout.inBytes {
			return fmt.Errorf("qaic: load sample %d: %d bytes, but the program's inputs take %d per sample",
				s.Index, len(s.Data), p.layout.inBytes)
		}
		p.samples[s.Index] = s.Data
	}
	return nil
}

// UnloadSamples forgets samples.
func (b *Backend) UnloadSamples(_ context.Context, indices []uint64) error {
	p, err := b.loaded()
	if err != nil {
		return err
	}
	for _, i := range indices {
		delete(p.samples, i)
	}
	return nil
}

// Warmup runs one batch of zeros through every exec object.
func (b *Backend) Warmup(ctx context.Context) error {
	p, err := b.loaded()
	if err != nil {
		return err
	}
	return p.warmup(ctx)
}

// Infer runs q's samples in batches across every device's activations and
// completes each sample when its batch finishes. A sample's output is its
// row of every output buffer, concatenated in mapping order; it is nil
// unless the sample wants output.
func (b *Backend) Infer(ctx context.Context, q sdk.Query, c sdk.Completer) error {
	p, err := b.loaded()
	if err != nil {
		return err
	}
	return p.infer(ctx, q, c)
}

// Close waits for in-flight batches, deactivates and releases everything.
// It is safe to call more than once.
func (b *Backend) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	b.closed = true
	if b.p == nil {
		return nil
	}
	err := b.p.stop()
	b.p = nil
	return err
}

package aic

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/plugins/internal/accel"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// Version is what Info reports as the qaic plugin's version.
const Version = "0.1.0"

// Backend runs compiled QPCs on Qualcomm Cloud AI 100 devices. Load is its
// own; Info, LoadSamples, UnloadSamples, Warmup, Infer and Close come from
// the accelerator core, around the loaded program (the package
// documentation says how a query runs).
type Backend struct {
	*accel.Backend[*program]
	cfg Config
	rt  *qaicLib // bound by New; nil without the runtime
	// devices are those New found, which Info lists.
	devices []sdk.Device
}

var _ interface {
	sdk.Backend
	sdk.SampleLoader
	sdk.Warmer
	sdk.SubmissionReporter
} = (*Backend)(nil)

// New returns a backend on the ready devices libQAic (the first of
// cfg.LibraryPaths that loads) answers for (see Config.ProbeDevices).
// Without the AIC runtime the backend still starts, listing no card and
// saying why in its Info; Load then names the missing library.
//
// # Errors
//
// New fails only on an invalid cfg.
func New(cfg Config) (*Backend, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("qaic: config: %w", err)
	}
	b := &Backend{cfg: cfg}
	info := sdk.Info{Name: plugin, Version: Version,
		Description: "Qualcomm Cloud AI 100 programs (QPC) through the AIC runtime", Options: cfg.Schema()}
	var devices []sdk.Device
	rt, err := openRuntime(cfg.LibraryPaths)
	if err == nil {
		b.rt = rt
		devices = discover(rt, cfg)
	}
	b.devices = devices
	perDevice := cfg.Activations * cfg.SetSize
	b.Backend = accel.NewBackend[*program](accel.Discovered(info, devices, err, cfg.Devices, perDevice), sentinels)
	return b, nil
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
	return b.Backend.Load(func() (*program, accel.Limits, error) {
		p, err := b.load(ctx, m)
		if err != nil {
			return nil, accel.Limits{}, err
		}
		// One Infer call is one exec object's batch: the SDK cuts queries,
		// and batches samples across queries in Server.
		lim := accel.Limits{MaxInFlight: len(p.execs), MaxBatch: p.batch,
			BatchTimeout: accel.BatchTimeout(p.cfg.BatchTimeout, m.Run)}
		sdk.Logger(ctx).Info("qaic loaded", "scenario", m.Run.Scenario, "devices", len(p.devices),
			"exec_objects", lim.MaxInFlight, "batch_size", lim.MaxBatch, "batch_timeout", lim.BatchTimeout)
		return p, lim, nil
	})
}

// load brings the program up.
func (b *Backend) load(ctx context.Context, m sdk.Model) (*program, error) {
	cfg, err := b.cfg.WithOptions(m.Options)
	if err != nil {
		return nil, sdk.Errorf(abi.InvalidArgument, "qaic: %v", err)
	}
	path, program := accel.ModelSource(m, cfg.QPC)
	if len(program) == 0 && path == "" {
		return nil, errors.New("qaic: no program: pass a QPC as the model or set the qpc option")
	}
	path = scenarioProgram(path, m.Run.Scenario)
	rt := b.rt
	if rt == nil || !slices.Equal(cfg.LibraryPaths, b.cfg.LibraryPaths) {
		if rt, err = openRuntime(cfg.LibraryPaths); err != nil {
			return nil, err
		}
	}
	qids, err := selectDevices(rt, cfg)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("qaic: load: %w", err)
	}
	p, err := openProgram(rt, cfg, qids, path, program, m.Inputs)
	if err != nil {
		return nil, fmt.Errorf("qaic: load program: %w", err)
	}
	p.facts = submissionFacts(rt, cfg.SysfsRoot, qids, m.Inputs, b.devices)
	return p, nil
}

// scenarioProgram returns the program of scenario in path: a directory
// may hold one per scenario, as QPCs are compiled per scenario
// (DIR/Server/programqpc.bin); else path itself.
func scenarioProgram(path string, scenario sdk.Scenario) string {
	if path == "" || scenario == "" {
		return path
	}
	own := filepath.Join(path, string(scenario))
	if _, err := os.Stat(filepath.Join(own, "programqpc.bin")); err == nil {
		return own
	}
	return path
}

// selectDevices returns the QIDs Load uses, checking that each answers.
func selectDevices(rt runtimeAPI, cfg Config) ([]int32, error) {
	want := cfg.Devices
	if want == nil {
		for _, d := range discover(rt, cfg) {
			want = append(want, d.ID)
		}
	}
	if len(want) == 0 {
		return nil, fmt.Errorf("%w: no ready device answered (QIDs tried: %s)", ErrNoDevice, accel.FormatDevices(candidates(cfg)))
	}
	var out []int32
	for _, d := range want {
		if _, err := rt.Resources(int32(d)); err != nil {
			return nil, fmt.Errorf("%w: device %d: %w", ErrNoDevice, d, err)
		}
		if err := ready(rt, int32(d)); err != nil {
			return nil, fmt.Errorf("%w: device %d: %w", ErrNoDevice, d, err)
		}
		out = append(out, int32(d))
	}
	return out, nil
}

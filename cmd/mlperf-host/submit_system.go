package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/internal/config"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
	"github.com/mlperf-host/mlperf-host/internal/submission"
)

// pluginInfo opens the plugin for what it says of itself before Load:
// its name, version, transport, ABI and devices.
func (a *app) pluginInfo(ctx context.Context, c *config.Config) (host.Info, error) {
	b, err := a.plugins().Open(ctx, c)
	if err != nil {
		return host.Info{}, err
	}
	info := b.Info()
	if err := b.Close(); err != nil && !errors.Is(err, host.ErrClosed) {
		return host.Info{}, err
	}
	return info, nil
}

// reportsFacts says whether a plugin may report submission facts at Load
// (ABI v1.2).
func reportsFacts(info host.Info) bool { return info.ABIMajor > 1 || info.ABIMinor >= 2 }

// The fields a plugin's facts fill, by their official names.
var (
	factSystemFields = []string{"accelerator_model_name", "accelerator_memory_capacity", "accelerator_memory_configuration",
		"accelerator_on-chip_memories", "accelerator_interconnect", "accelerator_interconnect_topology",
		"accelerator_host_interconnect", "accelerator_frequency"}
	factMeasurementFields = []string{"input_data_types", "weight_data_types", "weight_transformations"}
)

// factFields are what a plugin reported at Load, by official field name
// (empty fields left out).
func factFields(f *host.SubmissionFacts) (system, measurements map[string]string) {
	system, measurements = map[string]string{}, map[string]string{}
	if f == nil {
		return system, measurements
	}
	set := func(m map[string]string, k, v string) {
		if v != "" {
			m[k] = v
		}
	}
	for k, v := range map[string]string{
		"accelerator_model_name": f.AcceleratorModelName, "accelerator_memory_capacity": f.AcceleratorMemoryCapacity,
		"accelerator_memory_configuration": f.AcceleratorMemoryConfiguration, "accelerator_on-chip_memories": f.AcceleratorOnChipMemories,
		"accelerator_interconnect": f.AcceleratorInterconnect, "accelerator_interconnect_topology": f.AcceleratorInterconnectTopology,
		"accelerator_host_interconnect": f.AcceleratorHostInterconnect, "accelerator_frequency": f.AcceleratorFrequency,
	} {
		set(system, k, v)
	}
	set(measurements, "input_data_types", f.InputDataTypes)
	set(measurements, "weight_data_types", f.WeightDataTypes)
	set(measurements, "weight_transformations", f.WeightTransformations)
	return system, measurements
}

// writeSystem describes this machine, the plugin's devices and what the
// plugin reported at Load in systems/SYSTEM.json, with the approval
// options in use (placement, see scenarioPlacement) in its sw_notes.
// Before the first Load (loaded false), the fields a v1.2 plugin may still
// report are not yet required.
func writeSystem(c *config.Config, l submission.Layout, info host.Info, loaded bool, placement []string) error {
	reported, _ := factFields(info.Facts)
	devices := info.Devices
	framework := fmt.Sprintf("mlperf-host %s, plugin %s %s (%s)", binaryVersion(), info.Name, info.Version, info.Transport)
	if f := info.Facts; f != nil {
		if len(f.DevicesUsed) > 0 {
			devices = slices.DeleteFunc(slices.Clone(devices), func(d host.Device) bool { return !slices.Contains(f.DevicesUsed, d.ID) })
		}
		if f.Framework != "" {
			framework += ": " + f.Framework
		}
	}
	var accel []submission.Accelerator
	for _, d := range devices {
		accel = append(accel, submission.Accelerator{Name: d.Name, MemoryBytes: d.MemoryBytes})
	}
	desc, missing := submission.DescribeSystem(submission.SystemInputs{
		Round: c.Round, Division: c.Division, Submitter: c.Submitter, System: c.System, Category: c.Category,
		Detected: submission.DetectSystem(os.DirFS("/")), Accelerators: accel, Reported: reported,
		Framework: framework, Software: fmt.Sprintf("%s, %s/%s", runtime.Version(), runtime.GOOS, runtime.GOARCH),
		Given: c.SystemDesc(),
	})
	if !loaded && reportsFacts(info) {
		missing = slices.DeleteFunc(missing, func(f string) bool { return slices.Contains(factSystemFields, f) })
	}
	if len(missing) > 0 {
		return missingFields(config.PrefixSystemDesc, missing,
			fmt.Sprintf("system description %s: neither this machine nor plugin %s tells %s, which round %s's checker needs (non-empty)",
				l.SystemFile(), info.Name, strings.Join(missing, ", "), c.Round.Name),
			"set them in a [system_desc] table of the config file, or")
	}
	withPlacementNotes(desc, placement)
	return submission.WriteJSON(l.SystemFile(), desc)
}

// measurementsOf is measurements.json: the measurements.FIELD keys, else
// what the plugin reported at Load, else, for the demo, what its bundled
// model is. Before the first Load (loaded false), the fields a v1.2
// plugin may still report are not yet required.
func measurementsOf(c *config.Config, info host.Info, loaded bool) (map[string]string, error) {
	_, defaults := factFields(info.Facts)
	if c.Benchmark.Demo {
		for k, v := range map[string]string{"input_data_types": "uint8", "retraining": "No", "weight_data_types": "fp32",
			"weight_transformations": "none", "starting_weights_filename": "plugins/onnx/fashionmnist (bundled ONNX model)"} {
			if defaults[k] == "" {
				defaults[k] = v
			}
		}
	}
	m, missing := submission.DescribeMeasurements(c.Round, c.Measurements(), defaults)
	if !loaded && reportsFacts(info) {
		missing = slices.DeleteFunc(missing, func(f string) bool { return slices.Contains(factMeasurementFields, f) })
	}
	if len(missing) > 0 {
		return nil, missingFields(config.PrefixMeasurements, missing,
			fmt.Sprintf("measurements.json of %s: %s have no value", c.Benchmark.SubmissionName, strings.Join(missing, ", ")),
			"describe how the model was run:")
	}
	return m, nil
}

// missingFields is the configuration error naming each field, with the
// --set flag that fills it.
func missingFields(prefix string, fields []string, msg, hint string) error {
	var sets []string
	for _, f := range fields {
		sets = append(sets, "--set "+prefix+f+"=...")
	}
	return exitcode.New(exitcode.Config, errors.New(msg), hint+" "+strings.Join(sets, " "))
}

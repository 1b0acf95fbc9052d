package main

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/internal/config"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
	"github.com/mlperf-host/mlperf-host/internal/submission"
)

// TestSystemFromPluginFacts: a v1.2 plugin's submission facts fill the
// accelerator fields and measurements.json; before its Load they are not
// asked for, after it they are.
func TestSystemFromPluginFacts(t *testing.T) {
	t.Parallel()
	c, err := config.Load(config.Inputs{Flags: []config.FlagValue{
		{Key: config.KeyDivision, Value: "closed", Flag: "--set"}, {Key: config.KeyBenchmark, Value: "resnet", Flag: "--benchmark"},
		{Key: "system_desc.cooling", Value: "air", Flag: "--set"}, {Key: "system_desc.host_networking_topology", Value: "N/A", Flag: "--set"},
		{Key: "system_desc.host_memory_configuration", Value: "8x 32 GB", Flag: "--set"},
		{Key: "system_desc.host_storage_capacity", Value: "1 TB", Flag: "--set"}, {Key: "system_desc.host_storage_type", Value: "NVMe", Flag: "--set"},
		{Key: "system_desc.host_networking", Value: "1x 10 Gbit/s", Flag: "--set"}, {Key: "system_desc.host_network_card_count", Value: "1", Flag: "--set"},
		{Key: "system_desc.host_memory_capacity", Value: "256 GB", Flag: "--set"}, {Key: "system_desc.operating_system", Value: "Linux", Flag: "--set"},
		{Key: "system_desc.host_processor_model_name", Value: "cpu", Flag: "--set"},
		{Key: "measurements.retraining", Value: "No", Flag: "--set"}, {Key: "measurements.starting_weights_filename", Value: "resnet50.onnx", Flag: "--set"},
	}})
	require.NoError(t, err)
	l := submission.Layout{Root: t.TempDir(), Division: "closed", Submitter: c.Submitter, System: c.System, Round: c.Round, Benchmark: c.Benchmark}
	gpus := []host.Device{{ID: 0, Name: "H100", MemoryBytes: 80e9}, {ID: 1, Name: "H100", MemoryBytes: 80e9}}

	old := host.Info{Name: "trt", Version: "1", Transport: host.TransportProcess, ABIMajor: 1, ABIMinor: 1, Devices: gpus}
	err = writeSystem(c, l, old, false, nil)
	require.Error(t, err, "a v1.1 plugin reports nothing: the accelerator's interconnect must be given")
	assert.Equal(t, exitcode.Config, exitcode.Of(err))
	assert.Contains(t, err.Error(), "accelerator_host_interconnect")
	assert.Contains(t, exitcode.Hint(err), "--set system_desc.accelerator_interconnect=...")

	v12 := old
	v12.ABIMinor = 2
	require.NoError(t, writeSystem(c, l, v12, false, nil), "before Load, a v1.2 plugin may still report them")
	_, err = measurementsOf(c, v12, false)
	require.NoError(t, err)
	require.Error(t, writeSystem(c, l, v12, true, nil), "after Load it has not")

	v12.Facts = &host.SubmissionFacts{Framework: "TensorRT 10.3", DevicesUsed: []int{1}, AcceleratorHostInterconnect: "PCIe 5.0 x16",
		AcceleratorInterconnect: "NVLink", AcceleratorMemoryConfiguration: "HBM3", InputDataTypes: "int8", WeightDataTypes: "int8",
		WeightTransformations: "quantization"}
	require.NoError(t, writeSystem(c, l, v12, true, nil))
	b, err := os.ReadFile(l.SystemFile())
	require.NoError(t, err)
	var desc map[string]any
	require.NoError(t, json.Unmarshal(b, &desc))
	assert.InDelta(t, 1, desc["accelerators_per_node"], 0, "the devices the model runs on")
	assert.Equal(t, "PCIe 5.0 x16", desc["accelerator_host_interconnect"])
	assert.Equal(t, "mlperf-host (devel), plugin trt 1 (process): TensorRT 10.3", desc["framework"])
	m, err := measurementsOf(c, v12, true)
	require.NoError(t, err)
	assert.Equal(t, "quantization", m["weight_transformations"])
}

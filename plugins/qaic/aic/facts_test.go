package aic

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// TestSubmissionFacts: after Load the plugin reports the runtime's
// version, the data set's input types and the cards it runs on, with
// their memory and PCIe link; a QPC's weights stay unsaid.
func TestSubmissionFacts(t *testing.T) {
	t.Parallel()
	f := newFakeQAic(t, 2, 16)
	cfg := f.config()
	cfg.ProbeDevices, cfg.SysfsRoot = 0, sysfs(t, 2)
	b, err := New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	require.NoError(t, b.Load(t.Context(), sdk.Model{Bytes: qpc(2, 4, "input x 4", "output y 4"),
		Inputs: []sdk.TensorSpec{{Name: "x", DType: abi.Float32, Shape: []int{1}}}}))
	assert.Equal(t, sdk.SubmissionFacts{
		Framework:                   "AIC runtime 1.20.2.0 fake",
		InputDataTypes:              "fp32",
		DevicesUsed:                 []int{0, 1},
		AcceleratorModelName:        "Qualcomm Cloud AI 100",
		AcceleratorMemoryCapacity:   "16384 MiB",
		AcceleratorHostInterconnect: "PCIe Gen4 x8",
	}, b.SubmissionFacts())
	assert.Equal(t, 2, b.Info().MaxBatch, "read from the program and the tensors")
}

package trt

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel/acceltest"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// TestSubmissionFacts: after Load the plugin reports the versions the
// libraries give, the engine's input types and the GPUs it runs on, with
// what the runtime and sysfs say of them; a plan's weights stay unsaid.
func TestSubmissionFacts(t *testing.T) {
	t.Parallel()
	f := newFake(t, 3, 1<<26)
	cfg := f.config()
	gen5 := acceltest.PCIFunction{Address: "0fa0:3c:00.0", Speed: "32.0 GT/s PCIe", Width: "16", BridgeSpeed: "32.0 GT/s PCIe", BridgeWidth: "16"}
	gen4 := gen5
	gen4.Address, gen4.BridgeSpeed = "0fa0:3d:00.0", "16.0 GT/s PCIe"
	cfg.SysfsRoot = acceltest.Sysfs(t, gen5, gen4)
	b, err := New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	require.NoError(t, b.Load(t.Context(), sdk.Model{Bytes: fakePlan("input x uint8 -1x4 max=8", "input m float16 -1x2 max=8", outSimple),
		Options: map[string]string{"devices": "2,1"}}))
	assert.Equal(t, sdk.SubmissionFacts{
		Framework:                      "TensorRT 10.3.0, CUDA 12.4",
		InputDataTypes:                 "uint8, fp16",
		DevicesUsed:                    []int{2, 1},
		AcceleratorModelName:           "Fake GPU 2, Fake GPU 1",
		AcceleratorMemoryCapacity:      "64 MiB",
		AcceleratorMemoryConfiguration: "HBM, 5120-bit bus",
		AcceleratorFrequency:           "1980 MHz",
		AcceleratorHostInterconnect:    "PCIe Gen4 x16, PCIe Gen5 x16",
	}, b.SubmissionFacts())
}

func TestFactFormats(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "10.3.0", trtVersion(100300))
	assert.Equal(t, "8.6.1", trtVersion(8601))
	assert.Equal(t, "HBM3, 5120-bit bus", memoryConfiguration("NVIDIA H100 80GB HBM3", 5120))
	assert.Equal(t, "HBM, 5120-bit bus", memoryConfiguration("NVIDIA H100 PCIe", 5120))
	assert.Equal(t, "384-bit bus", memoryConfiguration("NVIDIA L40S", 384), "CUDA does not say GDDR6")
	assert.Empty(t, memoryConfiguration("a GPU", 0))
	for p, want := range map[Precision][2]string{PrecisionFP32: {"fp32", "none"}, PrecisionFP16: {"fp16", "conversion to fp16"},
		PrecisionINT8: {"int8", "quantization"}} {
		types, how := p.weights()
		assert.Equal(t, want, [2]string{types, how}, p.String())
	}
}

package sdk

import (
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
)

// SubmissionReporter is implemented by backends that know what the
// submission's system description and measurements.json must say about
// them: the software stack, the precisions, the devices the loaded model
// runs on. The SDK calls SubmissionFacts once, after a successful Load,
// and hands the answer to the host (ABI v1.2), which writes it instead of
// guessing.
type SubmissionReporter interface {
	SubmissionFacts() SubmissionFacts
}

// SubmissionFacts is what only the backend knows about the system under
// test. Every field is optional: leave unknown ones empty. Write strings
// as the MLPerf submission rules spell them.
type SubmissionFacts struct {
	// Framework is the software stack, e.g. "TensorRT 10.3, CUDA 12.6".
	Framework string
	// InputDataTypes and WeightDataTypes are the precisions, e.g. "int8".
	InputDataTypes, WeightDataTypes string
	// WeightTransformations says how the weights were derived from the
	// reference ones, e.g. "quantization"; "none" when they were not.
	WeightTransformations string
	// DevicesUsed are the IDs of the [Info.Devices] the loaded model runs
	// on; each must be listed there.
	DevicesUsed []int
	// AcceleratorModelName, e.g. "NVIDIA H100-SXM-80GB".
	AcceleratorModelName string
	// AcceleratorMemoryCapacity ("80 GB"), AcceleratorMemoryConfiguration
	// ("HBM3") and AcceleratorOnChipMemories, per accelerator.
	AcceleratorMemoryCapacity, AcceleratorMemoryConfiguration, AcceleratorOnChipMemories string
	// AcceleratorInterconnect ("NVLink"), its topology, and the
	// accelerator-to-host interconnect ("PCIe Gen5 x16").
	AcceleratorInterconnect, AcceleratorInterconnectTopology, AcceleratorHostInterconnect string
	// AcceleratorFrequency, e.g. "1980 MHz".
	AcceleratorFrequency string
}

func (f SubmissionFacts) proto() *backendv1.SubmissionFacts {
	p := &backendv1.SubmissionFacts{
		Framework: f.Framework, InputDataTypes: f.InputDataTypes, WeightDataTypes: f.WeightDataTypes,
		WeightTransformations: f.WeightTransformations, AcceleratorModelName: f.AcceleratorModelName,
		AcceleratorMemoryCapacity: f.AcceleratorMemoryCapacity, AcceleratorMemoryConfiguration: f.AcceleratorMemoryConfiguration,
		AcceleratorOnChipMemories: f.AcceleratorOnChipMemories, AcceleratorInterconnect: f.AcceleratorInterconnect,
		AcceleratorInterconnectTopology: f.AcceleratorInterconnectTopology, AcceleratorHostInterconnect: f.AcceleratorHostInterconnect,
		AcceleratorFrequency: f.AcceleratorFrequency,
	}
	for _, id := range f.DevicesUsed {
		p.DevicesUsed = append(p.DevicesUsed, int32(id))
	}
	return p
}

package trt

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// CUDA device attributes the submission facts read (cudaDeviceAttr).
const (
	attrClockRate            = 13 // kHz, the peak clock
	attrGlobalMemoryBusWidth = 37 // bits
)

// submissionFacts says what the loaded engine runs on, for the
// submission's system description and measurements: the TensorRT and CUDA
// versions the libraries report, the engine's input types, the weights'
// precision and transformation when Load built the engine (a plan's
// weights are opaque to the plugin: then they stay unsaid), and the GPUs
// used with their name, memory, clock and PCIe link. A device that is a
// MIG instance (mig) is named by NVML, with its profile:
// "NVIDIA H100 80GB HBM3 MIG 1g.10gb".
func submissionFacts(cuda cudaAPI, trt trtAPI, cfg Config, l *layout, built bool, ordinals []int, mig map[int]migInstance) sdk.SubmissionFacts {
	rtv, _ := cuda.RuntimeVersion()
	f := sdk.SubmissionFacts{
		Framework:      fmt.Sprintf("TensorRT %s, CUDA %s", trtVersion(trt.Version()), cudaVersion(rtv)),
		InputDataTypes: inputTypes(l),
		DevicesUsed:    slices.Clone(ordinals),
	}
	if built {
		f.WeightDataTypes, f.WeightTransformations = cfg.Precision.weights()
	}
	var names, memory, config, clocks, links []string
	for _, d := range ordinals {
		p, err := cuda.DeviceProperties(d)
		if err != nil {
			continue
		}
		name := p.name
		if in, ok := mig[d]; ok {
			name = in.Name
		}
		names = accel.Distinct(names, name)
		memory = accel.Distinct(memory, fmt.Sprintf("%d MiB", p.totalMemory>>20))
		width, _ := cuda.DeviceAttribute(attrGlobalMemoryBusWidth, d)
		config = accel.Distinct(config, memoryConfiguration(p.name, width))
		if khz, err := cuda.DeviceAttribute(attrClockRate, d); err == nil && khz > 0 {
			clocks = accel.Distinct(clocks, fmt.Sprintf("%d MHz", khz/1000))
		}
		if pci, err := cuda.PCIBusID(d); err == nil && pci != "" {
			links = accel.Distinct(links, accel.ReadPCI(cfg.SysfsRoot, pci).Link)
		}
	}
	f.AcceleratorModelName = accel.JoinFacts(names)
	f.AcceleratorMemoryCapacity = accel.JoinFacts(memory)
	f.AcceleratorMemoryConfiguration = accel.JoinFacts(config)
	f.AcceleratorFrequency = accel.JoinFacts(clocks)
	f.AcceleratorHostInterconnect = accel.JoinFacts(links)
	return f
}

// trtVersion formats getInferLibVersion(): 100300 (TensorRT 10 and later,
// major×10000 + minor×100 + patch) or 8601 (TensorRT 8, major×1000 +
// minor×100 + patch) as "10.3.0" or "8.6.1".
func trtVersion(v int) string {
	if v >= 10000 {
		return fmt.Sprintf("%d.%d.%d", v/10000, v%10000/100, v%100)
	}
	return fmt.Sprintf("%d.%d.%d", v/1000, v%1000/100, v%100)
}

// inputTypes names the engine inputs' data types as the submission rules
// spell them ("int8", "fp16"), each once, in input order.
func inputTypes(l *layout) string {
	var out []string
	for _, t := range l.inputs {
		out = accel.Distinct(out, accel.SubmissionType(dataTypes[t.dtype].name))
	}
	return accel.JoinFacts(out)
}

// weights says what a build in precision p does to the weights: their
// type and the transformation from the reference (FP32) weights.
func (p Precision) weights() (types, transformation string) {
	switch p {
	case PrecisionFP16:
		return "fp16", "conversion to fp16"
	case PrecisionINT8:
		return "int8", "quantization"
	}
	return "fp32", "none"
}

// memoryConfiguration describes a GPU's memory from what the runtime
// tells: the memory type when the product name carries it ("NVIDIA H100
// 80GB HBM3"), else HBM for a bus of 1024 bits or more (no GDDR part has
// one), and the bus width. CUDA does not name the memory type itself.
func memoryConfiguration(name string, busBits int) string {
	kind := ""
	for _, w := range strings.Fields(name) {
		if u := strings.ToUpper(w); strings.HasPrefix(u, "HBM") || strings.HasPrefix(u, "GDDR") || strings.HasPrefix(u, "LPDDR") {
			kind = w
		}
	}
	if kind == "" && busBits >= 1024 {
		kind = "HBM"
	}
	switch {
	case busBits > 0 && kind != "":
		return fmt.Sprintf("%s, %d-bit bus", kind, busBits)
	case busBits > 0:
		return fmt.Sprintf("%d-bit bus", busBits)
	}
	return kind
}

// SubmissionFacts returns what the loaded engine runs on
// (sdk.SubmissionReporter), read at Load.
func (m *model) SubmissionFacts() sdk.SubmissionFacts { return m.facts }

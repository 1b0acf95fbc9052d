package aic

import (
	"fmt"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// submissionFacts says what the loaded program runs on, for the
// submission: the AIC runtime's version, the input types (the data set's
// tensors, whose bytes the plugin copies into the program's buffers as
// they are), the cards used with their memory and PCIe link (from sysfs
// under root, for the cards discovery placed). A QPC's weights are opaque
// to the plugin: their types stay unsaid.
func submissionFacts(rt runtimeAPI, root string, qids []int32, inputs []sdk.TensorSpec, devices []sdk.Device) sdk.SubmissionFacts {
	f := sdk.SubmissionFacts{Framework: rt.Version(), AcceleratorModelName: "Qualcomm Cloud AI 100"}
	var types []string
	for _, t := range inputs {
		types = accel.Distinct(types, accel.SubmissionType(string(t.DType)))
	}
	f.InputDataTypes = accel.JoinFacts(types)
	var memory, links []string
	for _, q := range qids {
		f.DevicesUsed = append(f.DevicesUsed, int(q))
		if r, err := rt.Resources(q); err == nil && r.dramTotalMB > 0 {
			memory = accel.Distinct(memory, fmt.Sprintf("%d MiB", r.dramTotalMB))
		}
		for _, d := range devices {
			if d.ID == int(q) && d.PCIBusID != "" {
				links = accel.Distinct(links, accel.ReadPCI(root, d.PCIBusID).Link)
			}
		}
	}
	f.AcceleratorMemoryCapacity = accel.JoinFacts(memory)
	f.AcceleratorHostInterconnect = accel.JoinFacts(links)
	return f
}

// SubmissionFacts returns what the loaded program runs on
// (sdk.SubmissionReporter), read at Load.
func (p *program) SubmissionFacts() sdk.SubmissionFacts { return p.facts }

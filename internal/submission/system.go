package submission

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// Accelerator is one device a plugin drives.
type Accelerator struct {
	Name        string
	MemoryBytes uint64
}

// SystemInputs is what a system description is made of.
type SystemInputs struct {
	Round                       *benchmarks.Round
	Division, Submitter, System string
	Category                    benchmarks.Category
	// Detected are the fields DetectSystem read from the machine.
	Detected map[string]string
	// Accelerators are the plugin's devices; none for a CPU system.
	Accelerators []Accelerator
	// Framework and Software fill framework and other_software_stack.
	Framework, Software string
	// Reported are the fields the plugin reported at Load (its submission
	// facts); they override what the machine and the devices tell.
	Reported map[string]string
	// Given are the fields the configuration sets (system_desc.FIELD);
	// they override everything else.
	Given map[string]string
}

// numericFields are written as JSON numbers when positive, as the
// official examples do. A zero stays a string: the checker reads 0 as
// empty.
var numericFields = []string{"number_of_nodes", "host_processors_per_node", "host_processor_core_count", "accelerators_per_node"}

// DescribeSystem makes systems/SYSTEM.json: every field the round's
// checker requires, from the configuration first, then what the plugin
// reported, then the machine, the plugin's devices and what the run itself
// knows (division, submitter,
// category, one node). A CPU system (no accelerator) gets "0"
// accelerators and "N/A" for the accelerator fields. It returns the
// description and the fields that must be meaningful but have no value,
// sorted.
func DescribeSystem(in SystemInputs) (map[string]any, []string) {
	v := map[string]string{}
	for _, f := range in.Round.SystemFields {
		v[f] = ""
	}
	v["division"], v["submitter"], v["system_type"] = in.Division, in.Submitter, string(in.Category)
	v["status"], v["system_name"], v["number_of_nodes"] = "available", in.System, "1"
	v["framework"], v["other_software_stack"] = in.Framework, in.Software
	for k, x := range in.Detected {
		v[k] = x
	}
	if len(in.Accelerators) == 0 {
		v["accelerators_per_node"] = "0"
		for _, f := range []string{"accelerator_model_name", "accelerator_memory_capacity", "accelerator_host_interconnect",
			"accelerator_interconnect", "accelerator_memory_configuration", "accelerator_interconnect_topology",
			"accelerator_frequency", "accelerator_on-chip_memories"} {
			v[f] = "N/A"
		}
	} else {
		v["accelerators_per_node"] = strconv.Itoa(len(in.Accelerators))
		var names []string
		for _, a := range in.Accelerators {
			if !slices.Contains(names, a.Name) {
				names = append(names, a.Name)
			}
		}
		v["accelerator_model_name"] = strings.Join(names, ", ")
		if m := in.Accelerators[0].MemoryBytes; m > 0 {
			v["accelerator_memory_capacity"] = fmt.Sprintf("%.0f GB", float64(m)/1e9)
		}
	}
	for _, m := range []map[string]string{in.Reported, in.Given} {
		for k, x := range m {
			v[k] = x
		}
	}
	out := map[string]any{}
	for k, x := range v {
		out[k] = x
		if n, err := strconv.Atoi(x); err == nil && n > 0 && slices.Contains(numericFields, k) {
			out[k] = n
		}
	}
	var missing []string
	for _, f := range in.Round.MeaningfulFields {
		if !pyTruthy(out[f]) {
			missing = append(missing, f)
		}
	}
	slices.Sort(missing)
	return out, missing
}

// WriteJSON writes v as indented JSON to path, making its directory.
func WriteJSON(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(v, "", "    ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// DescribeMeasurements makes measurements.json: the round's fields from
// given (measurements.FIELD), else from defaults. It returns the fields
// with no value, sorted.
func DescribeMeasurements(r *benchmarks.Round, given, defaults map[string]string) (map[string]string, []string) {
	out := map[string]string{}
	var missing []string
	for _, f := range r.MeasurementsFields {
		v := given[f]
		if v == "" {
			v = defaults[f]
		}
		if v == "" {
			missing = append(missing, f)
		}
		out[f] = v
	}
	for k, v := range given {
		out[k] = v
	}
	slices.Sort(missing)
	return out, missing
}

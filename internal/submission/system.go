package submission

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// System is the systems/SYSTEM.json description. The field names are the
// official ones; RequiredSystemFields lists those Check requires.
type System struct {
	Division                string `json:"division"`
	Submitter               string `json:"submitter"`
	Status                  string `json:"status"`
	SystemName              string `json:"system_name"`
	SystemType              string `json:"system_type"`
	NumberOfNodes           int    `json:"number_of_nodes"`
	HostProcessorModelName  string `json:"host_processor_model_name"`
	HostProcessorsPerNode   int    `json:"host_processors_per_node"`
	HostProcessorCoreCount  int    `json:"host_processor_core_count"`
	HostMemoryCapacity      string `json:"host_memory_capacity"`
	AcceleratorsPerNode     int    `json:"accelerators_per_node"`
	AcceleratorModelName    string `json:"accelerator_model_name"`
	AcceleratorMemoryCap    string `json:"accelerator_memory_capacity"`
	Framework               string `json:"framework"`
	OperatingSystem         string `json:"operating_system"`
	OtherSoftwareStack      string `json:"other_software_stack"`
	SystemTypeDetail        string `json:"system_type_detail"`
	HostStorageCapacity     string `json:"host_storage_capacity"`
	HostNetworkingTopology  string `json:"host_networking_topology"`
	AcceleratorInterconnect string `json:"accelerator_interconnect"`
}

// RequiredSystemFields are the keys a system description must have,
// non-empty.
func RequiredSystemFields() []string {
	return []string{"division", "submitter", "status", "system_name", "system_type", "number_of_nodes",
		"host_processor_model_name", "host_processors_per_node", "host_processor_core_count",
		"accelerators_per_node", "framework", "operating_system"}
}

// WriteSystem writes s as JSON to path.
func WriteSystem(path string, s System) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(s, "", "    ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write system description: %w", err)
	}
	return nil
}

// Measurements is the measurements/.../SYSTEM_mlperf-host_SCENARIO.json
// description of how the model was run.
type Measurements struct {
	InputDataTypes          string `json:"input_data_types"`
	RetrainingPerformed     string `json:"retraining"`
	StartingWeightsFilename string `json:"starting_weights_filename"`
	WeightDataTypes         string `json:"weight_data_types"`
	WeightTransformations   string `json:"weight_transformations"`
}

// MeasurementsFile is the measurements JSON's path in l.
func (l Layout) MeasurementsFile() string {
	return filepath.Join(l.MeasurementsDir(), l.System+"_mlperf-host_"+string(l.Scenario)+".json")
}

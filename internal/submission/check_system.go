package submission

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// system checks the system description (the checker's SystemCheck) and
// returns it, nil when it cannot be read.
func (c *checker) system(l Layout) map[string]any {
	path := l.SystemFile()
	if !c.exists(path, "system description (SystemCheck.missing_check; the checker stops on this tree)") {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		c.add(path, "%v", err)
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		c.add(path, "not a JSON object: %v (the checker stops on this tree)", err)
		return nil
	}
	for _, p := range CheckSystem(m, c.round, l.Division, l.Submitter) {
		c.add(path, "%s", p)
	}
	c.nameplate(l, m)
	return m
}

// CheckSystem returns what the checker's SystemCheck finds wrong with a
// system description of division and submitter.
func CheckSystem(m map[string]any, r *benchmarks.Round, division, submitter string) []string {
	var out []string
	if status, ok := m["status"].(string); !ok || !slices.Contains(r.Availabilities, strings.ToLower(status)) {
		out = append(out, fmt.Sprintf("status %s: want one of %s (availability_check)", pyRepr(m["status"]), strings.Join(r.Availabilities, ", ")))
	}
	st, _ := m["system_type"].(string)
	if !slices.Contains(categoryNames(), st) && st != "edge,datacenter" {
		out = append(out, fmt.Sprintf("system_type %s: want one of %s (system_type_check)", pyRepr(m["system_type"]), strings.Join(categoryNames(), ", ")))
	}
	network, err := isNetwork(m)
	switch {
	case err != nil:
		out = append(out, err.Error()+" (network_check)")
	case division == "closed" && network:
		out = append(out, "is_network is true in the closed division (network_check)")
	case division == "network" && !network:
		out = append(out, "the network division needs is_network true (network_check)")
	}
	fields := r.SystemFields
	if pyTruthy(m["is_network"]) {
		fields = append(slices.Clone(fields), r.NetworkFields...)
	}
	var missing, empty []string
	for _, f := range fields {
		v, ok := m[f]
		switch {
		case !ok:
			missing = append(missing, f)
		case slices.Contains(r.MeaningfulFields, f) && !pyTruthy(v):
			empty = append(empty, f)
		}
	}
	if len(missing) > 0 {
		out = append(out, "missing fields "+strings.Join(missing, ", ")+" (required_fields_check)")
	}
	if len(empty) > 0 {
		out = append(out, "fields "+strings.Join(empty, ", ")+" need a meaningful value, not empty or 0 (required_fields_check)")
	}
	if s, ok := m["submitter"].(string); !ok || !strings.EqualFold(s, submitter) {
		out = append(out, fmt.Sprintf("submitter %s does not match the directory %s (submitter_check)", pyRepr(m["submitter"]), submitter))
	}
	if d, ok := m["division"].(string); !ok || !strings.EqualFold(d, division) {
		out = append(out, fmt.Sprintf("division %s does not match the directory %s (division_check)", pyRepr(m["division"]), division))
	}
	return out
}

// nameplate is the checker's nameplate_power_check, in the rounds that
// have one (a power submission's SYSTEM_power.yaml, unless the system
// description gives system_power_capacity).
func (c *checker) nameplate(l Layout, m map[string]any) {
	if c.round.Paths["nameplate_power_path"] == "" {
		return
	}
	if _, ok := m["system_power_capacity"]; ok {
		return
	}
	power := false
	for _, b := range subdirs(filepath.Join(l.org(), "results", l.System)) {
		for _, sc := range subdirs(filepath.Join(l.org(), "results", l.System, b)) {
			l.BenchmarkDir, l.ScenarioName = b, sc
			if st, err := os.Stat(l.PowerDir()); err == nil && st.IsDir() {
				power = true
			}
		}
	}
	if !power {
		return
	}
	path := filepath.Join(c.root, filepath.FromSlash(c.round.Path("nameplate_power_path", l.Division, l.Submitter, l.System, "", "")))
	b, err := os.ReadFile(path)
	if err != nil {
		c.strict(path, "a power submission without its nameplate power (mlperf-host's rule; the checker warns)")
		return
	}
	if !yamlLoads(b) {
		c.add(path, "nameplate power YAML does not load (nameplate_power_check)")
	}
}

func categoryNames() []string {
	var out []string
	for _, c := range benchmarks.Categories() {
		out = append(out, string(c))
	}
	return out
}

// isNetwork is the checker's reading of is_network: absent is false, a
// string is true when it says "true", anything else is an error.
func isNetwork(m map[string]any) (bool, error) {
	v, ok := m["is_network"]
	if !ok || v == nil {
		return false, nil
	}
	s, ok := v.(string)
	if !ok {
		return false, fmt.Errorf("is_network %s is not a string", pyRepr(v))
	}
	return strings.EqualFold(s, "true"), nil
}

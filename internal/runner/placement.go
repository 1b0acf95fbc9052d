package runner

import (
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/config"
)

// ApprovalOptions are the plugin options, named as MLPerf's rules and
// harnesses name them, that place data where the closed division allows
// it only for systems the committee approved: samples already in
// accelerator memory (start_from_device) and outputs left there
// (end_on_device, 3D-UNet only).
var ApprovalOptions = []string{"start_from_device", "end_on_device"}

// PlacementNotes lists the approval options that plugin options opts turn
// on, as "name=value", in ApprovalOptions order. An option is on unless
// it is empty, false, 0, no or off.
func PlacementNotes(opts map[string]string) []string {
	var out []string
	for _, name := range ApprovalOptions {
		if v, ok := opts[name]; ok && optionOn(v) {
			out = append(out, name+"="+v)
		}
	}
	return out
}

func optionOn(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "false", "0", "no", "off":
		return false
	}
	return true
}

// placementMessage is the detail log's line naming the approval options
// c's plugin options turn on, or "" when none is.
func placementMessage(c *config.Config) string {
	notes := PlacementNotes(c.PluginOptions(c.Plugin))
	if len(notes) == 0 {
		return ""
	}
	return "plugin " + c.Plugin + " places data where the closed division needs the MLPerf committee's approval: " +
		strings.Join(notes, ", ")
}

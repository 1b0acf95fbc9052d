package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/config"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
	"github.com/mlperf-host/mlperf-host/internal/runner"
)

// scenarioPlacement refuses a closed-division submission whose plugin
// options, in any scenario it runs (a scenario's own options included,
// --set PLUGIN.Server.start_from_device=true), turn on an approval option
// the user did not acknowledge by name in acknowledged (comma-separated).
// It returns the approval options each scenario turns on, as
// "name=value (Scenario)", for the system description's notes.
func scenarioPlacement(configs []*config.Config, acknowledged string) ([]string, error) {
	var notes []string
	for _, c := range configs {
		opts := c.PluginOptions(c.Plugin)
		if err := placementAllowed(c.Division, c.Plugin, opts, acknowledged); err != nil {
			return nil, fmt.Errorf("scenario %s: %w", c.Scenario, err)
		}
		for _, n := range runner.PlacementNotes(opts) {
			notes = append(notes, fmt.Sprintf("%s (%s)", n, c.Scenario))
		}
	}
	return notes, nil
}

// withPlacementNotes appends the approval options in use (see
// scenarioPlacement) to the system description's sw_notes, after what the
// configuration or the machine put there: the checker's reviewers read
// them there.
func withPlacementNotes(desc map[string]any, notes []string) {
	if len(notes) == 0 {
		return
	}
	text := "data placement needing the MLPerf committee's approval: " + strings.Join(notes, ", ")
	if prev, _ := desc["sw_notes"].(string); strings.TrimSpace(prev) != "" {
		text = prev + "; " + text
	}
	desc["sw_notes"] = text
}

// placementAllowed is checkPlacement for a division, a plugin and its
// options.
func placementAllowed(division, plugin string, opts map[string]string, acknowledged string) error {
	if division != "closed" {
		return nil
	}
	var acks []string
	for a := range strings.SplitSeq(acknowledged, ",") {
		acks = append(acks, strings.TrimSpace(a))
	}
	var missing []string
	for _, note := range runner.PlacementNotes(opts) {
		name, _, _ := strings.Cut(note, "=")
		if !slices.Contains(acks, name) {
			missing = append(missing, name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return exitcode.New(exitcode.Config,
		fmt.Errorf("submit: the closed division allows %s only for systems the MLPerf committee approved, "+
			"and plugin %s sets it", strings.Join(missing, " and "), plugin),
		fmt.Sprintf("turn it off (--set %s.%s=false), submit to the open division, or acknowledge the "+
			"approval with --acknowledge %s", plugin, missing[0], strings.Join(missing, ",")))
}

// placementReadme is the README paragraph that states the approval
// options in use, or "" when none is.
func placementReadme(c *config.Config) string { return placementText(c.PluginOptions(c.Plugin)) }

// placementText is placementReadme for plugin options opts.
func placementText(opts map[string]string) string {
	notes := runner.PlacementNotes(opts)
	if len(notes) == 0 {
		return ""
	}
	return "\nData placement needing the MLPerf committee's approval: " + strings.Join(notes, ", ") +
		" (samples already in accelerator memory, or outputs left there).\n"
}

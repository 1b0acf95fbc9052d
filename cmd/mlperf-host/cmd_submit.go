package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/internal/bench"
	"github.com/mlperf-host/mlperf-host/internal/bench/sdxl"
	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
	"github.com/mlperf-host/mlperf-host/internal/config"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
	"github.com/mlperf-host/mlperf-host/internal/runner"
	"github.com/mlperf-host/mlperf-host/internal/submission"
)

func (a *app) cmdSubmit(ctx context.Context, args []string) error {
	fs := a.newFlagSet("submit", "[flags]",
		"For every scenario the benchmark requires of --set category=edge|datacenter|datacenter,edge in the\n"+
			"round (--round), and each of those it asks one of (a datacenter LLM's Server and Interactive):\n"+
			"run accuracy, performance and, in the closed and network divisions, the round's\n"+
			"compliance tests; write the submission tree, truncate its accuracy logs (originals in --backup)\n"+
			"and check it against the round's rules. Set division, submitter and system with --set, the system\n"+
			"description's fields the machine cannot tell with --set system_desc.FIELD=VALUE.")
	var cf configFlags
	cf.register(fs)
	root := fs.String("submission", "mlperf-submission", "submission tree `DIR`")
	backup := fs.String("backup", "", "`DIR` for the accuracy logs before truncation (default: DIR of --submission + \".backup\")")
	checkOnly := fs.Bool("check-only", false, "only check the tree in --submission, as the round's official checker does")
	strict := fs.Bool("strict", false, "with --check-only: refuse the tree on mlperf-host's own rules too, which the official checker "+
		"does not enforce (else they are warnings; a tree submit writes is held to them)")
	asJSON := fs.Bool("json", false, "with --check-only: print every result's verdict, metric and problems as JSON")
	scenarios := fs.String("scenarios", "", "comma-separated `SCENARIOS` to run (default: those the category requires, "+
		"and of the scenarios it asks one of, Server and Interactive, both)")
	acknowledge := fs.String("acknowledge", "", "comma-separated plugin `OPTIONS` (start_from_device, end_on_device) "+
		"the closed division allows only with the committee's approval, acknowledged as approved for this system")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return exitcode.New(exitcode.Usage, fmt.Errorf("submit: unexpected argument %q", pos[0]), "")
	}
	if *backup == "" {
		*backup = filepath.Clean(*root) + ".backup"
	}
	c, err := a.load(&cf)
	if err != nil {
		return err
	}
	if !*checkOnly {
		if err := a.submit(ctx, &cf, c, submitDirs{root: *root, backup: *backup}, *scenarios, *acknowledge); err != nil {
			return err
		}
	}
	// A tree mlperf-host wrote is held to its own rules as well.
	return a.checkTree(*root, c.Round, *strict || !*checkOnly, *asJSON)
}

// checkTree checks the submission tree at root, prints its problems (and
// mlperf-host's own rules' warnings, unless strict refuses on them) or,
// asJSON, every result's verdict, and returns the submission-invalid
// error when the tree has problems.
func (a *app) checkTree(root string, r *benchmarks.Round, strict, asJSON bool) error {
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return exitcode.New(exitcode.Usage, fmt.Errorf("submission %s: not a directory", root), "give the tree with --submission DIR")
	}
	rep := submission.Check(root, r)
	errs := rep.Errors(strict)
	if asJSON {
		if err := writeCheckJSON(a.stdout, rep, r, strict); err != nil {
			return err
		}
	} else {
		for _, p := range errs {
			fmt.Fprintf(a.stdout, "problem: %s\n", p)
		}
		if !strict {
			for _, p := range rep.Warnings() {
				fmt.Fprintf(a.stdout, "warning: %s\n", p)
			}
		}
		refused := 0
		for _, res := range rep.Results {
			if len(rep.Refusals(res.Path, strict)) > 0 {
				refused++
			}
		}
		fmt.Fprintf(a.stdout, "%d results: %d accepted, %d refused\n", len(rep.Results), len(rep.Results)-refused, refused)
	}
	if len(errs) > 0 {
		return exitcode.New(exitcode.SubmissionInvalid, fmt.Errorf("submission %s: %d problems under round %s's rules", root, len(errs), r.Name),
			"fix each problem listed above")
	}
	if !asJSON {
		fmt.Fprintf(a.stdout, "submission %s passes the checks of round %s\n", root, r.Name)
	}
	return nil
}

// checkJSON is submit --check-only --json's output.
type checkJSON struct {
	Round    string               `json:"round"`
	Strict   bool                 `json:"strict"`
	Results  []resultJSON         `json:"results"`
	Problems []submission.Problem `json:"problems"`
}

type resultJSON struct {
	submission.Result
	Accepted bool     `json:"accepted"`
	Problems []string `json:"problems,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

func writeCheckJSON(w io.Writer, rep *submission.Report, r *benchmarks.Round, strict bool) error {
	out := checkJSON{Round: r.Name, Strict: strict, Results: []resultJSON{}, Problems: []submission.Problem{}}
	for _, res := range rep.Results {
		j := resultJSON{Result: res}
		for _, p := range rep.Problems {
			if !slices.Contains(p.Results, res.Path) {
				continue
			}
			if strict || !p.Strict {
				j.Problems = append(j.Problems, p.String())
			} else {
				j.Warnings = append(j.Warnings, p.String())
			}
		}
		j.Accepted = len(j.Problems) == 0
		if !res.HasMetric {
			j.Metric, j.Unit = 0, ""
		}
		out.Results = append(out.Results, j)
	}
	for _, p := range rep.Problems {
		if len(p.Results) == 0 {
			out.Problems = append(out.Problems, p)
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(out)
}

// submitDirs are where submit writes: the tree and the accuracy logs'
// originals.
type submitDirs struct{ root, backup string }

// submit makes every run of the benchmark's scenarios and writes the tree.
// The approval options (see scenarioPlacement) must be acknowledged in
// acknowledged.
func (a *app) submit(ctx context.Context, cf *configFlags, c *config.Config, dirs submitDirs, only, acknowledged string) error {
	scs, ok := c.Benchmark.SubmitScenarios(c.Category)
	if !ok {
		return exitcode.New(exitcode.Config, fmt.Errorf("%s is not a %s benchmark in round %s", c.Benchmark.SubmissionName, c.Category, c.Round.Name),
			"set category to one the benchmark is part of: "+categoriesOf(c.Benchmark))
	}
	if only != "" {
		scs = nil
		for _, s := range strings.Split(only, ",") {
			scs = append(scs, benchmarks.Scenario(strings.TrimSpace(s)))
		}
	}
	for _, sc := range scs {
		if !slices.Contains(benchmarks.RunScenarios(), sc) {
			return exitcode.New(exitcode.Config, fmt.Errorf("scenario %s of %s: mlperf-host runs SingleStream, MultiStream, Server, Offline and Interactive", sc, c.Benchmark.SubmissionName), "")
		}
	}
	// Every scenario's configuration, before any run: a mistake in the
	// last stops the submission before the first runs.
	configs := make([]*config.Config, len(scs))
	for i, sc := range scs {
		scf := *cf
		scf.vals = append(slices.Clone(cf.vals), configFlagValue(config.KeyScenario, string(sc)))
		var err error
		if configs[i], err = a.load(&scf); err != nil {
			return err
		}
		if slices.Contains(auditsOf(configs[i]), benchmarks.TEST07) {
			if err := test07Ready(configs[i]); err != nil {
				return err
			}
		}
	}
	placement, err := scenarioPlacement(configs, acknowledged)
	if err != nil {
		return err
	}
	l := submission.Layout{Root: dirs.root, Division: c.Division, Submitter: c.Submitter, System: c.System, Round: c.Round, Benchmark: c.Benchmark}
	info, err := a.pluginInfo(ctx, c)
	if err != nil {
		return err
	}
	// Before any run: what neither the machine, the configuration nor
	// (after Load) the plugin can tell stops the submission here.
	if err := writeSystem(c, l, info, false, placement); err != nil {
		return err
	}
	if _, err := measurementsOf(c, info, false); err != nil {
		return err
	}
	if err := writeCalibration(c, l); err != nil {
		return err
	}
	for _, sc := range configs {
		l.Scenario = sc.Scenario
		if err := a.submitScenario(ctx, sc, l, dirs.backup, placement); err != nil {
			return err
		}
	}
	return writeCode(c, l)
}

func categoriesOf(b benchmarks.Benchmark) string {
	var out []string
	for _, cat := range benchmarks.Categories() {
		if _, ok := b.Required[cat]; ok {
			out = append(out, string(cat))
		}
	}
	return strings.Join(out, ", ")
}

// submitScenario makes the runs of one scenario and writes them into the
// tree: accuracy, performance, the compliance tests, the measurements,
// then truncates the accuracy logs.
func (a *app) submitScenario(ctx context.Context, c *config.Config, l submission.Layout, backup string, placement []string) error {
	audits := auditsOf(c)
	dirs := []string{l.PerformanceDir(), l.AccuracyDir()}
	for _, t := range audits {
		dirs = append(dirs, l.ComplianceDir(t))
	}
	for _, d := range dirs {
		if err := os.RemoveAll(d); err != nil {
			return err
		}
	}
	accDirs := []string{l.AccuracyDir(), l.ComplianceAccuracyDir(benchmarks.TEST01)}
	for _, d := range accDirs {
		if err := os.RemoveAll(backupDir(l.Root, backup, d)); err != nil {
			return err
		}
	}
	accCfg := c.WithMode(config.ModeAccuracy)
	if c.AccuracyDataset != "" {
		accCfg.Dataset = c.AccuracyDataset // the accuracy set, where it is not the performance set
	}
	acc, err := a.runOnce(ctx, runner.Spec{Config: accCfg, OutDir: l.AccuracyDir()})
	switch {
	case err != nil && c.Division == "open" && exitcode.Of(err) == exitcode.AccuracyBelowTarget:
		// The checker holds the open division to no quality target.
		fmt.Fprintf(a.stderr, "mlperf-host: %s accuracy run: %v (the open division is held to no target)\n", c.Scenario, err)
	case err != nil:
		return fmt.Errorf("%s accuracy run: %w", c.Scenario, err)
	}
	if row, ok := bench.For(c.Benchmark.Name); ok && row.Scorer == &sdxl.Scorer {
		// The checker wants the compliance images beside the log.
		captions := c.Scoring.Truth
		if captions == "" {
			captions = filepath.Join(c.Dataset, sdxl.CaptionsFile)
		}
		log := filepath.Join(l.AccuracyDir(), submission.AccuracyFile)
		if _, _, err := a.writeSDXLImages(c, captions, log, filepath.Join(l.AccuracyDir(), sdxl.ImagesDir), false); err != nil {
			return fmt.Errorf("%s accuracy run: %w", c.Scenario, err)
		}
	}
	// The plugin has loaded the model: what it reports completes the
	// system description.
	if err := writeSystem(c, l, acc.Plugin, true, placement); err != nil {
		return err
	}
	perf, err := a.runOnce(ctx, runner.Spec{Config: c.WithMode(config.ModePerformance), OutDir: l.PerformanceDir()})
	if err != nil {
		return fmt.Errorf("%s performance run: %w", c.Scenario, err)
	}
	// The compliance runs and the tree's user.conf take the value the
	// performance run calibrated.
	if ch := perf.Calibration; ch != nil {
		c = runner.Calibrated(c, *ch)
	}
	for _, t := range audits {
		if err := a.audit(ctx, c, l, t); err != nil {
			return err
		}
	}
	if err := writeMeasurements(c, l, acc.Plugin); err != nil {
		return err
	}
	for _, d := range accDirs {
		if _, err := os.Stat(filepath.Join(d, submission.AccuracyText)); err != nil {
			continue // no accuracy.txt: not scored here, the check says so
		}
		if _, err := submission.TruncateAccuracyLog(d, backupDir(l.Root, backup, d)); err != nil {
			return err
		}
	}
	return nil
}

// auditsOf lists the compliance tests the run makes: the benchmark's in
// the closed and network divisions; none in the open division, which
// does not need them.
func auditsOf(c *config.Config) []benchmarks.Test {
	if c.Division == "open" {
		return nil
	}
	return c.Benchmark.Audits
}

// backupDir is where dir's accuracy log goes before truncation: the same
// path under backup, as truncate_accuracy_log.py --backup lays it out.
func backupDir(root, backup, dir string) string {
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		rel = filepath.Base(dir)
	}
	return filepath.Join(backup, rel)
}

func binaryVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// writeMeasurements writes how the scenario was run: measurements.json,
// the effective settings as a user.conf, and a README.
func writeMeasurements(c *config.Config, l submission.Layout, info host.Info) error {
	m, err := measurementsOf(c, info, true)
	if err != nil {
		return err
	}
	if err := submission.WriteJSON(l.MeasurementsFile(), m); err != nil {
		return err
	}
	conf := userConf(c)
	readme := fmt.Sprintf("# %s %s\n\nRun with mlperf-host %s under round %s's rules (plugin %q, options %v):\n\n"+
		"    mlperf-host submit --round %s --benchmark %s --scenarios %s --set category=%s --set division=%s\n",
		c.Benchmark.SubmissionName, c.Scenario, binaryVersion(), c.Round.Name, c.Plugin, c.PluginOptions(c.Plugin),
		c.Round.Name, c.Benchmark.SubmissionName, c.Scenario, c.Category, c.Division)
	readme += placementReadme(c)
	for name, content := range map[string]string{"user.conf": conf, "README.md": readme} {
		if err := os.WriteFile(filepath.Join(l.MeasurementsDir(), name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// userConf is the tree's user.conf: the scenario's effective LoadGen
// settings, each after a comment line saying where it came from (LoadGen
// reads a "#" after a value as a bad value, so comments get lines of
// their own); a calibrated value's line says what it was measured from,
// and a run with this file uses the value as is.
func userConf(c *config.Config) string {
	var conf strings.Builder
	fmt.Fprintf(&conf, "# Effective LoadGen settings of this scenario, each after where it came from.\n")
	for _, v := range c.Settings() {
		if v.Source.Layer == config.LayerCalibration {
			fmt.Fprintf(&conf, "# calibrated by mlperf-host before the performance run (%s)\n", v.Source.Where)
		} else {
			fmt.Fprintf(&conf, "# %s\n", publicSource(v.Source.String()))
		}
		fmt.Fprintf(&conf, "%s.%s.%s = %s\n", c.ConfModel(), c.LoadGenScenario(), v.Key, v.Value)
	}
	return conf.String()
}

// writeCode writes src/BENCHMARK/README.md: mlperf-host runs every
// benchmark the same way, through the plugin.
func writeCode(c *config.Config, l submission.Layout) error {
	path := filepath.Join(l.CodeDir(), "README.md")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	text := fmt.Sprintf("# %s\n\nmlperf-host %s with the %s plugin; no benchmark-specific code.\n", c.Benchmark.SubmissionName, binaryVersion(), c.Plugin)
	return os.WriteFile(path, []byte(text), 0o644)
}

// writeCalibration writes documentation/calibration.md in the closed
// division: the calibration key's file, or, for the demo, what its
// bundled model is.
func writeCalibration(c *config.Config, l submission.Layout) error {
	if c.Division == "open" {
		return nil
	}
	var text []byte
	switch {
	case c.Calibration != "":
		b, err := os.ReadFile(c.Calibration)
		if err != nil {
			return exitcode.New(exitcode.Config, fmt.Errorf("calibration documentation: %w", err), "set calibration to your calibration.md")
		}
		text = b
	case c.Benchmark.Demo:
		text = []byte("# Calibration\n\nThe demo's model runs in FP32 as trained: no quantization, no calibration.\n")
	default:
		return exitcode.New(exitcode.Config, fmt.Errorf("the %s division needs documentation/calibration.md", c.Division),
			"describe how the model was calibrated and quantized in a file and set calibration=FILE")
	}
	if err := os.MkdirAll(filepath.Dir(l.CalibrationFile()), 0o755); err != nil {
		return err
	}
	return os.WriteFile(l.CalibrationFile(), text, 0o644)
}

// publicSource is a setting's source as a published tree shows it: a file
// named by its base name, not by where it lay on the submitter's machine.
func publicSource(source string) string {
	words := strings.Fields(source)
	for i, w := range words {
		if filepath.IsAbs(w) {
			words[i] = filepath.Base(w)
		}
	}
	return strings.Join(words, " ")
}

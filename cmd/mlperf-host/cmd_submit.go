package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
	"github.com/mlperf-host/mlperf-host/internal/config"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
	"github.com/mlperf-host/mlperf-host/internal/mllog"
	"github.com/mlperf-host/mlperf-host/internal/runner"
	"github.com/mlperf-host/mlperf-host/internal/submission"
)

func (a *app) cmdSubmit(ctx context.Context, args []string) error {
	fs := a.newFlagSet("submit", "[flags]",
		"For every scenario the benchmark requires in --set category=edge|datacenter: run accuracy,\nperformance and the compliance tests (TEST01, TEST04, TEST05), write the MLPerf submission tree\nand check it. Set division, submitter and system with --set.")
	var cf configFlags
	cf.register(fs)
	root := fs.String("submission", "mlperf-submission", "submission tree `DIR`")
	checkOnly := fs.Bool("check-only", false, "only check the tree in --submission")
	scenarios := fs.String("scenarios", "", "comma-separated `SCENARIOS` to run (default: those the category requires)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return exitcode.New(exitcode.Usage, fmt.Errorf("submit: unexpected argument %q", pos[0]), "")
	}
	if !*checkOnly {
		c, err := a.load(&cf)
		if err != nil {
			return err
		}
		scs := c.Benchmark.Requires(c.Category)
		if *scenarios != "" {
			scs = nil
			for _, s := range strings.Split(*scenarios, ",") {
				scs = append(scs, benchmarks.Scenario(strings.TrimSpace(s)))
			}
		}
		if len(scs) == 0 {
			return exitcode.New(exitcode.Config, fmt.Errorf("benchmark %s requires no scenario for category %s", c.Benchmark.Name, c.Category),
				"set category to one the benchmark has (edge or datacenter)")
		}
		for _, sc := range scs {
			scf := cf
			scf.vals = append(append([]config.FlagValue(nil), cf.vals...), configFlagValue(config.KeyScenario, string(sc)))
			sc, err := a.load(&scf)
			if err != nil {
				return err
			}
			if err := a.submitScenario(ctx, sc, *root); err != nil {
				return err
			}
		}
	}
	problems := submission.Check(*root)
	for _, p := range problems {
		fmt.Fprintf(a.stdout, "problem: %s\n", p)
	}
	if len(problems) > 0 {
		return exitcode.New(exitcode.SubmissionInvalid, fmt.Errorf("submission %s: %d problems", *root, len(problems)), "fix each problem listed above")
	}
	fmt.Fprintf(a.stdout, "submission %s passes the checks\n", *root)
	return nil
}

// submitScenario makes the runs of one scenario and writes them into the
// tree.
func (a *app) submitScenario(ctx context.Context, c *config.Config, root string) error {
	l := submission.Layout{Root: root, Division: c.Division, Submitter: c.Submitter, System: c.System,
		Benchmark: c.Benchmark, Scenario: c.Scenario}
	for _, d := range []string{l.PerformanceDir(), l.AccuracyDir()} {
		if err := os.RemoveAll(d); err != nil {
			return err
		}
	}
	if _, err := a.runOnce(ctx, runner.Spec{Config: c.WithMode(config.ModeAccuracy), OutDir: l.AccuracyDir()}); err != nil {
		return fmt.Errorf("%s accuracy run: %w", c.Scenario, err)
	}
	perf, err := a.runOnce(ctx, runner.Spec{Config: c.WithMode(config.ModePerformance), OutDir: l.PerformanceDir()})
	if err != nil {
		return fmt.Errorf("%s performance run: %w", c.Scenario, err)
	}
	baseline, err := readDetail(l.PerformanceDir())
	if err != nil {
		return err
	}
	for _, t := range c.Benchmark.Compliance {
		if err := a.compliance(ctx, c, l, t, baseline); err != nil {
			return err
		}
	}
	if err := writeMeasurements(c, l); err != nil {
		return err
	}
	return writeSystem(c, l, perf)
}

func readDetail(dir string) (*mllog.Log, error) {
	f, err := os.Open(filepath.Join(dir, submission.DetailFile))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return mllog.Parse(f)
}

// compliance runs one compliance test and writes its verdicts.
func (a *app) compliance(ctx context.Context, c *config.Config, l submission.Layout, t benchmarks.Test, baseline *mllog.Log) error {
	dir := l.ComplianceDir(t)
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	audit := submission.AuditSettings(t)
	if _, err := a.runOnce(ctx, runner.Spec{Config: c.WithMode(config.ModePerformance), OutDir: l.CompliancePerformanceDir(t), Audit: audit}); err != nil {
		return fmt.Errorf("%s %s run: %w", c.Scenario, t, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "audit.config"), []byte(runner.AuditConfigText(audit)), 0o644); err != nil {
		return err
	}
	log, err := readDetail(l.CompliancePerformanceDir(t))
	if err != nil {
		return err
	}
	v, err := submission.VerifyPerformance(t, baseline, log, c.Benchmark.ComplianceTolerance())
	if err != nil {
		return err
	}
	if err := submission.WriteVerdict(dir, submission.VerifyPerf, v); err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "%s %s performance: %s\n", c.Scenario, t, verdictWord(v.Pass))
	if t != benchmarks.TEST01 {
		return nil
	}
	// TEST01: the sampled responses move next to the accuracy verdict.
	accDir := l.ComplianceAccuracyDir(t)
	if err := os.MkdirAll(accDir, 0o755); err != nil {
		return err
	}
	logged := filepath.Join(accDir, submission.AccuracyFile)
	if err := os.Rename(filepath.Join(l.CompliancePerformanceDir(t), submission.AccuracyFile), logged); err != nil {
		return err
	}
	ref, err := os.Open(filepath.Join(l.AccuracyDir(), submission.AccuracyFile))
	if err != nil {
		return err
	}
	defer ref.Close()
	comp, err := os.Open(logged)
	if err != nil {
		return err
	}
	defer comp.Close()
	va, err := submission.VerifyAccuracy(ref, comp)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "%s %s accuracy: %s\n", c.Scenario, t, verdictWord(va.Pass))
	return submission.WriteVerdict(dir, submission.VerifyAcc, va)
}

func verdictWord(pass bool) string {
	if pass {
		return submission.Pass
	}
	return submission.Fail
}

// writeMeasurements writes how the scenario was run: the effective
// settings as a user.conf, a README and the measurements description.
func writeMeasurements(c *config.Config, l submission.Layout) error {
	dir := l.MeasurementsDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var conf strings.Builder
	fmt.Fprintf(&conf, "# Effective LoadGen settings of this scenario, with where each came from.\n")
	for _, v := range c.Settings() {
		fmt.Fprintf(&conf, "%s.%s.%s = %s  # %s\n", c.Benchmark.Name, c.Scenario, v.Key, v.Value, v.Source)
	}
	readme := fmt.Sprintf("# %s %s\n\nRun with mlperf-host (plugin %q, options %v):\n\n    mlperf-host submit --benchmark %s --scenarios %s\n",
		c.Benchmark.SubmissionName, c.Scenario, c.Plugin, c.PluginOptions(c.Plugin), c.Benchmark.Name, c.Scenario)
	for name, content := range map[string]string{"user.conf": conf.String(), "README.md": readme} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	m := submission.Measurements{InputDataTypes: "uint8", RetrainingPerformed: "no", StartingWeightsFilename: c.Model,
		WeightDataTypes: "fp32", WeightTransformations: "none"}
	if m.StartingWeightsFilename == "" {
		m.StartingWeightsFilename = c.Benchmark.Model
	}
	if err := writeJSON(l.MeasurementsFile(), m); err != nil {
		return err
	}
	code := filepath.Join(l.CodeDir(), "README.md")
	if err := os.MkdirAll(filepath.Dir(code), 0o755); err != nil {
		return err
	}
	return os.WriteFile(code, []byte("mlperf-host with the "+c.Plugin+" plugin; no benchmark-specific code.\n"), 0o644)
}

// writeSystem describes this machine and the plugin's devices.
func writeSystem(c *config.Config, l submission.Layout, perf *runner.Outcome) error {
	info := perf.Plugin
	s := submission.System{
		Division: c.Division, Submitter: c.Submitter, Status: "available", SystemName: c.System,
		SystemType: string(c.Category), NumberOfNodes: 1, HostProcessorModelName: cpuModel(), HostProcessorsPerNode: 1,
		HostProcessorCoreCount: runtime.NumCPU(), HostMemoryCapacity: memTotal(), AcceleratorsPerNode: len(info.Devices),
		Framework:       fmt.Sprintf("mlperf-host plugin %s %s (%s)", info.Name, info.Version, info.Transport),
		OperatingSystem: runtime.GOOS + "/" + runtime.GOARCH, AcceleratorModelName: "N/A", AcceleratorMemoryCap: "N/A",
		OtherSoftwareStack: runtime.Version(), SystemTypeDetail: "N/A", HostStorageCapacity: "N/A",
		HostNetworkingTopology: "N/A", AcceleratorInterconnect: "N/A",
	}
	if len(info.Devices) > 0 {
		s.AcceleratorModelName = info.Devices[0].Name
		s.AcceleratorMemoryCap = fmt.Sprintf("%d MiB", info.Devices[0].MemoryBytes>>20)
	}
	return submission.WriteSystem(l.SystemFile(), s)
}

// cpuModel reads the processor's model name on Linux.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				return strings.TrimSpace(v)
			}
		}
	}
	return runtime.GOARCH
}

func memTotal() string {
	b, err := os.ReadFile("/proc/meminfo")
	if err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
				return f[1] + " kB"
			}
		}
	}
	return "N/A"
}

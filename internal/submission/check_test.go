package submission

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
	"github.com/mlperf-host/mlperf-host/internal/mllog"
)

// detail writes a detail log with the given keys, and a summary.
func detail(t testing.TB, dir string, kv map[string]any) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	var b strings.Builder
	for k, v := range kv {
		isErr := strings.HasPrefix(k, "error_")
		fmt.Fprintf(&b, `%s{"key": %q, "value": %s, "time_ms": 1, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": %t, "is_warning": false}}`+"\n",
			mllog.Prefix, k, jsonValue(v), isErr)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, DetailFile), []byte(b.String()), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, SummaryFile), []byte("summary\n"), 0o644))
}

func jsonValue(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("%q", x)
	case raw:
		return string(x)
	}
	return fmt.Sprint(v)
}

// raw is a value written as is (a uint64 seed, say).
type raw string

var v61 = benchmarks.MustRound("v6.1")

// perfLog is a passing performance run of the demo in round v6.1.
func perfLog(sc benchmarks.Scenario) map[string]any { return perfLogOf(v61, sc) }

// perfLogOf is a passing performance run of the demo in round r.
func perfLogOf(r *benchmarks.Round, sc benchmarks.Scenario) map[string]any {
	m := map[string]any{
		"effective_scenario": string(sc), "effective_test_mode": "PerformanceOnly", "result_validity": "VALID",
		"effective_min_duration_ms": 1000, "effective_min_query_count": 1000, "effective_performance_sample_count": 1000,
		"effective_qsl_rng_seed": raw(r.Seeds.QSL), "effective_sample_index_rng_seed": raw(r.Seeds.SampleIndex),
		"effective_schedule_rng_seed": raw(r.Seeds.Schedule), "early_stopping_met": raw("true"),
		"effective_target_latency_ns": 0, "effective_samples_per_query": 1, "sut_name": "onnx",
		"qsl_reported_total_count": 1000,
	}
	switch sc {
	case benchmarks.SingleStream:
		m["early_stopping_latency_ss"] = 100000
	case benchmarks.MultiStream:
		m["early_stopping_latency_ms"] = 800000
		m["effective_samples_per_query"] = 8
	case benchmarks.Server:
		m["result_completed_samples_per_sec"] = 500.5
		m["effective_target_latency_ns"] = 15000000
	case benchmarks.Offline:
		m["result_samples_per_second"] = 2000.25
		m["effective_samples_per_query"] = 1650
	}
	return m
}

func write(t testing.TB, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

// systemDesc is a complete description of an edge CPU system.
func systemDesc(division string) map[string]any { return systemDescOf(v61, division) }

func systemDescOf(r *benchmarks.Round, division string) map[string]any {
	m, _ := DescribeSystem(SystemInputs{Round: r, Division: division, Submitter: "acme", System: "box", Category: benchmarks.Edge,
		Detected: map[string]string{"host_processor_model_name": "cpu", "host_processors_per_node": "1", "host_processor_core_count": "2",
			"host_memory_capacity": "24 GB", "host_memory_configuration": "2x 12 GB", "host_storage_capacity": "256 GB",
			"host_storage_type": "SSD", "host_networking": "1x Ethernet", "host_network_card_count": "1", "operating_system": "linux"},
		Framework: "mlperf-host", Software: "go",
		Given: map[string]string{"cooling": "air", "host_networking_topology": "N/A"}})
	return m
}

// tree writes a complete, passing demo submission of round v6.1 for an
// edge system in division div, as submit writes it.
func tree(t *testing.T, div string) (string, Layout) { return treeOf(t, v61, div) }

func treeOf(t *testing.T, r *benchmarks.Round, div string) (string, Layout) {
	t.Helper()
	perfLog := func(sc benchmarks.Scenario) map[string]any { return perfLogOf(r, sc) }
	b, err := r.Lookup(benchmarks.DemoName)
	require.NoError(t, err)
	l := Layout{Root: t.TempDir(), Division: div, Submitter: "acme", System: "box", Round: r, Benchmark: b}
	require.NoError(t, WriteJSON(l.SystemFile(), systemDescOf(r, div)))
	write(t, l.CalibrationFile(), "fp32\n")
	write(t, filepath.Join(l.CodeDir(), "README.md"), "code\n")
	scs, _ := b.Requires(benchmarks.Edge)
	for _, sc := range scs {
		l.Scenario = sc
		detail(t, l.PerformanceDir(), perfLog(sc))
		acc := perfLog(sc)
		acc["effective_test_mode"] = "AccuracyOnly"
		detail(t, l.AccuracyDir(), acc)
		write(t, filepath.Join(l.AccuracyDir(), AccuracyFile), "[]\n")
		write(t, filepath.Join(l.AccuracyDir(), AccuracyText), "accuracy=88.700%, good=887, total=1000\n\nhash=abc\n")
		require.NoError(t, WriteJSON(l.MeasurementsFile(), map[string]string{"input_data_types": "uint8", "retraining": "No",
			"starting_weights_filename": "w", "weight_data_types": "fp32", "weight_transformations": "none"}))
		for _, f := range []string{"README.md", "user.conf"} {
			write(t, filepath.Join(l.MeasurementsDir(), f), "x\n")
		}
		for _, test := range b.Audits {
			detail(t, l.CompliancePerformanceDir(test), perfLog(sc))
			write(t, filepath.Join(l.ComplianceDir(test), VerifyPerf), "Verifying performance.\n"+Pass+"\n")
			if test == benchmarks.TEST01 {
				write(t, filepath.Join(l.ComplianceDir(test), VerifyAcc), "num_perf_log_data_mismatch = 0\n"+Pass+"\n\n")
				write(t, filepath.Join(l.ComplianceAccuracyDir(test), AccuracyFile), "[]\n")
				write(t, filepath.Join(l.ComplianceAccuracyDir(test), AccuracyText), "accuracy=90%\n\nhash=def\n")
			}
		}
	}
	return l.Root, l
}

func TestLayoutPerRound(t *testing.T) {
	t.Parallel()
	b, err := v61.Lookup("resnet")
	require.NoError(t, err)
	l := Layout{Root: "/s", Division: "closed", Submitter: "acme", System: "box", Round: v61, Benchmark: b, Scenario: benchmarks.Offline}
	res := "/s/closed/acme/results/box/resnet/Offline"
	assert.Equal(t, res+"/performance/run_1", l.PerformanceDir())
	assert.Equal(t, res+"/accuracy", l.AccuracyDir())
	assert.Equal(t, res+"/measurements.json", l.MeasurementsFile())
	assert.Equal(t, res+"/TEST01/performance/run_1", l.CompliancePerformanceDir(benchmarks.TEST01))
	assert.Equal(t, "/s/closed/acme/src", l.SrcDir())
	assert.Equal(t, "/s/closed/acme/systems/box.json", l.SystemFile())
	assert.Equal(t, "/s/closed/acme/documentation/calibration.md", l.CalibrationFile())

	l.Round = benchmarks.MustRound("v5.1")
	assert.Equal(t, "/s/closed/acme/measurements/box/resnet/Offline/box_mlperf-host_Offline.json", l.MeasurementsFile())
	assert.Equal(t, "/s/closed/acme/compliance/box/resnet/Offline/TEST04", l.ComplianceDir(benchmarks.TEST04))
	assert.Equal(t, "/s/closed/acme/code", l.SrcDir())
}

func TestCheckPasses(t *testing.T) {
	t.Parallel()
	for _, div := range []string{"closed", "open"} {
		root, _ := tree(t, div)
		rep := Check(root, v61)
		assert.Empty(t, rep.Errors(true), div)
		assert.Len(t, rep.Results, 3, div)
		for _, res := range rep.Results {
			assert.True(t, res.HasMetric, res.Path)
		}
	}
	// Round 5.1's tree (measurements/, compliance/, code/) and seeds.
	v51 := benchmarks.MustRound("v5.1")
	root, _ := treeOf(t, v51, "closed")
	assert.DirExists(t, filepath.Join(root, "closed/acme/compliance/box/fashion-mnist/Offline/TEST04"))
	assert.Empty(t, Check(root, v51).Errors(true))
	var all []string
	for _, p := range Check(root, v61).Errors(false) {
		all = append(all, p.String())
	}
	// Not a v6.1 tree: other seeds, no measurements.json or TEST0N next to the results.
	assert.Contains(t, strings.Join(all, "\n"), "(seeds_check)")
	assert.Contains(t, strings.Join(all, "\n"), "Offline/measurements.json: missing measurements description")
	assert.Contains(t, strings.Join(all, "\n"), "Offline/TEST01: missing TEST01 directory")
}

func TestCheckFindsProblems(t *testing.T) {
	t.Parallel()
	at := func(l Layout, sc benchmarks.Scenario) Layout { l.Scenario = sc; return l }
	perf := func(t *testing.T, l Layout, sc benchmarks.Scenario, k string, v any) {
		m := perfLog(sc)
		m[k] = v
		detail(t, at(l, sc).PerformanceDir(), m)
	}
	tests := []struct {
		name   string
		div    string
		break_ func(t *testing.T, l Layout)
		want   string
		// strict: a rule of mlperf-host's own, which the official
		// checker does not enforce.
		strict bool
	}{
		{name: "missing scenario", want: "edge systems must submit MultiStream: it is missing (check_scenarios)", break_: func(t *testing.T, l Layout) {
			require.NoError(t, os.RemoveAll(at(l, benchmarks.MultiStream).ScenarioDir()))
		}},
		{name: "scenario of another category", want: "Server: scenario not allowed for fashion-mnist edge systems (check_scenarios)", break_: func(t *testing.T, l Layout) {
			detail(t, at(l, benchmarks.Server).PerformanceDir(), perfLog(benchmarks.Server))
		}},
		{name: "not a category benchmark", want: "resnet is not a datacenter benchmark in round v6.1", break_: func(t *testing.T, l Layout) {
			m := systemDesc("closed")
			m["system_type"] = "datacenter"
			require.NoError(t, WriteJSON(l.SystemFile(), m))
			require.NoError(t, os.Rename(filepath.Dir(at(l, benchmarks.Offline).ScenarioDir()),
				filepath.Join(filepath.Dir(filepath.Dir(at(l, benchmarks.Offline).ScenarioDir())), "resnet")))
		}},
		{name: "invalid run", want: `result_validity is "INVALID"`, strict: true, break_: func(t *testing.T, l Layout) {
			perf(t, l, benchmarks.Offline, "result_validity", "INVALID")
		}},
		{name: "loadgen error", want: "LoadGen error error_invalid_config: bad (mlperf-host's rule", strict: true, break_: func(t *testing.T, l Layout) {
			perf(t, l, benchmarks.Offline, "error_invalid_config", "bad")
		}},
		{name: "loadgen error in the accuracy run", want: "LoadGen error error_invalid_config: bad (loadgen_errors_check)", break_: func(t *testing.T, l Layout) {
			m := perfLog(benchmarks.Offline)
			m["effective_test_mode"], m["error_invalid_config"] = "AccuracyOnly", "bad"
			detail(t, at(l, benchmarks.Offline).AccuracyDir(), m)
		}},
		{name: "performance log in the accuracy directory", want: `effective_test_mode is "PerformanceOnly", want AccuracyOnly (mlperf-host's rule`, strict: true,
			break_: func(t *testing.T, l Layout) {
				detail(t, at(l, benchmarks.Offline).AccuracyDir(), perfLog(benchmarks.Offline))
			}},
		{name: "too short", want: "effective_min_duration_ms 10 is below 1000 (min_duration_check)", break_: func(t *testing.T, l Layout) {
			perf(t, l, benchmarks.Offline, "effective_min_duration_ms", 10)
		}},
		{name: "seeds of v5.1", want: "effective_schedule_rng_seed is 18209322760996052031: round v6.1's seed is 16159082839903944936 (seeds_check)",
			break_: func(t *testing.T, l Layout) {
				perf(t, l, benchmarks.Offline, "effective_schedule_rng_seed", raw("18209322760996052031"))
			}},
		{name: "early stopping", want: "early stopping condition not met: not enough (latency_check)", break_: func(t *testing.T, l Layout) {
			m := perfLog(benchmarks.SingleStream)
			m["early_stopping_met"], m["early_stopping_result"] = raw("false"), "not enough"
			detail(t, at(l, benchmarks.SingleStream).PerformanceDir(), m)
		}},
		{name: "offline too few samples", want: "effective_samples_per_query 10 is below 1000 (min_query_count_check)", break_: func(t *testing.T, l Layout) {
			perf(t, l, benchmarks.Offline, "effective_samples_per_query", 10)
		}},
		{name: "sample count", want: "effective_performance_sample_count 10 is below 1000", break_: func(t *testing.T, l Layout) {
			perf(t, l, benchmarks.Offline, "effective_performance_sample_count", 10)
		}},
		{name: "a run that cannot stand for its directory's scenario", want: "its effective_scenario Offline cannot stand for SingleStream (inferred_check)",
			break_: func(t *testing.T, l Layout) {
				detail(t, at(l, benchmarks.SingleStream).PerformanceDir(), perfLog(benchmarks.Offline))
			}},
		{name: "inferred for a datacenter system", want: "results are inferred only for edge systems", break_: func(t *testing.T, l Layout) {
			m := systemDesc("closed")
			m["system_type"] = "datacenter"
			require.NoError(t, WriteJSON(l.SystemFile(), m))
			require.NoError(t, os.RemoveAll(at(l, benchmarks.SingleStream).ScenarioDir()))
			require.NoError(t, os.RemoveAll(at(l, benchmarks.MultiStream).ScenarioDir()))
			detail(t, at(l, benchmarks.Server).PerformanceDir(), perfLog(benchmarks.Offline))
		}},
		{name: "low accuracy", want: "acc 50.000 is below the target 87.813 (accuracy_result_check)", break_: func(t *testing.T, l Layout) {
			write(t, filepath.Join(at(l, benchmarks.Offline).AccuracyDir(), AccuracyText), "accuracy=50.000%, good=1, total=2\nhash=1\n")
		}},
		{name: "no hash", want: "no hash= line", break_: func(t *testing.T, l Layout) {
			write(t, filepath.Join(at(l, benchmarks.Offline).AccuracyDir(), AccuracyText), "accuracy=88.700%\n")
		}},
		{name: "not truncated", want: "not truncated: 20000 bytes, the limit is 10240 (accuracy_json_check)", break_: func(t *testing.T, l Layout) {
			write(t, filepath.Join(at(l, benchmarks.Offline).AccuracyDir(), AccuracyFile), strings.Repeat("x", 20000))
		}},
		{name: "accuracy run short", want: "qsl_reported_total_count 10: the accuracy run must cover 1000 samples (dataset_check)", break_: func(t *testing.T, l Layout) {
			m := perfLog(benchmarks.Offline)
			m["effective_test_mode"], m["qsl_reported_total_count"] = "AccuracyOnly", 10
			detail(t, at(l, benchmarks.Offline).AccuracyDir(), m)
		}},
		{name: "failed TEST04", want: "TEST04 performance verification did not pass (compliance_performance_check)", break_: func(t *testing.T, l Layout) {
			write(t, filepath.Join(at(l, benchmarks.Offline).ComplianceDir(benchmarks.TEST04), VerifyPerf), "TEST FAIL: Test score invalid\n")
		}},
		{name: "missing TEST01", want: "missing TEST01 directory (dir_exists_check)", break_: func(t *testing.T, l Layout) {
			require.NoError(t, os.RemoveAll(at(l, benchmarks.SingleStream).ComplianceDir(benchmarks.TEST01)))
		}},
		{name: "TEST01 accuracy failed without evidence", want: "TEST01 accuracy failed and the directory's files differ", break_: func(t *testing.T, l Layout) {
			write(t, filepath.Join(at(l, benchmarks.Offline).ComplianceDir(benchmarks.TEST01), VerifyAcc), Fail+"\n")
		}},
		{name: "extra file in TEST04 run", want: "file list differs from mlperf_log_summary.txt, mlperf_log_detail.txt by +notes.txt", break_: func(t *testing.T, l Layout) {
			write(t, filepath.Join(at(l, benchmarks.Offline).CompliancePerformanceDir(benchmarks.TEST04), "notes.txt"), "x")
		}},
		{name: "TEST04 run of other seeds", want: "TEST04 run: effective_qsl_rng_seed is 1: ", break_: func(t *testing.T, l Layout) {
			m := perfLog(benchmarks.Offline)
			m["effective_qsl_rng_seed"] = raw("1")
			detail(t, at(l, benchmarks.Offline).CompliancePerformanceDir(benchmarks.TEST04), m)
		}},
		{name: "system field", want: "fields cooling need a meaningful value, not empty or 0 (required_fields_check)", break_: func(t *testing.T, l Layout) {
			m := systemDesc("closed")
			m["cooling"] = ""
			require.NoError(t, WriteJSON(l.SystemFile(), m))
		}},
		{name: "zero accelerators as a number", want: "fields accelerators_per_node need a meaningful value", break_: func(t *testing.T, l Layout) {
			m := systemDesc("closed")
			m["accelerators_per_node"] = 0
			require.NoError(t, WriteJSON(l.SystemFile(), m))
		}},
		{name: "missing system fields", want: "missing fields hw_notes, sw_notes (required_fields_check)", break_: func(t *testing.T, l Layout) {
			m := systemDesc("closed")
			delete(m, "hw_notes")
			delete(m, "sw_notes")
			require.NoError(t, WriteJSON(l.SystemFile(), m))
		}},
		{name: "measurements field", want: "field weight_data_types needs a meaningful value (required_fields_check)", break_: func(t *testing.T, l Layout) {
			require.NoError(t, WriteJSON(at(l, benchmarks.Offline).MeasurementsFile(), map[string]string{"input_data_types": "uint8", "retraining": "No",
				"starting_weights_filename": "w", "weight_data_types": "", "weight_transformations": "none"}))
		}},
		{name: "no src", want: "missing source directory (directory_exist_check)", break_: func(t *testing.T, l Layout) {
			require.NoError(t, os.RemoveAll(l.SrcDir()))
		}},
		{name: "no calibration", want: "missing calibration documentation of the closed division", strict: true, break_: func(t *testing.T, l Layout) {
			require.NoError(t, os.Remove(l.CalibrationFile()))
		}},
		{name: "open division keeps the hash rule", div: "open", want: "no hash= line", strict: true, break_: func(t *testing.T, l Layout) {
			write(t, filepath.Join(at(l, benchmarks.Offline).AccuracyDir(), AccuracyText), "accuracy=10%\n")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			div := tt.div
			if div == "" {
				div = "closed"
			}
			root, l := tree(t, div)
			tt.break_(t, l)
			rep := Check(root, v61)
			var found []Problem
			for _, p := range rep.Problems {
				if strings.Contains(p.String(), tt.want) {
					found = append(found, p)
				}
			}
			require.NotEmpty(t, found, "%v", rep.Problems)
			for _, p := range found {
				assert.Equal(t, tt.strict, p.Strict, p.String())
			}
			assert.Equal(t, tt.strict, len(rep.Errors(false)) == 0, "only mlperf-host's rules refuse it: %v", rep.Errors(false))
		})
	}
}

// TestCheckTEST01NonDeterministic: a TEST01 whose responses differ passes
// with the baseline and compliance accuracies within the delta (1% for a
// 99% benchmark), as the checker's accuracy_check allows.
func TestCheckTEST01NonDeterministic(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		compliance string
		pass       bool
	}{{"88.0", true}, {"80.0", false}} {
		root, l := tree(t, "closed")
		l.Scenario = benchmarks.Offline
		acc := l.ComplianceAccuracyDir(benchmarks.TEST01)
		write(t, filepath.Join(l.ComplianceDir(benchmarks.TEST01), VerifyAcc), Fail+"\n")
		write(t, filepath.Join(acc, BaselineAccuracy), "accuracy=88.500%, good=1, total=1\n")
		write(t, filepath.Join(acc, ComplianceAcc), "accuracy="+tt.compliance+"%, good=1, total=1\n")
		problems := Check(root, v61).Errors(true)
		if tt.pass {
			assert.Empty(t, problems)
		} else {
			require.Len(t, problems, 1)
			assert.Contains(t, problems[0].Msg, "differ by more than 1%")
		}
	}
}

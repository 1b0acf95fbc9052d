package report

import (
	"bytes"
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/mllog"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func TestReadTrace(t *testing.T) {
	t.Parallel()
	s, err := ReadTrace(strings.NewReader(synthTrace("SingleStream", 20, 1e6, 0, 0)))
	require.NoError(t, err)
	require.Len(t, s, 20)
	assert.Equal(t, time.Duration(0), s[0].At)
	assert.Equal(t, 700*time.Nanosecond, s[0].IssueDelay)
	assert.Equal(t, uint64(19), s[19].Query)
	assert.Equal(t, s[0].Latency+5*time.Microsecond, s[1].At, "the next query starts after the last completes")

	ms, err := ReadTrace(strings.NewReader(synthTrace("MultiStream", 24, 1e6, 0, 0)))
	require.NoError(t, err)
	assert.Len(t, perQuery(ms), 3, "eight samples a query")

	for _, bad := range []string{"", "[]", `{"x": 1}`, `{"traceEvents": {}}`,
		`{"traceEvents": [{"name":"Sample","ph":"b","args":{"complete_ns":-1}}]}`,
		`{"traceEvents": [{"name":"Sample","ph":"b","args":{"complete_ns":1,"issue_start_ns":-1}}]}`,
		`{"traceEvents": [{"name":"Sample","ph":"b","ts":1e300,"args":{"complete_ns":1}}]}`} {
		_, err := ReadTrace(strings.NewReader(bad))
		require.ErrorIs(t, err, ErrTrace, "%q", bad)
	}
}

func TestWriteGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, run, scenario string
		traced              bool
	}{
		{"offline", "onnx-offline", "Offline", true},
		{"server", "onnx-ort-server", "Server", true},
		{"singlestream", "onnx-ort-singlestream", "SingleStream", true},
		{"multistream", "onnx-ort-multistream", "MultiStream", true},
		// Without a trace: the percentiles of the detail log.
		{"untraced", "onnx-ort-server", "Server", false},
		// No performance results: the accuracy line.
		{"accuracy", "onnx-ort-accuracy", "Offline", false},
		// A pool of two simulated devices: each member's share and latency.
		{"pool", "pool-server", "Server", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := loadFixture(t, tt.run, tt.scenario, tt.traced)
			var b bytes.Buffer
			require.NoError(t, Write(&b, r))
			golden(t, "report_"+tt.name+".golden", b.Bytes())
			checkPage(t, b.String(), pageWant{title: []string{"fashion-mnist", tt.scenario, tt.run}, runs: 1})
		})
	}
}

func TestWriteComparisonGolden(t *testing.T) {
	t.Parallel()
	runs := []*Run{loadFixture(t, "onnx-offline", "Offline", true), loadFixture(t, "onnx-ort-offline", "Offline", true)}
	var b bytes.Buffer
	warnings, err := WriteComparison(&b, runs)
	require.NoError(t, err)
	assert.Empty(t, warnings, "same benchmark, same scenario")
	golden(t, "compare_offline.golden", b.Bytes())
	checkPage(t, b.String(), comparisonWant)
}

// comparisonWant is what the comparison of the Offline runs of the
// embedded onnx plugin and onnx-ort must show.
var comparisonWant = pageWant{
	title: []string{"fashion-mnist", "Offline", "onnx (onnx-offline)", "onnx-ort (onnx-ort-offline)"},
	runs:  2,
	metric: map[string][]string{
		"Samples per second": {"57.96 samples/s", "5,322 samples/s", "×91.8 better"},
		// Offline latency grows with the samples issued: no verdict.
		"Min latency": {"9.31 s", "67.7 ms", "×0.00728"},
		"Queries":     {"1", "1"},
	},
}

func TestTitle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, qsl, want string
	}{
		{"benchmark and data set", "resnet (/data/imagenet)", "resnet Offline on onnx (run1)"},
		{"builtin data set, older logs", "builtin:fashion-mnist", "fashion-mnist Offline on onnx (run1)"},
		// Another harness's QSL says nothing of the benchmark.
		{"unknown", "PyQSL", "Offline on onnx (run1)"},
		{"a path is no benchmark", "/data/x (y)", "Offline on onnx (run1)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runOf(t, "run1", map[string]string{"qsl_name": tt.qsl, "effective_scenario": "Offline", "sut_name": "onnx"})
			assert.Equal(t, tt.want, r.Title())
		})
	}
}

// runOf makes a run named name whose detail log has the string values.
func runOf(t *testing.T, name string, values map[string]string) *Run {
	t.Helper()
	var b strings.Builder
	for k, v := range values {
		fmt.Fprintf(&b, ":::MLLOG {\"key\": %q, \"value\": %q, \"time_ms\": 1, \"namespace\": \"mlperf::logging\", \"event_type\": \"POINT_IN_TIME\", \"metadata\": {\"is_error\": false, \"is_warning\": false}}\n", k, v)
	}
	log, err := mllog.Parse(strings.NewReader(b.String()))
	require.NoError(t, err)
	return &Run{Name: name, Detail: log}
}

func FuzzReadTrace(f *testing.F) {
	f.Add(synthTrace("Server", 3, 1e6, 0, 100))
	f.Add(synthTrace("MultiStream", 16, 1e6, 0, 0))
	f.Add(`{"traceEvents":[]}`)
	f.Fuzz(func(t *testing.T, s string) {
		samples, err := ReadTrace(strings.NewReader(s))
		if err != nil {
			require.ErrorIs(t, err, ErrTrace)
			return
		}
		for _, x := range samples {
			require.GreaterOrEqual(t, x.Latency, time.Duration(0))
			require.GreaterOrEqual(t, x.IssueDelay, time.Duration(0))
		}
		if len(samples) == 0 || len(samples) > 10000 {
			return
		}
		for _, sc := range []string{"Offline", "Server", "SingleStream", "MultiStream"} {
			r := runOf(t, "fuzz", map[string]string{"effective_scenario": sc})
			r.Samples = samples
			var b bytes.Buffer
			require.NoError(t, Write(&b, r))
		}
	})
}

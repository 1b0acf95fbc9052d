package report

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/mllog"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// trace builds a LoadGen-style trace of n samples, 1ms apart, with
// latencies cycling 100µs..1ms.
func trace(n int) string {
	var b strings.Builder
	b.WriteString(`{"traceEvents":[` + "\n")
	for i := range n {
		ts := 1000.0 + float64(i)*1000
		lat := int64(100_000 + (i%10)*100_000)
		fmt.Fprintf(&b, `{"name":"Latency","ph": "C","pid":1,"ts":%.3f,"args":{ "issue_delay":5,"issue_to_done":7}},`+"\n", ts)
		fmt.Fprintf(&b, `{"name":"Sample","cat":"default","ph":"b","pid":1,"id":%d,"ts":%.3f,"args":{"sample_seq":%d,"query_seq":%d,"sample_idx":3,"issue_start_ns":5,"complete_ns":%d}},`+"\n", i, ts, i, i, lat)
		fmt.Fprintf(&b, `{"name":"Sample","cat":"default","ph":"e", "pid":1,"id":%d,"ts":%.3f},`+"\n", i, ts+float64(lat)/1e3)
	}
	b.WriteString(`{"name":"LastTrace"}` + "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\n\"ts\":1.000,\n\"version\":\"MLPerf LoadGen v1.0\"\n}\n}\n")
	return b.String()
}

const detail = `:::MLLOG {"key": "effective_scenario", "value": "Server", "time_ms": 1, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": false, "is_warning": false}}
:::MLLOG {"key": "effective_target_qps", "value": 1000, "time_ms": 1, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": false, "is_warning": false}}
:::MLLOG {"key": "warning_generic_message", "value": "audit <config>", "time_ms": 1, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": false, "is_warning": true}}
:::MLLOG {"key": "result_completed_samples_per_sec", "value": 999.5, "time_ms": 1, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": false, "is_warning": false}}
:::MLLOG {"key": "result_validity", "value": "VALID", "time_ms": 1, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": false, "is_warning": false}}
`

func TestReadTrace(t *testing.T) {
	t.Parallel()
	s, err := ReadTrace(strings.NewReader(trace(20)))
	require.NoError(t, err)
	require.Len(t, s, 20)
	assert.Equal(t, Sample{At: 0, Latency: 100 * time.Microsecond}, s[0])
	assert.Equal(t, Sample{At: 19 * time.Millisecond, Latency: time.Millisecond}, s[19])
	for _, bad := range []string{"", "[]", `{"x": 1}`, `{"traceEvents": {}}`, `{"traceEvents": [{"name":"Sample","ph":"b","args":{"complete_ns":-1}}]}`} {
		_, err := ReadTrace(strings.NewReader(bad))
		require.ErrorIs(t, err, ErrTrace, "%q", bad)
	}
}

func TestWriteGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		traced bool
	}{{"traced", true}, {"untraced", false}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			log, err := mllog.Parse(strings.NewReader(detail))
			require.NoError(t, err)
			d := Data{Title: "fashion-mnist Server <performance>", Detail: log, Accuracy: "accuracy=88.700%, good=887, total=1000"}
			if tt.traced {
				d.Samples, err = ReadTrace(strings.NewReader(trace(200)))
				require.NoError(t, err)
			}
			var b bytes.Buffer
			require.NoError(t, Write(&b, d))
			golden := filepath.Join("testdata", "report_"+tt.name+".golden")
			if *update {
				require.NoError(t, os.MkdirAll("testdata", 0o755))
				require.NoError(t, os.WriteFile(golden, b.Bytes(), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			assert.Equal(t, string(want), b.String())
			assert.Contains(t, b.String(), "&lt;performance&gt;", "the title is escaped")
			assert.NotContains(t, b.String(), "<script", "self-contained and script-free")
		})
	}
}

func FuzzReadTrace(f *testing.F) {
	f.Add(trace(3))
	f.Add(`{"traceEvents":[]}`)
	f.Fuzz(func(t *testing.T, s string) {
		samples, err := ReadTrace(strings.NewReader(s))
		if err != nil {
			require.ErrorIs(t, err, ErrTrace)
			return
		}
		for _, x := range samples {
			require.GreaterOrEqual(t, x.Latency, time.Duration(0))
		}
		if len(samples) > 0 && len(samples) < 10000 {
			var b bytes.Buffer
			require.NoError(t, Write(&b, Data{Samples: samples}))
		}
	})
}

package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/mllog"
)

// logOf is a detail log of the given key/value records.
func logOf(t *testing.T, kvs ...string) *mllog.Log {
	t.Helper()
	var b strings.Builder
	for i := 0; i < len(kvs); i += 2 {
		fmt.Fprintf(&b, `:::MLLOG {"key": %q, "value": %s, "time_ms": 1, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": false, "is_warning": false, "file": "sut", "line_no": 0, "pid": 1, "tid": 1}}`+"\n", kvs[i], kvs[i+1])
	}
	l, err := mllog.Parse(strings.NewReader(b.String()))
	require.NoError(t, err)
	return l
}

func TestPoolRows(t *testing.T) {
	t.Parallel()
	const a1 = `{"name":"a","plugin":"p","transport":"process","samples":10,"share":0.1,"samples_per_second_busy":5,"latency_ns":{"p50":1000,"p99":2000000}}`
	const b = `{"name":"b","plugin":"q","transport":"wasm","samples":1200,"failed":2,"share":0.9,"latency_ns":{}}`
	const a2 = `{"name":"a","plugin":"p","transport":"process","samples":30,"share":0.025}`
	for _, tc := range []struct {
		name string
		log  []string
		want []poolRow
	}{
		{name: "one plugin", log: []string{"sut_name", `"onnx"`}},
		{name: "members in order, the last entry of each", log: []string{"sut_pool_member", a1, "sut_pool_member", b, "sut_pool_member", a2},
			want: []poolRow{
				{Name: "a", Plugin: "p", Transport: "process", Samples: "30", Share: "2.5%", Rate: "0/s", P50: "n/a", P90: "n/a", P99: "n/a", Max: "n/a"},
				{Name: "b", Plugin: "q", Transport: "wasm", Samples: "1,200", Share: "90.0%", Rate: "0/s", P50: "n/a", P90: "n/a", P99: "n/a", Max: "n/a", Failed: 2},
			}},
		{name: "latencies", log: []string{"sut_pool_member", a1},
			want: []poolRow{{Name: "a", Plugin: "p", Transport: "process", Samples: "10", Share: "10.0%", Rate: "5/s", P50: "1 µs", P90: "n/a", P99: "2 ms", Max: "n/a"}}},
		{name: "entries of another shape are skipped", log: []string{"sut_pool_member", `"gpu0"`, "sut_pool_member", `{"samples":3}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := &Run{Name: "x", Detail: logOf(t, tc.log...)}
			assert.Equal(t, tc.want, r.poolRows())
		})
	}
}

// TestPluginMemberRows: a plugin's own members (a serving engine's
// endpoints) come from their entries, first errors kept, apart from a
// pool's; the page shows them.
func TestPluginMemberRows(t *testing.T) {
	t.Parallel()
	const e1 = `{"name":"http://a:8000","plugin":"openai","transport":"process","samples":7,"failed":1,"share":0.7,"latency_ns":{"p50":3000000},"first_error":"HTTP 503: busy"}`
	const pool = `{"name":"gpu0","plugin":"p","transport":"process","samples":3,"share":1}`
	r := &Run{Name: "x", Detail: logOf(t, "sut_pool_member", pool, "sut_plugin_member", e1)}
	assert.Equal(t, []poolRow{{Name: "http://a:8000", Plugin: "openai", Transport: "process", Samples: "7", Share: "70.0%", Rate: "0/s",
		P50: "3 ms", P90: "n/a", P99: "n/a", Max: "n/a", Failed: 1, FirstError: "HTTP 503: busy"}}, r.pluginMemberRows())
	assert.Len(t, r.poolRows(), 1, "a pool's members stay apart")
	var page strings.Builder
	require.NoError(t, Write(&page, r))
	assert.Contains(t, page.String(), "<h2>Plugin members</h2>")
	assert.Contains(t, page.String(), "<td>HTTP 503: busy</td>")
}

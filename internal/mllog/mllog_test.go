package mllog

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const sample = `:::MLLOG {"key": "loadgen_version", "value": "5.0 @ abc", "time_ms": 0.01, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": false, "is_warning": false, "file": "x.cc", "line_no": 1, "pid": 1, "tid": 1}}
some other line
:::MLLOG {"key": "effective_scenario", "value": "SingleStream", "time_ms": 0.02, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": false, "is_warning": false}}
:::MLLOG {"key": "effective_target_latency_percentile", "value": 0.9, "time_ms": 0.02, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": false, "is_warning": false}}
:::MLLOG {"key": "error_invalid_config", "value": "bad", "time_ms": 0.02, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": true, "is_warning": false}}
:::MLLOG {"key": "result_90.00_percentile_latency_ns", "value": 123456, "time_ms": 9.5, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": false, "is_warning": false}}
:::MLLOG {"key": "result_validity", "value": "VALID", "time_ms": 9.5, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": false, "is_warning": false}}
`

func TestParse(t *testing.T) {
	t.Parallel()
	l, err := Parse(strings.NewReader(sample))
	require.NoError(t, err)
	assert.Len(t, l.Records, 6)
	v, ok := l.String("result_validity")
	assert.True(t, ok)
	assert.Equal(t, "VALID", v)
	assert.Equal(t, 7, l.Records[5].Line)
	require.Len(t, l.Errors(), 1)
	assert.Equal(t, "error_invalid_config", l.Errors()[0].Key)
	m, err := l.Metric()
	require.NoError(t, err)
	assert.Equal(t, Metric{Key: "result_90.00_percentile_latency_ns", Value: 123456, Unit: "ns"}, m)
	_, err = l.Float("nope")
	require.ErrorContains(t, err, "no nope")
	assert.False(t, l.Has("nope"))
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, log, err string }{
		{name: "bad json", log: ":::MLLOG {\"key\": \n", err: "line 1"},
		{name: "no key", log: "x\n:::MLLOG {\"value\": 1}\n", err: "line 2: record without a key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse(strings.NewReader(tt.log))
			require.ErrorIs(t, err, ErrMalformed)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add(sample)
	f.Add(":::MLLOG {\"key\": \"a\", \"value\": \"1\"}\n")
	f.Fuzz(func(t *testing.T, s string) {
		l, err := Parse(strings.NewReader(s))
		if err != nil {
			require.ErrorIs(t, err, ErrMalformed)
			return
		}
		for _, r := range l.Records {
			require.NotEmpty(t, r.Key)
			require.True(t, l.Has(r.Key))
		}
		_, _ = l.Metric()
	})
}

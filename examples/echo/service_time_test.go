package echo_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
	"github.com/mlperf-host/mlperf-host/examples/echo"
)

// TestServiceTime: service_time is a floor under every Infer call (a
// floor only: a busy machine may add to it), and a value that is not a
// duration is refused naming the option.
func TestServiceTime(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		value string
		code  abi.Code
	}{
		{name: "duration", value: "30ms", code: abi.OK},
		{name: "not a duration", value: "30", code: abi.InvalidArgument},
		{name: "negative", value: "-1ms", code: abi.InvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := newInproc(t, echo.New(echo.Config{MaxBatch: 2, MaxInFlight: 1}))
			st := d.Load(t, &backendv1.LoadRequest{ModelBytes: []byte("m"), Options: map[string]string{echo.OptServiceTime: tt.value}})
			require.Equal(t, tt.code, abi.Code(st.GetCode()), st.GetMessage())
			if tt.code != abi.OK {
				assert.Contains(t, st.GetMessage(), "service_time")
				return
			}
			require.Equal(t, abi.OK, abi.Code(d.LoadSamples(t, scenarioSamples()).GetCode()))
			start := time.Now()
			// Four samples at two per call, one call at a time: two calls.
			got := d.Issue(t, query(1, 1, 2, 3, 4))
			assert.GreaterOrEqual(t, time.Since(start), 60*time.Millisecond)
			for _, c := range got {
				assert.Equal(t, abi.OK, c.Code)
			}
		})
	}
}

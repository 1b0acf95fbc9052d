package runner

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/internal/config"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

// An accuracy run checks every member of a pool: one that answered no
// sample (in any loadable set) fails the run, naming it.
func TestCheckPoolCoverage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		st   *host.PoolStats
		want string
	}{
		{name: "one plugin"},
		{name: "every member answered", st: &host.PoolStats{Members: []host.PoolMemberStats{{Name: "a", Total: 3}, {Name: "b", Total: 1}}}},
		{name: "a member idle", st: &host.PoolStats{Members: []host.PoolMemberStats{{Name: "a", Total: 3}, {Name: "b"}, {Name: "c"}}},
			want: "pool members [b c] answered no sample of the accuracy run: their accuracy was not checked"},
		// Samples of an earlier loadable set count: Total, not Completed.
		{name: "answered in an earlier set", st: &host.PoolStats{Members: []host.PoolMemberStats{{Name: "a", Total: 3, Completed: 3}, {Name: "b", Total: 2}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := checkPoolCoverage(tc.st)
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Equal(t, exitcode.InvalidResult, exitcode.Of(err))
		})
	}
}

func TestSUTLabel(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "plugin onnx", SUTLabel(&config.Config{Plugin: "onnx"}))
	assert.Equal(t, "a pool of 2 (gpu0, simdevice#1)", SUTLabel(&config.Config{Plugin: "onnx",
		Pool: []config.PoolMember{{Name: "gpu0", Plugin: "simdevice"}, {Name: "simdevice#1", Plugin: "simdevice"}}}))
	assert.Equal(t, "a pool of 1 (tensorrt#0 mig=all)", SUTLabel(&config.Config{Plugin: "onnx",
		Pool: []config.PoolMember{{Name: "tensorrt#0", Plugin: "tensorrt", MIG: "all"}}}), "one member per MIG instance, listed at the start")
	assert.Equal(t, "the plugin served at 10.0.0.2:7000", SUTLabel(&config.Config{Plugin: "onnx", Remote: config.RemoteConfig{Address: "10.0.0.2:7000"}}))
}

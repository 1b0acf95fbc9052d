package bridge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/host/hosttest"
	"github.com/mlperf-host/mlperf-host/loadgen"
)

// A pool's members reach the logs: who they are when the test starts,
// their shares and latencies after the timed pass. A single plugin adds
// nothing to the official logs.
func TestPoolInTheLogs(t *testing.T) {
	t.Parallel()
	for _, pooled := range []bool{true, false} {
		dir := t.TempDir()
		var b host.Backend = hosttest.New(host.Info{Name: "a", Version: "1"})
		if pooled {
			p, err := host.NewPool(t.Context(), []host.PoolMember{
				{Name: "gpu0", Backend: hosttest.New(host.Info{Name: "a", Version: "1"})},
				{Name: "gpu1", Backend: hosttest.New(host.Info{Name: "a", Version: "1"})},
			}, host.PoolConfig{})
			require.NoError(t, err)
			b = p
		}
		defer b.Close()
		s := loadgen.DefaultTestSettings()
		s.Scenario, s.MinDuration, s.OfflineExpectedQPS = loadgen.Offline, 10*time.Millisecond, 1000
		_, err := loadgen.StartTest(t.Context(), NewSUT(b, "x"), NewQSL(b, memSet(t, 16), 0), s, loadgen.LogSettings{OutDir: dir})
		require.NoError(t, err)
		detail, err := os.ReadFile(filepath.Join(dir, "mlperf_log_detail.txt"))
		require.NoError(t, err)
		summary, err := os.ReadFile(filepath.Join(dir, "mlperf_log_summary.txt"))
		require.NoError(t, err)
		if !pooled {
			assert.NotContains(t, string(detail), "sut_pool")
			assert.NotContains(t, string(summary), "Pool Members")
			continue
		}
		assert.Contains(t, string(detail), `"key": "sut_pool_members", "value": [{"name":"gpu0","plugin":"a","version":"1","transport":"in-process"},{"name":"gpu1",`)
		assert.Equal(t, 2, strings.Count(string(detail), `"key": "sut_pool_member", "value": {"name":"gpu`))
		assert.Contains(t, string(summary), "\nPool Members\n")
		assert.Contains(t, string(summary), "pool : pool, 2 members; latency from a sample's arrival in the pool to its completion\n")
		assert.Regexp(t, `gpu1 \(a, in-process\) : \d+ samples \(\d+\.\d\d%\), 0 failed, p50 `, string(summary))
	}
}

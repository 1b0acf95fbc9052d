package bridge

import (
	"context"
	"errors"
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

// membersBackend is a backend whose plugin reports members of its own.
type membersBackend struct {
	host.Backend
	st  *host.PoolStats
	err error
}

func (m membersBackend) PluginMembers(context.Context) (*host.PoolStats, error) { return m.st, m.err }

// A plugin's own members (a serving engine's endpoints) reach the logs
// as a pool's do, under their own key and title, and the SUT keeps them
// for the console; a failed Members call says so in the summary.
func TestPluginMembersInTheLogs(t *testing.T) {
	t.Parallel()
	st := &host.PoolStats{Pool: "openai", Latency: "to the last byte", Members: []host.PoolMemberStats{
		{Name: "http://a:8000", Plugin: "openai", Transport: host.TransportProcess, Completed: 3, Share: 0.75,
			Latency: host.LatencyStats{Count: 3, P50: 2 * time.Millisecond}},
		{Name: "http://b:8000", Plugin: "openai", Transport: host.TransportProcess, Completed: 1, Failed: 2, Share: 0.25, FirstError: "HTTP 503: busy"},
	}}
	for _, tc := range []struct {
		name string
		err  error
		want []string
	}{
		{name: "reported", want: []string{"\nPlugin Members\n", "plugin : openai, 2 members; latency to the last byte\n",
			"http://a:8000 (openai, process) : 3 samples (75.00%), 0 failed, p50 2ms",
			"http://b:8000 (openai, process) : 1 samples (25.00%), 2 failed, p50 0s p90 0s p99 0s max 0s; first error: HTTP 503: busy\n"}},
		{name: "the call fails", err: errors.New("plugin gone"), want: []string{"\nPlugin Members\n", "members : not reported: plugin gone\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			b := membersBackend{Backend: hosttest.New(host.Info{Name: "openai", Version: "1"}), st: st, err: tc.err}
			defer b.Close()
			s := loadgen.DefaultTestSettings()
			s.Scenario, s.MinDuration, s.OfflineExpectedQPS = loadgen.Offline, 10*time.Millisecond, 1000
			sut := NewSUT(b, "x")
			sut.SetReportContext(t.Context())
			_, err := loadgen.StartTest(t.Context(), sut, NewQSL(b, memSet(t, 16), 0), s, loadgen.LogSettings{OutDir: dir})
			require.NoError(t, err)
			summary, err := os.ReadFile(filepath.Join(dir, "mlperf_log_summary.txt"))
			require.NoError(t, err)
			for _, w := range tc.want {
				assert.Contains(t, string(summary), w)
			}
			detail, err := os.ReadFile(filepath.Join(dir, "mlperf_log_detail.txt"))
			require.NoError(t, err)
			if tc.err != nil {
				assert.NotContains(t, string(detail), "sut_plugin_member")
				assert.Nil(t, sut.Members())
				return
			}
			assert.Contains(t, string(detail), `"key": "sut_plugin_member", "value": {"name":"http://b:8000","plugin":"openai","transport":"process","samples":1,"failed":2,"share":0.25,`)
			assert.Contains(t, string(detail), `"first_error":"HTTP 503: busy"}`)
			assert.Equal(t, st, sut.Members())
		})
	}
}

package runner

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/host/hosttest"
	"github.com/mlperf-host/mlperf-host/internal/config"
	"github.com/mlperf-host/mlperf-host/loadgen"
)

// oracle is a fake plugin that answers every demo sample with its label
// as a float32 (or, when wrong, the next class).
func oracle(t *testing.T, wrong func(index uint64) bool) (*hosttest.Backend, Plugins) {
	t.Helper()
	d, err := DemoDataset()
	require.NoError(t, err)
	labels := d.Labels()
	b := hosttest.New(host.Info{Name: "oracle", Version: "1", MaxBatch: 32, MaxInFlight: 2})
	b.Output = func(r abi.IssueRecord) []byte {
		cls := labels[r.Index]
		if wrong != nil && wrong(r.Index) {
			cls = (cls + 1) % 10
		}
		return binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(cls)))
	}
	return b, Plugins{OpenFunc: func(context.Context, *config.Config) (host.Backend, error) { return b, nil }}
}

func load(t *testing.T, flags ...string) *config.Config {
	t.Helper()
	var fv []config.FlagValue
	for i := 0; i < len(flags); i += 2 {
		fv = append(fv, config.FlagValue{Key: flags[i], Value: flags[i+1], Flag: "--" + flags[i]})
	}
	c, err := config.Load(config.Inputs{Flags: fv, ReadConf: ReadConf})
	require.NoError(t, err)
	return c
}

func TestRunScenarios(t *testing.T) {
	t.Parallel()
	for _, sc := range []string{"SingleStream", "MultiStream", "Server", "Offline"} {
		t.Run(sc, func(t *testing.T) {
			t.Parallel()
			b, p := oracle(t, nil)
			c := load(t, "scenario", sc, "out", t.TempDir(),
				"settings.min_duration", "50", "settings.min_query_count", "64", "settings.target_qps", "2000")
			o, err := Run(context.Background(), Spec{Config: c, Plugins: p})
			require.NoError(t, err)
			assert.Equal(t, sc, o.Result.Scenario.String())
			assert.Equal(t, loadgen.PerformanceOnly, o.Result.Mode)
			require.NotNil(t, o.Result.Performance)
			assert.Contains(t, o.Files, "mlperf_log_summary.txt")
			assert.Contains(t, o.Files, "mlperf_log_detail.txt")
			assert.Equal(t, o.SUT.Issued, o.SUT.Completed)
			assert.Zero(t, o.SUT.Failed)
			assert.Equal(t, []string{"Load", "LoadSamples", "Warmup"}, b.Calls()[:3], "warm-up after the samples are loaded")
			issued, _ := b.Issued()
			for _, r := range issued {
				require.Zero(t, r.Flags&abi.FlagWantOutput, "performance mode logs no response")
			}
		})
	}
}

func TestRunAccuracy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		wrong func(uint64) bool
		want  float64
		pass  bool
	}{
		{name: "perfect", want: 100, pass: true},
		// One sample in five wrong: 80% is below 99% of 88.7%.
		{name: "poor", wrong: func(i uint64) bool { return i%5 == 0 }, want: 80},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, p := oracle(t, tt.wrong)
			out := t.TempDir()
			c := load(t, "mode", "accuracy", "out", out)
			o, err := Run(context.Background(), Spec{Config: c, Plugins: p})
			require.NoError(t, err)
			require.NotNil(t, o.Accuracy)
			assert.InDelta(t, tt.want, o.Accuracy.Accuracy, 1e-9)
			assert.Equal(t, tt.pass, o.Accuracy.Pass)
			assert.Equal(t, 1000, o.Accuracy.Total)
			txt, err := os.ReadFile(filepath.Join(out, AccuracyTextFile))
			require.NoError(t, err)
			assert.Contains(t, string(txt), "total=1000")
			issued, _ := b.Issued()
			for _, r := range issued {
				require.NotZero(t, r.Flags&abi.FlagWantOutput, "accuracy mode logs every response")
			}
		})
	}
}

func TestRunPluginFailsSamples(t *testing.T) {
	t.Parallel()
	b, p := oracle(t, nil)
	b.Status = func(r abi.IssueRecord) abi.Code {
		if r.Index == 7 {
			return abi.Internal
		}
		return abi.OK
	}
	c := load(t, "mode", "accuracy", "out", t.TempDir())
	o, err := Run(context.Background(), Spec{Config: c, Plugins: p})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "1 samples failed")
	assert.Equal(t, int64(1), o.SUT.Failed)
}

func TestRunInterrupted(t *testing.T) {
	t.Parallel()
	_, p := oracle(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	out := t.TempDir()
	c := load(t, "scenario", "SingleStream", "out", out, "settings.min_duration", "60000")
	sp := Spec{Config: c, Plugins: p, Watch: func(_ context.Context, r *loadgen.Run) func() {
		cancel() // as Ctrl-C right after the start
		return func() {}
	}}
	o, err := Run(ctx, sp)
	require.ErrorIs(t, err, context.Canceled)
	require.NotNil(t, o)
	assert.Contains(t, o.Files, "mlperf_log_detail.txt", "the logs of what happened are kept")
}

package runner

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/config"
	"github.com/mlperf-host/mlperf-host/loadgen"
)

// TestUserConfUnknownKeys: keys of a user.conf that no run reads are
// errors naming the line and the close matches; the official LoadGen
// ignores them. mlperf.conf is read as the official does.
func TestUserConfUnknownKeys(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, conf string
		want       []string // "" when accepted
	}{
		{name: "known keys", conf: "resnet50.Server.target_qps = 100\n*.*.min_duration = 1000\nbert.Offline.target_qps = 3\n"},
		{name: "misspelled setting", conf: "# tuning\n*.Offline.target_qsp = 100\n",
			want: []string{`user.conf:2: key "*.Offline.target_qsp": unknown setting "target_qsp" (did you mean target_qps?)`}},
		{name: "scenario case", conf: "*.offline.target_qps = 100\n",
			want: []string{`unknown scenario "offline" (did you mean Offline?)`}},
		{name: "two parts", conf: "Offline.target_qps = 100\n", want: []string{"want model.scenario.setting"}},
		{name: "every bad line", conf: "*.Offline.target_qsp = 1\n*.Server.targt_latency = 2\n",
			want: []string{"user.conf:1:", "user.conf:2:", "target_latency"}},
		{name: "model with dots", conf: "bert-99.9.Server.target_qps = 1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := filepath.Join(t.TempDir(), "user.conf")
			require.NoError(t, os.WriteFile(p, []byte(tt.conf), 0o644))
			_, err := ReadConf(config.LayerUserConf, p, "resnet50", "Offline")
			if tt.want == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, loadgen.ErrInvalidConfig)
			for _, w := range tt.want {
				assert.ErrorContains(t, err, w)
			}
			_, err = ReadConf(config.LayerMLPerfConf, p, "resnet50", "Offline")
			require.NoError(t, err, "mlperf.conf is not checked")
		})
	}
}

// TestSampleCountOverLimit: a performance_sample_count_override the user
// set larger than the data set is refused; the table's own is not.
func TestSampleCountOverLimit(t *testing.T) {
	t.Parallel()
	_, p := oracle(t, nil)
	c := load(t, "out", t.TempDir(), "settings.performance_sample_count_override", "5000")
	_, err := Run(context.Background(), Spec{Config: c, Plugins: p})
	require.ErrorIs(t, err, config.ErrConfig)
	assert.ErrorContains(t, err, `settings.performance_sample_count_override = "5000" (flag --settings.performance_sample_count_override): the data set has 1000 samples: want at most 1000`)

	c = load(t, "out", t.TempDir(), "settings.performance_sample_count_override", "1000", "settings.min_duration", "10")
	_, err = Run(context.Background(), Spec{Config: c, Plugins: p})
	require.NoError(t, err)
}

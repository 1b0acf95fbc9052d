package dlrmv2

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/accuracy/accuracytest"
)

// The fixture testdata/dlrm is written by tools/accuracyref/make_fixtures.py;
// the expected line is what the official accuracy-dlrm.py prints on it, in
// both of its modes (tools/accuracyref/verify.sh runs it again).
const dlrmWant = "AUC=80.000%, accuracy=70.833%, good=17, total=24, queries=8"

func TestAUCFixture(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "dlrm")
	t.Run("labels in the log", func(t *testing.T) {
		t.Parallel()
		f, err := os.Open(filepath.Join(dir, "mlperf_log_accuracy.json"))
		require.NoError(t, err)
		defer f.Close()
		res, err := AUC(f, nil)
		require.NoError(t, err)
		assert.Equal(t, dlrmWant, res.Text())
	})
	t.Run("day-23 labels", func(t *testing.T) {
		t.Parallel()
		day, err := os.Open(filepath.Join(dir, "day_23"))
		require.NoError(t, err)
		defer day.Close()
		trace, err := os.Open(filepath.Join(dir, "trace.txt"))
		require.NoError(t, err)
		defer trace.Close()
		labels, err := ReadDLRMLabels(day, trace)
		require.NoError(t, err)
		require.Len(t, labels, 8)
		f, err := os.Open(filepath.Join(dir, "predictions_only.json"))
		require.NoError(t, err)
		defer f.Close()
		res, err := AUC(f, labels)
		require.NoError(t, err)
		assert.Equal(t, dlrmWant, res.Text())
	})
}

func TestROCAUC(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		truth, scores []float32
		want          float64
		err           string
	}{
		// sklearn's documented example.
		{name: "sklearn example", truth: []float32{0, 0, 1, 1}, scores: []float32{0.1, 0.4, 0.35, 0.8}, want: 0.75},
		{name: "perfect", truth: []float32{0, 1, 0, 1}, scores: []float32{0.1, 0.9, 0.2, 0.8}, want: 1},
		// A tie between a positive and a negative counts half.
		{name: "tie", truth: []float32{0, 1}, scores: []float32{0.5, 0.5}, want: 0.5},
		{name: "tie among more", truth: []float32{0, 1, 1, 0, 1}, scores: []float32{0.2, 0.2, 0.9, 0.9, 0.9}, want: 3.5 / 6}, // pairs: 2 wins, 3 ties, 1 loss
		{name: "one class", truth: []float32{1, 1}, scores: []float32{0.2, 0.3}, err: "only one class"},
		{name: "bad label", truth: []float32{0, 2}, scores: []float32{0.2, 0.3}, err: "neither 0 nor 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := rocAUC(tt.truth, tt.scores)
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.InDelta(t, tt.want, got, 1e-12)
		})
	}
}

func TestAUCErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		entries []accuracy.Entry
		labels  DLRMLabels
		err     string
	}{
		{name: "odd record", entries: []accuracy.Entry{{QSLIdx: 0, Data: accuracytest.F32(0.5)}}, err: "want float32 records of 2"},
		{name: "no labels", entries: []accuracy.Entry{{QSLIdx: 3, Data: accuracytest.F32(0.5)}}, labels: DLRMLabels{{1}}, err: "qsl_idx 3 has no labels"},
		{name: "pair count", entries: []accuracy.Entry{{QSLIdx: 0, Data: accuracytest.F32(0.5, 0.2)}}, labels: DLRMLabels{{1}}, err: "the trace says 1 pairs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := AUC(accuracytest.Log(t, tt.entries), tt.labels)
			require.ErrorIs(t, err, accuracy.ErrLog)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}

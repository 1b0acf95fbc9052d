package resnet

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/accuracy/accuracytest"
	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

func TestTop1(t *testing.T) {
	t.Parallel()
	labels := []int{0, 1, 2, 3}
	q := benchmarks.Quality{Metric: benchmarks.Top1, Reference: 80, Fraction: 0.9} // target 72%
	tests := []struct {
		name    string
		out     Output
		entries []accuracy.Entry
		want    Result
		err     string
	}{
		{name: "logits all right", out: LogitsFloat32, entries: []accuracy.Entry{
			{SeqID: 0, QSLIdx: 0, Data: accuracytest.F32(9, 1, 1)}, {SeqID: 1, QSLIdx: 1, Data: accuracytest.F32(1, 9, 1)}, {SeqID: 2, QSLIdx: 2, Data: accuracytest.F32(1, 1, 9)}, {SeqID: 3, QSLIdx: 3, Data: accuracytest.F32(0, 0, 0, 1)},
		}, want: Result{Good: 4, Total: 4, Accuracy: 100, Target: 72, Pass: true, DatasetSize: 4, Complete: true}},
		{name: "class float 3 of 4", out: ClassFloat32, entries: []accuracy.Entry{
			{SeqID: 0, QSLIdx: 0, Data: accuracytest.F32(0)}, {SeqID: 1, QSLIdx: 1, Data: accuracytest.F32(1)}, {SeqID: 2, QSLIdx: 2, Data: accuracytest.F32(2)}, {SeqID: 3, QSLIdx: 3, Data: accuracytest.F32(0)},
		}, want: Result{Good: 3, Total: 4, Accuracy: 75, Target: 72, Pass: true, DatasetSize: 4, Complete: true}},
		// A duplicate is not scored twice, and a missing sample fails the run.
		{name: "duplicates and missing", out: ClassInt64, entries: []accuracy.Entry{
			{SeqID: 0, QSLIdx: 0, Data: []byte{0, 0, 0, 0, 0, 0, 0, 0}}, {SeqID: 1, QSLIdx: 0, Data: []byte{5, 0, 0, 0, 0, 0, 0, 0}},
		}, want: Result{Good: 1, Total: 1, Duplicates: 1, Accuracy: 100, Target: 72, DatasetSize: 4}},
		{name: "below target", out: ClassInt32, entries: []accuracy.Entry{
			{SeqID: 0, QSLIdx: 0, Data: []byte{0, 0, 0, 0}}, {SeqID: 1, QSLIdx: 1, Data: []byte{0, 0, 0, 0}}, {SeqID: 2, QSLIdx: 2, Data: []byte{0, 0, 0, 0}}, {SeqID: 3, QSLIdx: 3, Data: []byte{3, 0, 0, 0}},
		}, want: Result{Good: 2, Total: 4, Accuracy: 50, Target: 72, DatasetSize: 4, Complete: true}},
		{name: "index without label", out: ClassInt32, entries: []accuracy.Entry{{SeqID: 0, QSLIdx: 4, Data: []byte{0, 0, 0, 0}}}, err: "qsl_idx 4 has no label"},
		{name: "short response", out: ClassInt64, entries: []accuracy.Entry{{SeqID: 0, QSLIdx: 1, Data: []byte{0}}}, err: "want an int64"},
		// A plugin's NaN, negative or huge class is a wrong answer, not a
		// malformed log.
		{name: "NaN class is wrong", out: ClassFloat32, entries: []accuracy.Entry{
			{SeqID: 0, QSLIdx: 0, Data: accuracytest.F32(0)}, {SeqID: 1, QSLIdx: 1, Data: accuracytest.F32(float32(math.NaN()))},
			{SeqID: 2, QSLIdx: 2, Data: accuracytest.F32(-2)}, {SeqID: 3, QSLIdx: 3, Data: accuracytest.F32(float32(math.Inf(1)))},
		}, want: Result{Good: 1, Total: 4, Accuracy: 25, Target: 72, DatasetSize: 4, Complete: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := Top1(accuracytest.Log(t, tt.entries), labels, tt.out, q)
			if tt.err != "" {
				require.ErrorIs(t, err, accuracy.ErrLog)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.InDelta(t, tt.want.Target, res.Target, 1e-9)
			res.Target = tt.want.Target
			assert.Equal(t, tt.want, res)
		})
	}
	_, err := Top1(accuracytest.Log(t, nil), labels, ClassInt32, benchmarks.Quality{Metric: benchmarks.MAP})
	require.ErrorContains(t, err, "cannot check a mAP")
}

func TestResultText(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "accuracy=88.700%, good=887, total=1000", Result{Good: 887, Total: 1000, Accuracy: 88.7}.Text())
}

func TestParseOutput(t *testing.T) {
	t.Parallel()
	o, err := ParseOutput("logits-float32")
	require.NoError(t, err)
	assert.Equal(t, LogitsFloat32, o)
	_, err = ParseOutput("argmax")
	require.ErrorContains(t, err, "want one of class-float32")
}

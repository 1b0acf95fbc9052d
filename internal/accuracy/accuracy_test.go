package accuracy

import (
	"bytes"
	"encoding/binary"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func f32(vs ...float32) []byte {
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

func TestWriteLogGolden(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	require.NoError(t, WriteLog(&b, []Entry{
		{SeqID: 0, QSLIdx: 3, Data: f32(1, 2)},
		{SeqID: 1, QSLIdx: 0, Data: []byte{0xAB}},
		{SeqID: 2, QSLIdx: 9, Data: nil},
	}))
	golden := filepath.Join("testdata", "accuracy_log.golden")
	if *update {
		require.NoError(t, os.WriteFile(golden, b.Bytes(), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), b.String())

	var got []Entry
	require.NoError(t, ReadLog(bytes.NewReader(b.Bytes()), func(e Entry) error {
		e.Data = bytes.Clone(e.Data)
		got = append(got, e)
		return nil
	}))
	require.Len(t, got, 3)
	assert.Equal(t, f32(1, 2), got[0].Data)
	assert.Equal(t, uint64(9), got[2].QSLIdx)
}

func TestReadLogErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, log, err string }{
		{name: "not json", log: "hello", err: "invalid character"},
		{name: "object", log: `{"seq_id": 1}`, err: "want a JSON array"},
		{name: "missing data", log: `[{"seq_id": 0, "qsl_idx": 1}]`, err: "entry 0: want seq_id, qsl_idx and data"},
		{name: "odd hex", log: `[{"seq_id": 0, "qsl_idx": 1, "data": "ABC"}]`, err: "odd number"},
		{name: "bad hex", log: `[{"seq_id": 0, "qsl_idx": 1, "data": "ZZ"}]`, err: "qsl_idx 1): data"},
		{name: "unterminated", log: `[{"seq_id": 0, "qsl_idx": 1, "data": ""}`, err: "unterminated"},
		{name: "trailing", log: `[] []`, err: "after the array"},
		{name: "negative index", log: `[{"seq_id": 0, "qsl_idx": -1, "data": ""}]`, err: "entry 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := ReadLog(strings.NewReader(tt.log), func(Entry) error { return nil })
			require.ErrorIs(t, err, ErrLog)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
	require.NoError(t, ReadLog(strings.NewReader("[]\n"), func(Entry) error { return nil }))
}

func logOf(t *testing.T, entries []Entry) *bytes.Reader {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, WriteLog(&b, entries))
	return bytes.NewReader(b.Bytes())
}

func TestTop1(t *testing.T) {
	t.Parallel()
	labels := []int{0, 1, 2, 3}
	q := benchmarks.Quality{Metric: benchmarks.Top1, Reference: 80, Fraction: 0.9} // target 72%
	tests := []struct {
		name    string
		out     Output
		entries []Entry
		want    Result
		err     string
	}{
		{name: "logits all right", out: LogitsFloat32, entries: []Entry{
			{0, 0, f32(9, 1, 1), 0}, {1, 1, f32(1, 9, 1), 0}, {2, 2, f32(1, 1, 9), 0}, {3, 3, f32(0, 0, 0, 1), 0},
		}, want: Result{Good: 4, Total: 4, Accuracy: 100, Target: 72, Pass: true, DatasetSize: 4, Complete: true}},
		{name: "class float 3 of 4", out: ClassFloat32, entries: []Entry{
			{0, 0, f32(0), 0}, {1, 1, f32(1), 0}, {2, 2, f32(2), 0}, {3, 3, f32(0), 0},
		}, want: Result{Good: 3, Total: 4, Accuracy: 75, Target: 72, Pass: true, DatasetSize: 4, Complete: true}},
		// A duplicate is not scored twice, and a missing sample fails the run.
		{name: "duplicates and missing", out: ClassInt64, entries: []Entry{
			{0, 0, []byte{0, 0, 0, 0, 0, 0, 0, 0}, 0}, {1, 0, []byte{5, 0, 0, 0, 0, 0, 0, 0}, 0},
		}, want: Result{Good: 1, Total: 1, Duplicates: 1, Accuracy: 100, Target: 72, DatasetSize: 4}},
		{name: "below target", out: ClassInt32, entries: []Entry{
			{0, 0, []byte{0, 0, 0, 0}, 0}, {1, 1, []byte{0, 0, 0, 0}, 0}, {2, 2, []byte{0, 0, 0, 0}, 0}, {3, 3, []byte{3, 0, 0, 0}, 0},
		}, want: Result{Good: 2, Total: 4, Accuracy: 50, Target: 72, DatasetSize: 4, Complete: true}},
		{name: "index without label", out: ClassInt32, entries: []Entry{{0, 4, []byte{0, 0, 0, 0}, 0}}, err: "qsl_idx 4 has no label"},
		{name: "short response", out: ClassInt64, entries: []Entry{{0, 1, []byte{0}, 0}}, err: "want an int64"},
		{name: "NaN class", out: ClassFloat32, entries: []Entry{{0, 1, f32(float32(math.NaN())), 0}}, err: "not a class index"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := Top1(logOf(t, tt.entries), labels, tt.out, q)
			if tt.err != "" {
				require.ErrorIs(t, err, ErrLog)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.InDelta(t, tt.want.Target, res.Target, 1e-9)
			res.Target = tt.want.Target
			assert.Equal(t, tt.want, res)
		})
	}
	_, err := Top1(logOf(t, nil), labels, ClassInt32, benchmarks.Quality{Metric: benchmarks.MAP})
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

func FuzzReadLog(f *testing.F) {
	f.Add(`[{"seq_id": 0, "qsl_idx": 1, "data": "0A0B"}]`)
	f.Add("[\n{ \"seq_id\" : 0, \"qsl_idx\" : 3, \"data\" : \"0000803F\" }\n]\n")
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, s string) {
		n := 0
		err := ReadLog(strings.NewReader(s), func(e Entry) error {
			n++
			return nil
		})
		if err != nil {
			require.ErrorIs(t, err, ErrLog)
		}
	})
}

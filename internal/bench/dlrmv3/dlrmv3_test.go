package dlrmv3

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/py"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

func TestReaderFixture(t *testing.T) {
	t.Parallel()
	require.True(t, Reader.Is(fixtureDir, dataset.Options{}))
	d, err := Reader.Open(fixtureDir, dataset.Options{})
	require.NoError(t, err)
	s := d.(*Streaming)
	assert.Equal(t, 18, s.TrainTS)
	assert.Equal(t, []int{10, 6}, s.Requests)
	assert.Equal(t, 16, s.Len())
	assert.Contains(t, dataset.Form(s), "2 for inference")
	// User 0 requests at every timestamp: its history at the second
	// inference timestamp is its slots 0..18 and 20, its candidates slot 21.
	users := GenerateUsers(fixtureSeed, fixtureUsers, fixtureTS)
	var hist []int64
	for i, sl := range users[0] {
		if i <= 18 || i == 20 {
			hist = append(hist, sl.HistoryIDs...)
		}
	}
	shapes, err := s.Shapes(10)
	require.NoError(t, err)
	assert.Equal(t, []int{len(hist)}, shapes[2])
	assert.Equal(t, []int{len(users[0][21].CandidateIDs)}, shapes[4])
	r := fixtureResults(t, s)[10]
	assert.Equal(t, 1, r.TS)
	assert.Equal(t, 0, r.Query)
}

func TestReaderErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, want string
		edit             func(string) string
	}{
		{name: "offset off a line", file: "offset.csv", want: "0.csv: corrupt", edit: func(s string) string { return strings.Replace(s, ",", "1,", 1) }},
		{name: "not a number", file: "0.csv", want: "0.csv: user 0 timestamp 0 history", edit: func(s string) string { return strings.ReplaceAll(s, "2.0", "2.x") }},
		{name: "cumsum disagrees", file: "users_cumsum_per_ts.csv", want: "users_cumsum_per_ts.csv", edit: func(s string) string {
			return strings.Replace(s, "10\r\n6\r\n", "9\r\n6\r\n", 1)
		}},
		{name: "missing file", file: "requests_per_ts_offset.csv", want: "requests_per_ts_offset.csv", edit: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			require.NoError(t, WriteStreaming(dir, fixtureTS, GenerateUsers(fixtureSeed, fixtureUsers, fixtureTS)))
			p := filepath.Join(dir, tt.file)
			if tt.edit == nil {
				require.NoError(t, os.Remove(p))
			} else {
				b, err := os.ReadFile(p)
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(p, []byte(tt.edit(string(b))), 0o644))
			}
			_, err := OpenStreaming(dir)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestMetrics(t *testing.T) {
	t.Parallel()
	var m Metrics
	// Two responses: the first ranks its positive over both negatives
	// (AUC 1), the second has one class only (skipped by GAUC).
	m.Add(Result{Predictions: []float32{0.9, 0.2, 0.6}, Labels: []float32{1, 0, 0}, Weights: []float32{1, 1, 1}})
	m.Add(Result{Predictions: []float32{0.4}, Labels: []float32{1}, Weights: []float32{1}})
	assert.InDelta(t, 1.0, m.GAUC(), 1e-9)
	assert.InDelta(t, 0.5, m.Accuracy(), 1e-12) // 0.9 and 0.2 right; 0.6 and 0.4 wrong
	// NE: cross entropy (bits) over the mean label's (two of four).
	ce := -(log2(0.9) + log2(0.8) + log2(0.4) + log2(0.4))
	assert.InDelta(t, ce/4, m.NE(), 1e-6)
	assert.Equal(t, "metric/lifetime_ne/rating: "+py.Float(m.NE())+", metric/lifetime_accuracy/rating: 0.5, metric/lifetime_gauc/rating: "+py.Float(m.GAUC()), m.Text())
}

func TestParseResultErrors(t *testing.T) {
	t.Parallel()
	good := AppendResult(nil, Result{Predictions: []float32{0.5}, Labels: []float32{1}, Weights: []float32{1}})
	_, err := ParseResult(good)
	require.NoError(t, err)
	for name, data := range map[string][]byte{"short": good[:8], "odd bytes": good[:len(good)-1], "wrong count": good[4:]} {
		_, err := ParseResult(data)
		require.ErrorIs(t, err, accuracy.ErrLog, name)
	}
}

func TestScoreFixture(t *testing.T) {
	t.Parallel()
	f, err := os.Open(filepath.Join(fixtureDir, "mlperf_log_accuracy.json"))
	require.NoError(t, err)
	defer f.Close()
	s, err := Scorer.Score(f, accuracy.Inputs{})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(s.Text(), "metric/lifetime_ne/rating: "))
	v, ok := s.Value(GAUC)
	require.True(t, ok)
	assert.Greater(t, v, 0.0)
}

func TestVerifyTEST08(t *testing.T) {
	t.Parallel()
	acc, err := os.ReadFile(filepath.Join(fixtureDir, "mlperf_log_accuracy.json"))
	require.NoError(t, err)
	perf, err := os.ReadFile(filepath.Join(fixtureDir, "test08_log_accuracy.json"))
	require.NoError(t, err)
	v, err := VerifyTEST08(bytes.NewReader(acc), bytes.NewReader(perf), TEST08Tolerance)
	require.NoError(t, err)
	assert.True(t, v.Pass())
	assert.Equal(t, TEST08{AccEntries: 16, PerfEntries: 8, Matched: 8, Tolerance: TEST08Tolerance}, v)
	golden, err := os.ReadFile("testdata/test08_verify_accuracy.txt")
	require.NoError(t, err)
	assert.Equal(t, string(golden), v.Text())

	// Predictions changed: a mismatch; a key the accuracy run lacks: unmatched.
	bad := AppendResult(nil, Result{TS: 0, Query: 0, Predictions: []float32{0.01, 0.99, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5}})
	var b bytes.Buffer
	require.NoError(t, accuracy.WriteLog(&b, []accuracy.Entry{{Data: bad[:4*(2+firstCandidates(t, acc))]},
		{SeqID: 1, Data: AppendResult(nil, Result{TS: 7, Query: 7})[:8]}}))
	v, err = VerifyTEST08(bytes.NewReader(acc), &b, TEST08Tolerance)
	require.NoError(t, err)
	assert.False(t, v.Pass())
	assert.Equal(t, 1, v.Unmatched)
	assert.Contains(t, v.Text(), "TEST FAIL")
}

// firstCandidates is the candidate count of the accuracy log's first
// response (ts 0, query 0).
func firstCandidates(t *testing.T, acc []byte) int {
	t.Helper()
	var n int
	require.NoError(t, accuracy.ReadLog(bytes.NewReader(acc), func(e accuracy.Entry) error {
		r, err := ParseResult(e.Data)
		if err == nil && r.TS == 0 && r.Query == 0 {
			n = len(r.Predictions)
		}
		return err
	}))
	return n
}

func FuzzParseResult(f *testing.F) {
	f.Add(AppendResult(nil, Result{Predictions: []float32{0.5}, Labels: []float32{1}, Weights: []float32{1}}))
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseResult(data)
		if err == nil {
			assert.Equal(t, data, AppendResult(nil, r)[:len(data)])
		}
	})
}

func log2(x float64) float64 { return math.Log2(x) }

package sdxl

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// readFeatures reads a float64 [N, D] .npy file of testdata.
func readFeatures(t *testing.T, name string) [][]float64 {
	t.Helper()
	path := filepath.Join("testdata", name)
	h, err := dataset.ReadNPYFileHeader(path)
	require.NoError(t, err)
	require.Equal(t, dataset.Float64, h.Spec.DType)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	data = data[h.DataOffset:]
	rows := make([][]float64, h.Spec.Shape[0])
	for i := range rows {
		rows[i] = make([]float64, h.Spec.Shape[1])
		for j := range rows[i] {
			rows[i][j] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*(i*len(rows[i])+j):]))
		}
	}
	return rows
}

// TestFIDAgainstScipy: the FID of the statistics of testdata's random
// features. The want values are the official calculate_frechet_distance
// (fid_score.py, scipy 1.10's sqrtm) on np.mean and np.cov of the same
// files (docs/benchmarks.md says how it was run); c and d are fewer
// rows than features, singular covariances.
func TestFIDAgainstScipy(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		a, b string
		want float64
	}{
		{name: "full rank", a: "features_a.npy", b: "features_b.npy", want: 6.8391241250078085},
		{name: "singular", a: "features_c.npy", b: "features_d.npy", want: 17.218433181911344},
		{name: "same", a: "features_a.npy", b: "features_a.npy", want: 0},
		// 100 and 90 rows of 64 features of growing scales.
		{name: "64 features", a: "features_e.npy", b: "features_f.npy", want: 192.79447031979703},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s1, err := NewStatistics(readFeatures(t, tc.a))
			require.NoError(t, err)
			s2, err := NewStatistics(readFeatures(t, tc.b))
			require.NoError(t, err)
			got, err := FID(s1, s2)
			require.NoError(t, err)
			assert.InDelta(t, tc.want, got, 1e-9*math.Max(1, tc.want))
		})
	}
}

// TestFIDOneDimension: in one dimension FID is (m1-m2)² + s1 + s2 -
// 2√(s1 s2).
func TestFIDOneDimension(t *testing.T) {
	t.Parallel()
	got, err := FID(Statistics{Mu: []float64{1}, Sigma: []float64{4}}, Statistics{Mu: []float64{3}, Sigma: []float64{9}})
	require.NoError(t, err)
	assert.InDelta(t, 4+4+9-2*6, got, 1e-12)
}

// TestStatistics: np.mean(axis=0) and np.cov(rowvar=False) of two rows.
func TestStatistics(t *testing.T) {
	t.Parallel()
	s, err := NewStatistics([][]float64{{1, 2}, {3, 6}})
	require.NoError(t, err)
	assert.Equal(t, []float64{2, 4}, s.Mu)
	assert.Equal(t, []float64{2, 4, 4, 8}, s.Sigma)
}

// TestFIDErrors: statistics of different sizes, or not a covariance.
func TestFIDErrors(t *testing.T) {
	t.Parallel()
	one := Statistics{Mu: []float64{1}, Sigma: []float64{1}}
	two := Statistics{Mu: []float64{1, 2}, Sigma: []float64{1, 0, 0, 1}}
	_, err := FID(one, two)
	require.ErrorContains(t, err, "statistics of 1 and 2 features")
	_, err = FID(two, Statistics{Mu: []float64{1, 2}, Sigma: []float64{1, 0.5, 0, 1}})
	require.ErrorContains(t, err, "not symmetric")
	_, err = FID(one, Statistics{Mu: []float64{1}})
	require.Error(t, err)
	_, err = NewStatistics([][]float64{{1}})
	require.Error(t, err)
	_, err = NewStatistics([][]float64{{1}, {1, 2}})
	require.ErrorContains(t, err, "feature row 1")
}

// TestCLIPScore: 100 × the cosine of each pair, averaged; the lengths
// of the embeddings do not matter.
func TestCLIPScore(t *testing.T) {
	t.Parallel()
	got, err := CLIPScore([][]float32{{3, 4}, {1, 0}}, [][]float32{{6, 8}, {0, 2}})
	require.NoError(t, err)
	assert.InDelta(t, 50.0, got, 1e-5)
	_, err = CLIPScore([][]float32{{1}}, nil)
	require.Error(t, err)
	_, err = CLIPScore([][]float32{{0, 0}}, [][]float32{{1, 0}})
	require.ErrorContains(t, err, "zero embedding")
}

// TestCholesky: L Lᵀ of a positive definite matrix, and a singular one
// refused (FID then takes the square root).
func TestCholesky(t *testing.T) {
	t.Parallel()
	l, ok := cholesky([]float64{4, 2, 2, 10}, 2)
	require.True(t, ok)
	assert.Equal(t, []float64{2, 0, 1, 3}, l)
	_, ok = cholesky([]float64{1, 1, 1, 1}, 2)
	assert.False(t, ok)
}

package py

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPandasNanMean: the zeros stand where the missing cells are, so
// the pairwise sum's blocks are the column's, not those of the cells
// present.
func TestPandasNanMean(t *testing.T) {
	t.Parallel()
	assert.InDelta(t, 2.0, PandasNanMean([]float64{1, 99, 3}, []bool{true, false, true}), 0)
	assert.True(t, math.IsNaN(PandasNanMean([]float64{1}, []bool{false})))
	cells, present := make([]float64, 300), make([]bool, 300)
	var kept []float64
	for i := range cells {
		cells[i] = 1 / float64(i+3)
		if present[i] = i%3 != 0; present[i] {
			kept = append(kept, cells[i])
		}
	}
	got := PandasNanMean(cells, present)
	assert.InDelta(t, NumpyMean(kept), got, 1e-12)
}
